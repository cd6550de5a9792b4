"""The suite's libcurl baseline: the Python ceiling for a checker on pycurl, no bookkeeping.

    python benchmarks/bare_curl.py BASE --concurrency C [--ca-file PEM]

Reads robots.txt, the index and its children with pycurl (each document whole, gunzipped when it
starts with the gzip magic, parsed with defusedxml), then GETs every URL with one CurlMulti
driven by perform/select in this one thread (no asyncio): at most C transfers at once, each
body read whole, redirects followed by hand (at most 10 hops, stopping where a chain revisits
a URL), easy handles reused. Prints its counts as JSON, as bare.py does.
"""

from __future__ import annotations

import argparse
import gzip
import json
import time
from collections import Counter
from collections.abc import Iterator
from io import BytesIO
from urllib.parse import urljoin

import pycurl
from defusedxml import ElementTree

_NS = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
MAX_HOPS = 10
REDIRECTS = (301, 302, 303, 307, 308)


def easy(ca_file: str | None) -> pycurl.Curl:
    curl = pycurl.Curl()
    curl.setopt(pycurl.NOSIGNAL, 1)
    curl.setopt(pycurl.ACCEPT_ENCODING, "")
    if ca_file:
        curl.setopt(pycurl.CAINFO, ca_file)
    return curl


def get(curl: pycurl.Curl, url: str) -> bytes:
    body = BytesIO()
    curl.setopt(pycurl.URL, url)
    curl.setopt(pycurl.WRITEDATA, body)
    curl.perform()
    return body.getvalue()


def sitemap_locs(base: str, ca_file: str | None) -> tuple[list[str], int]:
    """The locs of every urlset under robots.txt, and how many documents were read."""
    curl = easy(ca_file)
    robots = get(curl, f"{base}/robots.txt").decode()
    pending = [
        line.split(":", 1)[1].strip()
        for line in robots.splitlines()
        if line.lower().startswith("sitemap:")
    ]
    locs: list[str] = []
    documents = 1
    while pending:
        body = get(curl, pending.pop(0))
        documents += 1
        if body[:2] == b"\x1f\x8b":
            body = gzip.decompress(body)
        root = ElementTree.fromstring(body)
        found = [loc.text.strip() for loc in root.iter(f"{_NS}loc") if loc.text]
        if root.tag == f"{_NS}sitemapindex":
            pending += found
        else:
            locs += found
    curl.close()
    return locs, documents


class Job:
    """One listed URL's chain: where it is, where it has been, what it answered first."""

    __slots__ = ("body", "first", "hops", "seen", "url")

    def __init__(self, url: str) -> None:
        self.url, self.seen, self.hops, self.first = url, {url}, 0, 0
        self.body: list[bytes] = []


def check(base: str, concurrency: int, ca_file: str | None) -> dict[str, object]:
    started = time.perf_counter()
    locs, documents = sitemap_locs(base, ca_file)
    first: Counter[str] = Counter()
    final: Counter[str] = Counter()
    multi = pycurl.CurlMulti()
    free = [easy(ca_file) for _ in range(concurrency)]
    jobs: dict[pycurl.Curl, Job] = {}
    todo: Iterator[str] = iter(locs)

    def start(curl: pycurl.Curl, job: Job) -> None:
        job.body = []
        curl.setopt(pycurl.URL, job.url)
        curl.setopt(pycurl.WRITEFUNCTION, job.body.append)
        jobs[curl] = job
        multi.add_handle(curl)

    def fill() -> None:
        while free:
            url = next(todo, None)
            if url is None:
                return
            start(free.pop(), Job(url))

    def done(curl: pycurl.Curl, error: int) -> None:
        job = jobs.pop(curl)
        multi.remove_handle(curl)
        status = curl.getinfo(pycurl.RESPONSE_CODE) if not error else 0
        if job.hops == 0:
            first[f"{status // 100}xx" if status else "error"] += 1
        location = curl.getinfo(pycurl.REDIRECT_URL) if status in REDIRECTS else None
        if not location:
            final[f"{status // 100}xx" if status else "error"] += 1
            free.append(curl)
            return
        job.url = urljoin(job.url, location)
        job.hops += 1
        if job.url in job.seen or job.hops > MAX_HOPS:
            final["loop"] += 1
            free.append(curl)
            return
        job.seen.add(job.url)
        start(curl, job)

    fill()
    while jobs:
        multi.perform()
        while True:
            queued, ok, failed = multi.info_read()
            for curl in ok:
                done(curl, 0)
            for curl, error, _ in failed:
                done(curl, error)
            if not queued:
                break
        fill()
        if jobs:
            multi.select(0.01)
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
    parser.add_argument("base", help="http(s)://127.0.0.1:PORT")
    parser.add_argument("--concurrency", type=int, default=128)
    parser.add_argument("--ca-file", help="a PEM file of CAs to trust (replaces the system's)")
    args = parser.parse_args()
    print(json.dumps(check(args.base.rstrip("/"), args.concurrency, args.ca_file)))


if __name__ == "__main__":
    main()
