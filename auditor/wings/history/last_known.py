"""With `--history`: the site as last known, and what the run's budget spent. Pure: no I/O.

A run with a budget requests part of a site and carries the rest's last verdicts forward
(auditor.wings.history). The summary's own counts are this run's requests; `LastKnown` adds up every
URL with a verdict, fresh or carried, with its age, and `HistoryCounts` what the budget did.
The report's `summary.history` holds both (docs/reference/report.md).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from auditor.codes import Code
from auditor.models import NotIndexable, SitemapRecord, UrlRecord
from auditor.report.encode import utc_text

DAY_S = 86_400


@dataclass(slots=True)
class LastKnown:
    """Every listed URL with a verdict, this run's or carried from an earlier one."""

    now_s: float  # the run's start: ages are counted from it
    urls: int = 0
    carried: int = 0
    by_status_class: Counter[str] = field(default_factory=Counter)
    indexable: int = 0
    not_indexable: Counter[NotIndexable] = field(default_factory=Counter)
    by_code: Counter[Code] = field(default_factory=Counter)  # of their checks
    by_age_days: Counter[int] = field(default_factory=Counter)
    oldest_s: float | None = None

    def add_url(self, record: UrlRecord) -> None:
        """One URL as the sink passes it: a listed one with a verdict (an observer of the sink)."""
        check = record.check
        if check is None or not record.listed:
            return
        self.urls += 1
        self.by_status_class[check.status_class] += 1
        reason = check.not_indexable
        if reason is None:
            self.indexable += 1
        else:
            self.not_indexable[reason] += 1
        for item in check.findings:
            self.by_code[item.code] += 1
        when = check.checked_at if check.checked_at is not None else self.now_s
        if check.carried:
            self.carried += 1
        self.by_age_days[max(0, int((self.now_s - when) // DAY_S))] += 1
        if self.oldest_s is None or when < self.oldest_s:
            self.oldest_s = when

    def add_sitemap(self, record: SitemapRecord) -> None:
        """A document: nothing to count."""

    def to_json(self) -> dict[str, object]:
        """The report's `summary.history.last_known`."""
        return {
            "urls": self.urls,
            "carried": self.carried,
            "by_status_class": dict(sorted(self.by_status_class.items())),
            "indexable": self.indexable,
            "not_indexable": self.not_indexable.total(),
            "by_reason": {reason.value: n for reason, n in self.not_indexable.items()},
            "by_code": {code.value: n for code, n in sorted(self.by_code.items())},
            "by_age_days": {str(days): n for days, n in sorted(self.by_age_days.items())},
            "oldest_checked_at": utc_text(self.oldest_s) if self.oldest_s is not None else None,
        }


@dataclass(slots=True)
class HistoryCounts:
    """What a run with a history requested, and why; what it carried forward."""

    budget: int | None = None  # --budget: requests
    budget_time_s: float | None = None  # --budget-time
    max_age_days: int | None = None  # --max-age
    resumed_from: float | None = None  # --resume: the start of the run it continues
    requested: int = 0  # requests made, the run it continues included
    resumed: int = 0  # URLs the run it continues had requested (their verdicts reused)
    not_modified: int = 0  # answered 304: the last verdict confirmed
    carried: int = 0  # not requested: the last verdict carried forward
    never_checked: int = 0  # not requested, and never were: no verdict at all
    max_age_exceeded: int = 0  # carried, though older than --max-age (the budget ran out)
    by_tier: Counter[str] = field(default_factory=Counter)  # requests by why they were made
    stopped_by: str | None = None  # "budget" or "budget_time": what ended the requests

    def to_json(self, last_known: LastKnown) -> dict[str, object]:
        """The report's `summary.history`."""
        resumed_from = self.resumed_from
        return {
            "budget": self.budget,
            "budget_time_s": self.budget_time_s,
            "max_age_days": self.max_age_days,
            "resumed_from": utc_text(resumed_from) if resumed_from is not None else None,
            "requested": self.requested,
            "by_tier": dict(sorted(self.by_tier.items())),
            "resumed": self.resumed,
            "not_modified": self.not_modified,
            "carried": self.carried,
            "never_checked": self.never_checked,
            "max_age_exceeded": self.max_age_exceeded,
            "stopped_by": self.stopped_by,
            "last_known": last_known.to_json(),
        }
