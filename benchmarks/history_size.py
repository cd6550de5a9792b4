"""The history's size on disk at N URLs, written through its own store as a run writes it.

    python benchmarks/history_size.py DIR [--urls 10000000]

Every URL is listed (a row each, as a run with a budget writes them), then checked once, in
batches of a run's size: 95% plain answers with an nginx-style ETag and a Last-Modified, 3%
404s, 2% redirect chains (kept whole). Prints the file's size, bytes per URL, and how long the
writes and a million look-ups took.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path

from auditor.checks.indexability import not_indexable
from auditor.codes import Code
from auditor.models import CheckResult, Redirect, finding
from auditor.wings.history.history_rows import Known, after_check
from auditor.wings.history.verdict_store import HistoryStore

BATCH = 512
SITE = "https://www.example.com"
MODIFIED = "Tue, 05 Nov 2024 10:00:00 GMT"


def result_of(n: int) -> CheckResult:
    """The check of URL n: mostly a plain 200, some 404s and redirects."""
    loc = f"{SITE}/p/{n}"
    if n % 100 < 3:
        found = (finding(Code.HTTP_NOT_FOUND, url=loc, status=404),)
        result = CheckResult(404, loc, 404, (), 20, "GET", found)
    elif n % 100 < 5:
        final = f"{SITE}/q/{n}"
        found = (finding(Code.REDIRECT_PERMANENT, url=loc, target=final),)
        result = CheckResult(301, final, 200, (Redirect(loc, 301),), 30, "GET", found)
    else:
        etag = f'"{n:x}-{n % 4096:x}"'
        result = CheckResult(200, loc, 200, (), 12, "GET", last_modified=MODIFIED, etag=etag)
    result.not_indexable = not_indexable(result)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("directory", type=Path)
    parser.add_argument("--urls", type=int, default=10_000_000)
    args = parser.parse_args()
    args.directory.mkdir(parents=True, exist_ok=True)
    path = args.directory / "history.sqlite"
    for stale in args.directory.glob("history.sqlite*"):
        stale.unlink()
    rng = random.Random(1)
    digests = [rng.getrandbits(64) or 1 for _ in range(args.urls)]
    store = HistoryStore.open(path)
    start = store.begin("size", resume=False, now_s=1_800_000_000)
    started = time.monotonic()
    for first in range(0, args.urls, BATCH):
        store.see(
            [(digests[n], 1_790_000_000) for n in range(first, min(first + BATCH, args.urls))]
        )
    listed_s = time.monotonic() - started
    started = time.monotonic()
    for first in range(0, args.urls, BATCH):
        rows = [
            after_check(
                Known(digests[n], None, 1_790_000_000),
                f"{SITE}/p/{n}",
                digests[n],
                result_of(n),
                at=1_800_000_000,
            )
            for n in range(first, min(first + BATCH, args.urls))
        ]
        store.record(rows, run_id=start.run_id, requested=first + len(rows), now_s=1_800_000_000)
    checked_s = time.monotonic() - started
    store.end(start.run_id, state="complete", now_s=1_800_000_000)
    sample = rng.sample(digests, min(1_000_000, args.urls))
    started = time.monotonic()
    for first in range(0, len(sample), BATCH):
        store.see([(digest, 1_790_000_000) for digest in sample[first : first + BATCH]])
    lookup_s = time.monotonic() - started
    store.close()
    size = sum(p.stat().st_size for p in args.directory.glob("history.sqlite*"))
    print(
        json.dumps(
            {
                "urls": args.urls,
                "bytes": size,
                "mb": round(size / 2**20, 1),
                "bytes_per_url": round(size / args.urls, 1),
                "listed_s": round(listed_s, 1),
                "checked_s": round(checked_s, 1),
                "lookups_per_s": round(len(sample) / lookup_s),
            }
        )
    )


if __name__ == "__main__":
    main()
