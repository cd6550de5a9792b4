"""The URL checks of a run, in the loop's own thread: a bounded queue, `window` checks at once.

No task, no future per URL (docs/explanation/design.md#engine): a check is a chain of callbacks
(auditor.checks.check_run) over the run's policy (auditor.net.fetch) and transport; outcomes
are handed on in batches by one task, `run`, which also waits on the sink. What a check needs
of the run lives here: the robots.txt of each origin (learnt once, before any of its URLs is
requested), the few deep reads of heads that did not end, the verdicts of canonicals named.
A check returns its outcome and adds nothing up: only the sink does.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Generic, Protocol, TypeVar

from auditor.checks.answer_read import MAX_PAGE_BYTES, bounded, last_modified_of
from auditor.checks.canonical_targets import CanonicalTargets
from auditor.checks.check_run import CheckRun, Outcome, PageBody
from auditor.checks.page_head import PageHead, read_head
from auditor.checks.plain_lane import PlainLane
from auditor.checks.visits import KnownVerdict, Verdict
from auditor.clock import Clock
from auditor.codes import Code
from auditor.config import Method
from auditor.discovery.robots import RobotsFetch, RobotsTxt, robots_detail
from auditor.models import CheckResult, Finding, Validators
from auditor.net.fetch import Fetch, Requests
from auditor.net.transport import Answer
from auditor.sitemap.plain_urls import Clean
from auditor.urls import origin_of

log = logging.getLogger(__name__)


class Keyed(Protocol):
    """What a queued check is for: a record, known by its URL's digest."""

    @property
    def digest(self) -> int:
        """The URL's digest (auditor.checks.visits.url_key)."""
        ...


K = TypeVar("K", bound=Keyed)
# Checks waiting for a place (the window is `--concurrency`): enough to keep it full while a
# reader parses its next piece, few enough that memory does not depend on the URL count. A
# full queue takes more once it is down to half: the reader wakes once per many URLs.
QUEUE_LIMIT = 1024
# Outcomes go to the sink in batches of this many (fewer when no check is waiting): one
# hand-over per URL costs as much as a tenth of a request.
RESULT_BATCH = 64
OUT_LIMIT = 8 * RESULT_BATCH  # outcomes not yet taken by the sink: past them, no check starts
DEEP_READS = 4  # heads read on past MAX_BODY_PREFIX_BYTES at once (memory: 2 MB each)
Emit = Callable[[list[tuple[K, Outcome]]], Awaitable[None]]
Keep = Callable[[list[tuple[K, Outcome]]], None]  # outcomes a stop held back, taken at once
RobotsOf = Callable[[str], Awaitable[RobotsFetch | None]]  # origin -> its robots.txt
Known = Callable[[RobotsTxt | None], None]
Failed = Callable[[Exception], None]


