"""Reports read back as a stream: the same records, counts and decision as the run's."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from auditor.config import FailOn
from auditor.demo.server import serve
from auditor.errors import ExitCode, ReportReadError
from auditor.report.decode import ReportedUrl
from auditor.report.reader import ReportReader
from tests.helpers import Audited, mixed_routes, run_audit

SITEMAPS = 20
ROOT = Path(__file__).parent.parent.parent


def read_all(path: Path) -> tuple[list[ReportedUrl], int, str, int]:
    """URLs, sitemap count, verdict line and exit code, read from the report."""
    reader = ReportReader(path)
    decision = reader.decision()
    urls = list(reader.urls())
    return urls, len(list(reader.sitemaps())), decision.verdict.line, decision.exit_code


async def mixed_audit(tmp_path: Path, **overrides: Any) -> Audited:
    async with serve(mixed_routes) as site:
        return await run_audit(tmp_path, f"{site.base}/", no_check=False, **overrides)


@pytest.mark.parametrize("fail_on", ["error", "warning", "never"])
async def test_the_records_and_the_decision_are_the_runs(tmp_path: Path, fail_on: str) -> None:
    audited = await mixed_audit(tmp_path, fail_on=FailOn(fail_on))
    urls, sitemaps, line, code = await asyncio.to_thread(read_all, audited.result.json_path)
    assert (line, code) == (audited.result.verdict.line, audited.result.exit_code)
    assert sitemaps == len(audited.report["sitemaps"]) == 2  # robots.txt and the sitemap
    assert [url.loc for url in urls] == [entry["loc"] for entry in audited.report["urls"]]
    assert [url.status for url in urls] == [e.get("status") for e in audited.report["urls"]]
    assert sum(url.checked for url in urls) == audited.report["summary"]["checked"] == 6
    codes = [code.value for url in urls for code in url.codes]
    assert codes == [
        code
        for e in audited.report["urls"]
        for code in dict.fromkeys(f["code"] for f in e["findings"])
    ]
    moved = next(url for url in urls if url.loc.endswith("/moved"))
    assert (moved.status, moved.final_status, len(moved.redirects)) == (301, 200, 1)


async def test_an_interrupted_run_reads_as_interrupted(tmp_path: Path) -> None:
    audited = await mixed_audit(tmp_path)
    report = audited.report
    report["complete"] = False
    path = tmp_path / "interrupted.json"
    path.write_text(json.dumps(report))
    decision = await asyncio.to_thread(ReportReader(path).decision)
    assert decision.exit_code == ExitCode.FAILED


async def test_a_baseline_run_keeps_its_regressions(tmp_path: Path) -> None:
    first = await mixed_audit(tmp_path / "a")
    async with serve(lambda base: {**mixed_routes(base), "/ok": mixed_routes(base)["/error"]}) as s:
        second = await run_audit(
            tmp_path / "b", f"{s.base}/", no_check=False, baseline=first.result.json_path
        )
    assert second.result.decision.regressions
    decision = await asyncio.to_thread(ReportReader(second.result.json_path).decision)
    assert decision == second.result.decision


BREAKAGES = {
    "truncated": lambda good: good[: len(good) // 2],
    "not json": lambda good: b"<html></html>",
    "not ours": lambda good: b'{"urls": []}',
    "other version": lambda good: good.replace(b'"schema_version":1', b'"schema_version":2', 1),
    "unknown code": lambda good: good.replace(b'"http.not_found"', b'"http.not_found_at_all"', 1),
    "no loc": lambda good: good.replace(b'"loc":', b'"place":', 1),
    "missing": None,
}


@pytest.mark.parametrize("breakage", sorted(BREAKAGES))
async def test_what_is_not_a_report_is_one_error(tmp_path: Path, breakage: str) -> None:
    audited = await mixed_audit(tmp_path)
    good = audited.result.json_path.read_bytes()
    path = tmp_path / "broken.json"
    damage = BREAKAGES[breakage]
    if damage is not None:
        path.write_bytes(damage(good))
        assert path.read_bytes() != good
    with pytest.raises(ReportReadError):
        await asyncio.to_thread(read_all, path)


def write_big_report(path: Path, count: int) -> dict[str, int]:
    """A report of `count` checked URLs, written as a stream; its expected counts."""
    base = "https://www.example.com"
    expected = {"urls": count, "errors": 0, "redirects": 0}
    with path.open("wb") as out:
        out.write(
            b'{"schema_version":1,"tool":{"name":"sitemap-auditor","version":"0.1.0"},'
            b'"generated_at":"2026-11-23T12:00:00Z","complete":true,"config":{"targets":'
            b'["https://www.example.com/"],"no_check":false,"fail_on":"error"},"targets":[],'
            b'\n"sitemaps":[\n'
        )
        out.write(
            b",\n".join(
                b'{"url":"%s/s%d.xml","kind":"urlset","parent":null,"depth":0,"found_by":"robots",'
                b'"status":200,"bytes":1,"compressed":false,"url_count":%d,"findings":[]}'
                % (base.encode(), n, count // SITEMAPS)
                for n in range(SITEMAPS)
            )
        )
        out.write(b'\n],\n"urls":[\n')
        chunk: list[bytes] = []
        for n in range(count):
            status, final, findings = 200, b"%s/p/%d" % (base.encode(), n), b""
            redirects = b""
            if n % 100 == 0:
                status, findings = (
                    404,
                    (
                        b'{"code":"http.not_found","severity":"error","message":"Not found",'
                        b'"detail":{"status":404}}'
                    ),
                )
                expected["errors"] += 1
            elif n % 50 == 0:
                status, redirects = 301, b'{"url":"%s/p/%d","status":301}' % (base.encode(), n)
                final = b"%s/p/%d/" % (base.encode(), n)
                expected["redirects"] += 1
            chunk.append(
                b'{"loc":"%s/p/%d","sitemaps":["%s/s%d.xml"],"line":%d,"lastmod":"2024-05-01",'
                b'"status":%d,"final_url":"%s","final_status":200,"redirects":[%s],'
                b'"elapsed_ms":12,"method":"HEAD","findings":[%s]}'
                % (
                    base.encode(),
                    n,
                    base.encode(),
                    n % SITEMAPS,
                    n,
                    status,
                    final,
                    redirects,
                    findings,
                )
            )
            if len(chunk) == 10_000:
                out.write(b",\n".join(chunk) + (b",\n" if n + 1 < count else b""))
                chunk.clear()
        out.write(b",\n".join(chunk))
        summary = {
            "sitemaps": SITEMAPS,
            "urls": count,
            "checked": count,
            "sitemaps_by_kind": {"urlset": SITEMAPS},
            "by_status_class": {"2xx": count - expected["errors"] - expected["redirects"]},
            "by_code": {"http.not_found": expected["errors"]},
            "by_severity": {"error": expected["errors"], "warning": 0, "notice": 0},
            "duration_s": 100.0,
            "urls_per_s": count / 100,
        }
        out.write(b'\n],\n"summary":' + json.dumps(summary).encode() + b"}\n")
    return expected


CHILD = """
import json, sys
import auditor

