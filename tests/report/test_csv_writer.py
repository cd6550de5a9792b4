"""`--csv DIR`: urls.csv and findings.csv, streamed, RFC 4180, the JSON report's counts."""

from __future__ import annotations

import asyncio
import csv
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from auditor.cli.main import main
from auditor.clock import FixedClock
from auditor.config import AuditConfig
from auditor.demo.server import serve
from auditor.errors import ExitCode
from auditor.flow.audit import audit
from auditor.report.csv_writer import FINDING_COLUMNS, URL_COLUMNS
from tests.helpers import NOW, Report, mixed_routes, run_audit, target
from tests.report.test_json_report import held_sitemap


def read_rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as source:
        return list(csv.DictReader(source))


def json_findings(report: Report) -> list[tuple[str, str]]:
    """(code, url) of every finding the JSON report keeps: targets', sitemaps', URLs'."""
    found = [(f["code"], f.get("url", t["url"])) for t in report["targets"] for f in t["findings"]]
    found += [(f["code"], f.get("url", "")) for s in report["sitemaps"] for f in s["findings"]]
    found += [(f["code"], u["loc"]) for u in report["urls"] for f in u["findings"]]
    return found


async def audited_with_csv(tmp_path: Path) -> tuple[Report, Path]:
    async with serve(mixed_routes) as site, serve(lambda base: {}) as empty:
        # The empty site adds a target's own finding (discovery.none_found) to findings.csv.
        audited = await run_audit(
            tmp_path, f"{site.base}/", f"{empty.base}/", no_check=False, csv=tmp_path / "tables"
        )
    return audited.report, tmp_path / "tables"


async def test_the_csv_files_hold_what_the_json_report_holds(tmp_path: Path) -> None:
    report, folder = await audited_with_csv(tmp_path)
    urls = read_rows(folder / "urls.csv")
    findings = read_rows(folder / "findings.csv")
    assert len(urls) == report["summary"]["urls"] == len(report["urls"]) == 7
    assert [row["loc"].removeprefix("'") for row in urls] == [u["loc"] for u in report["urls"]]
    statuses = [row["status"] for row in urls]
    assert statuses == [str(u.get("status") or "") for u in report["urls"]]
    hops = [row["redirect_hops"] for row in urls]
    assert hops == [str(len(u["redirects"])) if "status" in u else "" for u in report["urls"]]
    expected = json_findings(report)
    assert len(findings) == len(expected)
    assert Counter(row["code"] for row in findings) == Counter(code for code, _ in expected)
    assert "discovery.none_found" in {row["code"] for row in findings}
    by_url = Counter(row["codes"] for row in urls if row["codes"])
    assert sum(len(codes.split()) for codes in by_url.elements()) == sum(
        len({f["code"] for f in u["findings"]}) for u in report["urls"]
    )
    worst = Counter(row["worst_severity"] for row in urls)
    assert (worst["error"], worst["warning"], worst[""]) == (5, 1, 1)
    assert sorted(path.name for path in folder.iterdir()) == ["findings.csv", "urls.csv"]


async def test_csv_is_rfc_4180_utf8_without_a_bom_and_formulas_are_defused(tmp_path: Path) -> None:
    _, folder = await audited_with_csv(tmp_path)
    raw = (folder / "urls.csv").read_bytes()
    assert raw.startswith(",".join(URL_COLUMNS).encode() + b"\r\n")  # no BOM, a header
    assert raw.count(b"\r\n") == raw.count(b"\n") == 8  # CRLF ends every record
    assert b'"http://127.0.0.1:' in raw  # the URL with a comma and a quote is quoted...
    assert b'/odd,name""quoted"' in raw  # ...and its quote doubled
    assert (folder / "findings.csv").read_bytes().startswith(",".join(FINDING_COLUMNS).encode())
    locs = [row["loc"] for row in read_rows(folder / "urls.csv")]
    assert [loc for loc in locs if not loc.startswith("http")] == [
        '\'=HYPERLINK("http://evil.invalid")'
    ]  # a spreadsheet shows the text; it runs no formula


