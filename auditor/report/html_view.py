"""What the HTML report shows, computed from the summary and the bounded samples.

Every string from the network stays a plain string here (the template escapes it); only http(s)
URLs become links. Pure: no I/O.

See docs/explanation/design.md#html-report.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from auditor.codes import Code, Severity
from auditor.models import Indexability, StatusClass, TargetRecord
from auditor.report.charts import ColumnChart, HBarChart, Item, column_chart, hbar_chart
from auditor.report.encode import Json
from auditor.report.extensions_view import ExtensionsView, extensions_view
from auditor.report.html_rows import (
    CodeGroup,
    CodeRow,
    SitemapLine,
    TargetLine,
    by_worst,
    code_groups,
    code_row,
    sitemap_line,
    target_line,
)
from auditor.report.section import HtmlPart
from auditor.results.samples import (
    TIME_BUCKETS_MS,
    Samples,
    clip,
)
from auditor.results.summary import Summary
from auditor.results.verdict import Verdict, run_counts

TOP_CODES_CHARTED = 10
GROUPS_OPEN = 6
FIX_FIRST_SHOWN = 10  # codes in the "fix these first" table; the others are folded below it


@dataclass(frozen=True, slots=True)
class Card:
    """One headline number: errors, warnings, notices, sitemaps, URLs, time."""

    label: str
    value: str
    note: str
    tone: str  # a CSS class suffix: error, warning, notice, ok, plain
    alarm: bool = False  # the note tells of something broken


@dataclass(frozen=True, slots=True)
class ReportView:
    """Everything the template shows; bounded whatever the size of the audit."""

    title: str
    generated_at: str
    tool: str
    complete: bool
    verdict: Verdict
    gate: str  # the gate that fired, or those in force (auditor.results.gates)
    cards: tuple[Card, ...]
    fix_first: tuple[CodeRow, ...]  # every code of the run, worst first
    fix_first_shown: int  # the rest are folded
    status_chart: HBarChart | None  # None: no URL was requested
    time_chart: ColumnChart | None
    codes_chart: HBarChart | None  # None: no finding
    sitemaps: tuple[SitemapLine, ...]
    sitemaps_total: int
    sitemap_cap: int
    extensions: ExtensionsView | None  # None: no entry uses a sitemap extension
    parts: tuple[HtmlPart, ...]  # the wings' sections (auditor.report.section), in order
    problems: tuple[CodeGroup, ...]
    examples_cap: int
    groups_open: int  # the first error groups are open; the others fold (JS off: a click opens)
    targets: tuple[TargetLine, ...]
    config: tuple[tuple[str, str], ...]
    json_name: str


@dataclass(frozen=True, slots=True)
class RunFacts:
    """What the report says about the run itself."""

    title: str  # the first target's title (Target.title: a host name, or a file as given)
    generated_at: datetime
    tool: str
    complete: bool
    duration_s: float
    config: Json  # as in the JSON report: header values redacted
    json_name: str  # the JSON report's file name, beside the HTML
    gate: str = ""  # the gate that fired, or those in force (auditor.results.gates)


def build_view(
    summary: Summary,
    samples: Samples,
    *,
    verdict: Verdict,
    facts: RunFacts,
    targets: Sequence[TargetRecord],
    parts: Sequence[HtmlPart] = (),
    new_codes: Mapping[Code, int] | None = None,
) -> ReportView:
    """The report's content, from counters and bounded samples only.

    `parts`: the wings' sections as the HTML shows them; `new_codes`: the findings by code they
    call new (since the baseline), marked in the table of codes.
    """
    return ReportView(
        title=facts.title,
        generated_at=facts.generated_at.strftime("%Y-%m-%d %H:%M:%S UTC"),
        tool=facts.tool,
        complete=facts.complete,
        verdict=verdict,
        gate=facts.gate,
        cards=_cards(summary, samples, facts.duration_s),
        fix_first=_fix_first(summary, new_codes or {}),
        fix_first_shown=FIX_FIRST_SHOWN,
        status_chart=_status_chart(summary),
        time_chart=_time_chart(samples),
        codes_chart=_codes_chart(summary),
        sitemaps=_sitemap_lines(summary, samples),
        sitemaps_total=samples.documents,
        sitemap_cap=samples.row_cap,
        extensions=extensions_view(summary, samples),
        parts=tuple(parts),
        problems=code_groups(summary, samples),
        examples_cap=samples.examples_per_code,
        groups_open=GROUPS_OPEN,
        targets=tuple(target_line(target) for target in targets),
        config=_config_lines(facts.config),
        json_name=facts.json_name,
    )


def _cards(summary: Summary, samples: Samples, duration_s: float) -> tuple[Card, ...]:
    counts = summary.by_severity()
    notes = {
        Severity.ERROR: "Google rejects these, or the page is broken",
        Severity.WARNING: "work, but waste crawl budget or mislead",
        Severity.NOTICE: "worth knowing",
    }
    cards = [
        Card(severity.value.title() + "s", f"{n:,}", notes[severity], severity.value if n else "ok")
        for severity, n in counts.items()
    ]
    run = run_counts(summary, samples)
    erring = run.sitemaps_with_errors
    cards.append(
        Card("Sitemaps", f"{run.sitemaps:,}", f"{erring:,} with errors", "plain", bool(erring))
    )
    verdicts = summary.indexability
    judged = verdicts[Indexability.INDEXABLE] + verdicts[Indexability.NOT_INDEXABLE]
    # The card counts listed URLs: those checked among them, never more than it shows; the
    # hreflang alternates no sitemap lists are checked too, and said apart.
    checked = f"{judged:,} checked, {run.urls_with_errors:,} with errors"
    if extra := summary.checked - judged:
        checked += f"; {extra:,} unlisted alternate{'' if extra == 1 else 's'} checked too"
    cards.append(Card("URLs", f"{summary.urls:,}", checked, "plain", bool(run.urls_with_errors)))
    if judged:
        missing = verdicts[Indexability.NOT_INDEXABLE]
        note = f"{missing:,} listed URLs cannot be indexed" if missing else "every checked URL"
        value = f"{verdicts[Indexability.INDEXABLE]:,} of {judged:,}"
        cards.append(Card("Indexable", value, note, "plain", bool(missing)))
    rate = f"{summary.urls / duration_s:,.0f} URLs/s" if duration_s > 0 else ""
    took = f"{duration_s:,.2f} s" if duration_s < 10 else f"{duration_s:,.0f} s"
    cards.append(Card("Time", took, rate, "plain"))
    return tuple(cards)


def _fix_first(summary: Summary, new: Mapping[Code, int]) -> tuple[CodeRow, ...]:
    return tuple(code_row(code, n, new=new.get(code, 0)) for code, n in by_worst(summary))


_STATUS_TONES = {
    StatusClass.S2XX: "ok",
    StatusClass.S3XX: "redirect",
    StatusClass.S4XX: "warning",
    StatusClass.S5XX: "error",
    StatusClass.NONE: "none",
}


def _status_chart(summary: Summary) -> HBarChart | None:
    if not summary.checked:
        return None
    items = [
        Item(status_class.value if status_class is not StatusClass.NONE else "no answer", n, tone)
        for status_class, tone in _STATUS_TONES.items()
        if (n := summary.by_status_class[status_class])
    ]
    return hbar_chart(items)


def _time_chart(samples: Samples) -> ColumnChart | None:
    if not any(samples.times):
        return None
    bounds = [0, *TIME_BUCKETS_MS]
    labels = [f"<{_ms(bounds[1])}"]
    labels += [_ms(low) for low in bounds[1:-1]]
    labels.append(f"≥{_ms(bounds[-1])}")
    tones = ["ok"] * 4 + ["warning"] * 2 + ["error"] * 2  # a second and more is slow
    return column_chart(
        [Item(label, n, tone) for label, n, tone in zip(labels, samples.times, tones, strict=True)]
    )


def _ms(value: int) -> str:
    return f"{value // 1000}s" if value >= 1000 else f"{value}ms"


def _codes_chart(summary: Summary) -> HBarChart | None:
    top = by_worst(summary)
    top.sort(key=lambda pair: -pair[1])
    if not top:
        return None
    items = [Item(code.value, n, code.severity.value) for code, n in top[:TOP_CODES_CHARTED]]
    return hbar_chart(items)


def _sitemap_lines(summary: Summary, samples: Samples) -> tuple[SitemapLine, ...]:
    failing = {url: counts.failing for url, counts in summary.by_sitemap.items()}
    rows = samples.sitemap_rows(failing)
    return tuple(sitemap_line(row, summary, samples) for row in rows)


def _config_lines(config: Json) -> tuple[tuple[str, str], ...]:
    return tuple((key, _config_value(value)) for key, value in config.items())


def _config_value(value: object) -> str:
    match value:
        case None:
            return "—"
        case bool():
            return "yes" if value else "no"
        case list():
            return ", ".join(_config_value(item) for item in value) or "—"
        case dict():
            return ", ".join(f"{key}: {_config_value(item)}" for key, item in value.items()) or "—"
        case _:
            return clip(str(value)).value
