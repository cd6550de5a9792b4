"""Hostile input against the whole command, each in its own process: what SECURITY.md promises
about the process (its memory, its exit code, no traceback, nothing written outside the report
folder) is measured on the process.
"""

from __future__ import annotations

import asyncio
import ctypes
import gzip
import json
import os
import signal
import subprocess
import sys
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from defusedxml import ElementTree

from auditor.config import RANGES, AuditConfig, Engine, option_name
from auditor.demo.documents import Page, redirect, url, urlset, xml_page
from auditor.demo.server import Route, serve
from auditor.errors import ConfigError, ExitCode
from tests.fault_server import ROOT, run_cli
from tests.fleet.helpers import read_summary, toml_fleet
from tests.fleet.sites import fleet_of
from tests.helpers import Report, target

MAX_RSS_MB = 200.0
_IN_OPEN = 0x20  # <sys/inotify.h>: the file was opened
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


# --- values the user gives: refused before any request, exit 2 in one line -------------------


async def refused_before_any_request(argv_for: Callable[[str], list[str]], tmp_path: Path) -> None:
    """The command exits 2 with one line on stderr, and the site never hears from it.

    `argv_for`: the command line for the site's root URL.
    """
    async with serve(lambda base: {"/sitemap.xml": xml_page(urlset([]))}) as site:
        run = await run_cli(argv_for(site.base), tmp_path=tmp_path, limit_s=60)
        hits = dict(site.hits)
    assert (run.exit_code, len(run.stderr.splitlines()), hits) == (ExitCode.USAGE, 1, {})
    assert "Traceback" not in run.stderr
    assert not (tmp_path / "r.json").exists()
    assert not (tmp_path / "out").exists()


_INJECTED = ("X-A: b\r\nX-Injected: evil", "X-A: b\nX-Injected: evil", "X-A: b\rX", "X-A\r\nB: c")


@pytest.mark.parametrize("header", _INJECTED, ids=["crlf", "lf", "cr", "in_name"])
async def test_a_header_with_a_line_break_is_a_usage_error(
    header: str, tmp_path: Path, engine: Engine
) -> None:
    """libcurl sent `X-Injected: evil` as a header of its own; aiohttp refused every request."""
    flags = quiet(tmp_path / "r.json", "--engine", engine, "--header", header)
    await refused_before_any_request(lambda base: [*flags, f"{base}/sitemap.xml"], tmp_path)


@pytest.mark.parametrize("value", [r"b\r\nX-Injected: evil", r"b\u0000c"], ids=["crlf", "nul"])
@pytest.mark.parametrize("where", ["config", "fleet"])
async def test_a_header_with_a_line_break_in_a_file_is_a_usage_error(
    value: str, where: str, tmp_path: Path
) -> None:
    header = f'header = ["X-A: {value}"]\n'
    config, fleet = tmp_path / "audit.toml", tmp_path / "fleet.toml"

    def argv_for(base: str) -> list[str]:
        if where == "config":
            config.write_text(header)
            return quiet(tmp_path / "r.json", "--config", str(config), f"{base}/sitemap.xml")
        fleet.write_text(f'[[site]]\ntarget = "{base}/sitemap.xml"\n{header}')
        return ["--fleet", str(fleet), "--out", str(tmp_path / "out"), "--quiet"]

    await refused_before_any_request(argv_for, tmp_path)


def test_the_library_refuses_a_header_with_a_line_break() -> None:
    for name, value in [("X-A", "b\r\nX-Injected: evil"), ("X-A", "b\0"), ("X-A\n", "b")]:
        with pytest.raises(ConfigError):
            AuditConfig(targets=(target("https://example.com/"),), headers=((name, value),))


_HUGE = (
    ["--timeout", "1e300"],  # OverflowError in libcurl's binding, exit 1
    ["--concurrency", "1000000"],  # 1.36 GB for one URL
    ["--sitemap-concurrency", "1000000"],  # 1.85 GB
    ["--sitemap-concurrency", "1000000000"],  # MemoryError
)


@pytest.mark.parametrize("flags", _HUGE, ids=lambda flags: f"{flags[0]}={flags[1]}")
async def test_a_number_out_of_its_range_is_a_usage_error(
    flags: list[str], tmp_path: Path, engine: Engine
) -> None:
    argv = quiet(tmp_path / "r.json", "--engine", engine, *flags)
    await refused_before_any_request(lambda base: [*argv, f"{base}/sitemap.xml"], tmp_path)


