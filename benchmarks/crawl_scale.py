"""The crawl's own memory at a million pages: the seen set, the frontier and the store.

    python benchmarks/crawl_scale.py [--pages 1000000]

Runs the crawler (auditor.wings.crawl.crawler) over a site made in memory, so that a million pages
take minutes, not an hour of HTTP: page n links pages 2n+1 and 2n+2, the home page and
/cart/n (disallowed by robots.txt, so reached and not requested, as the crawl task's carts).
Every page goes through the real link reader, seen set, frontier (spilled to disk) and store;
only the request is left out (a stand-in answers at once). Prints the pages read, the seconds,
and the peak RSS (ru_maxrss) before and after, as one JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import tempfile
import time
from pathlib import Path

from auditor.checks.checker import PageBody
from auditor.discovery.robots import RobotsFetch, parse_robots
from auditor.models import CheckResult
from auditor.wings.crawl.crawl_records import CrawlPlan
from auditor.wings.crawl.crawler import Crawler
from auditor.wings.crawl.page_store import CrawlStore
from auditor.wings.crawl.scope import CrawlScope

BASE = "https://shop.example"


class Site:
    """Answers every page at once: status 200, a body of its links."""

    def __init__(self, pages: int) -> None:
        self.pages = pages

    async def read_page(
        self,
        loc: str,
        *,
        origin: str,  # noqa: ARG002 - the checker's signature
        max_bytes: int,  # noqa: ARG002 - the checker's signature
    ) -> tuple[CheckResult, PageBody | None]:
        tail = loc.rsplit("/", 1)[1]
        n = int(tail) if tail.isdigit() else 0
        links = [f"/p/{m}" for m in (2 * n + 1, 2 * n + 2) if m < self.pages]
        links += ["/", f"/cart/{n}"]
        body = "".join(f'<a href="{href}">x</a>' for href in links)
        html = f"<!doctype html><title>{n}</title><body>{body}</body>".encode()
        result = CheckResult(200, final_url=loc, final_status=200, method="GET")
        return result, PageBody(loc, html, "text/html", ())


async def robots(origin: str) -> RobotsFetch:
    text = "User-agent: *\nDisallow: /cart/\n"
    return RobotsFetch(f"{origin}/robots.txt", 200, parse_robots(text, url=f"{origin}/robots.txt"))


async def crawl(pages: int, folder: Path) -> dict[str, object]:
    plan = CrawlPlan(
        starts=(f"{BASE}/p/0",),
        scope=CrawlScope.of([BASE]),
        max_pages=pages * 2,
        max_depth=100,
        page_bytes=2 << 20,
        follow_nofollow=False,
        agent="sitemap-auditor",
        robots_agent="Googlebot",
        workers=128,
    )
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.monotonic()
    async with CrawlStore(folder / "crawl.sqlite") as store:
        crawler = Crawler(Site(pages), robots=robots, store=store, plan=plan)  # type: ignore[arg-type]
        await crawler.run()
        await store.flush()
        summary = crawler.summary(interrupted=False)
        size = (folder / "crawl.sqlite").stat().st_size
    return {
        "pages": summary.read,
        "blocked": summary.blocked,
        "seconds": round(time.monotonic() - started, 1),
        "rss_before_mb": round(before / 1024),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        "store_mb": round(size / 1e6),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=1_000_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        print(json.dumps(asyncio.run(crawl(args.pages, Path(folder)))))


if __name__ == "__main__":
    main()
