"""The run-wide hreflang store against a plain reading of Google's rule, on random sites.

Google Search Central, "Tell Google about localized versions of your page": each language
version lists every other, itself included; "If two pages don't both point to each other, the
tags will be ignored." The store answers with SQL over a file (auditor.sitemap.hreflang_store);
`expected` answers the same question over the clusters in memory, page by page. Tiny batches
and a tiny memory of recent clusters make rows cross batches and clusters come back, or stay
open over a write; one batch for all lets every page settle its link while it is gathered.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import auditor.sitemap.hreflang_store as store_module
from auditor.models import Alternate, Finding
from auditor.sitemap.extensions.hreflang import X_DEFAULT, Cluster, read_alternates
from auditor.sitemap.hreflang_store import LinkStore
from auditor.urls import parse_http_url, url_digest

LANGUAGES = ("en", "fr", "de", X_DEFAULT)
URLS = 10
SITEMAPS = ("http://s.test/a.xml", "http://s.test/b.xml")

Said = tuple[str, str, str, str, str | None]  # code, page, language, alternate, its own language


def url(n: int) -> str:
    return f"http://s.test/p{n}"


def digest(text: str) -> int:
    parsed = parse_http_url(text)
    assert parsed is not None
    return url_digest(parsed.key)


Listing = tuple[int, str, list[tuple[str, int]]]  # a URL, its sitemap, the links it names
links = st.lists(st.tuples(st.sampled_from(LANGUAGES), st.integers(0, URLS - 1)), max_size=5)
strays = st.lists(st.tuples(st.integers(0, URLS - 1), st.sampled_from(SITEMAPS), links), max_size=6)


@st.composite
def sites(draw: st.DrawFn) -> list[Listing]:
    """Clusters as generators write them (each version lists the same links, one after
    another), some pages with a link dropped, stray listings, at times all shuffled."""
    site: list[Listing] = []
    for named in draw(st.lists(links, max_size=6)):
        for _, number in named:
            mine = list(named)
            if draw(st.integers(0, 3)) == 0:
                del mine[draw(st.integers(0, len(mine) - 1))]
            site.append((number, draw(st.sampled_from(SITEMAPS)), mine))
    site += draw(strays)
    return draw(st.permutations(site)) if draw(st.booleans()) else site


def clusters_of(site: list[Listing]) -> tuple[list[tuple[int, str, str, Cluster]], set[int]]:
    """What the walk gives the store: each URL's first listing with a cluster; every listed URL."""
    added: list[tuple[int, str, str, Cluster]] = []
    listed: set[int] = set()
    for number, sitemap, links in site:
        loc = url(number)
        own = digest(loc)
        if own in listed:
            continue  # a later listing adds nothing
        listed.add(own)
        alternates = tuple(Alternate(lang, url(target), "alternate") for lang, target in links)
        _, cluster = read_alternates(alternates, loc=loc, own_digest=own, sitemap=sitemap)
        if cluster is not None:
            added.append((own, loc, sitemap, cluster))
    return added, listed


def expected(added: list[tuple[int, str, str, Cluster]], listed: set[int]) -> Counter[Said]:
    """Each page A, each alternate B it names (not itself, not x-default), judged alone."""
    pages = {page: cluster for page, _, _, cluster in added}
    said: Counter[Said] = Counter()
    for page, loc, _, cluster in added:
        for link in cluster.links:
            if link.hreflang == X_DEFAULT or link.digest == page:
                continue
            named = pages.get(link.digest)
            if named is None:
                if link.digest in listed:  # listed without alternates: it names nobody back
                    said[("no_return", loc, link.hreflang, link.href, None)] += 1
                continue
            if named.key != cluster.key:
                if all(back.digest != page for back in named.links):
                    said[("no_return", loc, link.hreflang, link.href, None)] += 1
            elif cluster.own is None:  # the same set, which A is not in
                said[("no_return", loc, link.hreflang, link.href, None)] += 1
            if named.own is not None and named.own != link.hreflang:
                said[("conflict", loc, link.hreflang, link.href, named.own)] += 1
    return said


def unlisted_of(added: list[tuple[int, str, str, Cluster]], listed: set[int]) -> set[int]:
    pages = {page for page, _, _, _ in added}
    return {
        link.digest
        for page, _, _, cluster in added
        for link in cluster.links
        if link.hreflang != X_DEFAULT and link.digest != page
        if link.digest not in pages and link.digest not in listed
    }


def as_said(item: Finding) -> Said:
    detail = item.detail or {}
    code = "conflict" if item.code.value == "hreflang.conflicting_language" else "no_return"
    own = str(detail["own"]) if code == "conflict" else None
    assert item.url is not None
    return (code, item.url, str(detail["hreflang"]), str(detail["alternate"]), own)


@pytest.mark.slow
# near_share 0: the judge indexes only the pages the written links reach; 1000: every page.
@pytest.mark.parametrize(
    ("flush_rows", "recent", "near_share"),
    [(3, 2, 0), (3, 2, 1000), (8, 2, 1000), (1000, 1000, 0), (1000, 1000, 1000)],
)
@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(site=sites())
async def test_the_store_judges_as_each_page_read_alone(
    site: list[Listing],
    flush_rows: int,
    recent: int,
    near_share: int,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(store_module, "FLUSH_ROWS", flush_rows)
    monkeypatch.setattr(store_module, "_RECENT_CLUSTERS", recent)
    monkeypatch.setattr(store_module, "_NEAR_SHARE", near_share)
    added, listed = clusters_of(site)
    said: list[Finding] = []
    path = tmp_path / "store.sqlite"
    async with LinkStore(path) as store:
        for page, loc, sitemap, cluster in added:
            await store.add(page, loc, sitemap, cluster)
        verdict = await store.judge(listed=listed.__contains__, report=said.append)
    assert Counter(as_said(item) for item in said) == expected(added, listed)
    assert {item.digest for item in verdict.unlisted} == unlisted_of(added, listed)
    assert verdict.unlisted_count == len(verdict.unlisted)
    assert (verdict.pages, verdict.links) == (
        len(added),
        sum(len(cluster.links) for _, _, _, cluster in added),
    )
    assert not path.exists()
