"""The suite's baselines: what Python does with aiohttp and defusedxml and no bookkeeping.

    python benchmarks/bare.py parse BASE              # robots.txt -> index -> children, parsed
    python benchmarks/bare.py check BASE --concurrency C

parse: GET robots.txt, its Sitemap: lines, each document in turn (gunzipped when it starts with
the gzip magic), parsed whole with defusedxml; counts the <loc>s of the urlsets.
check: the same, then GET every URL with at most C requests in flight (one ClientSession,
TCPConnector(limit=C, limit_per_host=C), a semaphore), reading each body, following redirects
by hand (at most 10 hops, stopping where a chain revisits a URL). Prints its counts as JSON.
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import json
import time
from collections import Counter
from urllib.parse import urljoin

import aiohttp
from defusedxml import ElementTree

_NS = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
MAX_HOPS = 10


async def sitemap_locs(session: aiohttp.ClientSession, base: str) -> tuple[list[str], int]:
    """The locs of every urlset under robots.txt, and how many documents were read."""
    async with session.get(f"{base}/robots.txt") as response:
        robots = await response.text()
    pending = [
        line.split(":", 1)[1].strip()
        for line in robots.splitlines()
        if line.lower().startswith("sitemap:")
    ]
    locs: list[str] = []
    documents = 1
    while pending:
        async with session.get(pending.pop(0)) as response:
            body = await response.read()
        documents += 1
        if body[:2] == b"\x1f\x8b":
            body = gzip.decompress(body)
        root = ElementTree.fromstring(body)
        found = [loc.text.strip() for loc in root.iter(f"{_NS}loc") if loc.text]
        if root.tag == f"{_NS}sitemapindex":
            pending += found
        else:
            locs += found
    return locs, documents


async def parse(base: str) -> dict[str, object]:
    started = time.perf_counter()
    async with aiohttp.ClientSession() as session:
        locs, documents = await sitemap_locs(session, base)
    return {"urls": len(locs), "sitemaps": documents, "inner_s": time.perf_counter() - started}


async def check(base: str, concurrency: int) -> dict[str, object]:
    """GET every URL of the tree; count first answers by class, and where the chains end."""
    first: Counter[str] = Counter()
    final: Counter[str] = Counter()
    started = time.perf_counter()
    connector = aiohttp.TCPConnector(limit=concurrency, limit_per_host=concurrency)
    async with aiohttp.ClientSession(connector=connector) as session:
        semaphore = asyncio.Semaphore(concurrency)

        async def fetch(url: str) -> None:
            try:
                hops, seen = 0, {url}
                while True:
                    async with session.get(url, allow_redirects=False) as response:
                        await response.read()
                        status, location = response.status, response.headers.get("Location")
                    if hops == 0:
                        first[f"{status // 100}xx"] += 1
                    if status not in (301, 302, 303, 307, 308) or not location:
                        final[f"{status // 100}xx"] += 1
                        return
                    url = urljoin(url, location)
                    hops += 1
                    if url in seen or hops > MAX_HOPS:
                        final["loop"] += 1
                        return
                    seen.add(url)
            except (aiohttp.ClientError, TimeoutError) as exc:
                final[type(exc).__name__] += 1
            finally:
                semaphore.release()

        locs, documents = await sitemap_locs(session, base)
        tasks: set[asyncio.Task[None]] = set()
        for loc in locs:
            await semaphore.acquire()  # tasks are made as slots free up
            task = asyncio.create_task(fetch(loc))
            tasks.add(task)
            task.add_done_callback(tasks.discard)
        await asyncio.gather(*tasks)
    return {
        "urls": len(locs),
        "sitemaps": documents,
        "checked": first.total(),
        "by_status_class": dict(sorted(first.items())),
        "final": dict(sorted(final.items())),
        "inner_s": time.perf_counter() - started,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("task", choices=("parse", "check"))
    parser.add_argument("base", help="http://127.0.0.1:PORT")
    parser.add_argument("--concurrency", type=int, default=128)
    args = parser.parse_args()
    base = args.base.rstrip("/")
    if args.task == "parse":
        answer = asyncio.run(parse(base))
    else:
        answer = asyncio.run(check(base, args.concurrency))
    print(json.dumps(answer))


if __name__ == "__main__":
    main()
