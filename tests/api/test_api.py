"""The library: `audit_site`, `run` (also inside a running loop), `read_report`, `urls_frame`."""

from __future__ import annotations

import asyncio
import json
import re
import signal
import sys
from pathlib import Path
from typing import Any

import pytest

import auditor
from auditor.api.keywords import config_of
from auditor.cli.parser import parse_command
from auditor.demo.documents import url, urlset
from auditor.demo.server import serve
from auditor.errors import ConfigError, ExitCode, ReportReadError, UsageError
from tests.cli.test_main import trickle
from tests.helpers import mixed_routes, validate_report
from tests.wings.baseline.nightly_site import NightlySite

ROOT = Path(__file__).parent.parent.parent
QUICK = {"timeout": 2, "retries": 0, "allow_private": True}  # loopback, test-sized


async def run_script(script: str, *args: str) -> tuple[int, dict[str, Any]]:
    """Run `script` in a fresh Python; its exit code and the JSON it printed last."""
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-c", script, *args, cwd=ROOT, stdout=asyncio.subprocess.PIPE
    )
    out, _ = await process.communicate()
    assert process.returncode is not None
    return process.returncode, json.loads(out.decode().splitlines()[-1])


async def test_audit_site_gives_the_verdict_counts_paths_and_records(tmp_path: Path) -> None:
    async with serve(mixed_routes) as site:
        result = await auditor.audit_site(
            f"{site.base}/", json=tmp_path / "r.json", csv=tmp_path / "tables", **QUICK
        )
    report = json.loads(result.json_path.read_text())
    validate_report(report)
    assert result.exit_code == ExitCode.FINDINGS
    assert result.complete is True
    assert result.summary.urls == report["summary"]["urls"] == 7
    assert result.summary.checked == report["summary"]["checked"] == 6
    assert {code.value: n for code, n in result.summary.by_code.items()} == (
        report["summary"]["by_code"]
    )
    assert result.html_path.read_text().startswith("<!DOCTYPE html>")
    assert result.csv_paths is not None
    assert all(path.exists() for path in result.csv_paths)
    locs = [record.loc async for record in result.aiter_urls()]
    assert locs == [entry["loc"] for entry in report["urls"]]
    kinds = [record.kind async for record in result.aiter_sitemaps()]
    assert len(kinds) == len(report["sitemaps"]) == 2
    again = await asyncio.to_thread(auditor.read_report, result.json_path)
    read = await asyncio.to_thread(lambda: (again.verdict, again.exit_code, again.summary))
    assert read == (result.verdict, result.exit_code, result.summary)  # decided again: the same


@pytest.mark.parametrize(
    ("options", "flags"),
    [
        ({"no_check": True, "per_host": 4}, ["--no-check", "--per-host", "4"]),
        ({"json": "r.json", "fail_on": "warning"}, ["--json", "r.json", "--fail-on", "warning"]),
        ({"header": ["X-A: b"], "rate": 2.5}, ["--header", "X-A: b", "--rate", "2.5"]),
        ({"sitemap-timeout": 9, "workers": 1}, ["--sitemap-timeout", "9", "--workers", "1"]),
        ({"csv": Path("t"), "include": ("/a/",)}, ["--csv", "t", "--include", "/a/"]),
    ],
)
def test_options_and_flags_make_the_same_configuration(
    options: dict[str, object], flags: list[str]
) -> None:
    _, by_flags = parse_command([*flags, "https://example.com/"])
    assert config_of(["https://example.com/"], options) == by_flags


@pytest.mark.parametrize(
    "options",
    [
        {"per_hots": 4},  # no such option
        {"per_host": "4"},  # a string where the flag takes an integer
        {"no_check": 1},  # a number where the flag is a switch
        {"fail_on": "sometimes"},  # not one of its choices
        {"per_host": 0},  # out of range
        {"no_check": True, "rate": 5},  # a check option without checks
        {"quiet": True},  # the command's display, not the library's
        {"json": "-"},  # stdout is the command's
        {"config": 7},
    ],
)
def test_bad_options_are_usage_errors(options: dict[str, object]) -> None:
    with pytest.raises(UsageError):
        config_of(["https://example.com/"], options)


