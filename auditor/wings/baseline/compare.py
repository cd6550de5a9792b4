"""A run held against its baseline, URL by URL and finding by finding. Pure: no I/O.

A finding is keyed by what it is about (a URL, a sitemap document, a target) and its code: a
new finding is a key the baseline lacks, a resolved one the reverse. A URL changed when its
status, final URL, indexability, canonical or codes changed. A **regression** is a subject (a
URL, a document, a target) with a new finding at or above `--fail-on-new` that is not accepted,
or a URL that became not indexable, or a sitemap whose URLs are listed nowhere now beyond
`--max-drop` (DropLimit): each counts once, however many of its findings are new. With
`--fail-on-new never`, nothing is a regression. The rules: docs/how-to/monitoring.md.
"""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from auditor.codes import Code
from auditor.config import FailOn
from auditor.models import Indexability
from auditor.report.section import Regression
from auditor.wings.baseline.acceptance import NO_RULES, AcceptRules
from auditor.wings.baseline.comparison_rows import Key, UrlFacts, from_check

_CODES = {code.value: code for code in Code}
MAX_EXAMPLES = 50  # listed per kind of change, the first by URL; all are counted
T = TypeVar("T")
_INDEXABLE = Indexability.INDEXABLE.value


@dataclass(frozen=True, slots=True)
class FieldChange:
    """One field of a URL, before and after: `status 200 -> 404`."""

    field: str  # status, final_url, indexability, canonical, codes
    before: str
    after: str


@dataclass(frozen=True, slots=True)
class DropLimit:
    """What a sitemap may lose since the baseline: `--max-drop` and `--max-drop-urls`.

    A sitemap's URLs are those the baseline lists with it first; those listed by no sitemap now
    are dropped (moved to another sitemap is not dropped). More than `share_pct` percent of them
    dropped and more than `urls` of them, that is more than the larger of the two, is
    sitemap.urls_dropped (docs/explanation/rules.md#urls-dropped): an emptied sitemap of over 100
    URLs, a tenth of a large one; never the dead pages a small site removes.
    """

    share_pct: float = 10.0
    urls: int = 100

    def exceeded(self, listed: int, dropped: int) -> bool:
        """Whether `dropped` of the `listed` URLs is more than the limit allows."""
        return dropped > self.urls and dropped * 100 > self.share_pct * listed


@dataclass(frozen=True, slots=True)
class Gate:
    """What makes a new finding a regression: its severity, and not being a known issue."""

    threshold: FailOn  # --fail-on-new
    accept: AcceptRules = NO_RULES
    drop: DropLimit = DropLimit()

    @property
    def open(self) -> bool:
        """Whether anything can regress (`--fail-on-new never`: nothing)."""
        return self.threshold is not FailOn.NEVER

    def trips(self, code: str, subject: str | None) -> bool:
        """Whether a new finding of `code` about `subject` is a regression."""
        known = _CODES.get(code)
        if known is None or not self.threshold.trips(known.severity):
            return False
        return not self.accept.accepts(known, subject)

    def tripping(self, codes: Iterable[str], subject: str | None) -> list[str]:
        """The codes among `codes` that are regressions."""
        return [code for code in codes if self.trips(code, subject)]


@dataclass(frozen=True, slots=True)
class UrlChange:
    """A URL in both runs whose facts differ."""

    url: str
    changes: tuple[FieldChange, ...]
    new_codes: tuple[str, ...]
    resolved_codes: tuple[str, ...]
    became_not_indexable: bool
    became_indexable: bool
    regression: tuple[str, ...] | None  # the codes that make it one (may be empty); None: none

    def to_json(self) -> dict[str, object]:
        """One entry of the report's `diff.urls_changed_examples`."""
        return {
            "url": self.url,
            "before": "; ".join(f"{c.field} {c.before}" for c in self.changes),
            "after": "; ".join(f"{c.field} {c.after}" for c in self.changes),
            "changes": [
                {"field": c.field, "before": c.before, "after": c.after} for c in self.changes
            ],
            "regression": self.regression is not None,
        }


