"""One request per URL a run, whatever role it plays: a listed URL, a canonical target.

A listed URL may be another page's canonical too: the first check that wants it requests it,
and the others take what that check found. A listed URL's own check under way is waited for
(its verdict is said as soon as its page is judged, before its own canonical is followed, so
that pages naming each other never wait for each other); a canonical target's check is kept
until the URL's own check takes it (a listed URL the sitemaps give later); verdicts are
remembered for the canonicals named later. What the crawl read (`known`) is asked before any
request is made. Bounded: MAX_KEPT checks and MAX_VERDICTS verdicts at most; past those, the
oldest are forgotten, and a URL asked for again is requested again. See
docs/explanation/rules.md#canonical-target.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from auditor.checks.check_run import CheckRun, Outcome
from auditor.checks.visits import KnownVerdict, Verdict, canonical_verdict, url_key
from auditor.codes import Code
from auditor.models import CheckResult, Finding, finding
from auditor.urls import origin_of

if TYPE_CHECKING:
    from auditor.checks.engine import CheckEngine

log = logging.getLogger(__name__)
MAX_KEPT = 4_096  # canonical targets' checks waiting for their URL's own check
MAX_VERDICTS = 32_768  # verdicts of URLs checked, for the canonicals named later
_SHOWN_CHARS = 200
Told = Callable[[str, Verdict], None]  # (the canonical, its verdict)
Kept = tuple[Outcome, str | None]  # a target's check, and where its own canonical leads


def outcome_verdict(outcome: Outcome) -> Verdict | None:
    """What a canonical naming the URL goes by (None: no verdict, a 304's unread page)."""
    if isinstance(outcome, CheckResult):
        return canonical_verdict(outcome)
    return None, outcome.status  # a Clean check: the URL's own 2xx, indexable


class CanonicalTargets:
    """The URLs of one run by digest: their verdicts, who waits for them, the checks kept."""

    def __init__(self, engine: CheckEngine[Any]) -> None:
        self._engine = engine
        self._verdicts: dict[int, Verdict] = {}
        self._waiting: dict[int, list[tuple[Told, str]]] = {}
        self.flying: set[int] = set()  # listed URLs whose own page is not judged yet
        self.kept: dict[int, Kept] = {}  # canonical targets' checks, for their URL's own check
        # Canonical targets' checks under way: the URL's own checks that wait for them.
        self.targeting: dict[int, list[tuple[object, str]]] = {}
        self.known: KnownVerdict | None = None

    def verdict(self, target: str, then: Told) -> None:
        """Call `then` with the verdict of the canonical `target`: requested once a run."""
        key = url_key(target)
        if key is None:
            then(target, (None, None))
            return
        known = self._verdicts.get(key)
        if known is not None:
            then(target, known)
            return
        waiting = self._waiting.get(key)
        if waiting is not None:
            waiting.append((then, target))
            return
        self._waiting[key] = [(then, target)]
        if key in self.flying:
            return  # its own check says, once its page is judged
        if self.known is None:
            self._check_target(key, target)
            return
        task = asyncio.get_running_loop().create_task(self._ask_known(key, target))
        self._engine.keep_task(task)

    async def leads(self, loc: str, target: str) -> list[Finding]:
        """url.canonical_not_indexable: the canonical `target` that `loc` names is not indexable.

        Screaming Frog's "Non-Indexable Canonical": Google is pointed at a URL it will not index.
        """
        done: asyncio.Future[Verdict] = asyncio.get_running_loop().create_future()

        def told(_target: str, verdict: Verdict) -> None:
            if not done.done():
                done.set_result(verdict)

        self.verdict(target, told)
        return _leads(loc, target, await done)

    def judged(self, digest: int, outcome: Outcome) -> None:
        """A listed URL's page judged: its verdict, to whoever waits and for later."""
        self.flying.discard(digest)
        said = outcome_verdict(outcome)
        if said is None:  # a 304: no verdict; a canonical naming it asks for the page whole
            waiting = self._waiting.get(digest)
            if waiting:
                self._check_target(digest, waiting[0][1])
            return
        self._told(digest, said)

    def owned(self, key: Any, loc: str) -> bool:
        """Whether a listed URL's own check is a canonical target's, made or under way."""
        digest = key.digest
        made = self.kept.pop(digest, None)
        if made is not None:
            self.take(key, loc, made)
            return True
        owners = self.targeting.get(digest)
        if owners is None:
            return False
        owners.append((key, loc))
        return True

    def take(self, key: object, loc: str, kept: Kept) -> None:
        """A listed URL's own check, made already as a canonical target's: judged on from there."""
        outcome, canonical = kept
        if canonical is None:
            self._engine.finished(key, outcome)
            return
        self.verdict(canonical, functools.partial(self._taken, key, loc, outcome))

    def _taken(self, key: object, loc: str, outcome: Outcome, target: str, said: Verdict) -> None:
        found = _leads(loc, target, said)
        if found and isinstance(outcome, CheckResult):
            outcome = replace(outcome, findings=(*outcome.findings, *found))
        self._engine.finished(key, outcome)

    async def _ask_known(self, key: int, target: str) -> None:
        """The crawl's verdict of `target` when it read the page; else a check of its own."""
        assert self.known is not None
        try:
            found = await self.known(target)
        except Exception:  # a bug: the target is checked as if nobody knew it
            log.exception("reading a canonical's verdict from the crawl failed")
            found = None
        if found is not None:
            self._told(key, found)
        else:
            self._check_target(key, target)

    def _check_target(self, key: int, target: str) -> None:
        origin = origin_of(target)
        if origin is None:
            self._told(key, (None, None))
            return
        ended = functools.partial(self._target_checked, key)
        self.targeting[key] = []
        CheckRun(self._engine, None, target, origin, ended, follow=False).start()

    def _target_checked(self, key: int, run: CheckRun, outcome: Outcome) -> None:
        made: Kept = (outcome, run.canonical)
        owners = self.targeting.pop(key, [])
        if not owners:
            kept = self.kept
            if len(kept) >= MAX_KEPT:
                for old in list(kept)[: MAX_KEPT // 2]:  # the oldest half
                    del kept[old]
            kept[key] = made
        self._told(key, outcome_verdict(outcome) or (None, None))
        for owner, loc in owners:
            self.take(owner, loc, made)

    def _told(self, key: int, said: Verdict) -> None:
        verdicts = self._verdicts
        if len(verdicts) >= MAX_VERDICTS:
            del verdicts[next(iter(verdicts))]  # the oldest
        verdicts[key] = said
        for then, target in self._waiting.pop(key, ()):
            then(target, said)


def _leads(loc: str, target: str, said: Verdict) -> list[Finding]:
    reason, status = said
    if reason is None:
        return []
    code, shown = Code.URL_CANONICAL_NOT_INDEXABLE, target[:_SHOWN_CHARS]
    return [finding(code, url=loc, canonical=shown, reason=reason.value, status=status)]
