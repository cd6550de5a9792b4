"""Discovery: robots.txt (fetched once per origin), its `Sitemap:` lines, the known locations.

Orchestration over the fetch edge; robots.txt parsing is the pure `robots` module.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from urllib.parse import urljoin

from auditor.clock import Clock
from auditor.codes import Code
from auditor.decompress import BodyDecoder, CompressionError
from auditor.fetch import FetchError
from auditor.follow import Follower, Refused
from auditor.local import LocalFile
from auditor.models import Finding, ProbeResult, Redirect, TargetRecord, finding
from auditor.robots import ROBOTS_MAX_BYTES, RobotsTxt, parse_robots
from auditor.targets import Target

# Where sites put sitemaps when robots.txt names none (sitemaps.org, WordPress, Yoast, ...).
PROBE_PATHS = (
    "sitemap.xml",
    "sitemap_index.xml",
    "sitemap-index.xml",
    "sitemap.xml.gz",
    "wp-sitemap.xml",
    "sitemap.txt",
)
# Distinct origins whose robots.txt one run may read (cross-submission checks included).
MAX_ROBOTS_ORIGINS = 256


@dataclass(frozen=True, slots=True)
class RobotsFetch:
    """What fetching one robots.txt gave: rules when it answered 2xx, a problem when it failed."""

    url: str
    status: int | None = None
    robots: RobotsTxt | None = None
    problem: Finding | None = None  # robots.unreachable
    bytes: int = 0
    final_url: str | None = None
    redirects: tuple[Redirect, ...] = ()
    elapsed_ms: int | None = None


def probe_urls(site_url: str) -> list[str]:
    """The known sitemap locations under a site URL."""
    return [urljoin(site_url, path) for path in PROBE_PATHS]


async def fetch_robots(follower: Follower, url: str, *, clock: Clock) -> RobotsFetch:
    """Fetch and parse one robots.txt; 4xx means no rules (RFC 9309 §2.3.1.3)."""
    started = clock.monotonic()
    try:
        opened = await follower.open(url)
    except FetchError as error:
        return RobotsFetch(url, problem=_unreachable(url, error.message, error=error.code))
    if isinstance(opened, Refused):
        problem = _unreachable(url, opened.finding.message, error=opened.finding.code)
        return RobotsFetch(url, problem=problem)
    async with opened.response as response:
        fetched = RobotsFetch(
            url, response.status, final_url=opened.final_url, redirects=opened.redirects
        )
        if response.status >= 500:
            problem = _unreachable(url, "answered 5xx", status=response.status)
            return replace(fetched, problem=problem)
        if not 200 <= response.status < 300:
            return fetched
        try:
            data = await _read_capped(response.read, response.headers.get("Content-Encoding"))
        except (FetchError, CompressionError) as error:
            return replace(fetched, problem=_unreachable(url, str(error)))
    elapsed_ms = round((clock.monotonic() - started) * 1000)
    robots = parse_robots(_text(data), url=url)
    return replace(fetched, robots=robots, bytes=len(data), elapsed_ms=elapsed_ms)


async def read_robots_file(path: Path, url: str) -> RobotsFetch:
    """A local robots.txt: its Sitemap: lines only matter (no site to protect)."""
    try:
        async with await LocalFile.open(path) as handle:
            data = await _read_capped(handle.read, None)
    except OSError as error:
        return RobotsFetch(url, problem=_unreachable(url, str(error)))
    return RobotsFetch(url, robots=parse_robots(_text(data), url=url), bytes=len(data))


async def _read_capped(read: Callable[[], Awaitable[bytes]], encoding: str | None) -> bytes:
    """The body, undone of its Content-Encoding, cut at ROBOTS_MAX_BYTES (Google's limit)."""
    decoder = BodyDecoder(encoding)
    data = bytearray()
    while len(data) < ROBOTS_MAX_BYTES:
        chunk = await read()
        for piece in decoder.feed(chunk) if chunk else decoder.close():
            data += piece
            if len(data) >= ROBOTS_MAX_BYTES:
                break
        if not chunk:
            break
    return bytes(data[:ROBOTS_MAX_BYTES])


def _text(data: bytes) -> str:
    return data.decode("utf-8", errors="replace").removeprefix("\ufeff")


def _unreachable(
    url: str, message: str, *, status: int | None = None, error: str | None = None
) -> Finding:
    text = f"robots.txt: {message}"
    return finding(Code.ROBOTS_UNREACHABLE, text, url=url, status=status, error=error)


def robots_findings(fetched: RobotsFetch) -> list[Finding]:
    """What a robots.txt read tells about discovery (DESIGN §4 robots.*)."""
    if fetched.problem is not None:
        return [fetched.problem]
    robots = fetched.robots
    if robots is None or not robots.sitemaps:
        return [finding(Code.ROBOTS_NO_SITEMAP, url=fetched.url, status=fetched.status)]
    found: list[Finding] = []
    for line in robots.sitemaps:
        if line.url is None:
            message = "robots.txt Sitemap: value is not an http(s) URL"
            found.append(
                finding(Code.LOC_INVALID, message, url=line.value, line=line.line, value=line.value)
            )
        elif line.relative:
            found.append(
                finding(
                    Code.ROBOTS_RELATIVE_SITEMAP, url=line.url, line=line.line, value=line.value
                )
            )
    return found


class RobotsCache:
    """One robots.txt fetch per origin, shared by every caller (single flight), bounded."""

    def __init__(
        self, fetch: Callable[[str], Awaitable[RobotsFetch]], *, limit: int = MAX_ROBOTS_ORIGINS
    ) -> None:
        self._fetch = fetch
        self._limit = limit
        self._entries: dict[str, asyncio.Future[RobotsFetch]] = {}

    async def get(self, origin: str) -> RobotsFetch | None:
        """The robots.txt of `origin`; None once the run's origin budget is spent."""
        entry = self._entries.get(origin)
        if entry is not None:
            return await asyncio.shield(entry)  # a cancelled waiter must not cancel the others
        if len(self._entries) >= self._limit:
            return None
        entry = self._entries[origin] = asyncio.get_running_loop().create_future()
        try:
            result = await self._fetch(f"{origin}/robots.txt")
        except asyncio.CancelledError:
            del self._entries[origin]  # the run is stopping; nobody may wait on it forever
            entry.cancel()
            raise
        except Exception as exc:
            entry.set_exception(exc)
            entry.exception()  # retrieved here: waiters, if any, re-raise it themselves
            raise
        entry.set_result(result)
        return result


@dataclass(slots=True)
class TargetState:
    """What discovery learns about one target while the run goes on."""

    target: Target
    robots: str | None = None
    sitemaps: list[str] = field(default_factory=list)
    probes: list[ProbeResult] = field(default_factory=list)
    pending_probes: int = 0
    findings: list[Finding] = field(default_factory=list)

    def none_found(self) -> None:
        """No sitemap in robots.txt nor at the known locations (DESIGN §4)."""
        self.findings.append(finding(Code.DISCOVERY_NONE_FOUND, url=self.target.url))

    def probe_done(self, result: ProbeResult) -> None:
        """Record one probe; the last one decides whether anything was found."""
        self.probes.append(result)
        self.pending_probes -= 1
        if self.pending_probes == 0 and not any(probe.found for probe in self.probes):
            self.none_found()

    def record(self) -> TargetRecord:
        """The target's entry in the report."""
        return TargetRecord(
            input=self.target.input,
            kind=self.target.kind.value,
            url=self.target.url,
            robots=self.robots,
            sitemaps=tuple(self.sitemaps),
            probes=tuple(sorted(self.probes, key=lambda probe: probe.url)),
            findings=tuple(self.findings),
        )