def compare_urls(old: UrlFacts, new: UrlFacts, gate: Gate) -> UrlChange | None:
    """How a URL listed in both runs changed; None when it did not.

    What a check finds is compared only where both runs requested the URL: a URL sampled out
    tonight neither resolves yesterday's 404 nor keeps it.
    """
    both = old.checked and new.checked
    before, after = _codes(old.codes, keep=both), _codes(new.codes, keep=both)
    changes = []
    if both:
        for field, was, now in (
            ("status", _status(old), _status(new)),
            ("final_url", old.final_url or "itself", new.final_url or "itself"),
            ("indexability", verdict_label(old.verdict), verdict_label(new.verdict)),
            ("canonical", old.canonical or "none", new.canonical or "none"),
        ):
            if was != now:
                changes.append(FieldChange(field, was, now))
    added = tuple(sorted(after - before))
    resolved = tuple(sorted(before - after))
    if added or resolved:
        shown = " ".join([*(f"+{c}" for c in added), *(f"-{c}" for c in resolved)])
        changes.append(FieldChange("codes", " ".join(sorted(before)) or "none", shown))
    if not changes:
        return None
    went_bad = both and old.verdict == _INDEXABLE and new.verdict != _INDEXABLE
    return UrlChange(
        new.loc,
        tuple(changes),
        added,
        resolved,
        became_not_indexable=went_bad,
        became_indexable=both and old.verdict != _INDEXABLE and new.verdict == _INDEXABLE,
        regression=_regression(new.loc, added, went_bad=went_bad, gate=gate),
    )


def added_regression(new: UrlFacts, gate: Gate) -> tuple[str, ...] | None:
    """A URL the baseline did not list: the codes that make it a regression (None: none)."""
    codes = tuple(sorted(_codes(new.codes, keep=True)))
    return _regression(new.loc, codes, went_bad=False, gate=gate)


def _regression(
    subject: str, added: tuple[str, ...], *, went_bad: bool, gate: Gate
) -> tuple[str, ...] | None:
    """The new codes that regress (None: it does not; empty: only its verdict does).

    A URL that became not indexable regresses unless every new finding it has is a known issue
    (the reason's own finding is among them).
    """
    if not gate.open:
        return None
    tripping = tuple(gate.tripping(added, subject))
    if tripping:
        return tripping
    if went_bad and not all(_accepted(code, subject, gate) for code in added):
        return ()
    return None


def _accepted(code: str, subject: str, gate: Gate) -> bool:
    known = _CODES.get(code)
    return known is not None and gate.accept.accepts(known, subject)


def _codes(text: str, *, keep: bool) -> set[str]:
    """A URL's codes; without `keep`, only its listing's."""
    codes = set(text.split())
    return codes if keep else {code for code in codes if not from_check(code)}


def _status(facts: UrlFacts) -> str:
    return str(facts.status) if facts.status is not None else "no answer"


def verdict_label(verdict: str) -> str:
    """`indexable`, `not_checked`, or the reason (`noindex_meta`): the JSON's own values.

    One spelling everywhere (NotIndexable.label); an unknown value is shown as it is.
    """
    return verdict


class Examples(Generic[T]):
    """The first `cap` items by a key: the same examples on every run, whatever the order."""

    def __init__(self, cap: int = MAX_EXAMPLES) -> None:
        self._cap = cap
        self._keys: list[str] = []
        self._items: list[T] = []

    def add(self, key: str, item: T) -> None:
        """Keep `item` if it is among the first `cap` by `key`."""
        if len(self._keys) >= self._cap and key >= self._keys[-1]:
            return  # the usual case at scale: one comparison
        at = bisect.bisect_right(self._keys, key)
        self._keys.insert(at, key)
        self._items.insert(at, item)
        if len(self._keys) > self._cap:
            self._keys.pop()
            self._items.pop()

    def items(self) -> list[T]:
        """The kept items, in key order."""
        return list(self._items)