async def test_the_top_of_every_range_runs(tmp_path: Path, engine: Engine) -> None:
    """The largest values the ranges allow, together: a clean run, in bounded memory."""
    tops = [
        flag
        for key, number_range in RANGES.items()
        if number_range.option
        and key not in ("workers", "fleet_workers", "fleet_concurrency")
        and key not in ("rate", "sample")  # a clean run of a small site: no limit to see
        for flag in (option_name(key), str(number_range.most))
    ]
    report_path = tmp_path / "r.json"

    def routes(base: str) -> dict[str, Route]:
        pages: dict[str, Route] = {f"/p{n}": Page(200, b"<html></html>") for n in range(20)}
        listed = urlset([url(f"{base}{path}") for path in pages])
        return {"/sitemap.xml": xml_page(listed), **pages}

    log = tmp_path / "access.log"  # --log-days and --log-error-rate need logs
    time = "[10/Oct/2025:13:55:36 +0000]"
    log.write_text(f'66.249.66.1 - - {time} "GET /p1 HTTP/1.1" 200 9 "-" "Googlebot/2.1"\n')
    async with serve(routes) as site:
        history = ("--history", str(tmp_path / "h.sqlite"))  # --budget and --max-age need it
        logs = ("--access-log", str(log))
        argv = quiet(report_path, "--engine", engine, *tops, *history, *logs)
        argv.append(f"{site.base}/sitemap.xml")
        run = await run_cli(argv, tmp_path=tmp_path, limit_s=60)
    assert "Traceback" not in run.stderr, run.stderr
    assert run.peak_rss_mb < MAX_RSS_MB
    report = json.loads(report_path.read_bytes())
    assert (report["summary"]["checked"], run.exit_code) == (20, ExitCode.OK)


# --- outputs in a folder others may write to ---------------------------------------------------

# Every temporary name an output used to take, known in advance; `None`: the link points
# nowhere yet (the auditor would have made the file it names).
_PLANTED = {
    ".r.json.tmp": "report",
    ".r.json.urls.part": "urls",
    ".r.json.sitemaps.part": None,
    ".r.json.hreflang.sqlite": "hreflang",
    "csv/.urls.csv.part": "urls-csv",
    "csv/.findings.csv.part": None,
}
_XHTML = "http://www.w3.org/1999/xhtml"


async def test_temporary_files_never_follow_a_link_planted_beside_the_outputs(
    tmp_path: Path,
) -> None:
    """A shared report folder: links at the temporary names write through to nowhere."""
    victims, shared = tmp_path / "victims", tmp_path / "shared"
    (shared / "csv").mkdir(parents=True)
    victims.mkdir()
    for name, victim in _PLANTED.items():
        pointed = victims / (victim or f"new-{Path(name).name}")
        if victim is not None:
            pointed.write_bytes(b"precious\n")
        (shared / name).symlink_to(pointed)
    before = {path.name: path.read_bytes() for path in victims.iterdir()}

    def routes(base: str) -> dict[str, Route]:
        alternate = f'<xhtml:link rel="alternate" hreflang="de" href="{base}/de"/>'
        entries = [url(f"{base}/en", extra=alternate), url(f"{base}/de", extra=alternate)]
        document = urlset(entries).replace("<urlset ", f'<urlset xmlns:xhtml="{_XHTML}" ', 1)
        return {"/sitemap.xml": xml_page(document), "/en": Page(200), "/de": Page(200)}

    outputs = ["--html", str(shared / "r.html"), "--csv", str(shared / "csv")]
    outputs += ["--junit", str(shared / "j.xml"), "--metrics", str(shared / "m.prom")]
    outputs += ["--state", str(shared / "s.state")]
    async with serve(routes) as site:
        argv = quiet(shared / "r.json", *outputs, f"{site.base}/sitemap.xml")
        run = await run_cli(argv, tmp_path=tmp_path, limit_s=60)
    assert "Traceback" not in run.stderr, run.stderr
    assert {path.name: path.read_bytes() for path in victims.iterdir()} == before
    assert all((shared / name).is_symlink() for name in _PLANTED)  # left as they were
    hidden = {str(p.relative_to(shared)) for p in shared.rglob(".*")}
    assert hidden == set(_PLANTED)  # no temporary file of the run's left behind
    report = json.loads((shared / "r.json").read_bytes())
    assert (report["complete"], report["summary"]["urls"]) == (True, 2)
    assert run.exit_code == ExitCode.OK


# --- host names no resolver takes --------------------------------------------------------------

