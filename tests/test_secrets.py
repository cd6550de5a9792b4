"""`--header` values (cookies, tokens) go to the audited host only, and into no output."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Mapping
from pathlib import Path

import pytest
from aiohttp import web
from hypothesis import given
from hypothesis import strategies as st

from auditor.cli import main as cli
from auditor.cli.options import parse_command
from auditor.clock import FixedClock
from auditor.config import AuditConfig, Engine
from auditor.demo.documents import Page, redirect, url, urlset, xml_page
from auditor.demo.server import Handler, Route, serve
from auditor.pipeline import audit
from auditor.report.encode import REDACTED, config_json, dumps
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
            listed = urlset(
                [url(f"{base}/{path}") for path in ("ok", "missing", "away", "server-error")]
                + [url(dead)]
            )
            pages = {
                "/robots.txt": Page(200, f"User-agent: *\nSitemap: {base}/sitemap.xml\n".encode()),
                "/sitemap.xml": xml_page(listed),
                "/ok": Page(200, b"ok"),
                "/missing": Page(404, b"gone"),
                "/away": redirect(302, f"{elsewhere}/landing"),
                "/server-error": Page(500, b"oops"),
            }
            return {path: recording(target_seen, page) for path, page in pages.items()}

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
