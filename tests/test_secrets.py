"""`--header` values (cookies, tokens) go to the audited host only, and into no output."""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import sys
from collections.abc import Mapping
from pathlib import Path

import pytest
from aiohttp import web
from hypothesis import given
from hypothesis import strategies as st

from auditor.cli import main as cli
from auditor.cli.parser import parse_command
from auditor.clock import FixedClock
from auditor.config import AuditConfig, Engine
from auditor.demo.documents import Page, redirect, url, urlset, xml_page
from auditor.demo.server import Handler, Route, serve
from auditor.errors import ExitCode
from auditor.flow.audit import audit
from auditor.report.encode import REDACTED, config_json, dumps
from auditor.urls import redact_userinfo, split_userinfo
from tests.fault_server import ROOT
from tests.helpers import NOW, refused_port, target, validate_report

COOKIE, TOKEN = "secret-cookie-123", "tok-456"
# The values, and pieces of them: a report that cut a value short still leaks it.
SECRETS = (COOKIE, TOKEN, "secret-cookie", "tok-45")

Seen = list[tuple[str, str | None, str | None]]


def recording(seen: Seen, page: Page) -> Handler:
    """Answer with `page`, noting the path and the Cookie and Authorization headers received."""

    async def handler(request: web.Request) -> web.StreamResponse:
        headers = request.headers
        seen.append((request.path, headers.get("Cookie"), headers.get("Authorization")))
        return web.Response(status=page.status, body=page.body, headers=page.headers)

    return handler


def audited_site(
    base: str, elsewhere: str, seen: Seen, *, also: list[str], pages: Mapping[str, Page]
) -> Mapping[str, Route]:
    """robots.txt, a sitemap of pages that answer 200, 404 and a redirect to `elsewhere` (and
    of the URLs `also` and the paths of `pages`), every request noted in `seen`."""
    paths = ["/ok", "/missing", "/away", *pages]
    listed = urlset([url(f"{base}{path}") for path in paths] + [url(loc) for loc in also])
    routes = {
        "/robots.txt": Page(200, f"User-agent: *\nSitemap: {base}/sitemap.xml\n".encode()),
        "/sitemap.xml": xml_page(listed),
        "/ok": Page(200, b"ok"),
        "/missing": Page(404, b"gone"),
        "/away": redirect(302, f"{elsewhere}/landing"),
        **pages,
    }
    return {path: recording(seen, page) for path, page in routes.items()}


def leaks(text: str) -> list[str]:
    return [secret for secret in SECRETS if secret in text]


async def test_header_values_reach_the_target_host_only_and_no_output(
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    capsys: pytest.CaptureFixture[str],
    engine: Engine,
) -> None:
    caplog.set_level(logging.DEBUG)  # every logger, the auditor's and aiohttp's
    target_seen: Seen = []
    other_seen: Seen = []
    dead = f"http://127.0.0.1:{refused_port()}/down"  # a URL that fails: connection refused

    async with serve(
        lambda base: {"/landing": recording(other_seen, Page(200, b"elsewhere"))}
    ) as other:
        elsewhere = other.base.replace("127.0.0.1", "localhost")  # another host to the auditor

        def routes(base: str) -> Mapping[str, Route]:
            pages = {"/server-error": Page(500, b"oops")}
            return audited_site(base, elsewhere, target_seen, also=[dead], pages=pages)

        async with serve(routes) as target:
            outputs = {name: tmp_path / name for name in ("r.json", "r.html", "m.prom", "j.xml")}
            argv = [
                "--json", str(outputs["r.json"]),
                "--html", str(outputs["r.html"]),
                "--metrics", str(outputs["m.prom"]),
                "--junit", str(outputs["j.xml"]),
                "--header", f"Cookie: {COOKIE}",
                "--header", f"Authorization: Bearer {TOKEN}",
                "--timeout", "2", "--retries", "0", "--verbose", "--engine", engine,
                f"{target.base}/",
            ]  # fmt: skip
            # The CLI reads its arguments before its event loop starts (file checks block).
            _, config = await asyncio.to_thread(parse_command, argv)
            assert config is not None
            result = await audit(config, clock=FixedClock(NOW))
            cli._print_summary(result, quiet=False, no_check=False)

    # The audited host got both values on every request; the other host got neither.
    assert {path for path, _, _ in target_seen} >= {"/robots.txt", "/sitemap.xml", "/ok", "/away"}
    assert {(cookie, auth) for _, cookie, auth in target_seen} == {(COOKIE, f"Bearer {TOKEN}")}
    assert other_seen == [("/landing", None, None)]
    # The run did what the test needs: checks, a redirect to the other host, failing URLs.
    report = outputs["r.json"].read_text()
    parsed = json.loads(report)
    validate_report(parsed)
    wanted = {"redirect.other_host", "http.not_found", "http.server_error", "net.connect"}
    assert wanted <= set(parsed["summary"]["by_code"])
    assert parsed["config"]["headers"] == {"Cookie": "<redacted>", "Authorization": "<redacted>"}
    # No output holds them: not the reports, the metrics, JUnit, the logs or the terminal.
    assert config.headers == (("Cookie", COOKIE), ("Authorization", f"Bearer {TOKEN}"))
    written = {name: path.read_text() for name, path in outputs.items()}
    assert {name: leaks(text) for name, text in written.items()} == {name: [] for name in written}
    # Whatever is logged, at any level (a clean run logs nothing today), holds no value.
    assert leaks(caplog.text) == []
    assert [leaks(str(record.__dict__)) for record in caplog.records] == [[]] * len(caplog.records)
    terminal = capsys.readouterr()
    assert leaks(terminal.out + terminal.err) == []


