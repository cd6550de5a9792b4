"""Peak RSS of diffing two synthetic 1M-URL reports: read_baseline, then the new run's records.

python benchmarks/diff_bench.py [--urls 1000000] [--dir /tmp/diff_bench]
"""

from __future__ import annotations

import argparse
import resource
import time
from pathlib import Path

import orjson

from auditor.config import FailOn
from auditor.models import CheckResult, UrlRecord
from auditor.monitoring.baseline import read_baseline, removed_locs
from auditor.monitoring.diff import MAX_EXAMPLES, UrlDiff
from auditor.urls import parse_http_url, url_digest


def write_report(path: Path, urls: int, *, shift: int) -> None:
    """A schema-shaped report; `shift` moves the URL range and breaks every 1000th URL."""
    with path.open("wb") as out:
        out.write(b'{"schema_version":1,"tool":{"name":"sitemap-auditor","version":"x"},')
        out.write(b'"generated_at":"2026-01-01T00:00:00Z","complete":true,"config":{},')
        out.write(b'"targets":[],"sitemaps":[{"url":"https://example.com/s.xml"}],"urls":[\n')
        for n in range(shift, urls + shift):
            status = 404 if shift and n % 1000 == 0 else 200
            entry = {
                "loc": f"https://example.com/page/{n}",
                "sitemaps": ["https://example.com/s.xml"],
                "status": status,
                "final_url": f"https://example.com/page/{n}",
                "redirects": [],
                "elapsed_ms": 12,
                "findings": [],
            }
            out.write((b"," if n > shift else b"") + orjson.dumps(entry) + b"\n")
        out.write(b'],"summary":{"by_code":{}}}\n')


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--urls", type=int, default=1_000_000)
    parser.add_argument("--dir", type=Path, default=Path("/tmp/diff_bench"))
    args = parser.parse_args()
    args.dir.mkdir(parents=True, exist_ok=True)
    old, new = args.dir / "old.json", args.dir / "new.json"
    if not old.exists():
        write_report(old, args.urls, shift=0)
        write_report(new, args.urls, shift=args.urls // 100)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.monotonic()
    diff = UrlDiff(read_baseline(old), FailOn.ERROR)
    read_s = time.monotonic() - started
    for line in new.open("rb"):  # the new run's records, one at a time as the sink sees them
        text = line.strip().lstrip(b",")
        if not text.startswith(b'{"loc"'):
            continue
        entry = orjson.loads(text)
        parsed = parse_http_url(entry["loc"])
        assert parsed is not None
        check = CheckResult(entry["status"], final_url=entry["final_url"])
        diff.add_url(UrlRecord(entry["loc"], (), check=check, digest=url_digest(parsed.key)))
    unseen = diff.unseen()
    examples = removed_locs(old, set(unseen), limit=MAX_EXAMPLES)
    total_s = time.monotonic() - started
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"urls {args.urls:,}: baseline read {read_s:.1f} s, diff total {total_s:.1f} s")
    print(f"added {diff.added:,} removed {len(unseen):,} ({len(examples)} examples) ")
    print(f"changed {diff.changed:,} broke {diff.broke:,}")
    print(f"peak RSS {peak_mb:.0f} MB (before the diff: {before / 1024:.0f} MB)")


if __name__ == "__main__":
    main()
