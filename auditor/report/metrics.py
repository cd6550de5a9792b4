"""`--metrics PATH`: the run as Prometheus text format, for node_exporter's textfile collector.

Every value is a gauge: each run replaces the file, so a value describes that run (a counter's
`_total` would promise a rise across runs that a snapshot cannot keep).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from prometheus_client import CollectorRegistry, Gauge, generate_latest
from prometheus_client.parser import text_string_to_metric_families

from auditor.codes import Code
from auditor.errors import ReportWriteError
from auditor.files import write_atomically
from auditor.models import Indexability, NotIndexable
from auditor.report.section import Section
from auditor.results.summary import Summary

PREFIX = "sitemap_audit"
LAST_SUCCESS = f"{PREFIX}_last_success_timestamp_seconds"
FINDINGS = f"{PREFIX}_findings"


@dataclass(frozen=True, slots=True)
class RunMetrics:
    """What the metrics say about one run, beside its summary."""

    target: str  # the label: the run's targets, as given
    complete: bool
    exit_code: int
    duration_s: float
    finished_at_s: float  # Unix time
    reached: bool = True  # every target could be read (no target.* finding)
    unreachable: bool = False  # no target answered at all: an outage (auditor.results.reach)
    sections: tuple[Section, ...] = ()  # the wings' sections: each adds its gauges


def metrics_registry(
    summary: Summary,
    run: RunMetrics,
    *,
    last_success_s: float | None,
    cleared: Iterable[Code] = (),
) -> CollectorRegistry:
    """A registry of its own (never the process-wide default) holding this run's gauges."""
    registry = CollectorRegistry(auto_describe=True)
    target = run.target

    def gauge(name: str, doc: str, *labels: str) -> Gauge:
        return Gauge(f"{PREFIX}_{name}", doc, ["target", *labels], registry=registry)

    gauge("duration_seconds", "How long the audit ran.").labels(target).set(run.duration_s)
    gauge("last_run_timestamp_seconds", "When the last run ended.").labels(target).set(
        run.finished_at_s
    )
    if run.complete and run.reached:
        last_success_s = run.finished_at_s
    # An interrupted run, or one that could not reach a target, keeps the previous success's
    # (docs/explanation/rules.md#unreached).
    if last_success_s is not None:
        gauge("last_success_timestamp_seconds", "When a run last finished.").labels(target).set(
            last_success_s
        )
    gauge("complete", "1 when the run finished, 0 when it stopped early.").labels(target).set(
        int(run.complete)
    )
    gauge(
        "exit_code", "The process's exit code (0 pass, 1 findings or regressions, 3 not done)."
    ).labels(target).set(run.exit_code)
    gauge("unreachable", "1 when no target answered at all (an outage), else 0.").labels(
        target
    ).set(int(run.unreachable))
    sitemaps = gauge("sitemaps", "Documents read, by kind.", "kind")
    for kind, n in sorted(summary.sitemaps_by_kind.items()):
        sitemaps.labels(target, kind).set(n)
    gauge("urls", "Distinct URLs listed.").labels(target).set(summary.urls)
    gauge("urls_checked", "URLs requested.").labels(target).set(summary.checked)
    by_class = gauge("urls_by_status_class", "Validated URLs by status class.", "status_class")
    for status_class, n in sorted(summary.by_status_class.items()):
        by_class.labels(target, status_class).set(n)
    by_severity = gauge("findings_by_severity", "Findings by severity.", "severity")
    for severity, n in summary.by_severity().items():
        by_severity.labels(target, severity.value).set(n)
    by_code = gauge("findings", "Findings by code.", "code", "severity")
    # A code the previous run had and this one has not drops to 0: its series never just stops.
    for code in sorted({*summary.by_code, *cleared}):
        by_code.labels(target, code.value, code.severity.value).set(summary.by_code[code])
    gauge("bytes_read", "Sitemap bytes read (uncompressed).").labels(target).set(summary.bytes)
    verdicts = gauge("urls_by_indexability", "Listed URLs by indexability.", "indexability")
    for kind in Indexability:
        verdicts.labels(target, kind.value).set(summary.indexability[kind])
    reasons = gauge("urls_not_indexable", "Listed URLs not indexable, by reason.", "reason")
    for reason in NotIndexable:  # every reason, 0 included: a series that cleared drops to 0
        reasons.labels(target, reason.value).set(summary.not_indexable[reason])
    for section in run.sections:  # the wings' own (auditor.report.section)
        section.gauges(gauge, target)
    return registry


def last_success(text: str, target: str) -> float | None:
    """The last success time a previous metrics file holds for `target`, if any."""
    return previous_of(text, target).last_success_s


@dataclass(frozen=True, slots=True)
class Previous:
    """What the previous metrics file said of a target."""

    last_success_s: float | None = None
    codes: frozenset[Code] = frozenset()  # the codes it had series for


def previous_of(text: str, target: str) -> Previous:
    """A previous metrics file's values for `target` (nothing from a damaged one)."""
    success, codes = None, set()
    known = {code.value: code for code in Code}
    try:
        for family in text_string_to_metric_families(text):
            for sample in family.samples:
                if sample.labels.get("target") != target:
                    continue
                if sample.name == LAST_SUCCESS:
                    success = sample.value
                elif sample.name == FINDINGS and sample.labels.get("code") in known:
                    codes.add(known[sample.labels["code"]])
    except ValueError:  # a damaged file: start over
        return Previous()
    return Previous(success, frozenset(codes))


async def write_metrics(path: Path, summary: Summary, run: RunMetrics) -> None:
    """Write the textfile atomically (auditor.files: a new temporary file, then a rename)."""
    await asyncio.to_thread(_write, path, summary, run)


def _write(path: Path, summary: Summary, run: RunMetrics) -> None:
    try:
        previous = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        previous = ""
    before = previous_of(previous, run.target)
    registry = metrics_registry(
        summary, run, last_success_s=before.last_success_s, cleared=before.codes
    )
    try:
        path.parent.mkdir(parents=True, exist_ok=True)  # as for every other output
        write_atomically(path, generate_latest(registry))
    except OSError as exc:
        raise ReportWriteError(f"cannot write the metrics {path}: {exc.strerror}") from exc
