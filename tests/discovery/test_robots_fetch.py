"""Discovery helpers: the robots.txt cache's sharing and its bounds."""

from __future__ import annotations

import asyncio

from auditor.discovery.probes import probe_urls
from auditor.discovery.robots import RobotsFetch, parse_robots
from auditor.discovery.robots_fetch import (
    MAX_QUICK_LOOKUPS,
    MAX_ROBOTS_ORIGINS,
    MAX_RULE_ORIGINS,
    RobotsCache,
)

ROBOTS = "User-agent: *\nDisallow: /private/\nSitemap: https://a.example/s.xml\n"


class Fetcher:
    """Answers every robots.txt at once with the same rules; counts the fetches."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, bool]] = []

    async def __call__(self, url: str, *, quick_lookup: bool) -> RobotsFetch:
        self.asked.append((url, quick_lookup))
        await asyncio.sleep(0)
        return RobotsFetch(url, 200, parse_robots(ROBOTS, url=url))


async def test_concurrent_callers_share_one_fetch() -> None:
    fetcher = Fetcher()
    cache = RobotsCache(fetcher)
    results = await asyncio.gather(*(cache.get("https://a.example") for _ in range(5)))
    assert fetcher.asked == [("https://a.example/robots.txt", False)]
    assert len({id(result) for result in results}) == 1


async def test_rules_are_kept_for_the_first_origins_only() -> None:
    cache = RobotsCache(Fetcher())
    cross = await cache.get("https://cross.example", quick=True)
    assert cross is not None
    assert cross.robots is not None
    assert (cross.robots.rules, cross.robots.sitemap_keys) == (
        None,
        frozenset({"https://a.example/s.xml"}),
    )
    others = MAX_ROBOTS_ORIGINS - 1 + 5
    fetched = [await cache.get(f"https://h{n}.example") for n in range(others)]
    robots = [f.robots if f is not None else None for f in fetched]
    assert all(r is not None and r.rules is not None for r in robots[:MAX_RULE_ORIGINS])
    kept = robots[MAX_RULE_ORIGINS : MAX_ROBOTS_ORIGINS - 1]
    assert all(r is not None and r.rules is None and r.sitemap_keys for r in kept)
    assert robots[MAX_ROBOTS_ORIGINS - 1 :] == [None] * 5  # past the run's budget: not read


async def test_quick_lookups_have_their_own_small_budget() -> None:
    fetcher = Fetcher()
    cache = RobotsCache(fetcher)
    quick = [await cache.get(f"https://q{n}.example", quick=True) for n in range(20)]
    assert sum(result is not None for result in quick) == MAX_QUICK_LOOKUPS
    assert await cache.get("https://site.example") is not None  # ordinary look-ups go on
    assert [quick_lookup for _, quick_lookup in fetcher.asked].count(True) == MAX_QUICK_LOOKUPS


def test_probe_urls_are_under_the_site_folder() -> None:
    assert probe_urls("https://e.com/blog/")[:2] == [
        "https://e.com/blog/sitemap.xml",
        "https://e.com/blog/sitemap_index.xml",
    ]
