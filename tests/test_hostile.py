"""Hostile input against the whole command, each in its own process: what SECURITY.md promises
about the process (its memory, its exit code, no traceback, nothing written outside the report
folder) is measured on the process.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from auditor.errors import ExitCode
from tests.fault_server import run_cli
from tests.helpers import Report

MAX_RSS_MB = 200.0
_HEAD = b'<?xml version="1.0" encoding="UTF-8"?>\n'
_URLSET = b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'


def quiet(report: Path, *more: str) -> list[str]:
    return ["--json", str(report), "--quiet", "--no-progress", *more]


def sitemap_codes(report: Report) -> set[str]:
    return {finding["code"] for record in report["sitemaps"] for finding in record["findings"]}


@pytest.mark.parametrize(
    ("levels", "closed"),
    [(16_000_000, False), (7_000_000, True)],
    ids=["16M_unclosed", "7M_closed"],
)
async def test_deep_nesting_is_malformed_in_bounded_memory(
    levels: int, *, closed: bool, tmp_path: Path
) -> None:
    """A 50 KB gzip of 48 MB of open elements (under the 50 MiB cap) held 2 GB in expat."""
    body = _HEAD + _URLSET + b"<a>" * levels + (b"</a>" * levels + b"</urlset>" if closed else b"")
    sitemap = tmp_path / "deep.xml.gz"
    sitemap.write_bytes(gzip.compress(body, compresslevel=1))
    report_path = tmp_path / "r.json"
    run = await run_cli(quiet(report_path, str(sitemap)), tmp_path=tmp_path, limit_s=60)
    assert "Traceback" not in run.stderr, run.stderr
    assert run.peak_rss_mb < MAX_RSS_MB
    report = json.loads(report_path.read_bytes())
    assert "xml.malformed" in sitemap_codes(report)
    [malformed] = [
        f for s in report["sitemaps"] for f in s["findings"] if f["code"] == "xml.malformed"
    ]
    assert malformed["detail"]["error"] == "nesting too deep"
    assert run.exit_code == ExitCode.FINDINGS
