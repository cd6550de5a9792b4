"""Whether a run reached its site at all: an outage is its own outcome, not a site's findings.

A run is **unreachable** when every target got no HTTP answer at all: its robots.txt and every
sitemap it tried failed on DNS, the connection, TLS, the timeout or the protocol, which
discovery says once on the target (`target.dns`, `target.connect`, ...). One target that
answered while another did not is no outage of the run: the silent one keeps its `target.*`
finding, an error like any other (docs/explanation/rules.md#unreached). Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from auditor.codes import Code
from auditor.discovery.probes import UNREACHED_CODES
from auditor.models import Finding, TargetRecord

MAX_NAMED = 3  # targets named in the verdict line; the others counted
# What each cause says in the verdict line, after the target's URL.
_CAUSES = {
    Code.TARGET_DNS: "its host name does not resolve",
    Code.TARGET_CONNECT: "refused or reset the connection",
    Code.TARGET_TIMEOUT: "did not answer within the timeout",
    Code.TARGET_TLS: "its TLS certificate could not be verified",
    Code.TARGET_PROTOCOL: "did not answer HTTP",
}


@dataclass(frozen=True, slots=True)
class Unreached:
    """A target that got no HTTP answer, and why."""

    url: str  # the target's URL
    code: Code  # target.dns, target.connect, target.timeout, target.tls or target.protocol

    @property
    def text(self) -> str:
        """`http://127.0.0.1:1/ refused or reset the connection (target.connect)`."""
        return f"{self.url} {_CAUSES.get(self.code, self.code.info.title)} ({self.code.value})"


def unreached_finding(item: Finding) -> bool:
    """Whether a target's finding says nothing of it could be read.

    With --insecure, a certificate that fails is said (target.tls) and the site is read.
    """
    insecure = item.detail is not None and item.detail.get("insecure") is True
    return item.code in UNREACHED_CODES and not insecure


def unreached(target: TargetRecord) -> Unreached | None:
    """Why nothing of `target` answered; None when something did."""
    cause = next((item for item in target.findings if unreached_finding(item)), None)
    return Unreached(target.url, cause.code) if cause is not None else None


def outage(targets: Iterable[TargetRecord]) -> tuple[Unreached, ...]:
    """Every target's cause when none of them answered (the run is unreachable); else ()."""
    causes = []
    for target in targets:
        cause = unreached(target)
        if cause is None:
            return ()
        causes.append(cause)
    return tuple(causes)


def outage_text(causes: Sequence[Unreached]) -> str:
    """The verdict's reason: each target's cause, the first few named, the rest counted."""
    named = "; ".join(cause.text for cause in causes[:MAX_NAMED])
    rest = len(causes) - MAX_NAMED
    return named + (f"; and {rest:,} more targets" if rest > 0 else "")