_LONG_LABEL = "a" * 64
_ODD_HOSTS = ("..", "a..b", f"{_LONG_LABEL}.example", ".a", "a.b..", "b" * 250 + ".example")


@pytest.mark.parametrize("host", _ODD_HOSTS[:3], ids=["dots", "empty_label", "long_label"])
async def test_a_target_whose_host_can_never_resolve_is_a_usage_error(
    host: str, tmp_path: Path
) -> None:
    """getaddrinfo's UnicodeError went up as a traceback, exit 3."""
    argv = quiet(tmp_path / "r.json", f"http://{host}/sitemap.xml")
    run = await run_cli(argv, tmp_path=tmp_path, limit_s=60)
    assert (run.exit_code, len(run.stderr.splitlines())) == (ExitCode.USAGE, 1), run.stderr
    assert not (tmp_path / "r.json").exists()


async def test_listed_urls_and_redirects_to_hosts_that_can_never_resolve_are_net_dns(
    tmp_path: Path, engine: Engine
) -> None:
    """The same finding on both engines (aiohttp said net.protocol, libcurl loc.invalid)."""
    odd = [f"http://{host}/x" for host in _ODD_HOSTS]

    def routes(base: str) -> dict[str, Route]:
        hops: dict[str, Route] = {f"/r{n}": redirect(302, to) for n, to in enumerate(odd)}
        listed = urlset([url(loc) for loc in [*odd, *(f"{base}{path}" for path in hops)]])
        return {"/sitemap.xml": xml_page(listed), **hops}

    report_path = tmp_path / "r.json"
    async with serve(routes) as site:
        argv = quiet(report_path, "--engine", engine, "--retries", "0", f"{site.base}/sitemap.xml")
        run = await run_cli(argv, tmp_path=tmp_path, limit_s=60)
    assert "Traceback" not in run.stderr, run.stderr
    report = json.loads(report_path.read_bytes())
    checked = {entry["loc"]: entry for entry in report["urls"]}
    assert len(checked) == 2 * len(odd)
    for entry in checked.values():
        codes = {f["code"] for f in entry["findings"]} - {"loc.host_mismatch"}
        assert codes == {"net.dns"}, entry
    assert run.exit_code == ExitCode.FINDINGS


# --- Ctrl-C during a fleet ---------------------------------------------------------------------

_STOPPED_WITHIN_S = 20.0  # from the signal to the exit, on a shared machine


# Seconds after the start (Python loading Dask, the cluster starting), or once a site runs.
_MOMENTS = ["1.0", "1.75", "2.5", "3.25", "running"]


@pytest.mark.parametrize("moment", _MOMENTS)
async def test_ctrl_c_during_a_fleet_stops_it_without_a_traceback(
    moment: str, tmp_path: Path
) -> None:
    """SIGINT to the process group, as a terminal sends it: the workers took it too (a
    KeyboardInterrupt traceback, a worker dead, and a wait for its results without end)."""
    kinds = [("quick", "healthy"), ("dark", "silent"), ("later", "healthy")]
    async with fleet_of(kinds, first=70) as sites:
        fleet = toml_fleet(tmp_path / "sites.toml", sites, {})
        out = tmp_path / "out"
        argv = ["--fleet", str(fleet), "--out", str(out), "--fleet-workers", "1", "--quiet"]
        argv += ["--timeout", "60", "--retries", "0", "--no-progress"]
        with (tmp_path / "stderr.txt").open("wb") as stderr:
            process = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "auditor", *argv, cwd=ROOT, start_new_session=True,
                stdout=asyncio.subprocess.DEVNULL, stderr=stderr,
            )  # fmt: skip
            try:
                await _moment(moment, out)
                os.killpg(process.pid, signal.SIGINT)
                async with asyncio.timeout(_STOPPED_WITHIN_S):
                    code = await process.wait()
            finally:
                if process.returncode is None:
                    os.killpg(process.pid, signal.SIGKILL)
                    await process.wait()
    err = (tmp_path / "stderr.txt").read_text()
    assert "Traceback" not in err, err
    assert code == ExitCode.FAILED
    summaries = list(out.glob("fleet-*.json"))
    if moment == "running":
        status = {item["name"]: item["status"] for item in read_summary(out)["sites"]}
        assert status == {"quick": "done", "dark": "interrupted", "later": "not_run"}
    for path in summaries:  # a stop before the cluster ran a site may leave none
        assert json.loads(path.read_text())["complete"] is False


