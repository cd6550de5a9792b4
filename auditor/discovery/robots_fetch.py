"""robots.txt fetched (once per origin, single flight, bounded) or read from a local file.

Orchestration over the network edge; robots.txt parsing is the pure `discovery.robots` module.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path
from typing import Protocol

from auditor.clock import Clock
from auditor.codes import Code
from auditor.discovery.robots import RobotsFetch, RobotsTxt, parse_robots
from auditor.errors import CompressionError, FetchError
from auditor.files import LocalFile
from auditor.limits import ROBOTS_MAX_BYTES
from auditor.models import Finding, finding
from auditor.net.body_pace import Read, floored
from auditor.net.decompress import BodyDecoder
from auditor.net.opener import Opener, Refused

# Distinct origins whose robots.txt one run reads. Rules are kept for the first MAX_RULE_ORIGINS
# hosts of documents (the targets' hosts come first; 500 KiB of rules is tens of megabytes once
# parsed); other entries keep only their Sitemap: keys. Quick look-ups, made only to check a
# cross-submission, are few and short: a hostile sitemap can list many hosts that never answer.
MAX_ROBOTS_ORIGINS = 64
MAX_RULE_ORIGINS = 4
MAX_QUICK_LOOKUPS = 8
# RFC 6585 §4: Too Many Requests.
TOO_MANY_REQUESTS = 429
# No answer because the host itself cannot be reached: no name, no listener, a bad certificate.
UNREACHABLE_HOST_CODES = frozenset(
    {Code.NET_DNS, Code.NET_CONNECT, Code.NET_TLS, Code.NET_BLOCKED_ADDRESS}
)


async def fetch_robots(
    follower: Opener, url: str, *, clock: Clock, window_s: float, rules: bool = True
) -> RobotsFetch:
    """Fetch and parse one robots.txt, its rules unless `rules` is False.

    A 4xx answer but 429 means no rules at all (RFC 9309 §2.3.1.3); a 5xx, a 429, no answer or
    a body that breaks off means complete disallow (RobotsTxt.unreachable). A redirect chain
    that cannot be followed counts as a 404 (Google, "How Google interprets the robots.txt
    specification": after the hops it follows, "treats it as a 404").
    """
    started = clock.monotonic()
    try:
        opened = await follower.open(url)
    except FetchError as error:
        problem = _unreachable(url, error.message, error=error.code)
        # A host that cannot be reached at all fails every request on its own, for the same
        # reason: complete disallow would only repeat it. A timeout may be robots.txt's alone.
        kept = None if error.code in UNREACHABLE_HOST_CODES else RobotsTxt.unreachable(url)
        return RobotsFetch(url, robots=kept, problem=problem, error=error)
    if isinstance(opened, Refused):  # a redirect problem: no hop is vetoed for robots.txt
        reason = opened.reason
        assert isinstance(reason, Finding)
        return RobotsFetch(url, problem=reason, redirects=opened.redirects)
    async with opened.response as response:
        status = response.status
        fetched = RobotsFetch(url, status, final_url=opened.final_url, redirects=opened.redirects)
        # Google treats 429 like 5xx (Search Central, "How Google interprets the robots.txt
        # specification"): the file is unreachable, never "no rules" as other 4xx are
        # (docs/explanation/rules.md#robots-status).
        if status >= 500 or status == TOO_MANY_REQUESTS:
            problem = _unreachable(url, f"answered {status}", status=status)
            return replace(
                fetched, robots=RobotsTxt.unreachable(url, status=status), problem=problem
            )
        if not 200 <= status < 300:
            return fetched
        try:
            read: Read = response.read
            if response.streamed:  # a body the transport read whole was bounded there
                read = floored(read, window_s=window_s, clock=clock)
            data = await _read_capped(read, response.body_encoding)
        except (FetchError, CompressionError) as error:  # Google: incomplete data, a 5xx
            problem = _unreachable(url, str(error), status=status)
            return replace(
                fetched, robots=RobotsTxt.unreachable(url, status=status), problem=problem
            )
    elapsed_ms = round((clock.monotonic() - started) * 1000)
    robots = parse_robots(_text(data), url=url, rules=rules)
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


class RobotsFetcher(Protocol):
    """Fetches one robots.txt; `quick_lookup` asks for the short, single-try policy."""

    def __call__(self, url: str, *, quick_lookup: bool) -> Awaitable[RobotsFetch]: ...


class RobotsCache:
    """One robots.txt fetch per origin, shared by every caller (single flight), bounded."""

    def __init__(self, fetch: RobotsFetcher) -> None:
        self._fetch = fetch
        self._entries: dict[str, asyncio.Future[RobotsFetch]] = {}
        self._quick_left = MAX_QUICK_LOOKUPS
        self._rules_left = MAX_RULE_ORIGINS

    async def get(self, origin: str, *, quick: bool = False) -> RobotsFetch | None:
        """The robots.txt of `origin`; None once the run's budget for it is spent.

        `quick`: only to check a cross-submission; no retry, a short timeout, a small budget.
        """
        entry = self._entries.get(origin)
        if entry is not None:
            if entry.done():  # the common case, once per URL checked: no shield to build
                return entry.result()
            return await asyncio.shield(entry)  # a cancelled waiter must not cancel the others
        if len(self._entries) >= MAX_ROBOTS_ORIGINS or (quick and not self._quick_left):
            return None
        self._quick_left -= quick
        entry = self._entries[origin] = asyncio.get_running_loop().create_future()
        try:
            result = await self._fetch(f"{origin}/robots.txt", quick_lookup=quick)
        except asyncio.CancelledError:
            del self._entries[origin]  # the run is stopping; nobody may wait on it forever
            entry.cancel()
            raise
        except Exception as exc:
            entry.set_exception(exc)
            entry.exception()  # retrieved here: waiters, if any, re-raise it themselves
            raise
        if result.robots is not None:
            if quick or not self._rules_left:
                result = replace(result, robots=result.robots.without_rules())
            else:
                self._rules_left -= 1
        entry.set_result(result)
        return result