@dataclass(frozen=True, slots=True)
class Drop:
    """A sitemap whose baseline URLs are listed nowhere now, over --max-drop."""

    sitemap: str
    listed: int  # the URLs the baseline listed with it first
    dropped: int  # of them, those no sitemap lists now

    def to_json(self) -> dict[str, object]:
        """One entry of the report's `diff.sitemaps_dropping`."""
        return {"sitemap": self.sitemap, "baseline_urls": self.listed, "dropped": self.dropped}


@dataclass(frozen=True, slots=True)
class BaselineHead:
    """Which baseline a run was compared with."""

    source: str  # its path, as given
    generated_at: str


@dataclass(slots=True)
class Tally:
    """What the comparison found, counted as the joins hand it over; examples bounded."""

    gate: Gate
    urls_added: int = 0
    urls_removed: int = 0
    urls_changed: int = 0
    became_not_indexable: int = 0
    became_indexable: int = 0
    new: Counter[str] = field(default_factory=Counter)
    resolved: Counter[str] = field(default_factory=Counter)
    dropped: Counter[str] = field(default_factory=Counter)  # by the baseline's sitemap
    drops: list[Drop] = field(default_factory=list)  # sitemaps over --max-drop, by URL
    added_examples: Examples[str] = field(default_factory=Examples)
    removed_examples: Examples[str] = field(default_factory=Examples)
    changed_examples: Examples[UrlChange] = field(default_factory=Examples)

    def added(self, new: UrlFacts) -> Regression | None:
        """A URL the baseline did not list; its regression, if it is one."""
        self.urls_added += 1
        self.added_examples.add(new.loc, new.loc)
        self.new.update(_codes(new.codes, keep=True))
        return _url_regression(new, added_regression(new, self.gate), went_bad=False)

    def removed(self, old: UrlFacts) -> None:
        """A URL this run does not list: its findings are resolved."""
        self.urls_removed += 1
        self.removed_examples.add(old.loc, old.loc)
        self.resolved.update(set(old.codes.split()))
        if old.sitemap is not None:
            self.dropped[old.sitemap] += 1

    def drop_regressions(self, listed: Mapping[str, int]) -> Iterator[Regression | None]:
        """Sitemaps that lost more URLs than --max-drop allows (`listed`: the baseline's)."""
        code = Code.SITEMAP_URLS_DROPPED.value
        for sitemap, dropped in sorted(self.dropped.items()):
            before = listed.get(sitemap, 0)
            if not self.gate.drop.exceeded(before, dropped):
                continue
            self.new[code] += 1
            self.drops.append(Drop(sitemap, before, dropped))
            if self.gate.open and self.gate.trips(code, sitemap):
                yield Regression("sitemap", sitemap, (code,), None)

    def both(self, old: UrlFacts, new: UrlFacts) -> Regression | None:
        """A URL of both runs (the store hands over those that may differ)."""
        change = compare_urls(old, new, self.gate)
        if change is None:
            return None
        self.urls_changed += 1
        self.changed_examples.add(new.loc, change)
        self.new.update(change.new_codes)
        self.resolved.update(change.resolved_codes)
        self.became_not_indexable += change.became_not_indexable
        self.became_indexable += change.became_indexable
        return _url_regression(new, change.regression, went_bad=change.became_not_indexable)

    def new_key(self, key: Key) -> Regression | None:
        """A finding of a document, a target or the run that the baseline lacks."""
        self.new[key.code] += 1
        if not self.gate.open or not self.gate.trips(key.code, key.entry or key.subject):
            return None
        return Regression(key.kind, key.subject, (key.code,), None)

    def resolved_key(self, key: Key) -> None:
        """A finding of the baseline's that this run does not have."""
        self.resolved[key.code] += 1


def _url_regression(
    facts: UrlFacts, tripping: tuple[str, ...] | None, *, went_bad: bool
) -> Regression | None:
    if tripping is None:
        return None
    verdict = facts.verdict if went_bad else None
    return Regression("url", facts.loc, tripping, verdict, facts.sitemap, facts.line)