async def _moment(moment: str, out: Path) -> None:
    """Wait for the moment: seconds after the start, or "running": a site on the worker."""
    if moment != "running":
        await asyncio.sleep(float(moment))
        return
    async with asyncio.timeout(60):
        while not list((out / "quick").glob("*.html")):  # its last report is written
            await asyncio.sleep(0.1)
    await asyncio.sleep(2.0)  # ...its task has returned, and "dark" runs on the only worker


# --- fleet files ---------------------------------------------------------------------------------

_SITES_ON_ONE_HOST = 10_000
# Sites of the fleet a Ctrl-C interrupts while it is read: seconds of naming and configuring
# after the file's open, however fast the machine, for the signal to land in.
_SITES_WHILE_READ = 100_000


def one_host_fleet(path: Path, sites: int = _SITES_ON_ONE_HOST) -> Path:
    """`sites` sites of one host (named host, host-2, ...), then a line that cannot run."""
    lines = ["https://shop.example/"] * sites + ["ftp://nowhere"]
    path.write_text("\n".join(lines) + "\n")
    return path


@contextmanager
def watched_opens(path: Path) -> Iterator[Callable[[], Awaitable[None]]]:
    """While the block runs, `opened()` waits for the next time a process opens `path`.

    Linux's inotify (inotify(7), IN_OPEN): the moment itself, not a guess in seconds.
    """
    libc = ctypes.CDLL(None, use_errno=True)
    watch = libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
    if watch < 0:
        raise OSError(ctypes.get_errno(), "inotify_init1")
    try:
        if libc.inotify_add_watch(watch, os.fsencode(path), _IN_OPEN) < 0:
            raise OSError(ctypes.get_errno(), "inotify_add_watch")

        async def opened() -> None:
            loop, event = asyncio.get_running_loop(), asyncio.Event()
            loop.add_reader(watch, event.set)
            try:
                await event.wait()
            finally:
                loop.remove_reader(watch)
            os.read(watch, 4096)  # the event, taken

        yield opened
    finally:
        os.close(watch)


async def test_a_fleet_of_many_sites_on_one_host_is_read_in_linear_time(tmp_path: Path) -> None:
    """Naming them was quadratic: 102 s here before the usage error on the last line."""
    fleet = one_host_fleet(tmp_path / "sites.txt")
    argv = ["--fleet", str(fleet), "--out", str(tmp_path / "out")]
    run = await run_cli(argv, tmp_path=tmp_path, limit_s=60)
    assert (run.exit_code, len(run.stderr.splitlines())) == (ExitCode.USAGE, 1), run.stderr
    assert f"line {_SITES_ON_ONE_HOST + 1}" in run.stderr
    assert run.wall_s < 30


@pytest.mark.parametrize("command", ["python -m auditor", "sitemap-audit"])
async def test_ctrl_c_while_a_fleet_file_is_read_is_exit_3_without_a_traceback(
    command: str, tmp_path: Path
) -> None:
    """The console script said KeyboardInterrupt with a traceback, exit 130."""
    fleet = one_host_fleet(tmp_path / "sites.txt", _SITES_WHILE_READ)
    program = [sys.executable, "-m", "auditor"]
    if command == "sitemap-audit":
        program = [str(Path(sys.executable).with_name("sitemap-audit"))]
    with (tmp_path / "stderr.txt").open("wb") as stderr, watched_opens(fleet) as opened:
        process = await asyncio.create_subprocess_exec(
            *program, "--fleet", str(fleet), "--out", str(tmp_path / "out"), cwd=ROOT,
            stdout=asyncio.subprocess.DEVNULL, stderr=stderr,
        )  # fmt: skip
        try:
            await asyncio.wait_for(opened(), timeout=60)  # the file read, the sites named next
            process.send_signal(signal.SIGINT)
            code = await asyncio.wait_for(process.wait(), timeout=30)
        finally:
            if process.returncode is None:
                process.kill()
                await process.wait()
    err = (tmp_path / "stderr.txt").read_text()
    assert "Traceback" not in err, err
    assert (code, len(err.splitlines())) == (ExitCode.FAILED, 1), err
    assert not (tmp_path / "out").exists()


async def test_a_site_named_with_an_escape_sequence_is_a_usage_error(tmp_path: Path) -> None:
    fleet = tmp_path / "sites.toml"
    fleet.write_text('[[site]]\nname = "shop\\u001b[31m"\ntarget = "https://shop.example/"\n')
    argv = ["--fleet", str(fleet), "--out", str(tmp_path / "out")]
    run = await run_cli(argv, tmp_path=tmp_path, limit_s=60)
    assert (run.exit_code, len(run.stderr.splitlines())) == (ExitCode.USAGE, 1), run.stderr
    assert "\x1b" not in run.stderr


