"""Walk the sitemap trees of every target: a frontier of documents and a few readers.

Index children join the frontier as they are parsed, so reading goes on while indexes are still
being read. The frontier holds small Jobs and is bounded by the run's sitemap cap.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from auditor.codes import Code
from auditor.config import TargetKind
from auditor.discovery.probes import TargetState, probe_urls
from auditor.discovery.robots import RobotsFetch, robots_findings
from auditor.discovery.robots_fetch import fetch_robots, read_robots_file
from auditor.models import (
    Finding,
    FoundBy,
    ProbeResult,
    Redirect,
    SitemapKind,
    SitemapRecord,
    TargetRecord,
    finding,
)
from auditor.sitemap.document_reader import read_sitemap
from auditor.sitemap.read_services import ReadServices
from auditor.sitemap.tree_rules import Job
from auditor.urls import parse_http_url

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class RobotsJob:
    """Read a target's robots.txt, then its sitemaps (or, for a site, the known locations)."""

    target: int
    url: str
    probe_base: str | None  # the site URL to probe under when robots.txt names no sitemap


CertificateCheck = Callable[[str], Awaitable[str | None]]  # URL -> why its certificate fails

# Documents waiting to be read. Not size-bounded as a queue (a reader must never block on it,
# or readers would wait for each other): SitemapTree's sitemap cap bounds it.
Frontier = asyncio.Queue[Job | RobotsJob]


