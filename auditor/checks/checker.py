"""Check one listed URL: request it politely, follow its redirects, judge the answer.

Orchestration over `follow` (retries, pacing, redirects) and the pure `redirects` and `page`
rules. A check returns a plain CheckResult and adds nothing up: only the sink does (so the
stage can later run in several processes).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from auditor.checks.answer_rules import (
    SEARCH_AGENTS,
    bot_challenge,
    header_noindex,
    meta_noindex,
    slow_finding,
    status_findings,
)
from auditor.codes import Code
from auditor.config import Method
from auditor.discovery.robots import RobotsTxt
from auditor.errors import CompressionError, FetchError
from auditor.models import AlreadyRead, CheckResult, Finding, finding
from auditor.net.client import Response
from auditor.net.decompress import BodyDecoder
from auditor.net.opener import Opened, Opener, Refused
from auditor.net.redirects import chain_findings

log = logging.getLogger(__name__)
# A GET reads at most this much of a body (for meta robots and bot challenges), then lets go.
MAX_BODY_PREFIX_BYTES = 64 * 1024
_ERROR_CHARS = 300

RobotsFor = Callable[[str], Awaitable[RobotsTxt | None]]  # origin -> its robots.txt rules


def agent_token(user_agent: str) -> str:
    """The product token robots.txt groups name: "sitemap-auditor/1.0 (+url)" -> the first word.

    RFC 9309 §2.2.1: a crawler matches groups by its product token, case-insensitively.
    """
    return user_agent.split("/", 1)[0].split(None, 1)[0].lower() if user_agent.strip() else "*"


class Checker:
    """Requests URLs with one follower and judges each answer."""

    def __init__(
        self, follower: Opener, *, method: Method, slow_s: float, agent: str, robots: RobotsFor
    ) -> None:
        self._follower = follower
        self._method = method
        self._slow_s = slow_s
        self._agent = agent
        self._agents = SEARCH_AGENTS | {agent}
        self._robots = robots
        # The last origin's rules: most URLs follow one of their own host (no await for them).
        self._last_robots: tuple[str, RobotsTxt | None] | None = None

    async def check(self, loc: str, *, origin: str) -> CheckResult:
        """Request `loc` (an absolute http(s) URL of `origin`) and say what its answer means."""
        try:
            last = self._last_robots
            if last is not None and last[0] == origin:
                robots = last[1]
            else:
                robots = await self._robots(origin)
                self._last_robots = (origin, robots)
            found = self._robots_findings(loc, robots)
            try:
                opened = await self._follower.open(loc, method=self._method)
            except FetchError as error:
                found.append(error.finding(url=loc))
                return CheckResult(None, findings=tuple(found))
            if isinstance(opened, Refused):
                return self._refused(opened, found)
            return await self._answered(loc, opened, found)
        except Exception as exc:  # a bug: report where, and go on (DESIGN §4 internal.error)
            log.exception("internal error while checking %s", loc)
            text = f"{type(exc).__name__}: {exc}"[:_ERROR_CHARS]
            return CheckResult(None, findings=(finding(Code.INTERNAL_ERROR, url=loc, error=text),))

    def _robots_findings(self, loc: str, robots: RobotsTxt | None) -> list[Finding]:
        """url.blocked_by_robots, by the URL's own host's robots.txt (`*` or our token's group)."""
        if robots is None or robots.allows(loc, self._agent):
            return []
        return [finding(Code.URL_BLOCKED_BY_ROBOTS, url=loc, robots=robots.url, agent=self._agent)]

    def _refused(self, refused: Refused, found: list[Finding]) -> CheckResult:
        reason = refused.reason
        assert not isinstance(reason, AlreadyRead), "checks veto no hop"
        found.append(reason)
        chain = refused.redirects
        return CheckResult(
            chain[0].status if chain else None,
            redirects=chain,
            elapsed_ms=round(refused.elapsed_s * 1000),
            findings=tuple(found),
        )

    async def _answered(self, loc: str, opened: Opened, found: list[Finding]) -> CheckResult:
        response = opened.response
        status, headers = response.status, response.headers
        robots_tags = response.header_values("X-Robots-Tag")
        body = b""
        try:
            if opened.method is Method.GET:
                body = await _read_prefix(response)
        except FetchError as error:  # the answer came; its body broke off
            found.append(finding(error.code, error.message, url=loc, status=status))
        finally:
            response.close()
        final_url, chain = opened.final_url, opened.redirects
        found += chain_findings(loc, chain, final_url)
        challenge = bot_challenge(status, headers, body)
        found += status_findings(status, url=loc, challenge=challenge)
        if 200 <= status < 300 and challenge is None and self._noindex(robots_tags, body):
            found.append(finding(Code.URL_NOINDEX, url=loc, final_url=final_url))
        slow = slow_finding(opened.elapsed_s, url=loc, slow_s=self._slow_s)
        if slow is not None:
            found.append(slow)
        return CheckResult(
            chain[0].status if chain else status,
            final_url=final_url,
            final_status=status,
            redirects=chain,
            elapsed_ms=round(opened.elapsed_s * 1000),
            method=opened.method.value.upper(),
            findings=tuple(found),
        )

    def _noindex(self, tags: list[str], body: bytes) -> bool:
        return header_noindex(tags, self._agents) or (bool(body) and meta_noindex(body))


async def _read_prefix(response: Response) -> bytes:
    """At most MAX_BODY_PREFIX_BYTES of the body, its Content-Encoding undone where possible.

    A short body is read to its end, so the connection goes back to the pool; a longer one is
    dropped with its connection when the response closes.
    """
    raw = bytearray()
    while len(raw) < MAX_BODY_PREFIX_BYTES and (chunk := await response.read()):
        raw += chunk
    encoding = response.headers.get("Content-Encoding")
    if not encoding and raw[:2] != b"\x1f\x8b":
        return bytes(raw[:MAX_BODY_PREFIX_BYTES])
    decoded = bytearray()
    try:
        for piece in BodyDecoder(encoding).feed(bytes(raw)):
            decoded += piece
            if len(decoded) >= MAX_BODY_PREFIX_BYTES:
                break
    except CompressionError:
        pass  # a page, not a sitemap: a broken encoding only hides its meta tags from us
    return bytes(decoded[:MAX_BODY_PREFIX_BYTES])
