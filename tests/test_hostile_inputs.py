"""Hostile values and input files, each against the whole command in its own process: header
values that would split a request, patterns a site's URL can make backtrack for ever, input
files that never end or never open, a damaged history, values Python itself refuses.

What SECURITY.md promises (one line and exit 2 before any request, bounded memory, a run that
SIGTERM stops) is measured on the process.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sqlite3
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

import auditor
from auditor.config import AuditConfig, Engine
from auditor.demo.documents import Page, url, urlset, xml_page
from auditor.demo.server import Route, serve
from auditor.errors import ConfigError, ExitCode, HistoryError, UsageError
from auditor.wings.history.verdict_store import HistoryStore
from tests.fault_server import ROOT, CliRun, run_cli
from tests.helpers import target
from tests.wings.history.test_store import damaged, history_of_ours, truncated

MAX_RSS_MB = 200.0
_STOPPED_WITHIN_S = 20.0  # from SIGTERM to the exit, on a shared machine


def quiet(report: Path, *more: str) -> list[str]:
    return ["--json", str(report), "--quiet", "--no-progress", *more]


async def refused(argv_for: Callable[[str], list[str]], tmp_path: Path) -> CliRun:
    """Exit 2 in one line, no traceback, bounded memory, no report; the site never asked."""
    async with serve(lambda base: {"/sitemap.xml": xml_page(urlset([]))}) as site:
        run = await run_cli(argv_for(site.base), tmp_path=tmp_path, limit_s=60)
        hits = dict(site.hits)
    assert (run.exit_code, len(run.stderr.splitlines()), hits) == (ExitCode.USAGE, 1, {}), run
    assert "Traceback" not in run.stderr
    assert run.peak_rss_mb < MAX_RSS_MB
    assert not (tmp_path / "r.json").exists()
    return run


# --- every value sent as a header --------------------------------------------------------------

_AGENTS = ("x\r\nX-Injected: evil", "x\nX-Injected: evil", "x\rX")


@pytest.mark.slow
@pytest.mark.parametrize("agent", _AGENTS, ids=["crlf", "lf", "cr"])
async def test_a_user_agent_with_a_line_break_is_a_usage_error(
    agent: str, tmp_path: Path, engine: Engine
) -> None:
    """libcurl sent `X-Injected: evil` on every request; aiohttp failed each (net.protocol)."""
    flags = quiet(tmp_path / "r.json", "--engine", engine, "--user-agent", agent)
    await refused(lambda base: [*flags, f"{base}/sitemap.xml"], tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("value", [r"x\r\nX-Injected: evil", r"x\u0000y"], ids=["crlf", "nul"])
@pytest.mark.parametrize("where", ["config", "fleet"])
async def test_a_user_agent_with_a_line_break_in_a_file_is_a_usage_error(
    value: str, where: str, tmp_path: Path
) -> None:
    line = f'user-agent = "{value}"\n'
    config, fleet = tmp_path / "audit.toml", tmp_path / "fleet.toml"

    def argv_for(base: str) -> list[str]:
        if where == "config":
            config.write_text(line)
            return quiet(tmp_path / "r.json", "--config", str(config), f"{base}/sitemap.xml")
        fleet.write_text(f'[[site]]\ntarget = "{base}/sitemap.xml"\n{line}')
        return ["--fleet", str(fleet), "--out", str(tmp_path / "out"), "--quiet"]

    await refused(argv_for, tmp_path)


@pytest.mark.parametrize("agent", [*_AGENTS, "x\0y"])
def test_the_library_refuses_a_user_agent_with_a_line_break(agent: str, tmp_path: Path) -> None:
    with pytest.raises(ConfigError):
        AuditConfig(targets=(target("https://example.com/"),), user_agent=agent)
    with pytest.raises(UsageError):
        auditor.run("https://example.com/", user_agent=agent, json=str(tmp_path / "r.json"))


# --- patterns a site's URL can make backtrack --------------------------------------------------

# A plausible hand-written line; Python's `re` backtracks on it for 2**34 steps and more.
_BACKTRACKS = r"example\.com/(\w+/?)*$"
_EVIL_PATH = "/example.com/" + "a" * 34 + "-"


@pytest.mark.slow
async def test_an_accept_pattern_that_backtracks_never_holds_the_run(tmp_path: Path) -> None:
    """The run never finished: a site's URL froze a monitoring job."""
    accept = tmp_path / "known.txt"
    accept.write_text(f"loc.not_escaped {_BACKTRACKS}\n")
    report_path = tmp_path / "r.json"

    def routes(base: str) -> dict[str, Route]:
        # `{` must be escaped: each is loc.not_escaped; the pattern matches the second alone
        listed = [url(f"{base}{_EVIL_PATH}{{x}}"), url(f"{base}/{{x}}/example.com/a/b")]
        return {"/sitemap.xml": xml_page(urlset(listed))}

    async with serve(routes) as site:
        argv = quiet(report_path, "--accept-file", str(accept), f"{site.base}/sitemap.xml")
        run = await run_cli(argv, tmp_path=tmp_path, limit_s=60)
    assert "Traceback" not in run.stderr, run.stderr
    report = json.loads(report_path.read_bytes())
    accepted = {
        entry["loc"].rsplit("/", 1)[-1]: finding.get("accepted", False)
        for entry in report["urls"]
        for finding in entry["findings"]
        if finding["code"] == "loc.not_escaped"
    }
    assert accepted == {"a" * 34 + "-{x}": False, "b": True}  # as `re` would say, in years
    assert run.exit_code == ExitCode.FINDINGS  # both answer 404


