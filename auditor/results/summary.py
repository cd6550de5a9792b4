"""The one place that adds up the run (DESIGN §5); auditor.results.verdict decides from it.

Pure: no I/O.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from auditor.codes import Code, Severity
from auditor.models import (
    ExtensionFacts,
    Finding,
    SitemapKind,
    SitemapRecord,
    StatusClass,
    TargetRecord,
    UrlRecord,
)

# The report's `summary.extensions`, in this order.
EXTENSION_COUNTS = ("hreflang_urls", "hreflang_links", "images", "videos", "news")


@dataclass(slots=True)
class SitemapChecks:
    """The checked URLs one sitemap lists: by status class, and how many have an error."""

    by_status_class: Counter[str] = field(default_factory=Counter)
    failing: int = 0

    def to_json(self) -> dict[str, object]:
        """One entry of the report's `summary.by_sitemap`."""
        return {
            "checked": self.by_status_class.total(),
            "failing": self.failing,
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
        # What the entries say in the extension namespaces: URLs naming alternates, their
        # <xhtml:link>s, images, videos, news items (Google Search Central's four extensions).
        self.extensions: Counter[str] = Counter()
        # Per listing sitemap: checked URLs by status class, and how many have an error.
        self.by_sitemap: dict[str, SitemapChecks] = {}

    def add_findings(self, findings: Iterable[Finding]) -> None:
        """Count findings by code."""
        for item in findings:
            self.by_code[item.code] += 1

    def add_url(self, record: UrlRecord) -> None:
        """One distinct URL of the tree, and its check when it was requested."""
        if record.alternate_of is None:
            self.urls += 1
        else:
            self.alternates += 1
        facts = record.extensions
        if facts is not None:
            self._count_extensions(facts)
        if record.findings:
            self.add_findings(record.findings)
        check = record.check
        if check is None:
            return
        self.checked += 1
        status_class = check.status_class
        self.by_status_class[status_class] += 1
        if check.findings:
            self.add_findings(check.findings)
        failing = check.failing
        for sitemap in record.sitemaps:
            self.count_for(sitemap, status_class, failing=failing)

    def _count_extensions(self, facts: ExtensionFacts) -> None:
        self.extensions.update(facts.counts())

    def count_for(self, sitemap: str, status_class: StatusClass, *, failing: bool) -> None:
        """Count a checked URL for a sitemap that lists it."""
        counts = self.by_sitemap.get(sitemap)
        if counts is None:
            counts = self.by_sitemap[sitemap] = SitemapChecks()
        counts.by_status_class[status_class] += 1
        counts.failing += failing

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
        counts = dict.fromkeys(Severity, 0)
        for code, count in self.by_code.items():
            counts[code.severity] += count
        return counts

    def to_json(self, *, duration_s: float) -> dict[str, object]:
        """The report's `summary` object (DESIGN §5)."""
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
            "by_sitemap": {
                url: counts.to_json() for url, counts in sorted(self.by_sitemap.items())
            },
            "duration_s": round(duration_s, 3),
            "urls_per_s": round(self.urls / duration_s, 1) if duration_s > 0 else 0.0,
        }