_NAMES = st.text(st.sampled_from("abcXYZ-_"), min_size=1, max_size=12)
# The prefix: no other config text. CR, LF and NUL are refused in a value (RFC 9110 §5.5).
_VALUES = st.text(st.characters(exclude_characters="\r\n\0"), max_size=20).map(
    lambda text: f"zq9-{text}"
)


@given(headers=st.lists(st.tuples(_NAMES, _VALUES), max_size=5))
def test_the_reports_config_redacts_any_header_value(headers: list[tuple[str, str]]) -> None:
    config = AuditConfig(targets=(target("https://example.com/"),), headers=tuple(headers))
    shown = config_json(config)
    assert shown["headers"] == {name: REDACTED for name, _ in headers}
    assert b"zq9" not in dumps(shown)


USER, PASSWORD = "auditor", "pw-SECRET-789"
BASIC = "Basic " + base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
# The password, pieces of it, and the basic-auth value made of it.
CREDENTIALS = (PASSWORD, "SECRET-789", BASIC.split()[1], BASIC.split()[1][:12])


def credential_leaks(text: str) -> list[str]:
    return [secret for secret in CREDENTIALS if secret in text]


def with_userinfo(base: str) -> str:
    return base.replace("http://", f"http://{USER}:{PASSWORD}@", 1)


async def run_command(argv: list[str]) -> tuple[int, str]:
    """`python -m auditor` in its own process: its exit code, and its stdout and stderr."""
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "auditor", *argv,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, cwd=ROOT,
    )  # fmt: skip
    out, err = await asyncio.wait_for(process.communicate(), timeout=120)
    assert process.returncode is not None
    return process.returncode, (out + err).decode()


def written_leaks(folder: Path) -> dict[str, list[str]]:
    """Every file under `folder` that holds a credential, with what it holds."""
    found = {}
    for path in folder.rglob("*"):
        leaked = [] if path.is_dir() else credential_leaks(path.read_bytes().decode("latin-1"))
        if leaked or any(secret in str(path) for secret in CREDENTIALS):
            found[str(path.relative_to(folder))] = leaked
    return found


