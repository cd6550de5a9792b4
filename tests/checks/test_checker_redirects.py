"""URL checks through redirects: httpx's redirect matrix, ported to a real loopback server.

Each case of httpx's `tests/client/test_redirects.py` (301, 302, 303, 307, 308, relative, malformed,
protocol-relative, fragment, multiple, too many, loop, cross-domain, same-domain, request body kept
or dropped) becomes a listed URL whose report entry must carry the redirect codes
(docs/reference/codes.md#redirect), the recorded chain, and the final URL and status. Two hosts are
one server under two names: 127.0.0.1 and localhost (which /etc/hosts resolves to loopback).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web

from auditor.config import Method
from auditor.demo.documents import Page, redirect, url, urlset, xml_page
from auditor.demo.server import Route, serve
from tests.helpers import Report, refused_port, run_audit, serve_untrusted_tls

# Every test once with each transport of the URL checks (tests/engines.py).
pytestmark = pytest.mark.usefixtures("engine")

OK = Page(200, b"<html><title>ok</title></html>", {"Content-Type": "text/html"})
RoutesFor = Callable[[str], dict[str, Route]]


def other(base: str) -> str:
    """The same server under its other name: another host to the auditor."""
    return base.replace("127.0.0.1", "localhost")


def expand(template: str, base: str) -> str:
    """`{base}` and `{other}` in a case's expected URL, for this run's server."""
    return template.replace("{other}", other(base)).replace("{base}", base)


def codes(entry: Report) -> list[str]:
    return sorted(f["code"] for f in entry["findings"])


@dataclass(frozen=True)
class Validated:
    """The report entry of the one listed URL, and what the server saw."""

    entry: Report
    base: str
    hits: Mapping[str, int]


async def check_listed(
    tmp_path: Path, routes_for: RoutesFor, listed: str = "{base}/start", **overrides: Any
) -> Validated:
    """Serve `routes_for` plus a sitemap listing `listed`, audit it with URL checks."""

    def site(base: str) -> dict[str, Route]:
        table = dict(routes_for(base))
        table["/sitemap.xml"] = xml_page(urlset([url(expand(listed, base))]))
        return table

    async with serve(site) as served:
        audited = await run_audit(
            tmp_path, f"{served.base}/sitemap.xml", no_check=False, **overrides
        )
        hits = dict(served.hits)
    [entry] = audited.report["urls"]
    assert entry["loc"] == expand(listed, served.base)
    return Validated(entry, served.base, hits)


async def multiple(request: web.Request) -> web.StreamResponse:
    """httpx's /multiple_redirects: `?count=N` redirects (303) to `?count=N-1`, then to /m."""
    count = int(request.query.get("count", "0"))
    if not count:
        return web.Response(text="done")
    location = f"/m?count={count - 1}" if count > 1 else "/m"
    return web.Response(status=303, headers={"Location": location})


def cycle(length: int, status: int = 302) -> RoutesFor:
    """/start -> /l1 -> ... -> /l{length-1} -> /start: a loop of `length` hops."""
    paths = ["/start", *(f"/l{n}" for n in range(1, length))]
    return lambda b: {
        path: redirect(status, paths[(n + 1) % length]) for n, path in enumerate(paths)
    }


def hops(*steps: tuple[str, int]) -> tuple[tuple[str, int], ...]:
    return steps


def count_hops(count: int) -> tuple[tuple[str, int], ...]:
    return tuple((f"{{base}}/m?count={n}", 303) for n in range(count, 0, -1))


@dataclass(frozen=True)
class Case:
    """A listed URL's server side, and what its report entry must say."""

    routes: RoutesFor
    codes: tuple[str, ...]  # the entry's finding codes, in any order
    chain: tuple[tuple[str, int], ...]  # `redirects` as (url template, status)
    final_url: str | None
    final_status: int | None
    listed: str = "{base}/start"
    overrides: Mapping[str, Any] = field(default_factory=dict)


def one_hop(status: int, location: str, *, target: str = "/target", final: str = "") -> Case:
    """/start answers `status` to `location`; `target` answers 200 at `final` (its URL path)."""
    kind = "redirect.permanent" if status in {301, 308} else "redirect.temporary"
    return Case(
        lambda b: {"/start": redirect(status, expand(location, b)), target: OK},
        (kind,),
        hops(("{base}/start", status)),
        "{base}" + (final or target),
        200,
    )