async def test_a_site_named_after_a_file_with_an_escape_sequence_reaches_no_output_raw(
    tmp_path: Path,
) -> None:
    """The fleet JUnit held a raw ESC (not well-formed XML), and so did the terminal."""
    sitemap = tmp_path / "shop\x1b[31mred.xml"
    sitemap.write_text(urlset([url("https://shop.example/a")]))
    fleet = tmp_path / "sites.txt"
    fleet.write_text(f"{sitemap}\n")
    out = tmp_path / "out"
    argv = ["--fleet", str(fleet), "--out", str(out), "--junit", str(out / "j.xml")]
    with (tmp_path / "stdout.txt").open("wb") as stdout:
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "auditor", *argv, "--no-check", "--fleet-workers", "1",
            cwd=ROOT, stdout=stdout, stderr=asyncio.subprocess.STDOUT,
        )  # fmt: skip
        code = await asyncio.wait_for(process.wait(), timeout=120)
    terminal = (tmp_path / "stdout.txt").read_text()
    assert "\x1b" not in terminal
    assert "Traceback" not in terminal, terminal
    root = ElementTree.parse(out / "j.xml").getroot()  # well-formed
    assert root is not None
    [suite] = root.iter("testsuite")
    assert suite.get("name") == "shop?[31mred"
    [summary] = out.glob("fleet-*.json")
    assert [site["name"] for site in json.loads(summary.read_text())["sites"]] == ["shop?[31mred"]
    assert code == ExitCode.OK


# --- a signal while the command starts ----------------------------------------------------------


async def catching(pid: int, signum: signal.Signals) -> None:
    """Once process `pid` has a handler of its own for `signum` (Linux: SigCgt in its status)."""
    bit = 1 << (signum - 1)
    for _ in range(3000):  # 30 s at most: a command that never installs one fails the test
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("SigCgt:") and int(line.split()[1], 16) & bit:
                return
        await asyncio.sleep(0.01)
    raise AssertionError(f"no handler for {signum.name} in 30 s")


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
@pytest.mark.parametrize("after_s", [0.1, 0.2, 0.3])
async def test_a_signal_while_the_command_loads_is_exit_3_in_one_line(
    signum: signal.Signals, after_s: float, tmp_path: Path
) -> None:
    """SIGTERM in the first 0.3 s killed the process (status -15): no handler was in place
    while the command's modules loaded.

    The signal goes once the command's code runs (its SIGTERM handler is the first thing it
    does) and no sooner than `after_s` from the start: before that, Python itself is starting
    (its site module), which no code of ours can answer for; on a loaded machine that lasts
    beyond 0.1 s."""
    async with serve(lambda base: {"/sitemap.xml": xml_page(urlset([]))}) as site:
        argv = quiet(tmp_path / "r.json", f"{site.base}/sitemap.xml")
        with (tmp_path / "stderr.txt").open("wb") as stderr:
            started = asyncio.get_running_loop().time()
            process = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "auditor", *argv, cwd=ROOT,
                stdout=asyncio.subprocess.DEVNULL, stderr=stderr,
            )  # fmt: skip
            await catching(process.pid, signal.SIGTERM)
            waited = asyncio.get_running_loop().time() - started
            await asyncio.sleep(max(0.0, after_s - waited))
            process.send_signal(signum)
            code = await asyncio.wait_for(process.wait(), timeout=30)
    err = (tmp_path / "stderr.txt").read_text()
    assert (code, len(err.splitlines())) == (ExitCode.FAILED, 1), err
    assert not (tmp_path / "r.json").exists()


def test_a_stop_the_command_caught_inside_exec_ends_with_its_code(tmp_path: Path) -> None:
    """A SIGTERM run ended by SIGINT (status -2): the handler's KeyboardInterrupt, raised inside
    exec() as a dataclass was made and caught by the command (exit 3), left CPython's flag that
    makes `python -m` end by SIGINT. A command that does just that stands in for the run."""
    (tmp_path / "stopped.py").write_text(
        "import auditor.cli.main\n"
        "def main(argv=None):\n"
        "    try:\n"
        "        exec('raise KeyboardInterrupt')\n"
        "    except KeyboardInterrupt:\n"
        "        return 3\n"
        "auditor.cli.main.main = main\n"
        "from auditor.__main__ import entry\n"
        "entry()\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "stopped"], cwd=tmp_path, env=env, check=False, timeout=60
    )
    assert done.returncode == ExitCode.FAILED
