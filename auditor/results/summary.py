"""The one place that adds up the run; auditor.results.verdict decides from it.

Pure: no I/O.

See docs/explanation/design.md#report.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from auditor.codes import Code, Severity, by_severity
from auditor.models import (
    ExtensionFacts,
    Finding,
    Indexability,
    NotIndexable,
    SitemapKind,
    SitemapRecord,
    TargetRecord,
    UrlRecord,
)
from auditor.results.dedup import UrlOutcome

# The report's `summary.extensions`, in this order.
EXTENSION_COUNTS = ("hreflang_urls", "hreflang_links", "images", "videos", "news")


@dataclass(slots=True)
class SitemapChecks:
    """The checked URLs one sitemap lists: by status class, with an error, indexable."""

    by_status_class: Counter[str] = field(default_factory=Counter)
    failing: int = 0
    indexable: int = 0

    @property
    def checked(self) -> int:
        """Checked URLs it lists."""
        return self.by_status_class.total()

    def to_json(self) -> dict[str, object]:
        """One entry of the report's `summary.by_sitemap`."""
        return {
            "checked": self.checked,
            "failing": self.failing,
            "indexable": self.indexable,
            "by_status_class": dict(sorted(self.by_status_class.items())),
        }


class Summary:
    """Counters fed by the sink, record by record; nothing here grows with the URL count."""

    def __init__(self) -> None:
        self.sitemaps = 0
        self.urls = 0  # distinct URLs the sitemaps list
        self.alternates = 0  # hreflang alternates no sitemap lists (checked like listed URLs)
        self.checked = 0
        self.entries = 0
        self.bytes = 0
        self.sitemaps_by_kind: Counter[str] = Counter()
        self.by_status_class: Counter[str] = Counter()
        self.by_code: Counter[Code] = Counter()
        self.accepted: Counter[Code] = Counter()  # known issues (--accept-file), in by_code too
        # What the entries say in the extension namespaces: URLs naming alternates, their
        # <xhtml:link>s, images, videos, news items (Google Search Central's four extensions).
        self.extensions: Counter[str] = Counter()
        # Per listing sitemap: checked URLs by status class, and how many have an error.
        self.by_sitemap: dict[str, SitemapChecks] = {}
        # The listed URLs (not unlisted alternates) by indexability, and the reasons of those
        # that cannot be indexed (auditor.checks.indexability).
        self.indexability: Counter[Indexability] = Counter()
        self.not_indexable: Counter[NotIndexable] = Counter()

    def add_findings(self, findings: Iterable[Finding]) -> None:
        """Count findings by code (the accepted ones also apart)."""
        for item in findings:
            self.by_code[item.code] += 1
            if item.accepted:
                self.accepted[item.code] += 1

    def add_url(self, record: UrlRecord) -> None:
        """One distinct URL of the tree, and its check when it was requested."""
        listed = record.listed
        if listed:
            self.urls += 1
        elif record.alternate_of is not None:
            self.alternates += 1
        else:
            self._count_unlisted(record)
            return
        facts = record.extensions
        if facts is not None:
            self._count_extensions(facts)
        if record.findings:
            self.add_findings(record.findings)
        check = record.fresh_check  # a carried verdict is not this run's
        if check is None:
            if listed:
                self.indexability[Indexability.NOT_CHECKED] += 1
            return
        self.checked += 1
        status_class = check.status_class
        self.by_status_class[status_class] += 1
        if check.findings:
            self.add_findings(check.findings)
        reason = check.not_indexable
        if listed:
            self.indexability[check.indexability] += 1
            if reason is not None:
                self.not_indexable[reason] += 1
        outcome = UrlOutcome(status_class, check.failing, reason is None)
        for sitemap in record.sitemaps:
            self.count_for(sitemap, outcome)

    def _count_unlisted(self, record: UrlRecord) -> None:
        """A page no sitemap lists and no alternate names (one only the crawl found).

        Its findings count, not its answer.
        """
        self.add_findings(record.findings)
        if record.check is not None:
            self.add_findings(record.check.findings)

    def _count_extensions(self, facts: ExtensionFacts) -> None:
        self.extensions.update(facts.counts())

    def count_for(self, sitemap: str, outcome: UrlOutcome) -> None:
        """Count a checked URL for a sitemap that lists it."""
        counts = self.by_sitemap.get(sitemap)
        if counts is None:
            counts = self.by_sitemap[sitemap] = SitemapChecks()
        counts.by_status_class[outcome.status_class] += 1
        counts.failing += outcome.failing
        counts.indexable += outcome.indexable

    def add_sitemap(self, record: SitemapRecord) -> None:
        """One document of the tree (robots.txt included), with the findings it could not keep."""
        self.sitemaps += 1
        self.sitemaps_by_kind[record.kind.value if record.kind else "unknown"] += 1
        self.bytes += record.bytes
        if record.kind is not SitemapKind.ROBOTS and record.kind is not SitemapKind.SITEMAPINDEX:
            self.entries += record.url_count
        self.add_findings(record.findings)
        self.by_code.update(record.findings_omitted)
        self.extensions.update(record.relisted_extensions)

    def add_target(self, record: TargetRecord) -> None:
        """A target's own findings (discovery)."""
        self.add_findings(record.findings)

    def by_severity(self) -> dict[Severity, int]:
        """Finding counts per severity, worst first, zeros included."""
        return by_severity(self.by_code)

    def indexability_json(self) -> dict[str, object]:
        """The report's `summary.indexability`: listed URLs by verdict, and the reasons."""
        counts: dict[str, object] = {kind.value: self.indexability[kind] for kind in Indexability}
        counts["by_reason"] = {reason.value: n for reason, n in self.not_indexable.items() if n}
        return counts

    def to_json(self, *, duration_s: float) -> dict[str, object]:
        """The report's `summary` object (docs/reference/report.md)."""
        return {
            "sitemaps": self.sitemaps,
            "urls": self.urls,
            "alternates": self.alternates,
            "checked": self.checked,
            "entries": self.entries,
            "bytes": self.bytes,
            "sitemaps_by_kind": dict(sorted(self.sitemaps_by_kind.items())),
            "by_status_class": dict(sorted(self.by_status_class.items())),
            "extensions": {kind: self.extensions[kind] for kind in EXTENSION_COUNTS},
            "by_code": {code.value: n for code, n in sorted(self.by_code.items())},
            "by_severity": {severity.value: n for severity, n in self.by_severity().items()},
            "accepted": {code.value: n for code, n in sorted(self.accepted.items())},
            "indexability": self.indexability_json(),
            "by_sitemap": {
                url: counts.to_json() for url, counts in sorted(self.by_sitemap.items())
            },
            "duration_s": round(duration_s, 3),
            "urls_per_s": round(self.urls / duration_s, 1) if duration_s > 0 else 0.0,
        }
