"""--include/--exclude and --sample (pure)."""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import given
from hypothesis import strategies as st

from auditor.checks.selection import Reservoir, UrlFilter


def test_filter_include_any_exclude_none() -> None:
    select = UrlFilter([r"/blog/", r"/docs/"], [r"draft"])
    assert not select.everything
    assert select.wants("https://a.example/blog/post")
    assert select.wants("https://a.example/docs/x")
    assert not select.wants("https://a.example/shop/x")
    assert not select.wants("https://a.example/blog/draft-1")
    assert UrlFilter([], []).everything
    assert UrlFilter([], ["zzz"]).wants("https://a.example/") is True


@given(st.integers(0, 300), st.integers(1, 50), st.integers(0, 2**32))
def test_reservoir_keeps_size_and_loses_nothing(items: int, size: int, seed: int) -> None:
    sample = Reservoir[int](size, random.Random(seed))
    left_out = [out for n in range(items) if (out := sample.offer(n)) is not None]
    kept = sample.take()
    assert len(kept) == min(size, items)
    assert sorted(kept + left_out) == list(range(items))  # every item once: kept or handed back
    assert sample.take() == []


def test_reservoir_is_uniform() -> None:
    counts: Counter[int] = Counter()
    rng = random.Random(7)
    for _ in range(4000):
        sample = Reservoir[int](2, rng)
        for n in range(10):
            sample.offer(n)
        counts.update(sample.take())
    # each of 10 items is kept with probability 2/10: 800 of 4000 draws, give or take
    assert all(650 < counts[n] < 950 for n in range(10)), counts
