"""The canonicals a run's pages name, each checked once: their verdicts, and who waits for them.

A canonical named by many pages is requested once a run (MAX_TARGETS_KEPT verdicts kept);
what the crawl read already (`known`) is asked first. See
docs/explanation/rules.md#canonical-target.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from auditor.checks.canonical import comparable
from auditor.checks.check_run import CheckRun, Outcome
from auditor.codes import Code
from auditor.models import Finding, NotIndexable, finding
from auditor.sitemap.plain_urls import Clean
from auditor.urls import origin_of

if TYPE_CHECKING:
    from auditor.checks.engine import CheckEngine

log = logging.getLogger(__name__)
MAX_TARGETS_KEPT = 4096  # canonicals whose verdict is kept (most sites name a few)
Verdict = tuple[NotIndexable | None, int | None]  # why not indexable (None: it is), status
# What the rest of the run knows of a URL (the crawl's pages): its verdict, or None.
KnownVerdict = Callable[[str], Awaitable[Verdict | None]]


class _Target:
    """A canonical's verdict, once its check is over; who waits for it meanwhile."""

    __slots__ = ("verdict", "waiting")

    def __init__(self) -> None:
        self.verdict: Verdict | None = None
        self.waiting: list[tuple[Callable[[str, Verdict], None], str]] = []


class CanonicalTargets:
    """The verdicts of the canonicals named in one run, checked by its engine."""

    def __init__(self, engine: CheckEngine[Any]) -> None:
        self._engine = engine
        self._targets: dict[str, _Target] = {}
        self.known: KnownVerdict | None = None

    def verdict(self, target: str, then: Callable[[str, Verdict], None]) -> None:
        """Call `then` with the verdict of the canonical `target`: checked once per run."""
        key = comparable(target) or target
        known = self._targets.get(key)
        if known is None:
            if len(self._targets) >= MAX_TARGETS_KEPT:
                self._targets = {k: v for k, v in self._targets.items() if v.verdict is None}
            known = self._targets[key] = _Target()
            known.waiting.append((then, target))
            if self.known is None:
                self._check_target(known, target)
                return
            task = asyncio.get_running_loop().create_task(self._ask_known(known, target))
            self._engine.keep_task(task)
            return
        if known.verdict is None:
            known.waiting.append((then, target))
        else:
            then(target, known.verdict)

    async def leads(self, loc: str, target: str) -> list[Finding]:
        """url.canonical_not_indexable: the canonical `target` that `loc` names is not indexable.

        Screaming Frog's "Non-Indexable Canonical" (docs/explanation/rules.md#canonical-target):
        the target's verdict is made once a run, whatever else asks for it.
        """
        done: asyncio.Future[Verdict] = asyncio.get_running_loop().create_future()

        def known(_target: str, verdict: Verdict) -> None:
            if not done.done():
                done.set_result(verdict)

        self.verdict(target, known)
        reason, status = await done
        if reason is None:
            return []
        code, shown = Code.URL_CANONICAL_NOT_INDEXABLE, target[:200]
        return [finding(code, url=loc, canonical=shown, reason=reason.value, status=status)]

    async def _ask_known(self, known: _Target, target: str) -> None:
        """The crawl's verdict of `target` when it read the page; else a check of its own."""
        assert self.known is not None
        try:
            found = await self.known(target)
        except Exception:
            log.exception("reading a canonical's verdict from the crawl failed")
            found = None
        if found is not None:
            self._target_known(known, found)
        else:
            self._check_target(known, target)

    def _check_target(self, known: _Target, target: str) -> None:
        origin = origin_of(target)
        if origin is None:
            self._target_known(known, (None, None))
            return
        ended = functools.partial(self._target_checked, known)
        CheckRun(self._engine, None, target, origin, ended, follow=False).start()

    def _target_checked(self, known: _Target, _run: CheckRun, outcome: Outcome) -> None:
        if isinstance(outcome, Clean):
            self._target_known(known, (None, outcome.status))
        elif any(item.code is Code.INTERNAL_ERROR for item in outcome.findings):
            self._target_known(known, (None, None))
        else:
            self._target_known(known, (outcome.not_indexable, outcome.status))

    @staticmethod
    def _target_known(known: _Target, verdict: Verdict) -> None:
        known.verdict = verdict
        waiting, known.waiting = known.waiting, []
        for then, target in waiting:
            then(target, verdict)