def bad_location(location: str | None, status: int = 302) -> Case:
    """/start answers `status` with this Location (or none): the chain stops there."""
    headers = {} if location is None else {"Location": location}
    return Case(
        lambda b: {"/start": Page(status, b"", headers)},
        ("redirect.bad_location",),
        hops(("{base}/start", status)),
        None,
        None,
    )


CASES = [
    # httpx test_no_redirect
    pytest.param(Case(lambda b: {"/start": OK}, (), (), "{base}/start", 200), id="no_redirect"),
    # httpx test_redirect_301 / 302 / 303, and the two statuses httpx covers elsewhere
    pytest.param(one_hop(301, "{base}/target"), id="redirect_301"),
    pytest.param(one_hop(302, "{base}/target"), id="redirect_302"),
    pytest.param(one_hop(303, "{base}/target"), id="redirect_303"),
    pytest.param(one_hop(307, "{base}/target"), id="redirect_307"),
    pytest.param(one_hop(308, "{base}/target"), id="redirect_308"),
    pytest.param(
        Case(
            lambda b: {
                "/start": Page(301, b"<a href='/target'>here</a>", {"Location": "/target"}),
                "/target": OK,
            },
            ("redirect.permanent",),
            hops(("{base}/start", 301)),
            "{base}/target",
            200,
        ),
        id="redirect_301_with_a_body",
    ),
    # httpx test_relative_redirect, and relative forms RFC 3986 §5.2 resolves
    pytest.param(
        Case(  # a deep URL sent to the home page: a soft 404 too
            lambda b: {"/start": redirect(303, "/"), "/": OK},
            ("redirect.temporary", "redirect.to_root"),
            hops(("{base}/start", 303)),
            "{base}/",
            200,
        ),
        id="relative_redirect",
    ),
    pytest.param(
        Case(
            lambda b: {"/dir/start": redirect(302, "target"), "/dir/target": OK},
            ("redirect.temporary",),
            hops(("{base}/dir/start", 302)),
            "{base}/dir/target",
            200,
            listed="{base}/dir/start",
        ),
        id="relative_path_redirect",
    ),
    pytest.param(
        Case(
            lambda b: {"/dir/start": redirect(302, "../target"), "/target": OK},
            ("redirect.temporary",),
            hops(("{base}/dir/start", 302)),
            "{base}/target",
            200,
            listed="{base}/dir/start",
        ),
        id="dot_segment_redirect",
    ),
    pytest.param(
        Case(
            lambda b: {"/start": redirect(302, "?page=2"), "/start?page=2": OK},
            ("redirect.temporary",),
            hops(("{base}/start", 302)),
            "{base}/start?page=2",
            200,
        ),
        id="query_only_redirect",
    ),
    # httpx test_malformed_redirect: "https://:443/" has no host (RFC 9110 §4.2.1: an http(s)
    # URI must have one); httpx fills in the request's host, a checker reports it.
    pytest.param(bad_location("https://:443/", 303), id="malformed_redirect"),
    # httpx test_invalid_redirect: a non-ASCII host is a valid IDN (WHATWG URL: xn--e28h.invalid)
    # that does not resolve; ".invalid" never leaves the machine (RFC 6761 §6.4).
    pytest.param(
        Case(
            lambda b: {"/start": redirect(303, "http://\U0001f607.invalid/")},
            ("net.dns",),
            hops(("{base}/start", 303)),
            None,
            None,
        ),
        id="invalid_redirect",
    ),
    # httpx test_no_scheme_redirect: protocol-relative, to the other host and to the same one
    pytest.param(
        Case(
            lambda b: {
                "/start": redirect(303, "//" + other(b).split("//")[1] + "/target"),
                "/target": OK,
            },
            ("redirect.other_host",),
            hops(("{base}/start", 303)),
            "{other}/target",
            200,
        ),
        id="no_scheme_redirect_other_host",
    ),
    pytest.param(
        Case(
            lambda b: {"/start": redirect(303, "//" + b.split("//")[1] + "/target"), "/target": OK},
            ("redirect.temporary",),
            hops(("{base}/start", 303)),
            "{base}/target",
            200,
        ),
        id="no_scheme_redirect_same_host",
    ),
    # httpx test_fragment_redirect is a case of its own below (an auditor bug); a Location
    # with its own fragment keeps it.
    pytest.param(
        Case(
            lambda b: {"/start": redirect(303, "/target#frag"), "/target": OK},
            ("redirect.temporary",),
            hops(("{base}/start", 303)),
            "{base}/target#frag",
            200,
        ),
        id="location_with_fragment",
    ),
    # httpx test_multiple_redirects / test_too_many_redirects, at our default of 10 hops
    pytest.param(
        Case(
            lambda b: {"/m": multiple},
            ("redirect.chain", "redirect.temporary"),
            count_hops(10),
            "{base}/m",
            200,
            listed="{base}/m?count=10",
        ),
        id="multiple_redirects_10",
    ),
    pytest.param(
        Case(
            lambda b: {"/m": multiple},
            ("redirect.too_many",),
            count_hops(11),
            None,
            None,
            listed="{base}/m?count=11",
        ),
        id="too_many_redirects_11",
    ),
    # httpx's own numbers: 20 hops are fine with --max-redirects 20, 21 are not
    pytest.param(
        Case(
            lambda b: {"/m": multiple},
            ("redirect.chain", "redirect.temporary"),
            count_hops(20),
            "{base}/m",
            200,
            listed="{base}/m?count=20",
            overrides={"max_redirects": 20},
        ),
        id="multiple_redirects_20_of_20",
    ),
    pytest.param(
        Case(
            lambda b: {"/m": multiple},
            ("redirect.too_many",),
            count_hops(21),
            None,
            None,
            listed="{base}/m?count=21",
            overrides={"max_redirects": 20},
        ),
        id="too_many_redirects_21_of_20",
    ),
    pytest.param(
        Case(
            lambda b: {"/m": multiple},
            ("redirect.chain", "redirect.temporary"),
            count_hops(3),
            "{base}/m",
            200,
            listed="{base}/m?count=3",
            overrides={"max_redirects": 3},
        ),
        id="multiple_redirects_3_of_3",
    ),
    pytest.param(
        Case(
            lambda b: {"/m": multiple},
            ("redirect.too_many",),
            count_hops(4),
            None,
            None,
            listed="{base}/m?count=4",
            overrides={"max_redirects": 3},
        ),
        id="too_many_redirects_4_of_3",
    ),
    # httpx test_disallow_redirects: --max-redirects 0 follows none
    pytest.param(
        Case(
            lambda b: {"/start": redirect(301, "/target"), "/target": OK},
            ("redirect.too_many",),
            hops(("{base}/start", 301)),
            None,
            None,
            overrides={"max_redirects": 0},
        ),
        id="disallow_redirects",
    ),
    # httpx test_redirect_loop, and longer loops
    pytest.param(
        Case(cycle(1, 303), ("redirect.loop",), hops(("{base}/start", 303)), None, None),
        id="redirect_loop_1",
    ),
    pytest.param(
        Case(
            cycle(2),
            ("redirect.loop",),
            hops(("{base}/start", 302), ("{base}/l1", 302)),
            None,
            None,
        ),
        id="redirect_loop_2",
    ),
    pytest.param(
        Case(
            cycle(30),
            ("redirect.loop",),
            (("{base}/start", 302), *((f"{{base}}/l{n}", 302) for n in range(1, 30))),
            None,
            None,
            overrides={"max_redirects": 50},
        ),
        id="redirect_loop_30",
    ),
    pytest.param(
        Case(
            cycle(30),
            ("redirect.too_many",),  # the hop limit comes first: 11 redirects, no revisit yet
            (("{base}/start", 302), *((f"{{base}}/l{n}", 302) for n in range(1, 11))),
            None,
            None,
        ),
        id="redirect_loop_30_past_the_limit",
    ),
    pytest.param(
        Case(
            lambda b: {"/start": redirect(301, b.upper() + "/start#x")},
            ("redirect.loop",),
            hops(("{base}/start", 301)),
            None,
            None,
        ),
        id="redirect_loop_spelled_differently",
    ),
    # httpx test_cross_domain_redirect / test_same_domain_redirect
    pytest.param(
        Case(
            lambda b: {"/start": redirect(303, f"{other(b)}/target"), "/target": OK},
            ("redirect.other_host",),
            hops(("{base}/start", 303)),
            "{other}/target",
            200,
        ),
        id="cross_domain_redirect",
    ),
    pytest.param(one_hop(303, "{base}/target"), id="same_domain_redirect"),
    # httpx test_redirect_custom_scheme, and the other Locations a checker must not follow
    pytest.param(bad_location("market://details?id=42", 301), id="custom_scheme"),
    pytest.param(bad_location(None), id="missing_location"),
    pytest.param(bad_location(""), id="empty_location"),
    pytest.param(bad_location("http://[::1"), id="unparsable_location"),
    pytest.param(bad_location("http://127.0.0.1:99999/"), id="port_out_of_range"),
    pytest.param(bad_location("file:///etc/passwd"), id="file_location"),
    pytest.param(bad_location("javascript:alert(1)"), id="javascript_location"),
    pytest.param(bad_location("mailto:someone@example.com"), id="mailto_location"),
    pytest.param(bad_location("ftp://127.0.0.1/x"), id="ftp_location"),
    # Locations as servers send them: raw spaces and UTF-8, percent-encoded as browsers do
    pytest.param(one_hop(302, "/a b", target="/a b", final="/a%20b"), id="location_with_spaces"),
    pytest.param(
        one_hop(302, "/caf\u00e9", target="/caf\u00e9", final="/caf%C3%A9"), id="non_ascii_location"
    ),
    # Chains: permanent only when every hop is
    pytest.param(
        Case(
            lambda b: {
                "/start": redirect(301, "/b"),
                "/b": redirect(308, "/target"),
                "/target": OK,
            },
            ("redirect.chain", "redirect.permanent"),
            hops(("{base}/start", 301), ("{base}/b", 308)),
            "{base}/target",
            200,
        ),
        id="permanent_chain",
    ),
    pytest.param(
        Case(
            lambda b: {
                "/start": redirect(301, "/b"),
                "/b": redirect(302, "/target"),
                "/target": OK,
            },
            ("redirect.chain", "redirect.temporary"),
            hops(("{base}/start", 301), ("{base}/b", 302)),
            "{base}/target",
            200,
        ),
        id="mixed_chain",
    ),
    # Where a redirect leads matters as much as the redirect
    pytest.param(
        Case(
            lambda b: {"/start": redirect(302, "/target")},  # /target: the server's 404
            ("http.not_found", "redirect.temporary"),
            hops(("{base}/start", 302)),
            "{base}/target",
            404,
        ),
        id="redirect_to_a_404",
    ),
    pytest.param(
        Case(
            lambda b: {"/start": redirect(302, "http://nowhere.invalid/")},
            ("net.dns",),
            hops(("{base}/start", 302)),
            None,
            None,
        ),
        id="redirect_to_a_name_that_does_not_resolve",
    ),
    # RFC 9110 §15.4.1: 300 carries no Location to follow; a checker cannot pick for the user
    pytest.param(
        Case(lambda b: {"/start": Page(300)}, ("redirect.bad_location",), (), "{base}/start", 300),
        id="multiple_choices_300",
    ),
]


