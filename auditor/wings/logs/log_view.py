"""The HTML report's "Googlebot" part: the access logs' counts, a chart of hits per day.

The view is computed here (counts, links, the chart's geometry) and drawn by its template
(templates/logs_section.html.j2) in the report's own autoescaping jinja2 environment: every
string from a log stays text; only http(s) URLs become links. Inline SVG, no script. Pure: no
I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from auditor.models import StatusClass
from auditor.report.charts import HBarChart, Item, hbar_chart
from auditor.report.encode import utc_text
from auditor.report.html_rows import Link, link
from auditor.report.section import HtmlPart, Slot
from auditor.wings.logs.log_tally import DAY_S

if TYPE_CHECKING:  # the section draws itself with this module's part
    from auditor.wings.logs.log_section import LogsSection

TEMPLATE = "auditor.wings.logs:logs_section.html.j2"

DAY_CHART_WIDTH = 720
DAY_CHART_HEIGHT = 150
DAY_AREA_HEIGHT = 120  # the columns; the day labels go below
MAX_COLUMNS = 92  # days drawn one column each; a longer window is drawn a week a column
_TONES = {"2xx": "ok", "3xx": "redirect", "4xx": "warning", "5xx": "error", "none": "none"}


@dataclass(frozen=True, slots=True)
class DayColumn:
    """One column of the hits-per-day chart, placed."""

    label: str  # the first day it counts, `2026-10-01`
    hits: int
    x: int
    y: int
    width: int
    height: int
    labelled: bool  # its date is written under it


@dataclass(frozen=True, slots=True)
class DayChart:
    """Google Search's verified hits per day (or per week) over the window."""

    width: int
    height: int
    base_y: int
    days_a_column: int
    columns: tuple[DayColumn, ...]
    largest: int


@dataclass(frozen=True, slots=True)
class LogsView:
    """What the part shows."""

    section: LogsSection
    clause: str
    share: str | None
    days: DayChart
    statuses: HBarChart | None
    not_listed: tuple[tuple[Link, int], ...]
    window: str  # `2026-09-01 to 2026-10-01`
    covered: str  # `2026-08-12 to 2026-10-01`, or a word


def day_chart(per_day: tuple[tuple[int, int], ...]) -> DayChart:
    """Columns of hits, a day each (a week each past MAX_COLUMNS days), scaled to the largest."""
    step = 1 if len(per_day) <= MAX_COLUMNS else 7
    buckets = [per_day[at : at + step] for at in range(0, len(per_day), step)]
    sums = [sum(hits for _, hits in bucket) for bucket in buckets]
    largest = max(sums, default=0)
    pitch = DAY_CHART_WIDTH / max(1, len(buckets))
    every = max(1, round(len(buckets) / 8))  # about eight dates written under the columns
    columns = []
    for number, (bucket, hits) in enumerate(zip(buckets, sums, strict=True)):
        height = (
            0 if not largest or not hits else max(2, round((DAY_AREA_HEIGHT - 16) * hits / largest))
        )
        columns.append(
            DayColumn(
                label=utc_text(bucket[0][0] * DAY_S)[:10],
                hits=hits,
                x=round(number * pitch + 1),
                y=DAY_AREA_HEIGHT - height,
                width=max(1, round(pitch - 2)),
                height=height,
                labelled=number % every == 0,
            )
        )
    return DayChart(
        DAY_CHART_WIDTH, DAY_CHART_HEIGHT, DAY_AREA_HEIGHT, step, tuple(columns), largest
    )


def logs_view(section: LogsSection) -> LogsView:
    """The part's content, from the section alone."""
    counts = section.googlebot
    share = section.crawled_share()
    statuses = [
        Item(name if name != StatusClass.NONE.value else "no answer", n, _TONES.get(name, "none"))
        for name, n in counts.by_status_class
        if n
    ]
    covered = "no line's time could be read"
    if section.first_s is not None and section.last_s is not None:
        covered = f"{utc_text(section.first_s)[:10]} to {utc_text(section.last_s)[:10]}"
    return LogsView(
        section=section,
        clause=section.clause or "",
        share=percent(share[0], share[1]) if share else None,
        days=day_chart(counts.per_day),
        statuses=hbar_chart(statuses) if statuses else None,
        not_listed=tuple((link(url), hits) for url, hits in counts.not_listed_top),
        window=f"{utc_text(section.window_start_s)[:10]} to {utc_text(section.window_end_s)[:10]}",
        covered=covered,
    )


def logs_part(section: LogsSection) -> HtmlPart:
    """The part, after the sitemaps: one `<section id="logs">`."""
    return HtmlPart("logs", "Googlebot", Slot.PAGES, TEMPLATE, logs_view(section))


def percent(part: int, whole: int) -> str:
    """`61 %`; `<1 %` for a share above zero that rounds to it."""
    if not whole:
        return "0 %"
    share = 100 * part / whole
    if 0 < share < 1:
        return "<1 %"
    return f"{share:.0f} %"
