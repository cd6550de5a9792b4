"""Shared test helpers: run an audit against loopback servers and read its reports back."""

from __future__ import annotations

import json
import socket
import ssl
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import jsonschema
import trustme
from hypothesis import settings

from auditor.clock import Clock, FixedClock
from auditor.config import AuditConfig, Target
from auditor.demo.documents import Page, redirect, url, urlset, xml_page
from auditor.demo.server import serve
from auditor.discovery.targets import parse_target
from auditor.flow.audit import AuditResult, audit
from auditor.flow.ticker import OnProgress
from auditor.report.schema import report_schema
from auditor.urls import parse_http_url
from tests.engines import ENGINE
from tests.html_checks import assert_inert

# The audit's clock in tests: lastmod.future and the build-stamp rule are relative to it.
NOW = datetime(2026, 11, 23, 12, 0, tzinfo=UTC)
_VALIDATOR = jsonschema.Draft202012Validator(report_schema())

Report = dict[str, Any]


@dataclass(frozen=True)
class Audited:
    """One audit run: its result and its report, already checked against the schema."""

    result: AuditResult
    report: Report

    def codes(self) -> Counter[str]:
        """Every finding code of the run, with counts (kept findings and omitted ones)."""
        return Counter(self.report["summary"]["by_code"])

    def sitemap(self, suffix: str) -> Report:
        """The one sitemap record whose URL ends with `suffix`."""
        found: list[Report] = [s for s in self.report["sitemaps"] if s["url"].endswith(suffix)]
        assert len(found) == 1, (suffix, [s["url"] for s in self.report["sitemaps"]])
        return found[0]

    def sitemap_codes(self, suffix: str) -> Counter[str]:
        """Finding codes of one sitemap record (kept and omitted)."""
        record = self.sitemap(suffix)
        return Counter([f["code"] for f in record["findings"]]) + Counter(
            record.get("findings_omitted", {})
        )

    def url_codes(self) -> Iterator[tuple[str, list[str]]]:
        """(loc, codes) for each URL entry."""
        for entry in self.report["urls"]:
            yield entry["loc"], [f["code"] for f in entry["findings"]]


def deeper(factor: float) -> settings:
    """Hypothesis settings with `factor` times the loaded profile's examples.

    A property that needs more (or fewer) examples than the default says so relative to the
    profile, so that `--hypothesis-profile=long` deepens it too.
    """
    return settings(max_examples=max(1, round(settings().max_examples * factor)))


def url_key(url: str) -> str:
    """The normalised form of an absolute http(s) URL."""
    parsed = parse_http_url(url)
    assert parsed is not None
    return parsed.key


def validate_report(report: Report) -> None:
    """Fail the test when a report does not match the shipped schema."""
    _VALIDATOR.validate(report)


def target(text: str) -> Target:
    """A TARGET argument as the CLI would classify it (the file check runs here, not in the
    auditor: it is a blocking call, which the CLI makes before its event loop starts)."""
    exists = Path(text).is_file()
    return parse_target(text, is_file=lambda _path: exists)


async def run_audit(
    tmp_path: Path,
    *targets: str,
    on_progress: OnProgress | None = None,
    clock: Clock | None = None,
    **overrides: Any,
) -> Audited:
    """Audit `targets` with test-sized limits (short timeouts, quick retries).

    `clock`: the audit's (default: stopped at NOW).
    """
    settings: dict[str, Any] = {
        "json": tmp_path / "report.json",
        "no_check": True,
        "timeout_s": 2.0,
        "backoff_base_s": 0.01,
        "max_retry_after_s": 0.05,
        "allow_private": True,
        "engine": ENGINE.get(),  # the `engine` fixture's, where a test uses it
    }
    settings.update(overrides)
    config = AuditConfig(targets=tuple(target(t) for t in targets), **settings)
    result = await audit(config, clock=clock or FixedClock(NOW), on_progress=on_progress)
    report = json.loads(result.json_path.read_bytes())
    validate_report(report)
    assert_inert(result.html_path.read_text())  # every scenario's HTML report too
    return Audited(result, report)


def refused_port() -> int:
    """A loopback port nobody listens on (bound, then closed at once)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


@asynccontextmanager
async def serve_untrusted_tls() -> AsyncIterator[str]:
    """An https site on 127.0.0.1 whose certificate comes from a CA nobody trusts."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    trustme.CA().issue_cert("127.0.0.1", "localhost").configure_cert(context)
    with socket.socket() as tls_socket:
        tls_socket.bind(("127.0.0.1", 0))
        port = tls_socket.getsockname()[1]
        async with serve(lambda base: {"/": Page(200, b"ok")}, tls=(tls_socket, context)):
            yield f"https://127.0.0.1:{port}"


def mixed_routes(base: str) -> dict[str, Page]:
    """A small site with a bit of everything: answers 200, 404, 500, a redirect, and entries
    whose values are wrong, duplicated, or hostile in a spreadsheet (a formula, quotes, commas).
    """
    entries = [
        url(f"{base}/ok", lastmod="2024-05-01"),
        url(f"{base}/gone"),
        url(f"{base}/moved"),
        url(f"{base}/error"),
        url(f'{base}/odd,name"quoted'),
        url(f"{base}/ok"),  # loc.duplicate
        url(f"{base}/late", lastmod="2024-13-01"),  # lastmod.invalid
        url("=HYPERLINK(&quot;http://evil.invalid&quot;)"),  # loc.invalid, a formula in a cell
    ]
    return {
        "/robots.txt": Page(200, f"User-agent: *\nSitemap: {base}/sitemap.xml\n".encode()),
        "/sitemap.xml": xml_page(urlset(entries)),
        "/ok": Page(200, b"ok"),
        "/moved": redirect(301, f"{base}/ok"),
        "/error": Page(500, b"oops"),
        '/odd,name"quoted': Page(404, b"gone"),
        "/late": Page(200, b"late"),
    }