@pytest.mark.parametrize("case", CASES)
async def test_redirect_case(tmp_path: Path, case: Case) -> None:
    checked = await check_listed(tmp_path, case.routes, case.listed, **case.overrides)
    entry, base = checked.entry, checked.base
    chain = [(expand(u, base), status) for u, status in case.chain]
    assert codes(entry) == sorted(case.codes)
    assert [(hop["url"], hop["status"]) for hop in entry["redirects"]] == chain
    assert entry["status"] == (chain[0][1] if chain else case.final_status)
    final_url = expand(case.final_url, base) if case.final_url is not None else None
    assert (entry["final_url"], entry["final_status"]) == (final_url, case.final_status)


@pytest.mark.parametrize("length", [1, 2, 30])
async def test_a_loop_is_found_without_asking_any_url_twice(tmp_path: Path, length: int) -> None:
    checked = await check_listed(tmp_path, cycle(length), max_redirects=50)
    assert codes(checked.entry) == ["redirect.loop"]
    paths = ["/start", *(f"/l{n}" for n in range(1, length))]
    assert {path: checked.hits[path] for path in paths} == dict.fromkeys(paths, 1)


async def test_fragment_redirect(tmp_path: Path) -> None:
    checked = await check_listed(
        tmp_path, lambda b: {"/start": redirect(303, "/"), "/": OK}, "{base}/start#fragment"
    )
    base = checked.base
    assert [(h["url"], h["status"]) for h in checked.entry["redirects"]] == [
        (f"{base}/start#fragment", 303)
    ]
    assert checked.entry["final_url"] == f"{base}/#fragment"


