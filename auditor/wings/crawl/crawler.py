"""The crawl: from the start pages, `<a href>` links within scope, depth by depth, politely.

Each page is requested by the URL checker (`Checker.read_page`: the checks' opener, so the same
per-host slots, pacing, backoff on 429/503, breaker, address guard and body floor), its whole
body read up to the page bound, its verdict judged as a listed URL's is. A page's canonical is
followed as one of its links; a redirect (an instant meta refresh too) is no click: where it
leads is as many clicks away as the URL itself. The crawl goes level by level (every page at
depth d is read before one at d + 1, where a redirect on level d leads too), so a URL's depth
is the fewest clicks from a start page. robots.txt is obeyed as the crawl's own agent reads it;
a URL it may not request is reached but not read. The seen set is a compact digest table
(about 30 bytes a URL); the frontier and what was read live on disk
(auditor.wings.crawl.page_store).
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Literal

from auditor.checks.canonical import canonical_target, header_canonicals
from auditor.checks.checker import Checker, PageBody
from auditor.checks.page_rules import refresh_target
from auditor.discovery.robots import RobotsFetch, RobotsTxt
from auditor.models import CheckResult, NotIndexable
from auditor.results.digest_table import DigestTable, FrozenDigests
from auditor.urls import parse_known
from auditor.wings.crawl.crawl_records import CrawlPlan, CrawlSummary
from auditor.wings.crawl.links import LinkReader, PageLinks, header_nofollow, page_url
from auditor.wings.crawl.page_store import CrawlStore, Queued, Reached, State, body_fingerprint

RobotsOf = Callable[[str], Awaitable[RobotsFetch | None]]  # origin -> its robots.txt
# Content types whose links the crawl reads; a page without one may be HTML too.
_HTML_TYPES = ("text/html", "application/xhtml+xml")
_TOO_MANY_REQUESTS = 429
# Reasons a requested page gave the crawl nothing to read (refused: a 429 or a bot shield).
_UNREAD = frozenset({NotIndexable.NO_RESPONSE, NotIndexable.REFUSED, NotIndexable.SERVER_ERROR})
# The seen set's value (32 bits): the URL's row id shifted by _ID_SHIFT, the parity of its
# depth (_PARITY_BIT) and whether only nofollow links reached it (_NOFOLLOW_BIT). Ids stay
# below 2**30: at most SEEN_PER_PAGE * 10**8 URLs (--crawl-max), each given a new id twice.
_NOFOLLOW_BIT = 1
_PARITY_BIT = 2
_ID_SHIFT = 2
_MAX_ORIGINS = 64  # robots.txt decisions kept per origin (a crawl's scope has a few)
# URLs reached (requested or not) per page the crawl may request: the seen set's bound.
SEEN_PER_PAGE = 2


@dataclass(slots=True)
class _Counts:
    read: int = 0
    unread: int = 0
    blocked: int = 0
    hidden: int = 0
    no_robots: int = 0
    nofollow: int = 0
    depth: int = 0
    bounds: set[str] = field(default_factory=set)


class Crawler:
    """One crawl of a site; `run()` reads it, `seen` then says what it reached."""

    def __init__(
        self, checker: Checker, *, robots: RobotsOf, store: CrawlStore, plan: CrawlPlan
    ) -> None:
        self._checker = checker
        self._robots = robots
        self._store = store
        self._plan = plan
        self._agents = frozenset({plan.agent.lower(), plan.robots_agent.lower()})
        self._links = LinkReader(self._agents)
        self.seen = DigestTable()  # digest -> row id << 1 | nofollow only
        self._reached: FrozenDigests | None = None  # the seen set, once the crawl is over
        self._next_id = 1
        self._taken = 0  # URLs queued to be requested
        self._in_flight = 0
        self._level = 0
        self._level_first = 1  # the first id given since the current level began
        # Workers with nothing to take: woken one per URL queued, all once none is in flight
        # (the next level may start). Never all at each page: 128 wake-ups a page cost more
        # than the page.
        self._idle: deque[asyncio.Future[None]] = deque()
        self._rules: dict[str, RobotsTxt | Literal[False] | None] = {}  # False: unreadable
        self._counts = _Counts()

    async def run(self) -> None:
        """Crawl from the start pages until nothing is left within the bounds."""
        for start in self._plan.starts:
            await self._discover(start, depth=0, referrer=0, follow=True)
        async with asyncio.TaskGroup() as group:
            for _ in range(self._plan.workers):
                group.create_task(self._work())
        # Only look-ups from now on (the sitemaps joined with the crawl): half the memory.
        self._reached = self.seen.frozen()

    def summary(self, *, interrupted: bool) -> CrawlSummary:
        """What the crawl did so far (the counts of pages no sitemap lists come later)."""
        counts = self._counts
        return CrawlSummary(
            starts=self._plan.starts,
            scope=tuple(self._plan.scope.origin_urls()),
            read=counts.read,
            unread=counts.unread,
            blocked=counts.blocked,
            hidden=counts.hidden,
            no_robots=counts.no_robots,
            nofollow=counts.nofollow,
            depth=counts.depth,
            bounds=tuple(sorted(counts.bounds)),
            interrupted=interrupted,
        )

    @property
    def requested(self) -> int:
        """Pages requested so far (for a progress display)."""
        return self._counts.read + self._counts.unread

    def reached(self, digest: int) -> int | None:
        """The row id of a URL the crawl reached, or None."""
        value = (self.seen if self._reached is None else self._reached).get(digest)
        return None if value is None else value >> _ID_SHIFT

    async def _work(self) -> None:
        while (item := await self._take()) is not None:
            try:
                await self._visit(item)
            finally:
                self._in_flight -= 1
                if not self._in_flight:
                    self._wake(len(self._idle))

    async def _take(self) -> Queued | None:
        """The next URL of the current depth; None once nothing is left (or in flight)."""
        store = self._store
        while True:
            item = store.peek()
            if item is None and await store.refill():
                item = store.peek()  # no await between this look and the pop below
            if item is None:
                if not self._in_flight:
                    self._wake(len(self._idle))
                    return None
                await self._idle_wait()
                continue
            if item.depth > self._level:  # the next level waits for this one to be read
                if self._in_flight:
                    await self._idle_wait()
                    continue
                self._level = item.depth
                self._level_first = self._next_id
            self._in_flight += 1
            return store.pop()

    async def _idle_wait(self) -> None:
        waiter = asyncio.get_running_loop().create_future()
        self._idle.append(waiter)
        try:
            await waiter
        finally:
            if not waiter.done():
                self._idle.remove(waiter)

    def _wake(self, count: int) -> None:
        """Wake up to `count` idle workers."""
        idle = self._idle
        while count > 0 and idle:
            waiter = idle.popleft()
            if not waiter.done():
                waiter.set_result(None)
                count -= 1

    async def _visit(self, item: Queued) -> None:
        value = self.seen.get(item.digest)
        if value is None or value >> _ID_SHIFT != item.id:
            return  # queued again at fewer clicks (_discover), and read there
        parsed = parse_known(item.url)
        assert parsed is not None, "only http(s) URLs are queued"
        # Where its canonical leads is judged once the crawl is over (auditor.wings.crawl.coverage):
        # a canonical the crawl reads later is requested once, by the crawl.
        result, page = await self._checker.read_page(
            item.url, origin=parsed[0].origin, max_bytes=self._plan.page_bytes, follow=False
        )
        unread = _unread(result)
        counts = self._counts
        if unread:
            counts.unread += 1
        else:
            counts.read += 1
            counts.depth = max(counts.depth, item.depth)
        links = await self._follow(item, result, page)
        html = links is not None
        state = State.UNREAD if unread else State.READ
        await self._store.add(
            Reached(
                item.id,
                item.url,
                item.digest,
                item.depth,
                item.referrer,
                state,
                html,
                links.anchors if links is not None else None,
                result.not_indexable is None,
                result,
                page.canonical if page is not None else None,
                body_fingerprint(page.body) if page is not None and not result.redirects else None,
            )
        )

    async def _follow(
        self, item: Queued, result: CheckResult, page: PageBody | None
    ) -> PageLinks | None:
        """Reach what the page at `item` leads to; its links, where it is an HTML page."""
        if result.redirects:
            # A redirect is no click: the user lands where it leads at once, as many clicks
            # from a start page as the URL clicked.
            if result.final_url is not None:
                await self._discover(result.final_url, depth=item.depth, referrer=item.id)
            return None
        if page is None:
            return None
        await self._follow_head(item, page)
        if not _is_html(page.content_type):
            return None
        links = self._read_links(page)
        deeper = item.depth + 1
        for url in links.followed:
            await self._discover(url, depth=deeper, referrer=item.id)
        follow = self._plan.follow_nofollow
        for url in links.nofollow:
            await self._discover(url, depth=deeper, referrer=item.id, follow=follow)
        return links

    async def _follow_head(self, item: Queued, page: PageBody) -> None:
        """Reach where the page's instant meta refresh and its canonical lead.

        Google (Search Central, "Redirects and Google Search") takes an instant meta refresh
        for a permanent redirect, so it is no click, as a redirect. A canonical is a link
        (RFC 6596 §3: a link relation), followed as an `<a href>` is: Screaming Frog's "Crawl
        Canonicals", on by default. Both as the checks read them (auditor.checks.page_rules).
        """
        head = page.head
        final = page.final_url
        refresh = refresh_target(item.url, final, head) if head is not None else None
        if refresh is not None and (url := page_url(refresh)) is not None:
            await self._discover(url, depth=item.depth, referrer=item.id)
        header = header_canonicals(page.link_headers)
        html, base = (head.canonicals, head.base) if head is not None else ((), None)
        canonical = canonical_target(final, url=item.url, header=header, html=html, base=base)
        if canonical is not None and (url := page_url(canonical)) is not None:
            await self._discover(url, depth=item.depth + 1, referrer=item.id)

    def _read_links(self, page: PageBody) -> PageLinks:
        nofollow = header_nofollow(page.robots_tags, self._agents)
        return self._links.read(page.body, url=page.final_url, page_nofollow=nofollow)

    async def _discover(self, url: str, *, depth: int, referrer: int, follow: bool = True) -> None:
        """A link to `url` from the page `referrer` (0: a start page) at `depth` clicks."""
        known = parse_known(url)
        if known is None or not self._plan.scope.contains(known[0]):
            return
        parsed, digest = known
        value = self.seen.get(digest)
        if value is not None and follow and not value & _NOFOLLOW_BIT:
            if self._deeper(value, depth):
                await self._again(url, digest, depth, referrer, origin=parsed.origin)
            return  # reached already, and followed
        if value is not None and not follow:
            return  # reached already (followed, or through nofollow links again)
        counts = self._counts
        bound = self._bound(depth, new=value is None, follow=follow)
        if bound is not None:
            counts.bounds.add(bound)
            return
        if not follow:
            await self._record(url, digest, depth, referrer, State.NOFOLLOW)
            counts.nofollow += 1
            return
        state = await self._robots_state(parsed.origin, url)
        if state is not None:
            await self._record(url, digest, depth, referrer, state)
            return
        ident = self._new_id(digest, depth=depth, nofollow=False)
        self._taken += 1
        if value is not None:  # it was reached through nofollow links only until now
            counts.nofollow -= 1
        await self._queue(Queued(ident, url, digest, depth, referrer))

    def _deeper(self, value: int, depth: int) -> bool:
        """Whether the URL whose seen value is `value` was reached more than `depth` clicks away.

        While level d is read, URLs are reached at d (where a redirect leads) or at d + 1 (links),
        and were reached at d or fewer before it began: the parity of the depth tells them apart.
        """
        return (
            depth == self._level
            and value >> _ID_SHIFT >= self._level_first
            and bool(value & _PARITY_BIT) != bool(depth & 1)
        )

    async def _again(
        self, url: str, digest: int, depth: int, referrer: int, *, origin: str
    ) -> None:
        """`url`, reached one click further on this level, reached again at `depth`.

        Queued again (its first entry is passed over: no second request), or recorded again
        where robots.txt kept it out; counted once.
        """
        state = await self._robots_state(origin, url, count=False)
        if state is not None:
            await self._record(url, digest, depth, referrer, state)
            return
        ident = self._new_id(digest, depth=depth, nofollow=False)
        await self._queue(Queued(ident, url, digest, depth, referrer))

    async def _queue(self, item: Queued) -> None:
        """Queue `item`: one of the level being read is taken before the others."""
        same_level = item.depth == self._level
        await self._store.push(item, first=same_level)
        if self._idle and same_level:
            self._wake(1)

    def _bound(self, depth: int, *, new: bool, follow: bool) -> str | None:
        """The bound a newly reached URL is past ("pages", "depth"), or None."""
        plan = self._plan
        if new and len(self.seen) >= SEEN_PER_PAGE * plan.max_pages + len(plan.starts):
            return "pages"  # URLs not requested (nofollow, robots.txt) count too
        if not follow:
            return None
        if depth > plan.max_depth:
            return "depth"
        if self._taken >= plan.max_pages:
            return "pages"
        return None

    async def _record(self, url: str, digest: int, depth: int, referrer: int, state: State) -> None:
        """A URL reached and not requested, written at once."""
        ident = self._new_id(digest, depth=depth, nofollow=state is State.NOFOLLOW)
        reached = Reached(
            ident, url, digest, depth, referrer, state, html=False, links=None, indexable=False,
            result=None,
        )  # fmt: skip
        await self._store.add(reached)

    def _new_id(self, digest: int, *, depth: int, nofollow: bool) -> int:
        ident = self._next_id
        self._next_id += 1
        value = ident << _ID_SHIFT | (_PARITY_BIT if depth & 1 else 0)
        value |= _NOFOLLOW_BIT if nofollow else 0
        if self.seen.setdefault(digest, value) is not None:
            self.seen.replace(digest, value)
        return ident

    async def _robots_state(self, origin: str, url: str, *, count: bool = True) -> State | None:
        """Why robots.txt keeps the crawl from `url` (counted), or None when it may go."""
        if origin in self._rules:
            rules = self._rules[origin]
        else:
            fetched = await self._robots(origin)
            # RFC 9309 §2.3.1.4: an unreachable robots.txt is a complete disallow.
            rules = False if fetched is None or fetched.problem is not None else fetched.robots
            if len(self._rules) < _MAX_ORIGINS:
                self._rules[origin] = rules
        counts = self._counts if count else _Counts()
        if rules is False:
            counts.no_robots += 1
            return State.NO_ROBOTS
        if rules is None or rules.allows(url, self._plan.agent):
            return None
        if rules.allows(url, self._plan.robots_agent):
            counts.hidden += 1  # Google may read what the crawl may not: it saw less than Google
        else:
            counts.blocked += 1
        return State.BLOCKED


def _unread(result: CheckResult) -> bool:
    """Whether a requested page gave the crawl nothing to read of the site."""
    final = result.final_status if result.final_status is not None else result.status
    return result.not_indexable in _UNREAD or final == _TOO_MANY_REQUESTS


def _is_html(content_type: str | None) -> bool:
    """Whether a body may be an HTML page (no type said: maybe)."""
    return content_type is None or content_type.split(";", 1)[0].strip().lower() in _HTML_TYPES
