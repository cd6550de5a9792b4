"""Per-host pacing: the --rate token bucket and the slow-down after 429/503 (pure)."""

from __future__ import annotations

import pytest

from auditor.net.pacer import MAX_GAP_S, MIN_GAP_S, Pacer


def pacer(rate: float | None = None) -> Pacer:
    return Pacer(rate=rate, backoff_base_s=0.5, max_pause_s=60.0)


def test_no_rate_and_no_throttle_never_waits() -> None:
    p = pacer()
    assert [p.reserve("a.example", 10.0) for _ in range(100)] == [0.0] * 100


def test_rate_spaces_requests_to_one_host() -> None:
    p = pacer(rate=4)
    assert [p.reserve("a.example", 10.0) for _ in range(4)] == [0.0, 0.25, 0.5, 0.75]
    assert p.reserve("b.example", 10.0) == 0.0  # per host
    assert p.reserve("a.example", 12.0) == 0.0  # the bucket refilled while idle


def test_a_throttle_pauses_the_host_for_everyone() -> None:
    p = pacer()
    assert p.throttled("a.example", 100.0, retry_after_s=None) == 0.5
    assert p.reserve("a.example", 100.0) == pytest.approx(0.5)
    assert p.reserve("a.example", 100.0) == pytest.approx(0.5 + MIN_GAP_S)  # and spaces them
    assert p.reserve("b.example", 100.0) == 0.0


def test_retry_after_is_honoured_and_capped() -> None:
    p = Pacer(rate=None, backoff_base_s=0.5, max_pause_s=30.0)
    assert p.throttled("a", 0.0, retry_after_s=7.0) == 7.0
    assert p.reserve("a", 1.0) == pytest.approx(6.0)
    assert p.throttled("b", 0.0, retry_after_s=86_400.0) == 30.0


def test_repeated_throttles_grow_then_answers_relax() -> None:
    p = pacer()
    pauses = [p.throttled("a", 0.0, retry_after_s=None) for _ in range(4)]
    assert pauses == [0.5, 1.0, 2.0, 4.0]
    assert p.gap_s("a") == pytest.approx(MIN_GAP_S * 8)
    for _ in range(200):
        p.throttled("b", 0.0, retry_after_s=None)
    assert p.gap_s("b") == MAX_GAP_S
    for _ in range(100):
        p.answered("a")
    assert p.gap_s("a") == 0.0
    assert p.throttled("a", 0.0, retry_after_s=None) == 0.5  # strikes were reset


def test_rate_and_adaptive_gap_take_the_larger() -> None:
    p = pacer(rate=100)  # 0.01 s
    p.throttled("a", 0.0, retry_after_s=0.0)
    p.throttled("a", 0.0, retry_after_s=0.0)
    assert p.gap_s("a") == 2 * MIN_GAP_S
    p.answered("a")
    assert p.gap_s("a") == pytest.approx(0.09)
    for _ in range(50):
        p.answered("a")
    assert p.gap_s("a") == pytest.approx(0.01)