async def test_pandas_reads_the_same_counts(tmp_path: Path) -> None:
    pd = pytest.importorskip("pandas")
    report, folder = await audited_with_csv(tmp_path)
    urls = await asyncio.to_thread(pd.read_csv, folder / "urls.csv")
    findings = await asyncio.to_thread(pd.read_csv, folder / "findings.csv")
    assert list(urls.columns) == list(URL_COLUMNS)
    assert len(urls) == report["summary"]["urls"]
    assert len(findings) == len(json_findings(report))
    assert int(urls["status"].notna().sum()) == report["summary"]["checked"]
    assert dict(Counter(findings["code"])) == dict(Counter(c for c, _ in json_findings(report)))


@pytest.mark.slow
async def test_rows_are_on_disk_while_the_sitemap_is_still_being_read(tmp_path: Path) -> None:
    release = asyncio.Event()
    folder = tmp_path / "tables"
    hidden = Path("not yet")  # `.urls.csv.<random>.part`
    async with serve(lambda base: {"/s.xml": held_sitemap(30_000, release)}) as served:
        config = AuditConfig(
            targets=(target(f"{served.base}/s.xml"),),
            json=tmp_path / "r.json",
            csv=folder,
            no_check=True,
        )
        async with asyncio.TaskGroup() as group:
            run = group.create_task(audit(config, clock=FixedClock(NOW)))
            for _ in range(200):  # flat memory: rows leave the buffer while the run goes on
                await asyncio.sleep(0.05)
                hidden = next(folder.glob(".urls.csv.*.part"), hidden)
                if hidden.exists() and hidden.stat().st_size > 1_000_000:
                    break
            assert hidden.stat().st_size > 1_000_000
            assert not (folder / "urls.csv").exists()  # published only at the end
            release.set()
        result = run.result()
    assert result.exit_code == ExitCode.OK
    assert len(read_rows(folder / "urls.csv")) == 30_000
    assert sorted(path.name for path in folder.iterdir()) == ["findings.csv", "urls.csv"]


async def test_an_interrupted_run_publishes_its_tables_too(tmp_path: Path) -> None:
    release, stop = asyncio.Event(), asyncio.Event()
    folder = tmp_path / "tables"
    async with serve(lambda base: {"/s.xml": held_sitemap(3_000, release)}) as served:
        config = AuditConfig(
            targets=(target(f"{served.base}/s.xml"),),
            json=tmp_path / "r.json",
            csv=folder,
            no_check=True,
        )
        async with asyncio.TaskGroup() as group:
            run = group.create_task(audit(config, clock=FixedClock(NOW), stop=stop))
            while served.hits.get("/s.xml") is None:
                await asyncio.sleep(0.01)
            await asyncio.sleep(0.3)
            stop.set()
        release.set()
    result = run.result()
    report: dict[str, Any] = json.loads(result.json_path.read_text())
    assert result.exit_code == ExitCode.FAILED
    assert report["complete"] is False
    assert len(read_rows(folder / "urls.csv")) == report["summary"]["urls"]
    assert sorted(path.name for path in folder.iterdir()) == ["findings.csv", "urls.csv"]


async def test_existing_tables_are_replaced(tmp_path: Path) -> None:
    folder = tmp_path / "tables"
    folder.mkdir()
    (folder / "urls.csv").write_text("old\r\n" * 100)
    sitemap = tmp_path / "s.xml"
    sitemap.write_text(
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        "<url><loc>https://example.com/a</loc></url></urlset>"
    )
    audited = await run_audit(tmp_path, str(sitemap), csv=folder)
    assert audited.result.exit_code == ExitCode.OK
    assert [row["loc"] for row in read_rows(folder / "urls.csv")] == ["https://example.com/a"]
    assert read_rows(folder / "findings.csv") == []


def test_a_csv_folder_that_cannot_be_made_is_a_usage_error_and_leaves_nothing(
    tmp_path: Path,
) -> None:
    sitemap = tmp_path / "s.xml"
    sitemap.write_text(
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        "<url><loc>https://example.com/a</loc></url></urlset>"
    )
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    reports = tmp_path / "reports"
    argv = ["--no-check", "--quiet", "--out", str(reports), "--csv", str(blocker / "tables")]
    assert main([*argv, str(sitemap)]) == ExitCode.USAGE
    assert sorted(path.name for path in reports.iterdir()) == []  # no spool of the JSON report