def test_a_toml_config_comes_first_and_options_win(tmp_path: Path) -> None:
    (tmp_path / "audit.toml").write_text('per-host = 3\nrate = 2\njson = "r.json"\n')
    config = config_of(["https://example.com/"], {"config": tmp_path / "audit.toml", "rate": 7})
    assert (config.per_host, config.rate, config.json) == (3, 7.0, tmp_path / "r.json")
    with pytest.raises(ConfigError):
        config_of(["https://example.com/"], {"demo": True})


PLAIN_SCRIPT = """
import json, sys
import auditor

result = auditor.run(sys.argv[1], no_check=True, json=sys.argv[2], csv=sys.argv[3], workers=2)
urls = list(result.urls())
print(json.dumps({"exit_code": int(result.exit_code), "urls": len(result.summary and urls),
    "summary_urls": result.summary.urls, "findings": sum(1 for _ in result.findings()),
    "line": result.verdict.line, "csv": [str(p) for p in result.csv_paths]}))
sys.exit(result.exit_code)
"""


def write_broken_sitemap(path: Path) -> Path:
    path.write_text(
        urlset([url("https://example.com/a"), url("https://example.com/a"), url("ftp://x/b")])
    )
    return path


@pytest.mark.slow
async def test_run_in_a_plain_script(tmp_path: Path) -> None:
    sitemap = write_broken_sitemap(tmp_path / "sitemap.xml")
    report_path, tables = tmp_path / "r.json", tmp_path / "tables"
    code, printed = await run_script(PLAIN_SCRIPT, str(sitemap), str(report_path), str(tables))
    report = json.loads(report_path.read_text())
    validate_report(report)
    assert code == printed["exit_code"] == ExitCode.FINDINGS  # ftp:// is loc.invalid
    assert printed["urls"] == printed["summary_urls"] == len(report["urls"]) == 2
    kept = sum(len(s["findings"]) for s in report["sitemaps"])
    assert printed["findings"] == kept + sum(len(u["findings"]) for u in report["urls"])
    assert [Path(p).name for p in printed["csv"]] == ["urls.csv", "findings.csv"]


LOOP_SCRIPT = """
import asyncio, json, sys
import auditor

async def cell():  # a notebook cell: a loop runs, and the cell calls the blocking API
    assert asyncio.get_running_loop().is_running()
    result = auditor.run(sys.argv[1], json=sys.argv[2], timeout=2, retries=0,
                         allow_private=True, workers=2)
    report = auditor.read_report(sys.argv[2])
    print(json.dumps({"exit_code": int(result.exit_code), "checked": result.summary.checked,
        "urls": sum(1 for _ in report.urls()), "line": result.verdict.line,
        "read_line": report.verdict.line}))

asyncio.run(cell())
"""


@pytest.mark.slow
async def test_run_inside_a_running_event_loop(tmp_path: Path) -> None:
    report_path = tmp_path / "r.json"
    async with serve(mixed_routes) as site:  # served by the test's loop, audited by the child
        code, printed = await run_script(LOOP_SCRIPT, f"{site.base}/", str(report_path))
    report = json.loads(report_path.read_text())
    assert code == 0
    assert printed["exit_code"] == ExitCode.FINDINGS
    assert printed["checked"] == report["summary"]["checked"] == 6
    assert printed["urls"] == len(report["urls"]) == 7
    assert printed["line"] == printed["read_line"]


INTERRUPTED_SCRIPT = """
import json, sys
import auditor

result = auditor.run(sys.argv[1], no_check=True, json=sys.argv[2], allow_private=True)
print(json.dumps({"exit_code": int(result.exit_code), "complete": result.complete}))
"""