@pytest.mark.slow
async def test_sigterm_stops_a_run_with_a_pattern_that_backtracks(tmp_path: Path) -> None:
    """SIGTERM did not stop it: 11 minutes, then SIGKILL, and no report."""
    accept = tmp_path / "known.txt"
    accept.write_text(f"{_BACKTRACKS}\n")  # every code: searched on each finding's URL
    report_path = tmp_path / "r.json"

    def routes(base: str) -> dict[str, Route]:
        listed = [url(f"{base}{_EVIL_PATH}"), url(f"{base}/slow")]
        return {"/sitemap.xml": xml_page(urlset(listed)), "/slow": Page(200, delay_s=120)}

    async with serve(routes) as site:
        argv = quiet(report_path, "--accept-file", str(accept), "--timeout", "120")
        argv += ["--retries", "0", f"{site.base}/sitemap.xml"]
        code, err = await _terminated_once(argv, tmp_path, asked=lambda: "/slow" in site.hits)
    assert "Traceback" not in err, err
    report = json.loads(report_path.read_bytes())
    assert (code, report["complete"]) == (ExitCode.FAILED, False)


async def _terminated_once(
    argv: list[str], tmp_path: Path, *, asked: Callable[[], bool]
) -> tuple[int, str]:
    """The command, SIGTERM once `asked()` says the run is under way: exit code and stderr."""
    with (tmp_path / "stderr.txt").open("wb") as stderr:
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "auditor", *argv, cwd=ROOT, start_new_session=True,
            stdout=asyncio.subprocess.DEVNULL, stderr=stderr,
        )  # fmt: skip
        try:
            async with asyncio.timeout(60):
                while not asked():
                    await asyncio.sleep(0.05)
            process.send_signal(signal.SIGTERM)
            async with asyncio.timeout(_STOPPED_WITHIN_S):
                code = await process.wait()
        finally:
            if process.returncode is None:
                os.killpg(process.pid, signal.SIGKILL)
                await process.wait()
    return code, (tmp_path / "stderr.txt").read_text()


@pytest.mark.slow
@pytest.mark.parametrize(("flag", "requested"), [("--include", 0), ("--exclude", 1)])
async def test_a_selection_pattern_that_backtracks_never_holds_the_run(
    flag: str, requested: int, tmp_path: Path
) -> None:
    def routes(base: str) -> dict[str, Route]:
        listed = [url(f"{base}{_EVIL_PATH}"), url(f"{base}/ok")]
        return {"/sitemap.xml": xml_page(urlset(listed)), "/ok": Page(200)}

    async with serve(routes) as site:
        argv = quiet(tmp_path / "r.json", flag, _BACKTRACKS, "--retries", "0")
        run = await run_cli([*argv, f"{site.base}/sitemap.xml"], tmp_path=tmp_path, limit_s=60)
        hits = dict(site.hits)
    assert "Traceback" not in run.stderr, run.stderr
    assert (hits.get("/ok", 0), hits.get(_EVIL_PATH, 0)) == (requested, requested)
    assert run.exit_code == (ExitCode.FINDINGS if requested else ExitCode.OK)


_NOT_LINEAR = (r"(a)\1", r"(?=a)b", r"(?<!x)a", r"a++", r"(?x)a")


@pytest.mark.slow
@pytest.mark.parametrize("pattern", _NOT_LINEAR, ids=["backref", "ahead", "behind", "poss", "x"])
@pytest.mark.parametrize("where", ["--include", "--accept-file"])
async def test_a_pattern_only_backtracking_can_match_is_a_usage_error(
    pattern: str, where: str, tmp_path: Path
) -> None:
    """Refused in one line (never a pattern matching nothing, nor RE2's log on stderr)."""
    given = pattern
    if where == "--accept-file":
        given = str(tmp_path / "known.txt")
        (tmp_path / "known.txt").write_text(f"http.not_found {pattern}\n")
    flags = quiet(tmp_path / "r.json", where, given)
    await refused(lambda base: [*flags, f"{base}/sitemap.xml"], tmp_path)


# --- input files that never end, never open, or are damaged -------------------------------------

_OPTIONS = ("--accept-file", "--config", "--baseline", "--ca-file", "--fleet", "--state")
# A device is named to the options that only read: where the run may write, it never is.
_CASES = [
    (option, kind)
    for option in (*_OPTIONS, "--history")
    for kind in ("fifo", "folder", "device")
    if kind != "device" or option not in ("--state", "--history")
]


