"""Index recursion rules: roots, children, loops, depth, caps; URL dedup."""

from __future__ import annotations

import pytest

from auditor.codes import Code
from auditor.limits import MAX_ENTRIES
from auditor.models import (
    AlreadyRead,
    Finding,
    FoundBy,
    SitemapKind,
    StatusClass,
)
from auditor.results.dedup import UrlDedup
from auditor.sitemap.tree_rules import Job, SitemapTree
from auditor.urls import url_digest
from tests.helpers import url_key


def root_job(url: str = "https://example.com/index.xml") -> Job:
    return Job(url, url_key(url), 0, FoundBy.TARGET)


def child(tree: SitemapTree, parent: Job, url: str, *, position: int = 1) -> Job | Finding | None:
    return tree.add_child(
        parent,
        loc=url,
        key=url_key(url),
        parent_keys=frozenset({parent.key}) | parent.ancestors,
        position=position,
    )


def test_add_root_dedups() -> None:
    tree = SitemapTree(max_depth=5, max_sitemaps=100)
    assert tree.add_root(root_job()) == root_job()
    assert tree.add_root(root_job()) is None
    assert tree.add_root(root_job("HTTPS://EXAMPLE.COM/index.xml")) is None
    other = root_job("https://example.com/other.xml")
    assert tree.add_root(other) == other


def test_add_root_honours_the_run_cap_once() -> None:
    tree = SitemapTree(max_depth=5, max_sitemaps=2)
    assert isinstance(tree.add_root(root_job("https://example.com/1.xml")), Job)
    assert isinstance(tree.add_root(root_job("https://example.com/2.xml")), Job)
    capped = tree.add_root(root_job("https://example.com/3.xml"))
    assert isinstance(capped, Finding)
    assert capped.code is Code.RUN_LIMIT_REACHED  # the run's own cap is no site error
    assert tree.add_root(root_job("https://example.com/4.xml")) is None


def test_a_redirect_outside_indexes_to_a_known_document_is_no_finding() -> None:
    tree = SitemapTree(max_depth=5, max_sitemaps=100)
    known = root_job("https://example.com/sitemap_index.xml")
    probe = Job(
        "https://example.com/sitemap.xml",
        url_key("https://example.com/sitemap.xml"),
        0,
        FoundBy.PROBE,
    )
    tree.add_root(known)
    tree.add_root(probe)
    assert tree.check_hop(probe, known.key) == AlreadyRead(known.key)


def test_add_child_gives_a_job_one_level_down() -> None:
    tree = SitemapTree(max_depth=5, max_sitemaps=100)
    parent = root_job()
    tree.add_root(parent)
    job = child(tree, parent, "https://example.com/s1.xml")
    assert job == Job(
        url="https://example.com/s1.xml",
        key="https://example.com/s1.xml",
        target=0,
        found_by=FoundBy.INDEX,
        parent=parent.url,
        parent_kind=SitemapKind.SITEMAPINDEX,
        depth=1,
        ancestors=frozenset({parent.key}),
    )
    assert isinstance(job, Job)
    grandchild = child(tree, job, "https://example.com/s2.xml")
    assert isinstance(grandchild, Job)
    assert grandchild.depth == 2
    assert grandchild.ancestors == frozenset({parent.key, job.key})


def test_index_listing_itself_is_a_loop() -> None:
    tree = SitemapTree(max_depth=5, max_sitemaps=100)
    parent = root_job()
    tree.add_root(parent)
    result = child(tree, parent, "https://example.com/index.xml")
    assert isinstance(result, Finding)
    assert result.code is Code.INDEX_LOOP
    assert result.sitemap == parent.url


def test_index_listing_an_ancestor_is_a_loop() -> None:
    tree = SitemapTree(max_depth=5, max_sitemaps=100)
    top = root_job()
    tree.add_root(top)
    middle = child(tree, top, "https://example.com/middle.xml")
    assert isinstance(middle, Job)
    result = child(tree, middle, "https://EXAMPLE.com/index.xml")
    assert isinstance(result, Finding)
    assert result.code is Code.INDEX_LOOP


def test_child_listed_twice_is_a_duplicate() -> None:
    tree = SitemapTree(max_depth=5, max_sitemaps=100)
    parent = root_job()
    tree.add_root(parent)
    assert isinstance(child(tree, parent, "https://example.com/s1.xml"), Job)
    result = child(tree, parent, "https://example.com/s1.xml")
    assert isinstance(result, Finding)
    assert result.code is Code.INDEX_DUPLICATE_CHILD
    assert result.detail == {"first_parent": parent.url}


def test_child_already_read_as_a_root_is_a_duplicate() -> None:
    tree = SitemapTree(max_depth=5, max_sitemaps=100)
    parent = root_job()
    tree.add_root(parent)
    tree.add_root(root_job("https://example.com/s1.xml"))
    result = child(tree, parent, "https://example.com/s1.xml")
    assert isinstance(result, Finding)
    assert result.code is Code.INDEX_DUPLICATE_CHILD
    assert result.detail == {"first_parent": None}


