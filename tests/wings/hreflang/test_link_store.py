"""The run-wide hreflang store against a plain reading of Google's rule, on random sites.

Google Search Central, "Tell Google about localized versions of your page": each language
version lists every other, itself included; "If two pages don't both point to each other, the
tags will be ignored." The store answers with SQL over a file (auditor.wings.hreflang.link_store);
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

import auditor.wings.hreflang.link_store as store_module
from auditor.models import Finding
from auditor.sitemap.extensions.hreflang import X_DEFAULT, Cluster, read_alternates
from auditor.sitemap.parse.events import Alternate
from auditor.urls import parse_http_url, url_digest
from auditor.wings.hreflang.link_store import LinkStore

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


def clusters_of(site: list[Listing]) -> tuple[list[tuple[int, str, str, Cluster, bool]], set[int]]:
    """What the walk gives the store: every listing with a cluster (marked when its URL was
    listed before); every listed URL."""
    added: list[tuple[int, str, str, Cluster, bool]] = []
    listed: set[int] = set()
    for number, sitemap, links in site:
        loc = url(number)
        own = digest(loc)
        again = own in listed
        listed.add(own)
        alternates = tuple(Alternate(lang, url(target), "alternate") for lang, target in links)
        _, cluster = read_alternates(alternates, loc=loc, own_digest=own, sitemap=sitemap)
        if cluster is not None:
            added.append((own, loc, sitemap, cluster, again))
    return added, listed


def expected(added: list[tuple[int, str, str, Cluster, bool]], listed: set[int]) -> Counter[Said]:
    """Each page A, each alternate B it names (not itself, not x-default), judged alone.

    A URL listed in several entries is one page: the union of their links, the set of the
    languages naming it.
    """
    names: dict[int, set[int]] = {}  # page -> every URL its listings name
    own: dict[int, set[str]] = {}  # page -> every language its listings give itself
    named: dict[tuple[int, int, str], str] = {}  # (A, B, language) -> href, A's listings' links
    locs: dict[int, str] = {}
    for page, loc, _, cluster, _ in added:
        locs[page] = loc
        names.setdefault(page, set()).update(link.digest for link in cluster.links)
        own.setdefault(page, set()).update(cluster.own)
        for link in cluster.links:
            if link.hreflang != X_DEFAULT and link.digest != page:
                named[(page, link.digest, link.hreflang)] = link.href
    said: Counter[Said] = Counter()
    for (page, target, lang), href in named.items():
        loc = locs[page]
        if target not in names:
            if target in listed:  # listed without alternates: it names nobody back
                said[("no_return", loc, lang, href, None)] += 1
            continue
        if page not in names[target]:
            said[("no_return", loc, lang, href, None)] += 1
        if own[target] and lang not in own[target]:
            said[("conflict", loc, lang, href, " ".join(sorted(own[target])))] += 1
    return said


def unlisted_of(added: list[tuple[int, str, str, Cluster, bool]], listed: set[int]) -> set[int]:
    pages = {page for page, _, _, _, _ in added}
    return {
        link.digest
        for page, _, _, cluster, _ in added
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
        for page, loc, sitemap, cluster, again in added:
            await store.add(page, loc, sitemap, cluster, again=again)
        verdict = await store.judge(listed=listed.__contains__, report=said.append)
    assert Counter(as_said(item) for item in said) == expected(added, listed)
    assert {item.digest for item in verdict.unlisted} == unlisted_of(added, listed)
    assert verdict.unlisted_count == len(verdict.unlisted)
    assert (verdict.pages, verdict.links) == (
        len(added),
        sum(len(cluster.links) for _, _, _, cluster, _ in added),
    )
    assert not path.exists()


@pytest.mark.parametrize("near_share", [0, 1000])
async def test_a_url_listed_again_is_still_a_member_of_its_closed_cluster(
    near_share: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A and B name each other (a cluster closed as it was written); A, listed again in
    another cluster, names D there. B's cluster is not written: A's own row answers for it."""
    monkeypatch.setattr(store_module, "FLUSH_ROWS", 2)
    monkeypatch.setattr(store_module, "_NEAR_SHARE", near_share)
    listings = [
        (1, [("en", 1), ("fr", 2)]),
        (2, [("en", 1), ("fr", 2)]),
        (1, [("en", 1), ("de", 4)]),
        (4, [("en", 1), ("de", 4)]),
        (3, [("it", 3), ("fr", 2)]),  # names B, which does not name it back
    ]
    site = [(number, SITEMAPS[0], links) for number, links in listings]
    added, listed = clusters_of(site)
    said: list[Finding] = []
    async with LinkStore(tmp_path / "store.sqlite") as store:
        for page, loc, sitemap, cluster, again in added:
            await store.add(page, loc, sitemap, cluster, again=again)
        await store.judge(listed=listed.__contains__, report=said.append)
    assert Counter(as_said(item) for item in said) == expected(added, listed)
    assert [as_said(item)[:2] for item in said] == [("no_return", url(3))]


async def test_a_page_listed_again_without_itself_keeps_its_first_membership(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A's second listing names only B: B, whose closed cluster holds A, names A back."""
    monkeypatch.setattr(store_module, "FLUSH_ROWS", 2)
    monkeypatch.setattr(store_module, "_NEAR_SHARE", 0)
    listings = [(1, [("en", 1), ("fr", 2)]), (2, [("en", 1), ("fr", 2)]), (1, [("fr", 2)])]
    added, listed = clusters_of([(number, SITEMAPS[0], links) for number, links in listings])
    said: list[Finding] = []
    async with LinkStore(tmp_path / "store.sqlite") as store:
        for page, loc, sitemap, cluster, again in added:
            await store.add(page, loc, sitemap, cluster, again=again)
        await store.judge(listed=listed.__contains__, report=said.append)
    assert expected(added, listed) == Counter()
    assert said == []