@pytest.mark.slow
async def test_an_interrupt_stops_the_run_and_keeps_its_report(tmp_path: Path) -> None:
    report_path = tmp_path / "r.json"
    async with serve(lambda base: {"/slow.xml": trickle}) as served:
        process = await asyncio.create_subprocess_exec(
            *[sys.executable, "-c", INTERRUPTED_SCRIPT, f"{served.base}/slow.xml"],
            str(report_path),
            cwd=ROOT,
            stdout=asyncio.subprocess.PIPE,
        )
        while not served.hits.get("/slow.xml"):
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.3)
        process.send_signal(signal.SIGINT)  # a notebook's "interrupt the kernel"
        out, _ = await asyncio.wait_for(process.communicate(), timeout=10)
    assert process.returncode == 0
    assert json.loads(out) == {"exit_code": ExitCode.FAILED, "complete": False}
    assert json.loads(report_path.read_text())["complete"] is False


@pytest.mark.slow
async def test_urls_frame_has_a_row_per_url(tmp_path: Path) -> None:
    pytest.importorskip("pandas")
    async with serve(mixed_routes) as site:
        result = await auditor.audit_site(f"{site.base}/", json=tmp_path / "r.json", **QUICK)
    frame = await asyncio.to_thread(result.urls_frame)
    assert list(frame.columns) == list(auditor.api.URL_FRAME_COLUMNS)
    assert len(frame) == result.summary.urls == 7
    assert int(frame["status"].notna().sum()) == result.summary.checked
    assert str(frame["status"].dtype) == "Int64"
    assert int((frame["worst_severity"] == "error").sum()) == 5
    assert int(frame["findings"].sum()) == sum(
        n for code, n in result.summary.by_code.items() if code.value != "loc.duplicate"
    )  # the duplicate is the repeating sitemap's finding, not the URL's


NO_PANDAS_SCRIPT = """
import json, sys
sys.modules["pandas"] = None  # as if the extra were not installed
import auditor
from auditor.errors import MissingExtraError

try:
    auditor.read_report(sys.argv[1]).urls_frame()
except MissingExtraError as exc:
    print(json.dumps({"import_error": isinstance(exc, ImportError)}))
"""


async def test_urls_frame_without_pandas_says_which_extra(tmp_path: Path) -> None:
    sitemap = write_broken_sitemap(tmp_path / "sitemap.xml")
    result = await auditor.audit_site(sitemap, no_check=True, json=tmp_path / "r.json")
    code, printed = await run_script(NO_PANDAS_SCRIPT, str(result.json_path))
    assert (code, printed) == (0, {"import_error": True})


def test_read_report_refuses_what_is_not_a_report(tmp_path: Path) -> None:
    (tmp_path / "x.json").write_text('{"hello": 1}')
    for path in (tmp_path / "x.json", tmp_path / "missing.json"):
        with pytest.raises(ReportReadError):
            auditor.read_report(path)


LAZY_SCRIPT = """
import json, sys
import auditor
before = "auditor.api" in sys.modules
entry = auditor.run
print(json.dumps({"before": before, "after": "auditor.api" in sys.modules}))
"""


async def test_the_package_loads_the_library_on_first_use() -> None:
    code, printed = await run_script(LAZY_SCRIPT)
    assert (code, printed) == (0, {"before": False, "after": True})