async def test_redirect_to_another_port_is_another_host(tmp_path: Path) -> None:
    async with serve(lambda b: {"/target": OK}) as second:
        checked = await check_listed(
            tmp_path, lambda b: {"/start": redirect(301, f"{second.base}/target")}
        )
        # Judged where it lands: the other host's robots.txt is read too.
        assert second.hits == {"/target": 1, "/robots.txt": 1}
    assert codes(checked.entry) == ["redirect.other_host"]
    assert checked.entry["final_url"] == f"{second.base}/target"


async def test_redirect_to_a_refused_port(tmp_path: Path) -> None:
    port = refused_port()
    checked = await check_listed(
        tmp_path, lambda b: {"/start": redirect(302, f"http://127.0.0.1:{port}/target")}
    )
    entry = checked.entry
    assert codes(entry) == ["net.connect"]
    assert [(h["url"], h["status"]) for h in entry["redirects"]] == [(f"{checked.base}/start", 302)]
    assert (entry["status"], entry["final_url"], entry["final_status"]) == (302, None, None)


async def test_redirect_to_an_untrusted_https_server(tmp_path: Path) -> None:
    # The downgrade case (https -> http) needs the auditor to trust a test CA: not yet possible.
    async with serve_untrusted_tls() as tls:
        checked = await check_listed(tmp_path, lambda b: {"/start": redirect(301, f"{tls}/")})
    entry = checked.entry
    assert codes(entry) == ["net.tls"]
    assert [(h["url"], h["status"]) for h in entry["redirects"]] == [(f"{checked.base}/start", 301)]
    assert (entry["status"], entry["final_url"], entry["final_status"]) == (301, None, None)


