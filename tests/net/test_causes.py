"""Why a request got no answer, in plain words, the same on both engines; the library's own
text only in the log under -v.

Real loopback failures: a refused port, a name under .invalid, a certificate nobody trusts, a
TLS handshake with a port that speaks plain http, a page that never answers.
"""

from __future__ import annotations

import errno
import logging
from pathlib import Path

import pytest

from auditor.cli.main import main
from auditor.config import Engine
from auditor.demo.documents import Page, url, urlset, xml_page
from auditor.demo.server import serve
from auditor.errors import ExitCode
from auditor.net import causes
from tests.engines import ENGINE
from tests.helpers import refused_port, run_audit, serve_untrusted_tls

TIMEOUT_S = 1.0
# What the libraries call things: none of it belongs in a finding's message.
LIBRARY_WORDS = ("Error", "aiohttp", "libcurl", "Client", "SSL:", "errno", "_ssl.c")


def failing_routes(*, refused: int, untrusted: str) -> object:
    def routes(base: str) -> dict[str, Page]:
        plain_as_tls = base.replace("http://", "https://")  # this port speaks no TLS
        listed = {
            "refused": f"http://127.0.0.1:{refused}/page",
            "unresolved": "http://shop.invalid/page",
            "untrusted": f"{untrusted}/",
            "no_tls": f"{plain_as_tls}/page",
            "stalled": f"{base}/stalled",
        }
        routes.listed = listed  # type: ignore[attr-defined]
        return {
            "/sitemap.xml": xml_page(urlset([url(loc) for loc in listed.values()])),
            "/page": Page(200, b"ok"),
            "/stalled": Page(200, b"late", delay_s=TIMEOUT_S * 5),
        }

    return routes


async def messages_of(tmp_path: Path) -> tuple[dict[str, tuple[str, str]], str]:
    """Each failing URL's (code, message), by what went wrong; and the log at -v."""
    handler = _Kept()
    logging.getLogger("auditor").addHandler(handler)
    logging.getLogger("auditor").setLevel(logging.INFO)
    try:
        async with serve_untrusted_tls() as untrusted:
            routes = failing_routes(refused=refused_port(), untrusted=untrusted)
            async with serve(routes) as served:  # type: ignore[arg-type]
                audited = await run_audit(
                    tmp_path,
                    f"{served.base}/sitemap.xml",
                    no_check=False,
                    timeout_s=TIMEOUT_S,
                    retries=0,
                    slow_s=60.0,
                )
    finally:
        logging.getLogger("auditor").removeHandler(handler)
        logging.getLogger("auditor").setLevel(logging.NOTSET)
    listed = routes.listed  # type: ignore[attr-defined]
    by_loc = {entry["loc"]: entry["findings"] for entry in audited.report["urls"]}
    found = {}
    for name, loc in listed.items():
        [net] = [f for f in by_loc[loc] if f["code"].startswith("net.")]
        found[name] = (net["code"], net["message"])
    return found, "\n".join(handler.lines)


class _Kept(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


@pytest.mark.slow
async def test_causes_are_plain_words_the_same_on_both_engines(tmp_path: Path) -> None:
    said: dict[Engine, dict[str, tuple[str, str]]] = {}
    logs: dict[Engine, str] = {}
    for engine in Engine:
        token = ENGINE.set(engine)
        try:
            said[engine], logs[engine] = await messages_of(tmp_path / engine.value)
        finally:
            ENGINE.reset(token)
    expected = {
        "refused": ("net.connect", causes.errno_words(errno.ECONNREFUSED)),
        "unresolved": ("net.dns", causes.dns_words("shop.invalid")),
        "untrusted": ("net.tls", causes.NOT_TRUSTED),
        "no_tls": ("net.tls", causes.NO_TLS_HERE),
        "stalled": ("net.timeout", causes.timeout_words(TIMEOUT_S)),
    }
    for engine in Engine:
        assert said[engine] == expected, engine
        for _code, message in said[engine].values():
            assert not any(word in message for word in LIBRARY_WORDS), message
    # Under -v, what each library said is in the log, beside the words.
    assert "ClientConnector" in logs[Engine.AIOHTTP]
    assert "libcurl error 7" in logs[Engine.CURL]


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("SSL certificate problem: self-signed certificate", causes.NOT_TRUSTED),
        ("SSL certificate problem: unable to get local issuer certificate", causes.NOT_TRUSTED),
        ("SSL certificate problem: certificate has expired", "TLS: certificate expired"),
        (
            "SSL: no alternative certificate subject name matches target host name 'a.example'",
            "TLS: certificate for another name",
        ),
        (
            "Hostname mismatch, certificate is not valid for 'a.example'.",
            "TLS: certificate for another name",
        ),
    ],
)
def test_certificate_words(text: str, words: str) -> None:
    assert causes.certificate_words(text) == words


@pytest.mark.parametrize(
    ("text", "words"),
    [
        (
            "Failed to connect to 127.0.0.1 port 1 after 0 ms: Connection refused",
            "connection refused",
        ),
        ("Recv failure: Connection reset by peer", "connection reset"),
        ("Failed to connect to 10.0.0.1 port 80 after 3 ms: No route to host", "host unreachable"),
        (
            "Failed to connect to a.example port 80: Couldn't connect to server",
            causes.CONNECT_FAILED,
        ),
    ],
)
def test_connect_words(text: str, words: str) -> None:
    assert causes.connect_words(text) == words


@pytest.mark.parametrize(
    ("seconds", "text", "words"),
    [
        (20.0, "", "timed out after 20 s"),
        (
            None,
            "Operation timed out after 2001 milliseconds with 0 bytes received",
            "timed out after 2 s",
        ),
        (2.5, "", "timed out after 2.5 s"),
        (None, "", "timed out"),
    ],
)
def test_timeout_words(seconds: float | None, text: str, words: str) -> None:
    assert causes.timeout_words(seconds, text) == words


def test_tls_words_tell_a_port_without_tls() -> None:
    said = "OpenSSL/3.0.11: error:0A00010B:SSL routines::wrong version number"
    assert causes.tls_words(said) == causes.NO_TLS_HERE
    assert (
        causes.tls_words("[SSL: WRONG_VERSION_NUMBER] wrong version number") == causes.NO_TLS_HERE
    )
    assert causes.tls_words("sslv3 alert handshake failure") == causes.HANDSHAKE_FAILED


def test_a_bare_host_and_port_asks_for_its_scheme_at_exit_2(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Never taken as https (a plain dev server then failed every request with a TLS error)."""
    assert main(["127.0.0.1:18090"]) == ExitCode.USAGE
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1
    assert "http://127.0.0.1:18090" in err  # a URL that can be pasted
