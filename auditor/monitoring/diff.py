"""The comparison with a baseline report (`--baseline`). Pure: no I/O.

Each baseline URL is one slot of a DigestTable: its digest -> a packed 32-bit value (status
class, a 26-bit hash of its final URL, a "seen" bit), about 18-36 bytes a URL. The current
run's records are compared as they pass the sink; the unseen digests at the end are the removed
URLs. A final-URL change hidden by a 26-bit hash collision is possible (about 1 in 67 million).

See docs/explanation/design.md#regressions.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field

from auditor.codes import Code
from auditor.config import FailOn
from auditor.models import SitemapRecord, StatusClass, UrlRecord
from auditor.results.digest_table import DigestTable

MAX_EXAMPLES = 50  # URLs listed per kind of change; all are counted
_CLASSES: tuple[StatusClass | None, ...] = (None, *StatusClass)  # index 0: not checked
_CLASS_BITS = 3
_HASH_BITS = 26
_SEEN = 1 << 31


def pack(status_class: StatusClass | None, final_url: str | None) -> int:
    """A URL's answer as 31 bits: the status class's index and a hash of the final URL."""
    digest = hashlib.blake2b((final_url or "").encode(), digest_size=4).digest()
    url_bits = int.from_bytes(digest, "little") & ((1 << _HASH_BITS) - 1)
    return _CLASSES.index(status_class) | (url_bits << _CLASS_BITS)


def status_class_of(packed: int) -> StatusClass | None:
    """The status class a packed value holds (None: the URL was not checked)."""
    return _CLASSES[packed & ((1 << _CLASS_BITS) - 1)]


@dataclass(frozen=True, slots=True)
class BaselineFacts:
    """What the diff needs of the old report, kept compact."""

    source: str  # its path, as given
    generated_at: str
    sitemaps: frozenset[str]
    by_code: Mapping[str, int]
    urls: DigestTable  # digest -> pack(...)


@dataclass(slots=True)
class Change:
    """A URL whose answer changed: status classes before and after (None: not checked)."""

    url: str
    before: str
    after: str


@dataclass(slots=True)
class UrlDiff:
    """Compares the run's URL records with the baseline's as they pass; counts and examples."""

    baseline: BaselineFacts
    fail_on: FailOn
    sitemaps: set[str] = field(default_factory=set)
    added: int = 0
    changed: int = 0
    broke: int = 0  # went from 2xx to an error: regressions
    added_examples: list[str] = field(default_factory=list)
    changed_examples: list[Change] = field(default_factory=list)
    broke_examples: list[str] = field(default_factory=list)

    def add_sitemap(self, record: SitemapRecord) -> None:
        """A document of this run."""
        self.sitemaps.add(record.url)

    def add_url(self, record: UrlRecord) -> None:
        """Compare one URL of this run with the baseline's, and mark it seen."""
        if not record.digest:
            return
        check = record.check
        now_class = check.status_class if check is not None else None
        now = pack(now_class, check.final_url if check is not None else None)
        table = self.baseline.urls
        old = table.get(record.digest)
        if old is None:
            self.added += 1
            _sample(self.added_examples, record.loc)
            return
        if old & _SEEN:
            return  # the same URL twice in the baseline's digest space: counted once
        table.replace(record.digest, old | _SEEN)
        was_class = status_class_of(old)
        if now_class is None or was_class is None or old == now:
            return  # not checked on one side: nothing to compare
        self.changed += 1
        if len(self.changed_examples) < MAX_EXAMPLES:
            before = was_class.value
            after = now_class.value + ("" if (old ^ now) & 7 else " (final URL changed)")
            self.changed_examples.append(Change(record.loc, before, after))
        if self.went_bad(record):
            self.broke += 1
            _sample(self.broke_examples, record.loc)

    def went_bad(self, record: UrlRecord) -> bool:
        """Whether the URL answered 2xx in the baseline, and now otherwise, with an error.

        Such a URL is a regression (docs/explanation/design.md#regressions), whatever --fail-on
        says. Reads only.
        """
        check = record.check
        if not record.digest or check is None or not check.failing:
            return False
        old = self.baseline.urls.get(record.digest)
        if old is None:
            return False
        now = pack(check.status_class, check.final_url)
        return status_class_of(old) is StatusClass.S2XX and old & ~_SEEN != now

    def unseen(self) -> list[int]:
        """The digests of baseline URLs this run did not list: the removed ones."""
        table = self.baseline.urls
        return [d for d in table.digests() if not (table.get(d) or 0) & _SEEN]


def code_changes(old: Mapping[str, int], new: Mapping[str, int]) -> tuple[Counter[str], ...]:
    """Findings by code that are new (count went up) and resolved (count went down)."""
    added, resolved = Counter[str](), Counter[str]()
    for code in old.keys() | new.keys():
        delta = new.get(code, 0) - old.get(code, 0)
        if delta > 0:
            added[code] = delta
        elif delta < 0:
            resolved[code] = -delta
    return added, resolved


def regressions(diff: UrlDiff, new_codes: Mapping[str, int]) -> int:
    """Regressions: new findings at or above --fail-on, and URLs that went from 2xx to an error.

    See docs/explanation/design.md#regressions.
    """
    known = {code.value: code for code in Code}
    tripping = sum(
        n
        for code, n in new_codes.items()
        if code in known and diff.fail_on.trips(known[code].severity)
    )
    return tripping + diff.broke


def diff_json(
    diff: UrlDiff, *, current_by_code: Mapping[str, int], removed: int, removed_examples: list[str]
) -> dict[str, object]:
    """The report's `diff` object: counts, and example lists capped at MAX_EXAMPLES."""
    facts = diff.baseline
    new_codes, resolved_codes = code_changes(facts.by_code, current_by_code)
    return {
        "baseline": facts.source,
        "baseline_generated_at": facts.generated_at,
        "max_examples": MAX_EXAMPLES,
        "regressions": regressions(diff, new_codes),
        "sitemaps_added": sorted(diff.sitemaps - facts.sitemaps),
        "sitemaps_removed": sorted(facts.sitemaps - diff.sitemaps),
        "urls_added": diff.added,
        "urls_added_examples": diff.added_examples,
        "urls_removed": removed,
        "urls_removed_examples": removed_examples[:MAX_EXAMPLES],
        "urls_changed": diff.changed,
        "urls_changed_examples": [
            {"url": c.url, "before": c.before, "after": c.after} for c in diff.changed_examples
        ],
        "urls_broken": diff.broke,
        "urls_broken_examples": diff.broke_examples,
        "new_findings": dict(sorted(new_codes.items())),
        "resolved_findings": dict(sorted(resolved_codes.items())),
    }


def _sample(examples: list[str], url: str) -> None:
    if len(examples) < MAX_EXAMPLES:
        examples.append(url)