report = auditor.read_report(sys.argv[1])
urls = errors = redirects = 0
for url in report.urls():
    urls += 1
    errors += url.worst_severity is not None and url.worst_severity.value == "error"
    redirects += bool(url.redirects)
sitemaps = sum(1 for _ in report.sitemaps())
peak_kb = next(
    int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:")
)
print(json.dumps({"urls": urls, "errors": errors, "redirects": redirects, "sitemaps": sitemaps,
    "summary_urls": report.summary.urls, "exit_code": int(report.exit_code), "peak_kb": peak_kb}))
"""


@pytest.mark.slow
def test_a_million_url_report_is_read_in_flat_memory(tmp_path: Path) -> None:
    path = tmp_path / "big.json"
    expected = write_big_report(path, 1_000_000)
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(path)],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    seconds = time.monotonic() - started
    read = json.loads(done.stdout)
    print(f"READ_REPORT 1M URLs: {seconds:.1f} s, peak RSS {read['peak_kb'] / 1024:.0f} MB")
    assert {k: read[k] for k in expected} == expected
    assert (read["sitemaps"], read["summary_urls"]) == (SITEMAPS, 1_000_000)
    assert read["exit_code"] == ExitCode.FINDINGS  # decided again from the records: 404s
    assert read["peak_kb"] < 100 * 1024  # a 270 MB report, never in memory
