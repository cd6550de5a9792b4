"""Hostile servers against the whole command: each fault route, read as a sitemap and
checked as a URL, gives its named finding; the run goes on (the healthy sitemaps and pages of
the same run are audited); the process ends in bounded time and memory (its own peak RSS).

The routes are in `tests/fault_server.py`. Each test prints its route's wall time and peak RSS
(`pytest -s tests/test_faults.py | grep FAULT`).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

from auditor.config import Engine
from auditor.demo.server import Route, serve
from auditor.errors import ExitCode
from tests.fault_server import CHILDREN, FAULTS, CliRun, fault_site, run_cli, serve_black_hole
from tests.helpers import Report, validate_report

pytestmark = pytest.mark.slow  # each case runs the command in a process of its own

MAX_RSS_MB = 200.0
PAGES = 20  # healthy pages listed after the faulty one
# Findings about where a URL is, not about the fault.
_SCOPE = {"loc.host_mismatch", "loc.out_of_scope"}


@dataclass(frozen=True)
class Expect:
    sitemap: frozenset[str]  # codes of the fault's own sitemap record
    url: tuple[str, ...]  # codes of the faulty URL's check
    max_wall_s: float = 10.0  # the whole process, start to end


EXPECTED: dict[str, Expect] = {
    "reset_mid_headers": Expect(frozenset({"net.connect"}), ("net.connect",)),
    "reset_mid_body": Expect(frozenset({"net.protocol"}), ("net.protocol",)),
    # One byte a second, under --timeout 2: only a bound on the whole head stops it.
    "slow_headers": Expect(frozenset({"net.timeout"}), ("net.timeout",)),
    # A body below 1 KiB/s over --timeout (2 s) ends there, not at --sitemap-timeout.
    "slow_body": Expect(frozenset({"net.timeout"}), ("net.timeout",)),
    "endless_header": Expect(frozenset({"net.protocol"}), ("net.protocol",)),
    "endless_headers": Expect(frozenset({"net.protocol"}), ("net.protocol",)),
    # Content-Length says where the answer ends (RFC 9112 §6.3); what follows is never read
    # as the answer to another request.
    "longer_than_length": Expect(frozenset(), ()),
    "shorter_than_length": Expect(frozenset({"net.protocol"}), ("net.protocol",)),
    "broken_chunked": Expect(frozenset({"net.protocol"}), ("net.protocol",)),
    "broken_chunked_late": Expect(frozenset({"net.protocol"}), ("net.protocol",)),
    # A page is not a sitemap: its broken encoding only hides its meta tags.
    "gzip_then_junk": Expect(frozenset({"sitemap.compression_error"}), ()),
    # Reading stops at the limit, before any entry: no entries is a finding of its own.
    "two_gigabytes": Expect(frozenset({"sitemap.too_large", "sitemap.empty"}), ()),
    "endless_comment": Expect(frozenset({"xml.malformed", "sitemap.empty"}), ()),
    "private_by_name": Expect(
        frozenset({"sitemap.redirected", "net.blocked_address"}), ("net.blocked_address",)
    ),
    "ring": Expect(frozenset({"sitemap.redirected", "redirect.too_many"}), ("redirect.too_many",)),
}
# The child's resolver answers this name with cloud metadata's address (no DNS involved).
NAMES = {"private_by_name": "metadata.test=169.254.169.254"}
# Answers a route smuggles after its own (fault_server.longer_than_length sends 20).
SMUGGLED = {"longer_than_length": 20}


def codes_of(record: Report) -> Counter[str]:
    kept = Counter(f["code"] for f in record["findings"] if f["code"] not in _SCOPE)
    return kept + Counter(record.get("findings_omitted", {}))


def measured(name: str, run: CliRun, *, max_wall_s: float) -> None:
    print(f"\nFAULT {name}: exit {run.exit_code}, {run.wall_s:.2f} s, {run.peak_rss_mb:.1f} MB")
    assert "Traceback" not in run.stderr, run.stderr
    assert run.peak_rss_mb < MAX_RSS_MB
    assert run.wall_s < max_wall_s


def argv(
    report: Path,
    *targets: str,
    timeout_s: float = 2.0,
    retries: int = 1,
    engine: Engine = Engine.CURL,
) -> list[str]:
    return [
        "--json", str(report), "--quiet", "--no-progress", "--method", "get",
        "--timeout", str(timeout_s), "--retries", str(retries), "--engine", engine, *targets,
    ]  # fmt: skip


def read_report(path: Path, *, sample: int | None = None) -> Report:
    """The report, complete; checked against the schema (with `sample`: on that many sitemaps
    records only, a 50,000-record report takes the validator tens of seconds)."""
    report: Report = json.loads(path.read_text())
    validate_report({**report, "sitemaps": report["sitemaps"][:sample]} if sample else report)
    assert report["complete"] is True
    return report


def assert_healthy(
    report: Report, base: str, hits: Mapping[str, int], *, smuggled: int = 0
) -> None:
    """The healthy sitemaps were read and every healthy page checked: the run went on.

    Each answer came from the server (it saw the request): none was an answer smuggled onto a
    reused connection, which a server stuck on that connection would never have seen; except,
    at most `smuggled` times, for a route that smuggles answers on purpose. aiohttp pools
    connections per origin, and a reused one may hold bytes that arrived after it went back
    to the pool: the lying server then answers one of its own URLs without seeing it asked
    (its own origin only; it could have answered that request the same way).
    """
    by_loc = {entry["loc"]: entry for entry in report["urls"]}
    unseen = 0
    for path in [*(f"/ok/{n}" for n in range(PAGES)), "/ok/after"]:
        entry = by_loc[base + path]
        assert (entry["status"], codes_of(entry)) == (200, Counter()), path
        assert hits.get(path, 0) <= 1, path
        unseen += hits.get(path) is None
    assert unseen <= smuggled
    assert (hits.get("/healthy.xml"), hits.get("/after.xml")) == (1, 1)
    for name in ("/healthy.xml", "/after.xml"):
        [record] = [s for s in report["sitemaps"] if s["url"] == base + name]
        assert (record["status"], codes_of(record)) == (200, Counter()), record


@pytest.mark.parametrize("fault", sorted(FAULTS))
async def test_a_fault_route_as_sitemap_and_as_url(
    fault: str, tmp_path: Path, engine: Engine
) -> None:
    """The sitemap side is aiohttp's whatever the engine; the URL side is the engine's."""
    expect = EXPECTED[fault]
    report_path = tmp_path / "r.json"

    def routes(base: str) -> dict[str, Route]:
        checked = f"{base}/fault/{fault}"
        return fault_site(base, fault=fault, checked=checked, dead=None, pages=PAGES)

    async with serve(routes) as served:
        base = served.base
        targets = (f"{base}/fault/{fault}", f"{base}/healthy.xml", f"{base}/after.xml")
        slow = fault in ("slow_headers", "slow_body")
        retries = 0 if slow else 1  # each try takes the whole timeout
        run = await run_cli(
            argv(report_path, *targets, retries=retries, engine=engine),
            tmp_path=tmp_path, limit_s=60, names=NAMES.get(fault),
        )  # fmt: skip
        hits = dict(served.hits)
    measured(fault, run, max_wall_s=expect.max_wall_s)
    report = read_report(report_path)
    [record] = [s for s in report["sitemaps"] if s["url"] == f"{base}/fault/{fault}"]
    [entry] = [e for e in report["urls"] if e["loc"] == f"{base}/fault/{fault}"]
    assert set(codes_of(record)) == expect.sitemap
    assert tuple(sorted(codes_of(entry))) == expect.url
    assert_healthy(report, base, hits, smuggled=SMUGGLED.get(fault, 0))
    assert run.exit_code == (ExitCode.FINDINGS if expect.sitemap or expect.url else ExitCode.OK)


async def test_an_index_of_50000_children_on_a_host_that_never_answers(tmp_path: Path) -> None:
    """The breaker gives the host up: a few dozen connections, not 50,000 timeouts."""
    report_path = tmp_path / "r.json"
    async with serve_black_hole() as hole:

        def routes(base: str) -> dict[str, Route]:
            checked = f"{hole.base}/page"  # the same host as a checked URL
            return fault_site(base, fault="ring", checked=checked, dead=hole.base, pages=PAGES)

        async with serve(routes) as served:
            base = served.base
            targets = (f"{base}/index50k.xml", f"{base}/healthy.xml", f"{base}/after.xml")
            # 16 documents at once: the breaker's 20 failures take two timeouts, not five.
            flags = [*argv(report_path, *targets, timeout_s=1.0, retries=0)]
            flags[:0] = ["--sitemap-concurrency", "16"]
            run = await run_cli(flags, tmp_path=tmp_path, limit_s=60)
            hits = dict(served.hits)
        connections = hole.connections
    measured("index_of_50000_children_timing_out", run, max_wall_s=30.0)
    print(f"  black hole: {connections} connections for {CHILDREN} children")
    report = read_report(report_path, sample=200)
    children = [s for s in report["sitemaps"] if s["url"].startswith(f"{hole.base}/c/")]
    assert len(children) == CHILDREN
    assert {tuple(codes_of(child)) for child in children} == {("net.timeout",)}
    given_up = [
        child
        for child in children
        if "given_up_after" in (child["findings"][-1].get("detail") or {})
    ]
    assert len(given_up) > CHILDREN - 100
    assert connections < 100
    [entry] = [e for e in report["urls"] if e["loc"] == f"{hole.base}/page"]
    assert list(codes_of(entry)) == ["net.timeout"]
    assert_healthy(report, base, hits)
    assert run.exit_code == ExitCode.FINDINGS