class Walker:
    """Reads every document reachable from the targets, `sitemap_concurrency` at a time."""

    def __init__(self, services: ReadServices, frontier: Frontier) -> None:
        self._services = services
        self._frontier = frontier
        self._targets = [TargetState(target) for target in services.config.targets]
        # Each target's probes still to read: one at a time, so that a document found at two
        # known locations is known to be the same before the second one counts
        # (docs/explanation/rules.md#probes).
        self._probes: dict[int, list[Job]] = {}
        self._certificate_problem: CertificateCheck | None = None
        self._robots_said: set[str] = set()  # robots.txt URLs a sitemap target said unreadable

    def verify_with(self, check: CertificateCheck) -> None:
        """--insecure: `check` says why a URL's certificate would fail verification."""
        self._certificate_problem = check

    @property
    def capped(self) -> bool:
        """Whether the run's own --max-sitemaps left documents unread."""
        return self._services.tree.capped

    def target_records(self) -> list[TargetRecord]:
        """What discovery found for each target (call when the walk is over)."""
        return [state.record() for state in self._targets]

    def enqueue(self, job: Job | RobotsJob) -> None:
        """Add a document to read; the tree's sitemap cap bounds how many ever wait."""
        self._frontier.put_nowait(job)

    async def run(self) -> None:
        """Walk until every reachable document is read."""
        await self._check_certificates()
        for index, state in enumerate(self._targets):
            self._start(index, state)
        async with asyncio.TaskGroup() as group:
            workers = [
                group.create_task(self._work())
                for _ in range(self._services.config.sitemap_concurrency)
            ]
            await self._frontier.join()
            for worker in workers:
                worker.cancel()

    async def _check_certificates(self) -> None:
        """Check each https target's certificate once, as a run without --insecure would.

        --insecure verifies no certificate: a failing one is still the target's finding
        (docs/explanation/rules.md#unreached).
        """
        check = self._certificate_problem
        if check is None:
            return
        for state in self._targets:
            url = state.target.url
            if state.target.path is None and url.startswith("https:"):
                problem = await check(url)
                if problem is not None:
                    said = finding(Code.TARGET_TLS, url=url, error=problem, insecure=True)
                    state.findings.append(said)

    def _start(self, index: int, state: TargetState) -> None:
        target = state.target
        if target.kind is TargetKind.SITEMAP:
            job = Job(target.url, _key(target.url), index, FoundBy.TARGET, path=target.path)
            self._admit([job], state.findings)  # the same sitemap twice is read once
            return
        robots_url = target.url
        if target.kind is TargetKind.SITE:
            parsed = parse_http_url(target.url)
            assert parsed is not None
            robots_url = f"{parsed.origin}/robots.txt"
        state.robots = robots_url
        probe_base = target.url if target.kind is TargetKind.SITE else None
        self.enqueue(RobotsJob(index, robots_url, probe_base))

    async def _work(self) -> None:
        while True:
            job = await self._frontier.get()
            try:
                await self._run_job(job)
            except Exception as exc:
                # a bug: report where, and go on (docs/explanation/design.md#findings)
                log.exception("internal error while reading %s", job.url)
                self._targets[job.target].findings.append(
                    finding(
                        Code.INTERNAL_ERROR,
                        url=job.url,
                        job=job.url,
                        error=f"{type(exc).__name__}: {exc}"[:300],
                    )
                )
            finally:
                self._frontier.task_done()

    async def _run_job(self, job: Job | RobotsJob) -> None:
        match job:
            case RobotsJob():
                await self._read_robots(job)
            case Job(found_by=FoundBy.PROBE):
                try:
                    outcome = await read_sitemap(job, self._services)
                    record = outcome.record
                    probe = ProbeResult(job.url, outcome.found, record.status)
                    self._targets[job.target].probe_done(probe, _no_answer(record))
                finally:
                    waiting = self._probes.get(job.target)
                    if waiting:
                        self.enqueue(waiting.pop(0))
            case Job(found_by=FoundBy.TARGET, path=None):
                record = (await read_sitemap(job, self._services)).record
                state = self._targets[job.target]
                state.heard(_status(record.status, record.redirects), _no_answer(record))
                if not state.unreached():
                    state.findings += await self._unread_robots(job.url)
            case Job():
                await read_sitemap(job, self._services)

    async def _read_robots(self, job: RobotsJob) -> None:
        state = self._targets[job.target]
        fetched = await self._fetch_robots(job, state)
        robots = fetched.robots
        listed = [line.url for line in robots.sitemaps if line.url] if robots else []
        state.sitemaps.extend(listed)
        children = [
            Job(url, _key(url), job.target, FoundBy.ROBOTS, parent=job.url) for url in listed
        ]
        refused: list[Finding] = []
        self._admit(children, refused)
        tally = self._services.new_tally(job.url, parent=None, depth=0, found_by=FoundBy.TARGET)
        tally.kind, tally.entries = SitemapKind.ROBOTS, len(listed)
        tally.status, tally.bytes, tally.elapsed_ms = (
            fetched.status,
            fetched.bytes,
            fetched.elapsed_ms,
        )
        tally.final_url, tally.redirects = fetched.final_url, fetched.redirects
        for item in [*robots_findings(fetched), *refused]:
            tally.add(item)
        await self._services.emit_sitemap(tally.finish())
        if listed:
            return
        failure = fetched.error.finding(url=job.url) if fetched.error is not None else None
        state.heard(_status(fetched.status, fetched.redirects), failure)
        if state.unreached():  # no answer at all: the known locations would get none either
            return
        if job.probe_base is None:
            if robots is None or not robots.disallow_all:  # unread is not "without sitemaps"
                state.none_found()
            return
        self._probe(job, state, job.probe_base)

    async def _unread_robots(self, url: str) -> list[Finding]:
        """robots.unreachable for a sitemap target whose host's robots.txt could not be read.

        It disallows every URL of the host (RFC 9309 §2.3.1.4), and no robots.txt record of a
        site or robots.txt target says why: said once per host, on the first such target
        (docs/explanation/rules.md#robots-status).
        """
        parsed = parse_http_url(url)
        if parsed is None:
            return []
        robots_url = f"{parsed.origin}/robots.txt"
        said_elsewhere = any(state.robots == robots_url for state in self._targets)
        if said_elsewhere or robots_url in self._robots_said:
            return []
        fetched = await self._services.robots.get(parsed.origin)  # read before the sitemap was
        if fetched is None or fetched.robots is None or not fetched.robots.disallow_all:
            return []
        problem = fetched.problem
        if problem is None or problem.code is not Code.ROBOTS_UNREACHABLE:
            return []
        self._robots_said.add(robots_url)
        return [problem]

    def _admit(self, jobs: list[Job], refused: list[Finding], *, enqueue: bool = True) -> list[Job]:
        """The documents the tree admits, queued unless told not; its refusals added to report."""
        admitted: list[Job] = []
        for job in jobs:
            match self._services.tree.add_root(job):
                case Job() as accepted:
                    admitted.append(accepted)
                    if enqueue:
                        self.enqueue(accepted)
                case Finding() as problem:
                    refused.append(problem)
                case None:
                    pass
        return admitted

    async def _fetch_robots(self, job: RobotsJob, state: TargetState) -> RobotsFetch:
        target = state.target
        if target.path is not None:
            return await read_robots_file(target.path, job.url)
        parsed = parse_http_url(job.url)
        if parsed is not None and job.url == f"{parsed.origin}/robots.txt":
            cached = await self._services.robots.get(parsed.origin)
            if cached is not None:
                return cached
        services = self._services
        window_s = services.config.timeout_s
        return await fetch_robots(services.opener, job.url, clock=services.clock, window_s=window_s)

    def _probe(self, job: RobotsJob, state: TargetState, base: str) -> None:
        probes = [
            Job(url, _key(url), job.target, FoundBy.PROBE, probed=True) for url in probe_urls(base)
        ]
        admitted = self._admit(probes, state.findings, enqueue=False)
        state.pending_probes = len(admitted)
        if not admitted:
            state.none_found()
            return
        self._probes[job.target] = admitted[1:]
        self.enqueue(admitted[0])


# Requests that got no HTTP answer say why with one of these codes (auditor.net).
_NO_ANSWER = frozenset(
    {Code.NET_DNS, Code.NET_CONNECT, Code.NET_TIMEOUT, Code.NET_TLS, Code.NET_PROTOCOL}
)


def _no_answer(record: SitemapRecord) -> Finding | None:
    """Why a document's request got no answer, if it got none."""
    if record.status is not None or record.redirects:
        return None
    return next((item for item in record.findings if item.code in _NO_ANSWER), None)


def _status(status: int | None, redirects: tuple[Redirect, ...]) -> int | None:
    """The first status a request got (a redirect's, when it was redirected)."""
    return redirects[0].status if redirects else status


def _key(url: str) -> str:
    parsed = parse_http_url(url)
    return parsed.key if parsed is not None else url
