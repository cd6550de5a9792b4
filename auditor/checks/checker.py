"""Check one listed URL: request it politely, follow its redirects, judge the answer.

Orchestration over `net.opener` (retries, pacing, redirects) and the pure rules of
`net.redirects`, `answer_rules` (statuses, shields) and `page_head` (noindex, canonicals).
A check returns a plain CheckResult and adds nothing up: only the sink does (so the stage can
run in several processes).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass

from auditor.checks.answer_rules import bot_challenge, slow_finding, status_findings
from auditor.checks.indexability import not_indexable
from auditor.checks.page_head import (
    PageHead,
    canonical_findings,
    head_of,
    header_canonicals,
    header_noindex,
    read_head,
)
from auditor.clock import Clock
from auditor.codes import Code
from auditor.config import Method
from auditor.discovery.robots import RobotsTxt
from auditor.errors import CompressionError, FetchError
from auditor.models import AlreadyRead, CheckResult, Finding, Redirect, finding
from auditor.net.body_pace import Read, floored
from auditor.net.decompress import BodyDecoder
from auditor.net.opener import Opened, Opener, Refused
from auditor.net.redirects import chain_findings
from auditor.urls import parse_http_url

log = logging.getLogger(__name__)
# A GET reads at most this much of a body (the head: robots meta, canonical; bot challenges),
# then lets go.
MAX_BODY_PREFIX_BYTES = 64 * 1024
_ERROR_CHARS = 300
# Content types that have an HTML head; a body without a Content-Type may have one too.
_HTML_TYPES = ("text/html", "application/xhtml+xml")

RobotsFor = Callable[[str], Awaitable[RobotsTxt | None]]  # origin -> its robots.txt rules


@dataclass(frozen=True, slots=True)
class PageBody:
    """A 2xx page's body as `read_page` read it (Content-Encoding undone), for the crawl."""

    final_url: str  # where the redirects ended: relative links resolve against it
    body: bytes  # at most the bytes asked for
    content_type: str | None
    robots_tags: tuple[str, ...]  # X-Robots-Tag values (nofollow)


class Checker:
    """Requests URLs with one opener and judges each answer, as `robots_agent` would."""

    def __init__(
        self,
        opener: Opener,
        *,
        method: Method,
        slow_s: float,
        timeout_s: float,
        robots_agent: str,
        robots: RobotsFor,
        clock: Clock,
    ) -> None:
        self._opener = opener
        self._method = method
        self._slow_s = slow_s
        self._timeout_s = timeout_s
        self._agent = robots_agent
        self._agents = frozenset({robots_agent.lower()})
        self._robots = robots
        self._clock = clock
        # The last origin's rules: most URLs follow one of their own host (no await for them).
        self._last_robots: tuple[str, RobotsTxt | None] | None = None

    async def check(self, loc: str, *, origin: str) -> CheckResult:
        """Request `loc` (an absolute http(s) URL of `origin`) and say what its answer means."""
        result, _ = await self._check(loc, origin, page_bytes=None)
        return result

    async def read_page(
        self, loc: str, *, origin: str, max_bytes: int
    ) -> tuple[CheckResult, PageBody | None]:
        """`check`, with a GET whose body is read up to `max_bytes` and handed back (the crawl).

        The verdict is judged on the same head a check reads, so that a listed URL's check and
        the crawl's visit of it say the same. No body for an answer that is not 2xx, or a
        shield's page.
        """
        return await self._check(loc, origin, page_bytes=max_bytes)

    async def _check(
        self, loc: str, origin: str, *, page_bytes: int | None
    ) -> tuple[CheckResult, PageBody | None]:
        page = None
        try:
            found = self._blocked(loc, loc, await self._robots_of(origin))
            method = self._method if page_bytes is None else Method.GET
            limit = MAX_BODY_PREFIX_BYTES if page_bytes is None else page_bytes
            try:
                opened = await self._opener.open(loc, method=method, max_body=limit)
            except FetchError as error:
                found.append(error.finding(url=loc))
                result = CheckResult(None, findings=tuple(found))
            else:
                if isinstance(opened, Refused):
                    result = self._refused(opened, found)
                else:
                    # judged where it lands (docs/explanation/rules.md#robots-blocked)
                    if not found and opened.redirects:
                        found += await self._blocked_on_the_way(loc, opened)
                    result, page = await self._answered(loc, opened, found, limit=limit)
        except Exception as exc:
            # a bug: report where, and go on (docs/explanation/design.md#findings)
            log.exception("internal error while checking %s", loc)
            text = f"{type(exc).__name__}: {exc}"[:_ERROR_CHARS]
            result = CheckResult(
                None, findings=(finding(Code.INTERNAL_ERROR, url=loc, error=text),)
            )
            page = None
        result.not_indexable = not_indexable(result)
        return result, page if page_bytes is not None else None

    async def _robots_of(self, origin: str) -> RobotsTxt | None:
        last = self._last_robots
        if last is not None and last[0] == origin:
            return last[1]
        robots = await self._robots(origin)
        self._last_robots = (origin, robots)
        return robots

    def _blocked(self, loc: str, url: str, robots: RobotsTxt | None) -> list[Finding]:
        """url.blocked_by_robots when `url` (`loc` or where it leads) is disallowed.

        Search Console's verdict is Googlebot's: robots.txt as `--robots-agent` reads it (its
        own group, else `*`), whatever User-Agent the auditor sends.
        """
        if robots is None or robots.allows(url, self._agent):
            return []
        lands = {"lands": url} if url != loc else {}
        agent = self._agent
        return [
            finding(Code.URL_BLOCKED_BY_ROBOTS, url=loc, robots=robots.url, agent=agent, **lands)
        ]

    async def _blocked_on_the_way(self, loc: str, opened: Opened) -> list[Finding]:
        """A listed URL that redirects into a blocked path is blocked.

        See docs/explanation/rules.md#robots-blocked.
        """
        steps = [hop.url for hop in opened.redirects[1:]] + [opened.final_url]
        for url in steps:
            origin = _origin_of(url)
            found = self._blocked(loc, url, await self._robots_of(origin)) if origin else []
            if found:
                return found
        return []

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

    async def _answered(
        self, loc: str, opened: Opened, found: list[Finding], *, limit: int
    ) -> tuple[CheckResult, PageBody | None]:
        response = opened.response
        status, headers = response.status, response.headers
        robots_tags = response.header_values("X-Robots-Tag")
        links = response.header_values("Link")
        body = b""
        try:
            if opened.method is Method.GET:
                read: Read = response.read
                if response.streamed:  # a body read whole by the transport was bounded there
                    read = floored(read, window_s=self._timeout_s, clock=self._clock)
                body = await _read_prefix(read, response.body_encoding, limit=limit)
        except FetchError as error:  # the answer came; its body broke off
            found.append(finding(error.code, error.message, url=loc, status=status))
        finally:
            response.close()
        final_url, chain = opened.final_url, opened.redirects
        found += chain_findings(loc, chain, final_url)
        head = body[:MAX_BODY_PREFIX_BYTES]  # what every check judges, whatever was read
        challenge = bot_challenge(status, headers, head)
        found += status_findings(status, url=loc, challenge=challenge)
        page = None
        content_type = headers.get("Content-Type")
        if 200 <= status < 300 and challenge is None:
            found += self._page_findings(
                loc,
                final_url,
                robots_tags=robots_tags,
                links=links,
                body=head,
                content_type=content_type,
            )
            page = PageBody(final_url, body, content_type, tuple(robots_tags))
        slow = slow_finding(opened.elapsed_s, url=loc, slow_s=self._slow_s)
        if slow is not None:
            found.append(slow)
        return _result(opened, status, found, last_modified=_last_modified(headers)), page

    def _page_findings(
        self,
        loc: str,
        final_url: str,
        *,
        robots_tags: list[str],
        links: list[str],
        body: bytes,
        content_type: str | None,
    ) -> list[Finding]:
        """Noindex and canonical: from the headers, and from the head of a page that was read."""
        page: PageHead | None = None
        if body and _has_head(content_type):
            page = read_head(head_of(body) or body, self._agents)
        found = []
        # Which one said it: the header is read first (auditor.checks.indexability).
        source = "header" if header_noindex(robots_tags, self._agents) else None
        if source is None and page is not None and page.noindex:
            source = "meta"
        if source is not None:
            found.append(finding(Code.URL_NOINDEX, url=loc, final_url=final_url, source=source))
        canonicals = header_canonicals(links)
        found += canonical_findings(final_url, url=loc, header=canonicals, page=page)
        return found


