"""The command line: usage errors, exit codes, report files, signals.

See docs/explanation/design.md#exit-codes.
"""

from __future__ import annotations

import asyncio
import json
import os
import pty
import re
import resource
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from aiohttp import web

from auditor.cli.main import main
from auditor.demo.documents import Page, url, urlset, xml_page
from auditor.demo.server import serve
from auditor.errors import ExitCode
from auditor.report.schema import report_schema
from tests.helpers import validate_report


def one_line_error(captured: pytest.CaptureFixture[str]) -> None:
    err = captured.readouterr().err
    assert len(err.strip().splitlines()) == 1
    assert "Traceback" not in err


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["--no-check"],
        ["--no-check", "not a url nor a file"],
        ["--no-check", "ftp://example.com/sitemap.xml"],
        ["--no-check", "--concurrency", "0", "https://example.com/"],
        ["--no-check", "--timeout", "-1", "https://example.com/"],
        ["--no-check", "--header", "no colon here", "https://example.com/"],
        ["--include", "([", "https://example.com/"],
        ["--no-check", "--fail-on", "sometimes", "https://example.com/"],
        ["--no-check", "--state", ".", "https://example.com/"],  # a folder
        ["--no-check", "--demo", "https://example.com/"],
        ["--slow", "0", "https://example.com/"],
        ["--rate", "-1", "https://example.com/"],
        ["--sample", "0", "https://example.com/"],
        ["--method", "post", "https://example.com/"],
        ["--no-such-flag", "https://example.com/"],
        ["--no-check", "--rate", "5", "https://example.com/"],  # check options mean nothing here
        ["--no-check", "--method", "head", "https://example.com/"],
        ["--no-check", "--include", "/blog/", "https://example.com/"],
        ["--no-check", "--sample", "3", "https://example.com/"],
        ["--no-check", "--slow", "2", "https://example.com/"],
        ["--no-check", "--timeout", "inf", "https://example.com/"],
        ["--no-check", "--sitemap-timeout", "nan", "https://example.com/"],
        ["--no-check", "--json", ".", "https://example.com/"],  # a folder
        ["--no-check", "--json", "r.json", "--html", "./r.json", "https://example.com/"],
        ["--no-check", "no-such-sitemap.xml"],  # a file that is not there, not a host
    ],
)
def test_usage_errors_exit_2_with_one_line(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == ExitCode.USAGE
    one_line_error(capsys)


def test_report_folder_that_cannot_exist_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sitemap = tmp_path / "s.xml"
    sitemap.write_text(urlset([url("https://example.com/a")]))
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    assert main(["--no-check", "--out", str(blocker / "reports"), str(sitemap)]) == 2
    one_line_error(capsys)


def write_sitemap(path: Path, *locs: str, lastmod: str | None = None) -> Path:
    path.write_text(urlset([url(loc, lastmod=lastmod) for loc in locs]))
    return path


@pytest.mark.slow
def test_exit_codes_follow_fail_on(tmp_path: Path) -> None:
    clean = write_sitemap(tmp_path / "clean.xml", "https://example.com/a", "https://example.com/b")
    dup = write_sitemap(tmp_path / "dup.xml", "https://example.com/a", "https://example.com/a")
    out = ["--no-check", "--out", str(tmp_path / "reports"), "--quiet"]
    assert main([*out, str(clean)]) == ExitCode.OK
    assert main([*out, str(dup)]) == ExitCode.OK  # a duplicate is a warning
    assert main([*out, "--fail-on", "warning", str(dup)]) == ExitCode.FINDINGS
    assert main([*out, "--fail-on", "never", str(dup)]) == ExitCode.OK


def test_default_report_names_are_host_and_timestamp(tmp_path: Path) -> None:
    sitemap = write_sitemap(tmp_path / "shop.xml", "https://example.com/a")
    out = tmp_path / "reports"
    for _ in range(2):  # the same second twice: the second report must not replace the first
        assert main(["--no-check", "--quiet", "--out", str(out), str(sitemap)]) == 0
    names = sorted(path.name for path in out.iterdir())
    assert len(names) == 4  # each JSON report has its HTML beside it, with the same stem
    stems = {name.removesuffix(".json") for name in names if name.endswith(".json")}
    assert {name.removesuffix(".html") for name in names if name.endswith(".html")} == stems
    assert len(stems) == 2
    assert all(stem.startswith("shop-") for stem in stems)
    for path in out.glob("*.json"):
        validate_report(json.loads(path.read_text()))


def test_local_file_location_rule_uses_its_first_url(tmp_path: Path) -> None:
    sitemap = write_sitemap(
        tmp_path / "s.xml",
        "https://www.example.com/a",
        "https://example.com/b",  # www
        "http://www.example.com/c",  # scheme
        "https://www.example.com:8443/d",  # port
        "https://shop.example.org/e",  # host
        "https://www.example.com/deep/f",  # a local file has no folder: in scope
    )
    report_path = tmp_path / "r.json"
    assert main(["--no-check", "--quiet", "--json", str(report_path), str(sitemap)]) == 1
    report = json.loads(report_path.read_text())
    kinds = {
        entry["loc"].rsplit("/", 1)[1]: [f["detail"]["kind"] for f in entry["findings"]]
        for entry in report["urls"]
    }
    assert kinds == {"a": [], "b": ["www"], "c": ["scheme"], "d": ["port"], "e": ["host"], "f": []}


@pytest.mark.slow
async def test_several_targets_and_a_local_robots_txt(tmp_path: Path) -> None:
    local = write_sitemap(tmp_path / "local.xml", "https://example.com/l1")

    def routes(base: str) -> dict[str, Page]:
        return {"/remote.xml": xml_page(urlset([url(f"{base}/r1"), url(f"{base}/r2")]))}

    async with serve(routes) as served:
        robots = tmp_path / "robots.txt"
        robots.write_text(f"User-agent: *\nSitemap: {served.base}/remote.xml\n")
        report_path = tmp_path / "r.json"
        argv = [sys.executable, "-m", "auditor", "--no-check", "--json", str(report_path)]
        argv.append("--allow-private")  # local files, and a sitemap on 127.0.0.1: say so
        process = await asyncio.create_subprocess_exec(
            *argv, str(local), str(robots), stdout=asyncio.subprocess.DEVNULL
        )
        assert await process.wait() == ExitCode.OK
    report = json.loads(report_path.read_text())
    validate_report(report)
    assert [t["kind"] for t in report["targets"]] == ["sitemap", "robots"]
    assert report["summary"]["urls"] == 3
    assert sorted(s["kind"] for s in report["sitemaps"]) == ["robots", "urlset", "urlset"]


@pytest.mark.slow
async def test_demo_runs_with_python_m(tmp_path: Path) -> None:
    report_path = tmp_path / "demo.json"
    process = await asyncio.create_subprocess_exec(
        *[sys.executable, "-m", "auditor", "--demo", "--no-check", "--json", str(report_path)],
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await process.communicate()
    assert process.returncode == ExitCode.FINDINGS  # the demo site has errors on purpose
    assert err == b""
    assert str(report_path).encode() in out
    report = json.loads(report_path.read_text())
    validate_report(report)
    assert report["complete"] is True
    assert report["summary"]["by_severity"]["error"] > 0


async def trickle(request: web.Request) -> web.StreamResponse:
    response = web.StreamResponse()
    await response.prepare(request)
    await response.write(urlset([url(f"http://{request.host}/a")]).encode()[:-10])
    while True:
        await asyncio.sleep(0.05)
        await response.write(b" ")


@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
async def test_a_signal_stops_the_run_and_writes_a_partial_report(
    signum: signal.Signals, tmp_path: Path
) -> None:
    report_path = tmp_path / "r.json"
    async with serve(lambda base: {"/slow.xml": trickle}) as served:
        process = await asyncio.create_subprocess_exec(
            *[sys.executable, "-m", "auditor", "--no-check", "--json", str(report_path)],
            f"{served.base}/slow.xml",
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
        )
        while not served.hits.get("/slow.xml"):
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.3)
        process.send_signal(signum)
        returncode = await asyncio.wait_for(process.wait(), timeout=5)
    assert returncode == ExitCode.FAILED
    report = json.loads(report_path.read_text())
    validate_report(report)
    assert report["complete"] is False
    html = (tmp_path / "r.html").read_text()
    assert 'id="incomplete"' in html  # said at the top, and in the verdict
    assert "verdict v-incomplete" in html
    # No spool, no temporary file.
    assert sorted(path.name for path in tmp_path.iterdir()) == ["r.html", "r.json"]


def test_a_file_name_that_is_not_utf8_is_audited_and_reported(tmp_path: Path) -> None:
    name = os.fsdecode(b"caf\xe9.xml")  # Latin-1 bytes in a file name
    sitemap = write_sitemap(tmp_path / name, "https://example.com/a")
    report_path = tmp_path / "r.json"
    assert main(["--no-check", "--quiet", "--json", str(report_path), str(sitemap)]) == 0
    report = json.loads(report_path.read_text())
    validate_report(report)
    assert report["targets"][0]["input"].endswith("caf\ufffd.xml")
    assert report["summary"]["urls"] == 1


@pytest.mark.slow
def test_a_full_disk_is_one_line_and_exit_3(tmp_path: Path) -> None:
    sitemap = write_sitemap(
        tmp_path / "s.xml", *(f"https://example.com/{n}" for n in range(20_000))
    )
    report_path = tmp_path / "r.json"

    def small_files() -> None:  # in the child: files stop growing at 200 kB, as on a full disk
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (200_000, 200_000))

    done = subprocess.run(
        [sys.executable, "-m", "auditor", "--no-check", "--json", str(report_path), str(sitemap)],
        preexec_fn=small_files,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == ExitCode.FAILED
    assert len(done.stderr.strip().splitlines()) == 1
    assert "Traceback" not in done.stderr
    assert [path.name for path in tmp_path.iterdir()] == ["s.xml"]  # nothing half-written


def test_print_schema_prints_the_shipped_schema(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--print-schema"]) == ExitCode.OK
    printed = json.loads(capsys.readouterr().out)
    assert printed == report_schema()
    assert printed["$schema"] == "https://json-schema.org/draft/2020-12/schema"


def test_html_goes_where_asked_and_the_summary_names_both_reports(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sitemap = write_sitemap(tmp_path / "s.xml", "https://example.com/a", "https://example.com/a")
    json_path, html_path = tmp_path / "r.json", tmp_path / "pages" / "audit.html"
    argv = ["--no-check", "--json", str(json_path), "--html", str(html_path), str(sitemap)]
    assert main(argv) == ExitCode.OK
    out = capsys.readouterr().out.splitlines()
    assert html_path.read_text().startswith("<!DOCTYPE html>")
    assert f"JSON report: {json_path}" in out
    assert f"HTML report: {html_path}" in out
    assert out[-1].startswith("PASS: ")  # stdout is not a terminal: plain lines, verdict last
    # Each code says what it means, gives an example and the fix, each on its own line.
    at = next(n for n, line in enumerate(out) if "loc.duplicate" in line)
    assert out[at + 1].split()[:2] == ["e.g.", "https://example.com/a"]
    assert out[at + 2].split()[0] == "fix:"


def test_quiet_prints_the_verdict_only(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sitemap = write_sitemap(tmp_path / "s.xml", "https://example.com/a", "ftp://example.com/b")
    argv = ["--no-check", "--quiet", "--json", str(tmp_path / "r.json"), str(sitemap)]
    assert main(argv) == ExitCode.FINDINGS
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 1
    assert out[0].startswith("FAIL: ")


@pytest.mark.parametrize(
    ("flags", "failing", "lines"),
    [
        (["-q"], False, 1),  # cron mails the verdict line every night, a pass too
        (["-q"], True, 1),
        (["-qq"], False, 0),  # the exit code speaks
        (["-qq"], True, 0),
        (["--quiet", "--quiet"], True, 0),
    ],
)
def test_quiet_prints_the_verdict_on_every_run_and_qq_nothing(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    flags: list[str],
    failing: bool,
    lines: int,
) -> None:
    locs = ["https://example.com/a", *(["ftp://example.com/b"] if failing else [])]
    sitemap = write_sitemap(tmp_path / "s.xml", *locs)
    code = main(["--no-check", *flags, "--json", str(tmp_path / "r.json"), str(sitemap)])
    assert code == (ExitCode.FINDINGS if failing else ExitCode.OK)
    captured = capsys.readouterr()
    assert len(captured.out.splitlines()) == lines
    if lines:
        assert captured.out.startswith("FAIL: " if failing else "PASS: ")
    assert captured.err == ""


def test_short_flags(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sitemap = write_sitemap(tmp_path / "s.xml", "https://example.com/a")
    assert main(["-V"]) == ExitCode.OK
    assert capsys.readouterr().out.startswith("sitemap-audit ")
    report = tmp_path / "r.json"
    assert (
        main(["--no-check", "-q", "-o", str(tmp_path / "out"), "-j", str(report), str(sitemap)])
        == 0
    )
    assert json.loads(report.read_text())["summary"]["urls"] == 1


def test_markdown_goes_to_a_file_or_to_stdout(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sitemap = write_sitemap(tmp_path / "s.xml", "https://example.com/a", "ftp://example.com/b")
    summary = tmp_path / "summary.md"
    argv = ["--no-check", "--json", str(tmp_path / "r.json"), "--markdown", str(summary)]
    assert main([*argv, str(sitemap)]) == ExitCode.FINDINGS
    text = summary.read_text()
    assert text.startswith("## ")
    assert "`loc.invalid`" in text
    capsys.readouterr()
    argv = ["--no-check", "--json", str(tmp_path / "r.json"), "--markdown", "-", str(sitemap)]
    assert main(argv) == ExitCode.FINDINGS
    captured = capsys.readouterr()
    assert captured.out == text.replace(str(summary.parent / "r.json"), str(tmp_path / "r.json"))
    assert captured.err.splitlines()[-1].startswith("FAIL: ")  # the summary on stderr


def test_keep_holds_a_dated_history_beside_a_fixed_report(tmp_path: Path) -> None:
    sitemap = write_sitemap(tmp_path / "s.xml", "https://example.com/a")
    out, latest = tmp_path / "history", tmp_path / "latest.json"
    stale = [out / f"s-2026010{n}T000000Z.json" for n in range(1, 5)]
    out.mkdir()
    for path in stale:
        path.write_text("{}")
        path.with_suffix(".html").write_text("")
    (out / "notes.json").write_text("{}")  # not a dated report: never touched
    argv = ["--no-check", "-q", "--keep", "3", "--out", str(out), "--json", str(latest)]
    assert main([*argv, str(sitemap)]) == ExitCode.OK
    kept = sorted(path.name for path in out.glob("*.json"))
    assert kept[0] == "notes.json"
    assert kept[1:3] == [stale[2].name, stale[3].name]  # the newest two of the old ones
    assert len(kept) == 4
    assert json.loads((out / kept[3]).read_text()) == json.loads(latest.read_text())
    assert (out / kept[3]).with_suffix(".html").exists()
    assert not stale[0].with_suffix(".html").exists()


def test_a_config_file_error_names_the_file_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "nope.toml"
    assert main(["--config", str(missing), "https://example.com/"]) == ExitCode.USAGE
    err = capsys.readouterr().err
    assert err.count(str(missing)) == 1


def test_html_on_a_folder_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--no-check", "--html", str(tmp_path), "https://example.com/"]) == 2
    one_line_error(capsys)


def test_a_json_named_html_keeps_its_html_report_beside_it(tmp_path: Path) -> None:
    sitemap = write_sitemap(tmp_path / "s.xml", "https://example.com/a")
    assert main(["--no-check", "--quiet", "--json", str(tmp_path / "r.html"), str(sitemap)]) == 0
    validate_report(json.loads((tmp_path / "r.html").read_text()))
    assert (tmp_path / "r.html.html").read_text().startswith("<!DOCTYPE html>")


def test_csv_on_a_file_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sitemap = write_sitemap(tmp_path / "s.xml", "https://example.com/a")
    assert main(["--no-check", "--csv", str(sitemap), str(sitemap)]) == ExitCode.USAGE
    one_line_error(capsys)
    assert main(["--no-check", "--csv", "-", str(sitemap)]) == ExitCode.USAGE  # no folder "-"
    one_line_error(capsys)
    assert not (tmp_path / "-").exists()


@pytest.mark.slow
@pytest.mark.parametrize("quiet", [False, True])
def test_json_dash_writes_the_report_to_stdout_and_the_summary_to_stderr(
    tmp_path: Path, quiet: bool
) -> None:
    sitemap = write_sitemap(tmp_path / "s.xml", "https://example.com/a", "ftp://example.com/b")
    out = tmp_path / "reports"
    argv = ["--no-check", "--json", "-", "--out", str(out), *(["--quiet"] if quiet else [])]
    done = subprocess.run(
        [sys.executable, "-m", "auditor", *argv, str(sitemap)],
        capture_output=True,
        check=False,
    )
    assert done.returncode == ExitCode.FINDINGS
    report = json.loads(done.stdout)  # stdout is the JSON report, nothing else
    validate_report(report)
    assert report["summary"]["urls"] == 2
    err = done.stderr.decode().splitlines()
    assert err[-1].startswith("FAIL: ")  # the verdict line, on stderr
    assert len(err) == 1 if quiet else len(err) > 1
    assert not out.exists()  # a pipe asked for the JSON alone: no file left behind
    assert b"Traceback" not in done.stderr


def on_a_terminal(argv: list[str], **env: str) -> str:
    """Run the command with stdout and stderr on a pseudo-terminal; what the terminal got."""
    leader, follower = pty.openpty()
    base = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    process = subprocess.Popen(
        [sys.executable, "-m", "auditor", *argv],
        stdin=subprocess.DEVNULL,
        stdout=follower,
        stderr=follower,
        env={**base, "TERM": "xterm-256color", "COLUMNS": "160", **env},
    )
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(leader)
    process.wait(timeout=60)
    return b"".join(chunks).decode(errors="replace")


_SGR = re.compile(r"\x1b\[([0-9;]*)m")
_COLOUR_PARAMETERS = {*range(30, 39), *range(40, 49), *range(90, 98), *range(100, 108)}


def colours(text: str) -> int:
    """How many escape sequences of the text set a colour (bold and dim are not colours)."""
    found = 0
    for match in _SGR.finditer(text):
        parameters = {int(p) for p in match.group(1).split(";") if p}
        found += bool(parameters & _COLOUR_PARAMETERS)
    return found


@pytest.mark.slow
@pytest.mark.parametrize(
    ("flags", "env", "coloured"),
    [
        ([], {}, True),
        ([], {"NO_COLOR": "1"}, False),
        ([], {"NO_COLOR": ""}, True),  # no-color.org: an empty value does not count
        (["--no-color"], {}, False),
    ],
)
def test_no_color_and_NO_COLOR_turn_colours_off(  # noqa: N802 - the variable's name
    tmp_path: Path, flags: list[str], env: dict[str, str], coloured: bool
) -> None:
    sitemap = write_sitemap(tmp_path / "s.xml", "https://example.com/a", "ftp://example.com/b")
    argv = ["--no-check", "--json", str(tmp_path / "r.json"), *flags, str(sitemap)]
    shown = on_a_terminal(argv, **env)
    assert "FAIL: " in shown  # the summary was on the terminal
    assert (colours(shown) > 0) is coloured


@pytest.mark.slow
def test_quiet_on_a_terminal_prints_the_verdict_line_alone(tmp_path: Path) -> None:
    sitemap = write_sitemap(tmp_path / "s.xml", "https://example.com/a", "ftp://example.com/b")
    argv = ["--no-check", "--quiet", "--json", str(tmp_path / "r.json"), str(sitemap)]
    shown = on_a_terminal(argv, NO_COLOR="1")
    lines = [line for line in _SGR.sub("", shown).splitlines() if line.strip()]
    assert len(lines) == 1
    assert lines[0].startswith("FAIL: ")