class CheckEngine(Generic[K]):
    """Checks URLs as `robots_agent` would: queued with `add`, outcomes to `emit` in batches."""

    def __init__(
        self,
        requests: Requests,
        *,
        robots: RobotsOf,
        method: Method,
        slow_s: float,
        robots_agent: str,
        clock: Clock,
        window: int,
        emit: Emit[K] | None = None,
    ) -> None:
        """`requests`: the checks' policy and transport; `window`: checks at once at most."""
        self.requests = requests
        self.method = method
        self.slow_s = slow_s
        self.clock = clock
        self.agent = robots_agent
        self.agents = frozenset({robots_agent.lower()})
        self._robots_of = robots
        # The origins whose robots.txt is known: its rules (None: none to follow).
        self.known_robots: dict[str, RobotsTxt | None] = {}
        self._learning: dict[str, list[tuple[Known, Failed]]] = {}
        self._failed: dict[str, Exception] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._window = window
        self._emit = emit
        self._keep: Keep[K] | None = None
        self._queue: deque[tuple[K, str, str, Validators | None]] = deque()
        self._in_flight = 0
        self._out: list[tuple[K, Outcome]] = []
        self._news: asyncio.Future[None] | None = None  # `run` waits for outcomes
        self._room: asyncio.Future[None] | None = None  # a producer waits for the queue
        self._closing = False
        self._deep = 0
        self._deep_waiting: deque[tuple[CheckRun, PageHead, str]] = deque()
        self._canonicals = CanonicalTargets(self)
        self._lane = PlainLane(self)  # most checks: a request sent at once, judged there

    def hand_to(self, emit: Emit[K], *, keep: Keep[K] | None = None) -> None:
        """Where queued checks' outcomes go: to `emit` in batches; to `keep` when a stop comes."""
        self._emit, self._keep = emit, keep

    # --- the queue ---------------------------------------------------------------------------

    def add(self, key: K, loc: str, origin: str, validators: Validators | None = None) -> bool:
        """Queue a check of `loc` (of `origin`) for `key`; False when the queue is full."""
        if len(self._queue) >= QUEUE_LIMIT:
            return False
        self._queue.append((key, loc, origin, validators))
        if self._in_flight < self._window:
            self._pump()
        return True

    async def put(
        self, key: K, loc: str, origin: str, validators: Validators | None = None
    ) -> None:
        """Queue one check; waits while the queue is full."""
        while not self.add(key, loc, origin, validators):
            await self.room()

    async def room(self) -> None:
        """Wait until the queue has room again (down to half)."""
        if len(self._queue) < QUEUE_LIMIT:
            return
        if self._room is None:
            self._room = asyncio.get_running_loop().create_future()
        await asyncio.shield(self._room)

    @property
    def queued(self) -> int:
        """Checks waiting for a place."""
        return len(self._queue)

    def _pump(self) -> None:
        """Start queued checks while the window and the sink have room."""
        queue, window, out, checked = self._queue, self._window, self._out, self.checked
        send, canonicals = self._lane.send, self._canonicals
        kept, targeting, flying = canonicals.kept, canonicals.targeting, canonicals.flying
        while queue and self._in_flight < window and len(out) < OUT_LIMIT:
            key, loc, origin, validators = queue.popleft()
            self._in_flight += 1
            digest = key.digest
            if (kept or targeting) and validators is None and canonicals.owned(key, loc):
                continue  # requested already, or now, as a canonical target
            flying.add(digest)
            if validators is not None or not send(key, loc, origin):
                CheckRun(self, key, loc, origin, checked, validators=validators).start()
        room = self._room
        if room is not None and len(queue) <= QUEUE_LIMIT // 2:
            self._room = None
            room.set_result(None)

    def checked(self, run: CheckRun, outcome: Outcome) -> None:
        """A queued check's end (its CheckRun's `then`)."""
        self.finished(run.key, outcome)

    def judged(self, key: object, outcome: Outcome) -> None:
        """A queued check's page judged, before its canonical is followed: its verdict is known."""
        flying = self._canonicals.flying
        if key is not None and key.digest in flying:  # type: ignore[attr-defined]
            self._canonicals.judged(key.digest, outcome)  # type: ignore[attr-defined]

    def finished(self, key: object, outcome: Outcome) -> None:
        """A queued check's outcome, for `key`: on to `emit` in a batch; the next one starts."""
        if key.digest in self._canonicals.flying:  # type: ignore[attr-defined]
            self._canonicals.judged(key.digest, outcome)  # type: ignore[attr-defined]
        self._in_flight -= 1
        out = self._out
        out.append((key, outcome))  # type: ignore[arg-type]  # the key it was queued with
        queue = self._queue
        if not queue or len(out) >= RESULT_BATCH:
            self._wake()
        if queue:
            self._pump()

    def _wake(self) -> None:
        news = self._news
        if news is not None:
            self._news = None
            if not news.done():  # cancelled: `run` was stopped (a signal, a full disk)
                news.set_result(None)

    async def close(self) -> None:
        """No more checks: `run` ends once every check queued is over and handed on."""
        self._closing = True
        self._wake()

    async def run(self) -> None:
        """Hand outcomes on in batches until closed and drained."""
        emit = self._emit
        assert emit is not None, "an engine that runs hands its outcomes on"
        try:
            while True:
                if self._out:
                    batch, self._out = self._out, []
                    await emit(batch)
                    self._pump()
                    continue
                if self._closing and not self._in_flight and not self._queue:
                    return
                self._news = asyncio.get_running_loop().create_future()
                await self._news
        except BaseException:
            # Answered, whatever stopped the run: never requested again for want of a batch.
            batch, self._out = self._out, []
            if batch and self._keep is not None:
                self._keep(batch)
            raise
        finally:
            await self.aclose()

    async def aclose(self) -> None:
        """Stop learning robots.txt files (the run is over or stopping)."""
        tasks, self._tasks = self._tasks, set()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    # --- one check awaited: the crawl, a canonical, a test -------------------------------------

    async def check(
        self,
        loc: str,
        *,
        origin: str,
        follow: bool = True,
        validators: Validators | None = None,
    ) -> CheckResult:
        """Request `loc` (an absolute http(s) URL of `origin`) and say what its answer means."""
        outcome, _ = await self._awaited(loc, origin, follow=follow, validators=validators)
        return outcome

    async def read_page(
        self, loc: str, *, origin: str, max_bytes: int, follow: bool = True
    ) -> tuple[CheckResult, PageBody | None]:
        """`check`, with a GET whose body is read up to `max_bytes` and handed back (the crawl).

        The verdict is judged on the head a check reads, so that a listed URL's check and the
        crawl's visit of it say the same. No body for an answer that is not 2xx, or a shield's
        page.
        """
        return await self._awaited(loc, origin, follow=follow, page_bytes=max_bytes)

    async def _awaited(
        self,
        loc: str,
        origin: str,
        *,
        follow: bool,
        validators: Validators | None = None,
        page_bytes: int | None = None,
    ) -> tuple[CheckResult, PageBody | None]:
        done: asyncio.Future[Outcome] = asyncio.get_running_loop().create_future()

        def ended(_run: CheckRun, outcome: Outcome) -> None:
            if not done.done():
                done.set_result(outcome)

        run = CheckRun(
            self, None, loc, origin, ended, validators=validators, follow=follow,
            page_bytes=page_bytes,
        )  # fmt: skip
        run.start()
        outcome = await done
        result = outcome.result(loc) if isinstance(outcome, Clean) else outcome
        return result, run.page if page_bytes is not None else None

    # --- what a check needs of the run ---------------------------------------------------------

    def with_robots(self, origin: str, then: Known, failed: Failed) -> None:
        """Call `then` with `origin`'s robots.txt rules (None: none), learnt first if need be.

        `failed` instead when learning them failed (a bug: the check says internal.error).
        """
        robots = self.known_robots
        if origin in robots:
            then(robots[origin])
            return
        waiting = self._learning.get(origin)
        if waiting is not None:
            waiting.append((then, failed))
            return
        error = self._failed.get(origin)
        if error is not None:
            failed(error)
            return
        self._learning[origin] = [(then, failed)]
        self.keep_task(asyncio.get_running_loop().create_task(self._learn(origin)))

    def keep_task(self, task: asyncio.Task[None]) -> None:
        """A task of the engine's own (a robots.txt learnt), cancelled when it closes."""
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _learn(self, origin: str) -> None:
        try:
            fetched = await self._robots_of(origin)
        except asyncio.CancelledError:
            self._learning.pop(origin, None)
            raise
        except Exception as exc:  # noqa: BLE001 - a bug: each check waiting says internal.error
            self._failed[origin] = exc
            for _, failed in self._learning.pop(origin, []):
                failed(exc)
            return
        robots = self.known_robots[origin] = fetched.robots if fetched is not None else None
        for then, _ in self._learning.pop(origin, []):
            then(robots)

    def robots_now(self, origin: str) -> RobotsTxt | None:
        """An origin's robots.txt, known already (a redirect's hops were learnt before)."""
        return self.known_robots.get(origin)

    def before_hop(self, url: str, resume: Callable[[], None], failed: Failed) -> None:
        """Learn the robots.txt of the host `url` is on, before a redirect's hop opens it.

        Asked while no slot is held: once the hop's response holds one of its host's slots,
        asking for that host's robots.txt could wait for a slot only this check would free.
        """
        origin = origin_of(url)
        if origin is None or origin in self.known_robots:
            resume()
            return
        self.with_robots(origin, lambda _robots: resume(), failed)

    def blocked(self, loc: str, url: str, robots: RobotsTxt) -> list[Finding]:
        """url.blocked_by_robots when `url` (`loc` or where it leads) is disallowed.

        Search Console's verdict is Googlebot's: robots.txt as `--robots-agent` reads it (its
        own group, else `*`), whatever User-Agent the auditor sends.
        """
        if robots.allows(url, self.agent):
            return []
        said = robots_detail(robots, agent=self.agent)
        if url != loc:
            said["lands"] = url
        code = Code.URL_BLOCKED_BY_ROBOTS
        return [Finding(code, code.info.title, loc, None, said)]

    def clean(self, fetch: Fetch[Answer], answer: Answer) -> Clean:
        """The outcome of a check with nothing to say (the listed URL's own 2xx)."""
        return Clean(
            answer.status,
            round(fetch.elapsed_s * 1000),
            "GET" if fetch.used is Method.GET else "HEAD",
            last_modified_of(answer),
            bounded(answer.get("etag")),
        )

    def read_on(self, run: CheckRun, page: PageHead, url: str) -> None:
        """Read on the page at `url`, whose head did not end in its first bytes (`page`).

        The page is asked again (a check's body is cut at what it asked for), up to
        MAX_PAGE_BYTES; when that fails, what was read stands.
        """
        if self._deep >= DEEP_READS:
            self._deep_waiting.append((run, page, url))
            return
        self._deep += 1
        then = functools.partial(self._read_on, run, page)
        Fetch(self.requests, url, then, method=Method.GET, max_body=MAX_PAGE_BYTES).start()

    def _read_on(self, run: CheckRun, page: PageHead, fetch: Fetch[Answer]) -> None:
        self._deep -= 1
        if self._deep_waiting:
            self.read_on(*self._deep_waiting.popleft())
        answer = fetch.reply
        if answer is not None and 200 <= answer.status < 300 and answer.error is None:
            page = read_head(answer.body, self.agents)  # Google reads no further
        run.head_read_on(page)

    # --- canonicals: made once a run (auditor.checks.canonical_targets) ------------------------

    def canonical_verdict(self, target: str, then: Callable[[str, Verdict], None]) -> None:
        """Call `then` with the verdict of the canonical `target`: checked once per run."""
        self._canonicals.verdict(target, then)

    async def canonical_leads(self, loc: str, target: str) -> list[Finding]:
        """url.canonical_not_indexable: the canonical `target` that `loc` names is not indexable."""
        return await self._canonicals.leads(loc, target)

    def learn_from(self, known: KnownVerdict) -> None:
        """Ask `known` (the crawl's pages) for a canonical's verdict before requesting it."""
        self._canonicals.known = known


__all__ = ["CheckEngine", "PageBody"]