def recording(seen: list[tuple[str, str | None]]) -> Route:
    """A 200 page that notes each request's method and Authorization header."""

    async def handler(request: web.Request) -> web.StreamResponse:
        seen.append((request.method, request.headers.get("Authorization")))
        return web.Response(text="target")

    return handler


# httpx test_head_redirect, test_body_redirect (308), test_no_body_redirect (303): the auditor
# sends no body, so what carries over is the method: HEAD stays HEAD and GET stays GET.
@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
@pytest.mark.parametrize(
    ("method", "verb"), [(Method.AUTO, "HEAD"), (Method.HEAD, "HEAD"), (Method.GET, "GET")]
)
async def test_redirect_keeps_the_method(
    tmp_path: Path, status: int, method: Method, verb: str
) -> None:
    seen: list[tuple[str, str | None]] = []
    checked = await check_listed(
        tmp_path,
        lambda b: {"/start": redirect(status, "/target"), "/target": recording(seen)},
        method=method,
    )
    assert [m for m, _ in seen] == [verb]
    assert checked.entry["method"] == verb
    assert checked.entry["final_status"] == 200


# httpx test_same_domain_redirect, test_cross_domain_redirect_with_auth(_header): a header the
# user gave for a site (`--header`) is for that site.
AUTH = (("Authorization", "Bearer abc"),)


async def test_same_domain_redirect_keeps_authorization(tmp_path: Path) -> None:
    seen: list[tuple[str, str | None]] = []
    await check_listed(
        tmp_path,
        lambda b: {"/start": redirect(303, f"{b}/target"), "/target": recording(seen)},
        headers=AUTH,
    )
    assert seen == [("GET", "Bearer abc")]


async def test_cross_domain_redirect_drops_authorization(tmp_path: Path) -> None:
    seen: list[tuple[str, str | None]] = []
    checked = await check_listed(
        tmp_path,
        lambda b: {"/start": redirect(303, f"{other(b)}/target"), "/target": recording(seen)},
        headers=AUTH,
    )
    assert checked.entry["final_url"] == f"{other(checked.base)}/target"
    assert seen == [("GET", None)]