def _result(
    opened: Opened, status: int, found: list[Finding], *, last_modified: str | None
) -> CheckResult:
    chain: tuple[Redirect, ...] = opened.redirects
    return CheckResult(
        chain[0].status if chain else status,
        final_url=opened.final_url,
        final_status=status,
        redirects=chain,
        elapsed_ms=round(opened.elapsed_s * 1000),
        method=opened.method.value.upper(),
        findings=tuple(found),
        last_modified=last_modified,
    )


def _origin_of(url: str) -> str | None:
    parsed = parse_http_url(url)
    return parsed.origin if parsed is not None else None


def _has_head(content_type: str | None) -> bool:
    """Whether a body may hold an HTML head worth reading (no type said: maybe)."""
    return content_type is None or content_type.split(";", 1)[0].strip().lower() in _HTML_TYPES


def _last_modified(headers: Mapping[str, str]) -> str | None:
    """The page's Last-Modified, unless it is the answer's Date: dynamic pages say "now"."""
    value = headers.get("Last-Modified")
    return value if value is not None and value != headers.get("Date") else None


async def _read_prefix(read: Read, encoding: str | None, *, limit: int) -> bytes:
    """At most `limit` bytes of the body, its Content-Encoding undone where possible.

    A short body is read to its end, so the connection goes back to the pool; a longer one is
    dropped with its connection when the response closes.
    """
    first = await read()
    if len(first) >= limit or not first:  # a body read whole by the transport: no copy
        raw: bytes | bytearray = first
    else:
        raw = bytearray(first)
        while len(raw) < limit and (chunk := await read()):
            raw += chunk
    if not encoding and raw[:2] != b"\x1f\x8b":
        return bytes(raw[:limit]) if len(raw) > limit or isinstance(raw, bytearray) else raw
    decoded = bytearray()
    try:
        for piece in BodyDecoder(encoding).feed(bytes(raw)):
            decoded += piece
            if len(decoded) >= limit:
                break
    except CompressionError:
        pass  # a page, not a sitemap: a broken encoding only hides its head from us
    return bytes(decoded[:limit])
