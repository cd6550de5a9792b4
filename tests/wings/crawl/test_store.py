"""The crawl's frontier and pages on disk (auditor.wings.crawl.page_store): first in, first out."""

from __future__ import annotations

from pathlib import Path

import pytest

from auditor.models import CheckResult, NotIndexable
from auditor.wings.crawl import page_store as store_module
from auditor.wings.crawl.page_store import CrawlStore, Queued, Reached, State


async def test_the_frontier_keeps_its_order_across_the_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(store_module, "QUEUE_MEMORY", 7)
    monkeypatch.setattr(store_module, "QUEUE_READ", 5)
    taken: list[int] = []
    async with CrawlStore(tmp_path / "crawl.sqlite") as store:
        ident = 1
        for _ in range(4):  # pushes and pops interleaved, as a crawl does
            for _ in range(9):
                await store.push(Queued(ident, f"https://e.com/{ident}", ident, 1, 0))
                ident += 1
            for _ in range(6):
                assert await store.refill()
                taken.append(store.pop().id)
        while await store.refill():
            taken.append(store.pop().id)
        assert store.path is not None
        assert store.path.exists()
    assert taken == list(range(1, ident))
    assert list(tmp_path.iterdir()) == []  # dropped with the run


async def test_a_url_of_the_level_being_read_is_taken_first(tmp_path: Path) -> None:
    async with CrawlStore(tmp_path / "crawl.sqlite") as store:
        await store.push(Queued(1, "https://e.com/1", 1, 1, 0))
        await store.push(Queued(2, "https://e.com/2", 2, 2, 0))
        await store.push(Queued(3, "https://e.com/3", 3, 1, 1), first=True)
        taken = []
        while await store.refill():
            taken.append(store.pop().id)
            if taken == [3]:  # queued while the first is read: still ahead of the others
                await store.push(Queued(4, "https://e.com/4", 4, 1, 3), first=True)
        assert store.queued == 0
    assert taken == [3, 4, 1, 2]


async def test_reached_urls_come_back_with_their_check_and_referrer(tmp_path: Path) -> None:
    check = CheckResult(404, final_url="https://e.com/b", final_status=404)
    check.not_indexable = NotIndexable.CLIENT_ERROR
    async with CrawlStore(tmp_path / "crawl.sqlite") as store:
        await store.add(Reached(1, "https://e.com/", 2**64 - 1, 0, 0, State.READ, True, 3, True,
                                CheckResult(200)))  # fmt: skip
        await store.add(Reached(2, "https://e.com/b", 5, 1, 1, State.READ, True, 0, False, check))
        await store.add(Reached(3, "https://e.com/c", 6, 1, 1, State.NOFOLLOW, False, None, False,
                                None))  # fmt: skip
        await store.flush()
        found = await store.find([2, 3])
        pages = await store.read_pages(0, 10)
    assert found[2].linked_from == "https://e.com/"
    assert found[2].result == check
    assert (found[3].requested, found[3].result) == (False, None)
    assert [page.id for page in pages] == [1, 2]  # only the URLs the crawl requested
    assert pages[0].digest == 2**64 - 1  # an unsigned digest, kept whole