def _not_a_file(kind: str, tmp_path: Path) -> Path:
    match kind:
        case "fifo":
            os.mkfifo(tmp_path / "fifo")  # no one ever writes to it
            return tmp_path / "fifo"
        case "folder":
            (tmp_path / "folder").mkdir()
            return tmp_path / "folder"
        case _:
            return Path("/dev/zero")  # read whole: 1.85 GB, then MemoryError


@pytest.mark.slow
@pytest.mark.parametrize(("option", "kind"), _CASES, ids=[f"{o}-{k}" for o, k in _CASES])
async def test_an_input_file_that_is_no_regular_file_is_a_usage_error(
    option: str, kind: str, tmp_path: Path
) -> None:
    """A FIFO waited for a writer for ever (SIGTERM did not help), /dev/zero was read whole
    (MemoryError), a FIFO as --history was an "Illegal seek" traceback."""
    path = _not_a_file(kind, tmp_path)

    def argv_for(base: str) -> list[str]:
        if option == "--fleet":
            return ["--fleet", str(path), "--out", str(tmp_path / "out"), "--quiet"]
        return quiet(tmp_path / "r.json", option, str(path), f"{base}/sitemap.xml")

    await refused(argv_for, tmp_path)


def test_a_history_that_became_a_fifo_is_refused(tmp_path: Path) -> None:
    """Between the options' check and the run (the library's AuditConfig skips the check)."""
    os.mkfifo(tmp_path / "fifo")
    with pytest.raises(HistoryError):
        HistoryStore.open(tmp_path / "fifo")


_PAGE_BYTES = 4096  # sqlite's default page size (sqlite.org/fileformat.html §1.3.2)


def pages_never_used(path: Path, pages: int = 60) -> Path:
    """A history whose header counts `pages` pages no table holds: sqlite's integrity check
    then reports each of them, a line apiece (sqlite.org/fileformat.html §1.3.7)."""
    history_of_ours(path, rows=5000)
    data = bytearray(path.read_bytes())
    counted = int.from_bytes(data[28:32], "big") + pages  # "in-header database size"
    data[28:32] = counted.to_bytes(4, "big")
    path.write_bytes(bytes(data) + bytes(pages * _PAGE_BYTES))
    return path


@pytest.mark.slow
@pytest.mark.parametrize(
    "make", [pages_never_used, damaged, truncated], ids=["unused_pages", "damaged", "truncated"]
)
async def test_a_damaged_history_is_refused_in_one_line(
    make: Callable[[Path], Path], tmp_path: Path
) -> None:
    """About 60 lines of sqlite's integrity report, on every night's log."""
    history = await asyncio.to_thread(make, tmp_path / "h.sqlite")
    argv = quiet(tmp_path / "r.json", "--history", str(history))
    await refused(lambda base: [*argv, f"{base}/sitemap.xml"], tmp_path)


@pytest.mark.slow
async def test_a_damaged_historys_report_is_shown_under_verbose(tmp_path: Path) -> None:
    history = await asyncio.to_thread(pages_never_used, tmp_path / "h.sqlite")
    report = await asyncio.to_thread(_quick_check, history)
    assert len(report) > 1
    async with serve(lambda base: {"/sitemap.xml": xml_page(urlset([]))}) as site:
        argv = ["--json", str(tmp_path / "r.json"), "--no-progress", "-v"]
        argv += ["--history", str(history), f"{site.base}/sitemap.xml"]
        run = await run_cli(argv, tmp_path=tmp_path, limit_s=60)
    assert run.exit_code == ExitCode.USAGE
    assert all(line in run.stderr for line in report), run.stderr  # sqlite's words, under -v


def _quick_check(history: Path) -> list[str]:
    """sqlite's integrity report on `history`, line by line."""
    with contextlib.closing(sqlite3.connect(f"file:{history}?mode=ro", uri=True)) as db:
        return [line for (row,) in db.execute("PRAGMA quick_check") for line in row.split("\n")]


# --- the library: every bad value its usage error ----------------------------------------------

_NUL = ["history", "out", "json", "html", "csv", "markdown", "state", "metrics", "junit"]
_NUL += ["accept_file", "baseline", "ca_file", "config", "robots_agent", "include"]


@pytest.mark.parametrize("keyword", _NUL)
def test_a_nul_in_any_library_value_is_its_usage_error(keyword: str, tmp_path: Path) -> None:
    """Python's own ValueError ("embedded null byte") came out of `history=` and `out=`."""
    value: object = ["a\0b"] if keyword == "include" else f"{tmp_path}/a\0b"
    sitemap = tmp_path / "s.xml"
    sitemap.write_text(urlset([url("https://shop.example/a")]))
    with pytest.raises(UsageError):
        auditor.run(sitemap, **{keyword: value})


@pytest.mark.parametrize("field", ["out", "json", "history", "accept_file"])
def test_a_nul_in_a_path_of_the_librarys_config_is_a_config_error(field: str) -> None:
    config = AuditConfig(targets=(target("https://example.com/"),))
    changes: dict[str, Any] = {field: Path("a\0b")}
    with pytest.raises(ConfigError):
        replace(config, **changes)
