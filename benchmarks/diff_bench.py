"""Two 1M-URL reports compared URL by URL, as `--baseline` compares them; and the bare read.

    python benchmarks/diff_bench.py generate DIR [--urls 1000000]   # old.json, new.json, expected
    python benchmarks/diff_bench.py compare DIR    # the comparison; prints its counts as JSON
    python benchmarks/diff_bench.py bare DIR       # both reports' lines parsed: the floor

The reports are written by the auditor's own report writer. The new run drops the first 1% of
the old run's URLs and lists 1% new ones; of the URLs in both, every 500th goes from 200 to
404, every 700th (not also a 500th) starts to say noindex, and every 1000th (404 in both) is
known and unchanged. `compare` reads the old report into the comparison store
(auditor.wings.baseline.baseline_reader), hands over the new report's URLs as the sink would,
and joins: suite.py measures its time and peak RSS against `bare`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import orjson

from auditor.checks.indexability import not_indexable
from auditor.codes import Code
from auditor.config import AuditConfig, FailOn, Target, TargetKind
from auditor.models import (
    CheckResult,
    Finding,
    FoundBy,
    SitemapKind,
    SitemapRecord,
    UrlRecord,
    finding,
)
from auditor.report.encode import head_json
from auditor.report.json_writer import JsonReportWriter
from auditor.report.reader import ReportReader
from auditor.urls import parse_http_url, url_digest
from auditor.wings.baseline.baseline_reader import open_comparison
from auditor.wings.baseline.compare import Gate

SITE = "https://bench.example"
SITEMAP = f"{SITE}/sitemap.xml"


def page(n: int, *, new: bool) -> UrlRecord:
    """URL number `n` as one of the two runs saw it."""
    loc = f"{SITE}/page/{n}"
    parsed = parse_http_url(loc)
    assert parsed is not None
    findings: tuple[Finding, ...] = ()
    status = 200
    if n % 1000 == 0 or (new and n % 500 == 0):
        status, findings = 404, (finding(Code.HTTP_NOT_FOUND, url=loc),)
    elif new and n % 700 == 0:
        findings = (finding(Code.URL_NOINDEX, url=loc, final_url=loc, source="meta"),)
    check = CheckResult(status, loc, status, (), 12, "GET", findings)
    check.not_indexable = not_indexable(check)
    return UrlRecord(loc, (SITEMAP,), n + 3, check=check, digest=url_digest(parsed.key))


def expected(urls: int) -> dict[str, int]:
    """What `compare` must count."""
    shift = urls // 100
    both = range(shift, urls)
    broken = sum(1 for n in both if n % 500 == 0 and n % 1000)
    noindex = sum(1 for n in both if n % 700 == 0 and n % 500 and n % 1000)
    added_404 = sum(1 for n in range(urls, urls + shift) if n % 500 == 0)  # new, and 404
    return {
        "urls_added": shift,
        "urls_removed": shift,
        "urls_changed": broken + noindex,
        "regressions": broken + noindex + added_404,
    }


async def write(path: Path, numbers: range, *, new: bool) -> None:
    config = AuditConfig(targets=(Target(SITEMAP, TargetKind.SITEMAP, SITEMAP),))
    writer = JsonReportWriter(path)
    await writer.open()
    sitemap = SitemapRecord(SITEMAP, SitemapKind.URLSET, None, 0, FoundBy.TARGET, 200)
    writer.add_sitemap(sitemap)
    for n in numbers:
        writer.add_url(page(n, new=new))
        await writer.flush_if_full()
    head = head_json(generated_at=datetime.now(UTC), complete=True, config=config)
    await writer.commit(head, targets=[], summary={"urls": len(numbers)})


def generate(folder: Path, urls: int) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    shift = urls // 100
    asyncio.run(write(folder / "old.json", range(urls), new=False))
    asyncio.run(write(folder / "new.json", range(shift, urls + shift), new=True))
    (folder / "expected.json").write_text(json.dumps({"urls": urls, **expected(urls)}))


def records(path: Path) -> Iterator[UrlRecord]:
    """The new report's URLs as the sink hands them over: records with their checks."""
    for url in ReportReader(path).urls():
        parsed = parse_http_url(url.loc)
        assert parsed is not None
        check = CheckResult(
            url.status, url.final_url, url.final_status, url.redirects, url.elapsed_ms,
            url.method, url.findings, None, url.not_indexable,
        )  # fmt: skip
        yield UrlRecord(url.loc, url.sitemaps, url.line, check=check, digest=url_digest(parsed.key))


async def compare(folder: Path) -> dict[str, object]:
    new = folder / "new.json"
    gate = Gate(FailOn.ERROR)
    comparison = await open_comparison(folder / "old.json", folder=folder, gate=gate)
    async with comparison:
        for sitemap in ReportReader(new).sitemaps():
            comparison.add_sitemap(sitemap)
        for record in records(new):
            comparison.add_url(record)
            await comparison.flush_if_full()
        diff = await comparison.finish()
    keys = ("urls_added", "urls_removed", "urls_changed", "regressions")
    found = diff.to_json()
    return {key: found[key] for key in keys} | {"new_findings": found["new_findings"]}


def bare(folder: Path) -> dict[str, object]:
    """Every line of both reports parsed, nothing kept: what reading them costs at least."""
    lines = 0
    for name in ("old.json", "new.json"):
        with (folder / name).open("rb") as source:
            for line in source:
                if line.startswith(b'{"loc"'):
                    orjson.loads(line.rstrip(b",\n"))
                    lines += 1
    return {"lines": lines}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("what", choices=("generate", "compare", "bare"))
    parser.add_argument("folder", type=Path)
    parser.add_argument("--urls", type=int, default=1_000_000)
    args = parser.parse_args()
    if args.what == "generate":
        generate(args.folder, args.urls)
        return
    result = asyncio.run(compare(args.folder)) if args.what == "compare" else bare(args.folder)
    json.dump(result, sys.stdout)
    print()


if __name__ == "__main__":
    main()
