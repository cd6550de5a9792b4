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


# Why nothing of a target could be read, as a finding on the target: each names what to check
# (docs/explanation/rules.md#unreached).
_UNREACHED = {
    Code.NET_DNS: Code.TARGET_DNS,
    Code.NET_CONNECT: Code.TARGET_CONNECT,
    Code.NET_TIMEOUT: Code.TARGET_TIMEOUT,
    Code.NET_TLS: Code.TARGET_TLS,
    Code.NET_PROTOCOL: Code.TARGET_PROTOCOL,
}


UNREACHED_CODES = frozenset(_UNREACHED.values())


def unreached_code(cause: Code) -> Code:
    """The target finding for a request that got no answer (`cause`: a net.* code)."""
    return _UNREACHED.get(cause, cause)


@dataclass(slots=True)
class TargetState:
    """What discovery learns about one target while the run goes on."""

    target: Target
    robots: str | None = None
    sitemaps: list[str] = field(default_factory=list)
    probes: list[ProbeResult] = field(default_factory=list)
    pending_probes: int = 0
    findings: list[Finding] = field(default_factory=list)
    answered: bool = False  # some request to the target got an HTTP answer
    failure: Finding | None = None  # the first request that got none: why (a net.* finding)

    def heard(self, status: int | None, failure: Finding | None) -> None:
        """One request to the target: its answer's status, or why none came."""
        if status is not None:
            self.answered = True
        elif failure is not None and self.failure is None:
            self.failure = failure

    def unreached(self) -> bool:
        """Whether nothing of the target answered: then say why, on the target, and True."""
        if self.answered or self.failure is None:
            return False
        cause = self.failure
        detail = dict(cause.detail or {})
        detail["cause"] = cause.code.value
        code = unreached_code(cause.code)
        self.findings.append(Finding(code, cause.message, self.target.url, None, detail))
        return True

    def none_found(self) -> None:
        """No sitemap in robots.txt nor at the known locations (docs/explanation/rules.md#probes).

        Said only of a site that answered: one that did not gets why instead (`unreached`). A
        known location that answered other than 404/410 (a 503, a 403 from a bot shield) may
        hide one: the finding names those answers.
        """
        if self.unreached():
            return
        answers = "; ".join(
            f"{probe.url} {probe.status or 'no answer'}"
            for probe in sorted(self.probes, key=lambda probe: probe.url)
            if probe.status not in (404, 410)
        )
        detail = {"answers": answers} if answers else {}
        self.findings.append(finding(Code.DISCOVERY_NONE_FOUND, url=self.target.url, **detail))

    def probe_done(self, result: ProbeResult, failure: Finding | None = None) -> None:
        """Record one probe (`failure`: why no answer came); the last one decides."""
        self.heard(result.status, failure)
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