@pytest.mark.slow
async def test_the_python_how_to_runs(tmp_path: Path) -> None:
    """The blocking examples of docs/how-to/python.md, in their order, run as one script."""
    text = (ROOT / "docs" / "how-to" / "python.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.DOTALL)
    example = "\n".join(block for block in blocks if "await " not in block)
    assert 'site = "https://www.example.com/"' in example
    assert "read_report(" in example
    assert "urls_frame()" in example
    async with serve(mixed_routes) as site:
        (tmp_path / "example.py").write_text(
            example.replace("https://www.example.com/", f"{site.base}/")
        )
        process = await asyncio.create_subprocess_exec(
            *[sys.executable, "example.py"],
            cwd=tmp_path,
            stdout=asyncio.subprocess.DEVNULL,
        )
        assert await process.wait() == 0
    report = json.loads((tmp_path / "audit.json").read_text())
    assert report["summary"]["urls"] == 7
    assert sorted(path.name for path in (tmp_path / "audit-tables").iterdir()) == [
        "findings.csv",
        "urls.csv",
    ]


def test_dir_offers_the_public_names_only() -> None:
    names = dir(auditor)
    assert names == sorted(auditor.__all__)
    assert not {"Any", "TYPE_CHECKING", "importlib"} & set(names)


@pytest.mark.slow
async def test_the_frames_have_the_types_an_analyst_wants(tmp_path: Path) -> None:
    pd = pytest.importorskip("pandas")
    sitemap = tmp_path / "sitemap.xml"
    sitemap.write_text(
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        "<url><loc>https://example.com/a</loc><lastmod>2024-05-01</lastmod>"
        "<priority>0.8</priority></url>"
        "<url><loc>https://example.com/b</loc><lastmod>2024-05-01T10:00:00+02:00</lastmod>"
        "<priority>high</priority></url>"
        "<url><loc>https://example.com/c</loc><lastmod>yesterday</lastmod></url></urlset>"
    )
    result = await auditor.audit_site(sitemap, no_check=True, json=tmp_path / "r.json")
    urls = await asyncio.to_thread(result.urls_frame)
    assert isinstance(urls["lastmod"].dtype, pd.DatetimeTZDtype)
    assert str(urls["lastmod"].dtype.tz) == "UTC"
    assert list(urls["lastmod"].iloc[:2]) == [
        pd.Timestamp("2024-05-01T00:00:00Z"),
        pd.Timestamp("2024-05-01T08:00:00Z"),
    ]
    assert pd.isna(urls["lastmod"].iloc[2])  # "yesterday" is no date (lastmod.invalid)
    assert str(urls["priority"].dtype) == "float64"
    assert urls["priority"].iloc[0] == 0.8
    assert urls["priority"].iloc[1:].isna().all()  # "high" is no number (priority.invalid)
    assert list(urls["worst_severity"].cat.categories) == ["notice", "warning", "error"]
    assert urls["worst_severity"].cat.ordered
    assert (urls["worst_severity"] >= "warning").sum() == 2  # b and c, each an error
    assert list(urls["indexability"]) == ["not_checked"] * 3
    findings = await asyncio.to_thread(result.findings_frame)
    assert set(findings["code"].astype(str)) == {"priority.invalid", "lastmod.invalid"}
    assert findings["severity"].cat.ordered
    assert (findings["severity"] == "error").all()
    assert list(findings["line"].astype(object)) == [1, 1]
    assert isinstance(findings, pd.DataFrame)


@pytest.mark.slow
async def test_the_changes_since_a_baseline_as_a_frame(tmp_path: Path) -> None:
    pytest.importorskip("pandas")
    site = NightlySite(["/ok", "/gone"])
    site.add("/new")
    async with serve(site.routes) as served:
        target = f"{served.base}/sitemap.xml"
        old = await auditor.audit_site(target, json=tmp_path / "1.json", **QUICK)
        site.set(["/gone"], status=404)
        site.listed = ["/gone", "/new"]
        new = await auditor.audit_site(target, json=tmp_path / "2.json", **QUICK)
    frame = await asyncio.to_thread(new.changes_frame, old.json_path)
    rows = {row.url.rsplit("/", 1)[1]: row for row in frame.itertuples()}
    assert {name: row.change for name, row in rows.items()} == {
        "ok": "removed",
        "gone": "changed",
        "new": "added",
    }
    gone = rows["gone"]
    assert (gone.status_before, gone.status_after) == (200, 404)
    assert (gone.indexability_before, gone.indexability_after) == ("indexable", "client_error")
    assert (gone.new_codes, gone.regression) == ("http.not_found", True)
    assert not rows["new"].regression
    assert str(frame["status_after"].dtype) == "Int64"
    same = await asyncio.to_thread(new.changes_frame, new.json_path)
    assert same.empty
