"""Where hreflang alternates lead: each checked URL's indexability, for the run's alternates.

Every checked URL passes here (auditor.checks.stage.records_checked); those its verdict says
are not indexable (auditor.checks.indexability) go to the run's hreflang store, which names
the alternates that point at them once every URL is checked
(docs/explanation/rules.md#hreflang-targets).
"""

from __future__ import annotations

from auditor.models import CheckResult, RunFindings, UrlRecord
from auditor.wings.hreflang.alternates import CappedFindings
from auditor.wings.hreflang.link_store import LinkStore


class AlternateTargets:
    """The checked URLs that are not indexable, handed to `store`."""

    def __init__(self, store: LinkStore) -> None:
        self._store = store

    def checked(self, record: UrlRecord, result: CheckResult) -> None:
        """One URL's check."""
        if record.digest:
            reason = result.not_indexable
            if reason is not None:
                self._store.not_indexable(record.digest, reason.value)

    async def findings(self) -> RunFindings | None:
        """hreflang.alternate_not_indexable, once every URL is checked (None: none)."""
        capped = CappedFindings()
        await self._store.judge_targets(report=capped.add)
        return capped.run_findings()
