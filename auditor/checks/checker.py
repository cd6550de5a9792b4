"""Check one listed URL: request it politely, follow its redirects, judge the answer.

Orchestration over `net.opener` (retries, pacing, redirects) and the pure rules of
`net.redirects`, `answer_rules` (statuses, shields) and `page_head` (noindex, canonicals).
A check returns a plain CheckResult and adds nothing up: only the sink does (so the stage can
run in several processes). A URL is requested once whatever asks for it: a listed URL's check
and a canonical target's are one (auditor.checks.visits).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from functools import partial

from auditor.checks.answer_read import (
    NOT_MODIFIED,
    bounded_validator,
    check_result,
    conditional_headers,
    last_modified_of,
    may_have_head,
    not_modified,
    read_prefix,
)
from auditor.checks.answer_rules import bot_challenge, slow_finding, status_findings
from auditor.checks.canonical import canonical_target, header_canonicals
from auditor.checks.indexability import not_indexable
from auditor.checks.page_head import PageHead, read_head
from auditor.checks.page_rules import blocked_page, page_findings
from auditor.checks.visits import KnownVerdict, Visit, Visits, canonical_verdict, url_key
from auditor.clock import Clock
from auditor.codes import Code
from auditor.config import Method
from auditor.discovery.robots import RobotsTxt, robots_detail
from auditor.errors import FetchError
from auditor.models import (
    AlreadyRead,
    CheckResult,
    Finding,
    Validators,
    finding,
)
from auditor.net.body_pace import Read, floored
from auditor.net.opener import Opened, Opener, Refused
from auditor.net.redirects import chain_findings
from auditor.net.transport import Response
from auditor.urls import origin_of

log = logging.getLogger(__name__)
# A GET reads at most this much of a body (the head: robots meta, canonical; bot challenges),
# then lets go.
MAX_BODY_PREFIX_BYTES = 64 * 1024
# A head still open past that (inline CSS) is read on, as far as Google fetches: "Googlebot
# crawls the first 2MB of a supported file type" (Search Central, "Googlebot"). Only those
# pages pay for it, a few at a time (memory: this many pages of 2 MB). See
# docs/explanation/rules.md#page-head.
MAX_PAGE_BYTES = 2 * 1024 * 1024
DEEP_READS = 4
_SHOWN_CHARS = 200
_ERROR_CHARS = 300

RobotsFor = Callable[[str], Awaitable[RobotsTxt | None]]  # origin -> its robots.txt rules


@dataclass(frozen=True, slots=True)
class PageBody:
    """A 2xx page's body as `read_page` read it (Content-Encoding undone), for the crawl."""

    final_url: str  # where the redirects ended: relative links resolve against it
    body: bytes  # at most the bytes asked for
    content_type: str | None
    robots_tags: tuple[str, ...]  # X-Robots-Tag values (nofollow)
    link_headers: tuple[str, ...] = ()  # Link values (a canonical)
    head: PageHead | None = None  # what the checks read of its head (a canonical, a refresh)
    canonical: str | None = None  # where its one canonical leads, when not to the page itself


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
        self._deep_reads = asyncio.Semaphore(DEEP_READS)
        self._visits = Visits()  # every URL's check, whichever role asks for it

    def learn_from(self, known: KnownVerdict) -> None:
        """Ask `known` (the crawl's pages) for a canonical's verdict before requesting it."""
        self._visits.known = known

    async def check(
        self,
        loc: str,
        *,
        origin: str,
        follow: bool = True,
        validators: Validators | None = None,
    ) -> CheckResult:
        """Request `loc` (an absolute http(s) URL of `origin`) and say what its answer means.

        `follow`: judge where the page's canonical leads too. `validators`: the page's last
        ETag and Last-Modified, sent as If-None-Match and If-Modified-Since; a 304 then comes
        back `not_modified`, its page left unread. A URL a canonical led to already was
        requested then: that check is this one (auditor.checks.visits).
        """
        make = partial(self._visit_only, loc, origin, validators)
        key = url_key(loc)
        visit = await (self._visits.own(key, make) if key is not None else make())
        return await self._followed(loc, visit, follow=follow)

    async def read_page(
        self, loc: str, *, origin: str, max_bytes: int, follow: bool = True
    ) -> tuple[CheckResult, PageBody | None]:
        """`check`, with a GET whose body is read up to `max_bytes` and handed back (the crawl).

        The verdict is judged on the head a check reads, so that a listed URL's check and the
        crawl's visit of it say the same. No body for an answer that is not 2xx, or a shield's
        page. Always requested: a body is read further than a check reads.
        """
        visit, page = await self._visit(loc, origin, page_bytes=max_bytes)
        return await self._followed(loc, visit, follow=follow), page

    async def _followed(self, loc: str, visit: Visit, *, follow: bool) -> CheckResult:
        """The visit's result; with `follow`, judged where its canonical leads too."""
        if not follow or visit.canonical is None:
            return visit.result
        leads = await self.canonical_leads(loc, visit.canonical)
        if not leads:
            return visit.result
        return replace(visit.result, findings=(*visit.result.findings, *leads))

    async def _visit_only(self, loc: str, origin: str, validators: Validators | None) -> Visit:
        return (await self._visit(loc, origin, validators=validators))[0]

    async def _visit(
        self,
        loc: str,
        origin: str,
        *,
        validators: Validators | None = None,
        page_bytes: int | None = None,
    ) -> tuple[Visit, PageBody | None]:
        """Request `loc` and judge its answer, all but where its canonical leads."""
        try:
            # `follow`: the page names where its canonical leads (PageBody.canonical).
            result, page = await self._request(
                loc, origin, follow=True, validators=validators, page_bytes=page_bytes
            )
        except Exception as exc:
            # a bug: report where, and go on (docs/explanation/design.md#findings)
            log.exception("internal error while checking %s", loc)
            text = f"{type(exc).__name__}: {exc}"[:_ERROR_CHARS]
            result = CheckResult(
                None, findings=(finding(Code.INTERNAL_ERROR, url=loc, error=text),)
            )
            page = None
        result.not_indexable = not_indexable(result)
        canonical = page.canonical if page is not None else None
        return Visit(result, canonical, canonical_verdict(result)), page

    async def _request(
        self,
        loc: str,
        origin: str,
        *,
        follow: bool,
        validators: Validators | None,
        page_bytes: int | None,
    ) -> tuple[CheckResult, PageBody | None]:
        robots = await self._robots_of(origin)
        found = self._blocked(loc, loc, robots)
        method = self._method if page_bytes is None else Method.GET
        limit = MAX_BODY_PREFIX_BYTES if page_bytes is None else page_bytes
        try:
            opened = await self._opener.open(
                loc,
                before_hop=self._robots_of_url,
                method=method,
                headers=conditional_headers(validators),
                max_body=limit,
            )
        except FetchError as error:
            # The host answers nothing at all (docs/explanation/rules.md#robots-status).
            if robots is not None and robots.silent:
                found = []
            found.append(error.finding(url=loc))
            return CheckResult(None, findings=tuple(found)), None
        if isinstance(opened, Refused):
            return self._refused(opened, found), None
        if validators and not opened.redirects and opened.response.status == NOT_MODIFIED:
            return not_modified(opened, found), None
        # judged where it lands (docs/explanation/rules.md#robots-blocked)
        if not found and opened.redirects:
            found += await self._blocked_on_the_way(loc, opened)
        return await self._answered(loc, opened, found, follow=follow, limit=limit)

    async def _robots_of(self, origin: str) -> RobotsTxt | None:
        last = self._last_robots
        if last is not None and last[0] == origin:
            return last[1]
        robots = await self._robots(origin)
        self._last_robots = (origin, robots)
        return robots

    async def _robots_of_url(self, url: str) -> None:
        """Learn the robots.txt of the host `url` is on, before a redirect's hop opens it.

        Asked while no slot is held: once the hop's response holds one of its host's slots,
        asking for that host's robots.txt could wait for a slot only this check would free.
        """
        origin = origin_of(url)
        if origin is not None:
            await self._robots_of(origin)

    def _blocked(self, loc: str, url: str, robots: RobotsTxt | None) -> list[Finding]:
        """url.blocked_by_robots when `url` (`loc` or where it leads) is disallowed.

        Search Console's verdict is Googlebot's: robots.txt as `--robots-agent` reads it (its
        own group, else `*`), whatever User-Agent the auditor sends.
        """
        if robots is None or robots.allows(url, self._agent):
            return []
        said = robots_detail(robots, agent=self._agent)
        if url != loc:
            said["lands"] = url
        code = Code.URL_BLOCKED_BY_ROBOTS
        return [Finding(code, code.info.title, loc, None, said)]

    async def _blocked_on_the_way(self, loc: str, opened: Opened) -> list[Finding]:
        """A listed URL that redirects into a blocked path is blocked.

        See docs/explanation/rules.md#robots-blocked. Every host's robots.txt on the way was
        learnt before its hop opened (`_robots_of_url`): no wait for a slot here.
        """
        steps = [hop.url for hop in opened.redirects[1:]] + [opened.final_url]
        for url in steps:
            origin = origin_of(url)
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
        self, loc: str, opened: Opened, found: list[Finding], *, follow: bool, limit: int
    ) -> tuple[CheckResult, PageBody | None]:
        response = opened.response
        status, headers = response.status, response.headers
        robots_tags = response.header_values("X-Robots-Tag")
        links = response.header_values("Link")
        body, more = b"", False
        try:
            if opened.method is Method.GET:
                body, more = await self._read_body(response, limit)
        except FetchError as error:  # the answer came; its body broke off
            found.append(finding(error.code, error.message, url=loc, status=status))
        finally:
            response.close()
        final_url, chain = opened.final_url, opened.redirects
        found += chain_findings(loc, chain, final_url)
        head = body[:MAX_BODY_PREFIX_BYTES]  # what every check judges first, whatever was read
        challenge = bot_challenge(status, headers, head)
        found += status_findings(status, url=loc, challenge=challenge)
        content_type = headers.get("Content-Type")
        page_body = None
        if 200 <= status < 300 and challenge is None:
            page = None
            if head and may_have_head(content_type):
                page = await self._head_of(final_url, body, more=more)
            said = page_findings(
                loc,
                final_url,
                robots_tags=robots_tags,
                links=links,
                page=page,
                agents=self._agents,
                now=self._clock.now(),
                blocked=blocked_page(found),
            )
            found += said
            target = None  # judged by the caller (Checker.canonical_leads)
            if follow and any(item.code is Code.URL_CANONICAL_ELSEWHERE for item in said):
                html, base = (page.canonicals, page.base) if page is not None else ((), None)
                header = header_canonicals(links)
                target = canonical_target(final_url, url=loc, header=header, html=html, base=base)
            page_body = PageBody(
                final_url, body, content_type, tuple(robots_tags), tuple(links), page, target
            )
        slow = slow_finding(opened.elapsed_s, url=loc, slow_s=self._slow_s)
        if slow is not None:
            found.append(slow)
        direct = not chain and 200 <= status < 300
        result = check_result(
            opened,
            status,
            found,
            last_modified=last_modified_of(headers),
            etag=bounded_validator(headers.get("ETag")) if direct else None,
        )
        return result, page_body

    async def _head_of(self, final_url: str, body: bytes, *, more: bool) -> PageHead:
        """What the page's head says: from its first bytes, read on when they do not end it.

        A check reads MAX_BODY_PREFIX_BYTES and asks the page again for a head still open; the
        crawl has read further already, and reads its own bytes on, as far as Google would.
        """
        head = body[:MAX_BODY_PREFIX_BYTES]
        cut = more or len(body) > len(head)
        page = read_head(head, self._agents, complete=not cut)
        if page.ended or not cut:
            return page
        if len(body) > len(head):
            return read_head(body[:MAX_PAGE_BYTES], self._agents)  # Google reads no further
        return await self._read_on(final_url, page)

    async def canonical_leads(self, loc: str, target: str) -> list[Finding]:
        """url.canonical_not_indexable: the canonical `loc` names is itself not indexable.

        Screaming Frog's "Non-Indexable Canonical": Google is pointed at a URL it will not
        index (docs/explanation/rules.md#canonical-target). The canonical's verdict is its own
        check's, made once a run whatever else asks for it (auditor.checks.visits).
        """
        key, origin = url_key(target), origin_of(target)
        if key is None or origin is None:
            return []
        make = partial(self._visit_only, target, origin, None)
        reason, status = await self._visits.verdict(key, target, make)
        if reason is None:
            return []
        code, canonical = Code.URL_CANONICAL_NOT_INDEXABLE, target[:_SHOWN_CHARS]
        return [finding(code, url=loc, canonical=canonical, reason=reason.value, status=status)]

    async def _read_body(self, response: Response, limit: int) -> tuple[bytes, bool]:
        """At most `limit` bytes of the body, decoded; and whether more may follow."""
        read: Read = response.read
        if response.streamed:  # a body read whole by the transport was bounded there
            read = floored(read, window_s=self._timeout_s, clock=self._clock)
        return await read_prefix(read, response.body_encoding, limit=limit)

    async def _read_on(self, url: str, page: PageHead) -> PageHead:
        """The head of a page whose first bytes did not end it, read up to MAX_PAGE_BYTES.

        The page is asked again (libcurl hands a check's body back whole, cut at what it was
        asked for); when that fails, what was read stands.
        """
        async with self._deep_reads:
            try:
                opened = await self._opener.open(url, method=Method.GET, max_body=MAX_PAGE_BYTES)
            except FetchError:
                return page
            if isinstance(opened, Refused):
                return page
            response = opened.response
            try:
                if not 200 <= response.status < 300:
                    return page
                body, _ = await self._read_body(response, MAX_PAGE_BYTES)
            except FetchError:
                return page
            finally:
                response.close()
        return read_head(body, self._agents)  # Google reads no further