async def test_a_target_urls_credentials_reach_its_origin_only_and_no_output(
    tmp_path: Path, engine: Engine
) -> None:
    """`https://user:password@staging.example/`: basic auth to that origin, shown nowhere."""
    target_seen: Seen = []
    other_seen: Seen = []
    other_routes = {"/landing": Page(200, b"elsewhere"), "/listed": Page(200, b"listed")}
    async with serve(
        lambda base: {path: recording(other_seen, page) for path, page in other_routes.items()}
    ) as other:
        elsewhere = other.base.replace("127.0.0.1", "localhost")  # another host to the auditor

        def routes(base: str) -> Mapping[str, Route]:
            listed = f"{other.base}/listed"  # the same host, another origin (its port)
            return audited_site(base, elsewhere, target_seen, also=[listed], pages={})

        async with serve(routes) as served:
            out = tmp_path / "out"
            argv = [
                "--json", str(out / "r.json"), "--html", str(out / "r.html"),
                "--metrics", str(out / "m.prom"), "--junit", str(out / "j.xml"),
                "--csv", str(out / "csv"), "--verbose", "--no-progress",
                "--timeout", "2", "--retries", "0", "--engine", engine,
                with_userinfo(served.base) + "/",
            ]  # fmt: skip
            exit_code, terminal = await run_command(argv)

    # The target's origin got the credentials on every request; the other origins never did.
    assert {path for path, _, _ in target_seen} >= {"/robots.txt", "/sitemap.xml", "/ok", "/away"}
    assert {auth for _, _, auth in target_seen} == {BASIC}
    assert sorted(other_seen) == [("/landing", None, None), ("/listed", None, None)]
    report = json.loads((out / "r.json").read_text())
    validate_report(report)
    assert {"redirect.other_host", "http.not_found"} <= set(report["summary"]["by_code"])
    assert exit_code == ExitCode.FINDINGS
    # Shown redacted, written nowhere: reports, CSVs, JUnit, metrics, logs and terminal.
    assert [t["input"] for t in report["targets"]] == [f"http://<redacted>@{served.base[7:]}/"]
    assert written_leaks(out) == {}
    assert sorted(path.name for path in (out / "csv").iterdir()) == ["findings.csv", "urls.csv"]
    assert credential_leaks(terminal) == []


def test_a_target_keeps_its_userinfo_apart_from_what_is_shown() -> None:
    for text in (
        f"https://{USER}:{PASSWORD}@example.com/",
        f"https://{PASSWORD}@example.com/s.xml",
    ):
        parsed = target(text)
        assert parsed.userinfo is not None
        assert PASSWORD in parsed.userinfo
        assert credential_leaks(f"{parsed!r} {parsed.url} {parsed.input} {parsed.label}") == []
        config = AuditConfig(targets=(parsed,))
        assert credential_leaks(dumps(config_json(config)).decode()) == []


async def test_a_fleet_sites_credentials_reach_its_origin_only_and_no_fleet_output(
    tmp_path: Path,
) -> None:
    """A fleet line `http://user:password@host/`: no site name, folder or fleet output has it."""
    seen: Seen = []
    listed = Page(200, b"ok")

    def routes(base: str) -> Mapping[str, Route]:
        pages = {"/sitemap.xml": xml_page(urlset([url(f"{base}/ok")])), "/ok": listed}
        return {path: recording(seen, page) for path, page in pages.items()}

    async with serve(routes) as served:
        fleet = tmp_path / "sites.txt"
        fleet.write_text(with_userinfo(served.base) + "/sitemap.xml\n")
        out = tmp_path / "out"
        argv = ["--fleet", str(fleet), "--out", str(out), "--fleet-workers", "1"]
        argv += ["--junit", str(out / "j.xml"), "--metrics", str(out / "m.prom")]
        exit_code, terminal = await run_command([*argv, "--no-progress", "--retries", "0"])
    assert exit_code == ExitCode.OK, terminal
    assert sorted(seen) == [("/ok", None, BASIC), ("/sitemap.xml", None, BASIC)]
    [summary] = out.glob("fleet-*.json")
    [site] = json.loads(summary.read_text())["sites"]
    assert site["name"] == served.base.removeprefix("http://")
    assert written_leaks(out) == {}
    assert credential_leaks(terminal) == []


@pytest.mark.parametrize(
    ("written", "bare", "userinfo"),
    [
        ("https://u:p@h.example/x@y", "https://h.example/x@y", "u:p"),
        ("https://u@h.example?q=@", "https://h.example?q=@", "u"),
        ("https://a@b:c@h.example:8080/", "https://h.example:8080/", "a@b:c"),  # the last @
        ("https://h.example/a@b", "https://h.example/a@b", None),  # a path's @ is no userinfo
        ("https://h.example#@x", "https://h.example#@x", None),
        ("h.example/@x", "h.example/@x", None),
    ],
)
def test_the_userinfo_is_what_precedes_the_last_at_of_the_authority(
    written: str, bare: str, userinfo: str | None
) -> None:
    assert split_userinfo(written) == (bare, userinfo)
    shown = redact_userinfo(written)
    assert shown == (written if userinfo is None else bare.replace("://", "://<redacted>@", 1))