@pytest.mark.parametrize(("max_depth", "allowed_levels"), [(1, 1), (2, 2), (0, 0)])
def test_index_too_deep(max_depth: int, allowed_levels: int) -> None:
    tree = SitemapTree(max_depth=max_depth, max_sitemaps=100)
    job = root_job()
    tree.add_root(job)
    for level in range(1, allowed_levels + 1):
        nxt = child(tree, job, f"https://example.com/level{level}.xml")
        assert isinstance(nxt, Job)
        job = nxt
    result = child(tree, job, "https://example.com/too-deep.xml")
    assert isinstance(result, Finding)
    assert result.code is Code.INDEX_TOO_DEEP
    assert result.detail == {"max_depth": max_depth}


def test_children_past_position_50000_are_dropped_silently() -> None:
    tree = SitemapTree(max_depth=5, max_sitemaps=100)
    parent = root_job()
    tree.add_root(parent)
    at_limit = child(tree, parent, "https://example.com/a.xml", position=MAX_ENTRIES)
    assert isinstance(at_limit, Job)
    assert child(tree, parent, "https://example.com/b.xml", position=MAX_ENTRIES + 1) is None
    # Not registered: the same URL at a legal position is still a new child.
    assert isinstance(child(tree, parent, "https://example.com/b.xml"), Job)


def test_run_cap_is_reported_once() -> None:
    tree = SitemapTree(max_depth=5, max_sitemaps=3)
    parent = root_job()
    tree.add_root(parent)  # 1 document
    assert isinstance(child(tree, parent, "https://example.com/1.xml"), Job)  # 2
    assert isinstance(child(tree, parent, "https://example.com/2.xml"), Job)  # 3
    capped = child(tree, parent, "https://example.com/3.xml")
    assert isinstance(capped, Finding)
    assert capped.code is Code.RUN_LIMIT_REACHED  # the run's own cap is no site error
    assert capped.code is Code.RUN_LIMIT_REACHED
    assert capped.detail == {"option": "--max-sitemaps", "limit": 3}
    assert child(tree, parent, "https://example.com/4.xml") is None
    assert child(tree, parent, "https://example.com/5.xml") is None


def test_check_hop_loop_back_to_an_ancestor_or_itself() -> None:
    tree = SitemapTree(max_depth=5, max_sitemaps=100)
    top = root_job()
    tree.add_root(top)
    job = child(tree, top, "https://example.com/s1.xml")
    assert isinstance(job, Job)
    to_ancestor = tree.check_hop(job, top.key)
    assert isinstance(to_ancestor, Finding)
    assert to_ancestor.code is Code.INDEX_LOOP
    assert to_ancestor.detail == {"via": top.key}
    to_itself = tree.check_hop(job, job.key)
    assert isinstance(to_itself, Finding)
    assert to_itself.code is Code.INDEX_LOOP


def test_check_hop_duplicate_via_redirect_then_visited() -> None:
    tree = SitemapTree(max_depth=5, max_sitemaps=100)
    top = root_job()
    tree.add_root(top)
    first = child(tree, top, "https://example.com/s1.xml")
    second = child(tree, top, "https://example.com/s2.xml")
    assert isinstance(first, Job)
    assert isinstance(second, Job)
    duplicate = tree.check_hop(second, first.key)
    assert isinstance(duplicate, Finding)
    assert duplicate.code is Code.INDEX_DUPLICATE_CHILD
    assert duplicate.detail == {"first_parent": top.url, "via_redirect": True}
    # A fresh target is marked visited: a later listing of it is a duplicate.
    assert tree.check_hop(first, url_key("https://example.com/moved.xml")) is None
    again = child(tree, top, "https://example.com/moved.xml")
    assert isinstance(again, Finding)
    assert again.code is Code.INDEX_DUPLICATE_CHILD


def test_url_dedup_first_listing() -> None:
    dedup: UrlDedup[str] = UrlDedup()
    a, b = url_digest("https://example.com/a"), url_digest("https://example.com/b")
    assert dedup.first_listing(a, "https://example.com/s1.xml") is None
    assert dedup.first_listing(b, "https://example.com/s2.xml") is None
    first = "https://example.com/s1.xml"
    assert dedup.first_listing(a, "https://example.com/s2.xml") == first
    assert dedup.first_listing(a, "https://example.com/s3.xml") == first
    assert dedup.first_listing(a, first) == first
    assert len(dedup) == 2


def test_url_dedup_keeps_outcomes_beside_first_listings() -> None:
    dedup: UrlDedup[str] = UrlDedup()
    a, b, c = (url_digest(f"https://example.com/{name}") for name in "abc")
    for digest in (a, b):
        dedup.first_listing(digest, "https://example.com/s1.xml")
    assert dedup.outcome(a) is None
    dedup.set_outcome(a, StatusClass.S4XX, failing=True, indexable=False)
    dedup.set_outcome(b, StatusClass.S2XX, failing=False, indexable=True)
    dedup.set_outcome(c, StatusClass.S2XX, failing=False, indexable=True)  # never listed: ignored
    assert dedup.outcome(a) == (StatusClass.S4XX, True, False)
    assert dedup.outcome(b) == (StatusClass.S2XX, False, True)
    assert dedup.outcome(c) is None
    assert dedup.first_listing(a, "https://example.com/s2.xml") == "https://example.com/s1.xml"
    dedup.set_outcome(a, StatusClass.NONE, failing=False, indexable=False)
    assert dedup.outcome(a) == (StatusClass.NONE, False, False)
