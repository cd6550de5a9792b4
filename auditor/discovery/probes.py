"""The known sitemap locations a site is probed at, and what discovery learns about a target.

Pure: no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import urljoin

from auditor.codes import Code
from auditor.config import Target
from auditor.models import Finding, ProbeResult, TargetRecord, finding

# Where sites put sitemaps when robots.txt names none (sitemaps.org, WordPress, Yoast, ...).
PROBE_PATHS = (
    "sitemap.xml",
    "sitemap_index.xml",
    "sitemap-index.xml",
    "sitemap.xml.gz",
    "wp-sitemap.xml",
    "sitemap.txt",
)


def probe_urls(site_url: str) -> list[str]:
    """The known sitemap locations under a site URL."""
    return [urljoin(site_url, path) for path in PROBE_PATHS]


@dataclass(slots=True)
class TargetState:
    """What discovery learns about one target while the run goes on."""

    target: Target
    robots: str | None = None
    sitemaps: list[str] = field(default_factory=list)
    probes: list[ProbeResult] = field(default_factory=list)
    pending_probes: int = 0
    findings: list[Finding] = field(default_factory=list)

    def none_found(self) -> None:
        """No sitemap in robots.txt nor at the known locations (docs/explanation/rules.md#probes).

        A known location that answered other than 404/410 (a 503, a 403 from a bot shield) may
        hide one: the finding names those answers.
        """
        answers = "; ".join(
            f"{probe.url} {probe.status or 'no answer'}"
            for probe in sorted(self.probes, key=lambda probe: probe.url)
            if probe.status not in (404, 410)
        )
        detail = {"answers": answers} if answers else {}
        self.findings.append(finding(Code.DISCOVERY_NONE_FOUND, url=self.target.url, **detail))

    def probe_done(self, result: ProbeResult) -> None:
        """Record one probe; the last one decides whether anything was found."""
        self.probes.append(result)
        self.pending_probes -= 1
        if self.pending_probes == 0 and not any(probe.found for probe in self.probes):
            self.none_found()

    def record(self) -> TargetRecord:
        """The target's entry in the report."""
        return TargetRecord(
            input=self.target.input,
            kind=self.target.kind.value,
            url=self.target.url,
            robots=self.robots,
            sitemaps=tuple(self.sitemaps),
            probes=tuple(sorted(self.probes, key=lambda probe: probe.url)),
            findings=tuple(self.findings),
        )
