"""What the HTML report shows, computed from the summary and the bounded samples (DESIGN §6).

Every string from the network stays a plain string here (the template escapes it); only http(s)
URLs become links. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from auditor.codes import Code, Severity
from auditor.models import StatusClass, TargetRecord
from auditor.report.charts import ColumnChart, HBarChart, Item, column_chart, hbar_chart
from auditor.report.encode import Json
from auditor.results.samples import (
    TIME_BUCKETS_MS,
    Example,
    Samples,
    SitemapRow,
    Text,
    clip,
)
from auditor.results.summary import Summary
from auditor.results.verdict import Verdict, broken_sitemaps

TOP_CODES_CHARTED = 10
GROUPS_OPEN = 6
CODES_PER_ROW = 5  # code chips in a sitemap row; the rest are counted
FIX_FIRST_SHOWN = 10  # codes in the "fix these first" table; the others are folded below it
MAX_LIST_ITEMS = 50  # sitemaps found by a target, lines of a diff list


@dataclass(frozen=True, slots=True)
class Link:
    """A URL as shown: its text (cut, saying how much), and an href only when it is safe."""

    text: str
    href: str | None
    cut: int  # characters not shown


def link(value: str | Text, *, beside: str | None = None) -> Link:
    """A URL for the page: an href only for an uncut http(s) URL without spaces or controls.

    `javascript:`, `data:` and every other scheme stay text: a report never runs what a
    sitemap says. A URL on the same origin as `beside` is shown as its path.
    """
    text = value if isinstance(value, Text) else clip(value)
    href = text.value if not text.cut and _is_web_url(text.value) else None
    shown = text.value
    if beside is not None and href is not None:
        origin = _origin(beside)
        if origin and shown.startswith(origin + "/"):
            shown = shown[len(origin) :]
    return Link(shown, href, text.cut)


def _origin(url: str) -> str:
    """`https://host:port` of an http(s) URL; "" for anything else."""
    scheme, _, rest = url.partition("://")
    if scheme.lower() not in {"http", "https"}:
        return ""
    return f"{scheme}://{rest.split('/', 1)[0]}"


def _is_web_url(url: str) -> bool:
    head = url[:8].lower()
    if not head.startswith(("http://", "https://")):
        return False
    return not any(char.isspace() or ord(char) < 0x20 or char == "\x7f" for char in url)


@dataclass(frozen=True, slots=True)
class Card:
    """One headline number: errors, warnings, notices, sitemaps, URLs, time."""

    label: str
    value: str
    note: str
    tone: str  # a CSS class suffix: error, warning, notice, ok, plain
    alarm: bool = False  # the note tells of something broken


@dataclass(frozen=True, slots=True)
class CodeRow:
    """One code of the run: what it means, how many, how to fix it."""

    code: str
    severity: Severity
    title: str
    search_console: str | None
    fix: str
    count: int
    anchor: str


def code_row(code: Code, count: int) -> CodeRow:
    """The catalog's words for `code`, with its count in this run."""
    info = code.info
    anchor = "code-" + code.value.replace(".", "-")
    return CodeRow(
        code.value, info.severity, info.title, info.search_console, info.fix, count, anchor
    )


@dataclass(frozen=True, slots=True)
class Step:
    """One step of a drawn redirect chain: a URL, then the status it answered."""

    url: Link
    status: int | None


@dataclass(frozen=True, slots=True)
class ExampleLine:
    """One example of a code: the URL (or its redirect chain), its sitemap, what was found."""

    url: Link | None
    chain: tuple[Step, ...]  # `a -> 301 -> b -> 200`; empty without redirects
    hops_left_out: int
    status: int | None
    sitemap: Link | None
    message: str
    detail: str


@dataclass(frozen=True, slots=True)
class CodeGroup:
    """The problem URLs of one code: the first examples found, with the cap stated."""

    row: CodeRow
    examples: tuple[ExampleLine, ...]
    total: int
    cap: int


@dataclass(frozen=True, slots=True)
class SitemapLine:
    """One row of the sitemap table."""

    url: Link
    kind: str
    depth: int
    parent: Link | None
    status: int | None
    url_count: int
    checked: int | None
    failing: int  # listed URLs with an error
    errors: int
    warnings: int
    notices: int
    codes: tuple[CodeRow, ...]  # the worst few
    more_codes: int
    broken: bool


@dataclass(frozen=True, slots=True)
class TargetLine:
    """What one target was, and what discovery found for it."""

    input: str
    url: Link
    robots: Link | None
    sitemaps: tuple[Link, ...]
    more_sitemaps: int


@dataclass(frozen=True, slots=True)
class UrlChange:
    """A URL whose answer changed since the baseline."""

    url: str
    before: str
    after: str


@dataclass(frozen=True, slots=True)
class DiffView:
    """The comparison with a baseline report (`--baseline`), as the report shows it."""

    baseline: str  # which report: its path, or when it was made
    regressions: int
    new_codes: Mapping[Code, int]  # findings by code that are new since the baseline
    resolved_codes: Mapping[Code, int]
    sitemaps_added: Sequence[str] = ()  # bounded samples; the totals are below
    sitemaps_removed: Sequence[str] = ()
    sitemaps_added_total: int = 0
    sitemaps_removed_total: int = 0
    urls_added: int = 0
    urls_removed: int = 0
    urls_added_examples: Sequence[str] = ()
    urls_removed_examples: Sequence[str] = ()
    changed: Sequence[UrlChange] = ()  # a bounded sample
    changed_total: int = 0


@dataclass(frozen=True, slots=True)
class ReportView:
    """Everything the template shows; bounded whatever the size of the audit."""

    title: str
    generated_at: str
    tool: str
    complete: bool
    verdict: Verdict
    fail_on: str
    cards: tuple[Card, ...]
    fix_first: tuple[CodeRow, ...]  # every code of the run, worst first
    fix_first_shown: int  # the rest are folded
    status_chart: HBarChart | None  # None: no URL was requested
    time_chart: ColumnChart | None
    codes_chart: HBarChart | None  # None: no finding
    sitemaps: tuple[SitemapLine, ...]
    sitemaps_total: int
    sitemap_cap: int
    problems: tuple[CodeGroup, ...]
    examples_cap: int
    groups_open: int  # the first error groups are open; the others fold (JS off: a click opens)
    diff: DiffView | None
    targets: tuple[TargetLine, ...]
    config: tuple[tuple[str, str], ...]
    json_name: str


@dataclass(frozen=True, slots=True)
class RunFacts:
    """What the report says about the run itself."""

    title: str  # the first target's label (a host name)
    generated_at: datetime
    tool: str
    complete: bool
    duration_s: float
    config: Json  # as in the JSON report: header values redacted
    json_name: str  # the JSON report's file name, beside the HTML


def build_view(
    summary: Summary,
    samples: Samples,
    *,
    verdict: Verdict,
    facts: RunFacts,
    targets: Sequence[TargetRecord],
    diff: DiffView | None = None,
) -> ReportView:
    """The report's content, from counters and bounded samples only."""
    return ReportView(
        title=facts.title,
        generated_at=facts.generated_at.strftime("%Y-%m-%d %H:%M:%S UTC"),
        tool=facts.tool,
        complete=facts.complete,
        verdict=verdict,
        fail_on=str(facts.config.get("fail_on", "")),
        cards=_cards(summary, samples, facts.duration_s),
        fix_first=_fix_first(summary),
        fix_first_shown=FIX_FIRST_SHOWN,
        status_chart=_status_chart(summary),
        time_chart=_time_chart(samples),
        codes_chart=_codes_chart(summary),
        sitemaps=_sitemap_lines(summary, samples),
        sitemaps_total=samples.documents,
        sitemap_cap=samples.row_cap,
        problems=_problems(summary, samples),
        examples_cap=samples.examples_per_code,
        groups_open=GROUPS_OPEN,
        diff=diff,
        targets=tuple(_target_line(target) for target in targets),
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
    broken = broken_sitemaps(summary, samples)
    sitemaps = summary.sitemaps - summary.sitemaps_by_kind["robots"]
    cards.append(
        Card("Sitemaps", f"{sitemaps:,}", f"{broken:,} with errors", "plain", bool(broken))
    )
    checked = f"{summary.checked:,} checked, {samples.broken_urls:,} broken"
    cards.append(Card("URLs", f"{summary.urls:,}", checked, "plain", bool(samples.broken_urls)))
    rate = f"{summary.urls / duration_s:,.0f} URLs/s" if duration_s > 0 else ""
    took = f"{duration_s:,.2f} s" if duration_s < 10 else f"{duration_s:,.0f} s"
    cards.append(Card("Time", took, rate, "plain"))
    return tuple(cards)


def _by_worst(summary: Summary) -> list[tuple[Code, int]]:
    """Codes of the run: errors first, then by count."""
    return sorted(
        ((code, n) for code, n in summary.by_code.items() if n),
        key=lambda pair: (-pair[0].severity.rank, -pair[1], pair[0].value),
    )


def _fix_first(summary: Summary) -> tuple[CodeRow, ...]:
    return tuple(code_row(code, n) for code, n in _by_worst(summary))


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
    top = _by_worst(summary)
    top.sort(key=lambda pair: -pair[1])
    if not top:
        return None
    items = [Item(code.value, n, code.severity.value) for code, n in top[:TOP_CODES_CHARTED]]
    return hbar_chart(items)


def _sitemap_lines(summary: Summary, samples: Samples) -> tuple[SitemapLine, ...]:
    failing = {url: counts.failing for url, counts in summary.by_sitemap.items()}
    rows = samples.sitemap_rows(failing)
    return tuple(_sitemap_line(row, summary, samples) for row in rows)


def _sitemap_line(row: SitemapRow, summary: Summary, samples: Samples) -> SitemapLine:
    checks = summary.by_sitemap.get(row.url)
    failing = max(samples.url_errors[row.url], checks.failing if checks else 0)
    counts = row.by_severity
    return SitemapLine(
        url=link(row.url),
        kind=_kind(row),
        depth=row.depth,
        parent=link(row.parent, beside=row.url) if row.parent is not None else None,
        status=row.status,
        url_count=row.url_count,
        checked=checks.by_status_class.total() if checks else None,
        failing=failing,
        errors=counts[Severity.ERROR],
        warnings=counts[Severity.WARNING],
        notices=counts[Severity.NOTICE],
        codes=tuple(code_row(code, 0) for code in row.codes[:CODES_PER_ROW]),
        more_codes=max(0, len(row.codes) - CODES_PER_ROW),
        broken=bool(row.errors or failing),
    )


def _kind(row: SitemapRow) -> str:
    if row.kind is not None:
        return row.kind.value
    answered = row.status is not None and 200 <= row.status < 300
    return "not a sitemap" if answered else "unread"


def _problems(summary: Summary, samples: Samples) -> tuple[CodeGroup, ...]:
    cap = samples.examples_per_code
    return tuple(
        CodeGroup(
            code_row(code, n),
            tuple(_example_line(example) for example in samples.examples.get(code, ())),
            total=n,
            cap=cap,
        )
        for code, n in _by_worst(summary)
    )


def _example_line(example: Example) -> ExampleLine:
    chain: tuple[Step, ...] = ()
    if example.hops:
        chain = tuple(Step(link(hop.url), hop.status) for hop in example.hops)
        if example.final_url is not None:
            chain += (Step(link(example.final_url), example.final_status),)
    detail = ", ".join(
        f"{key}: {_detail_value(value)}" for key, value in example.detail if value.value != "None"
    )
    return ExampleLine(
        url=link(example.url) if example.url is not None else None,
        chain=chain,
        hops_left_out=example.hops_left_out,
        status=example.status,
        sitemap=link(example.sitemap) if example.sitemap is not None else None,
        message=example.message.value + ("…" if example.message.cut else ""),
        detail=detail,
    )


def _detail_value(value: Text) -> str:
    """A detail as JSON would say it (true, not True), marked when it was cut."""
    text = {"True": "true", "False": "false"}.get(value.value, value.value)
    return text + ("…" if value.cut else "")


def _target_line(target: TargetRecord) -> TargetLine:
    return TargetLine(
        input=clip(target.input).value,
        url=link(target.url),
        robots=link(target.robots) if target.robots else None,
        sitemaps=tuple(link(url) for url in target.sitemaps[:MAX_LIST_ITEMS]),
        more_sitemaps=max(0, len(target.sitemaps) - MAX_LIST_ITEMS),
    )


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


def diff_view_of(diff: Json) -> DiffView:
    """The report's `diff` object (auditor.monitoring.diff.diff_json) as the HTML shows it."""
    known = {code.value: code for code in Code}

    def codes(key: str) -> dict[Code, int]:
        counts = diff.get(key)
        assert isinstance(counts, dict)
        return {known[name]: n for name, n in counts.items() if name in known}

    def strings(key: str) -> tuple[str, ...]:
        return tuple(str(item) for item in _list(diff, key)[:MAX_LIST_ITEMS])

    changed = diff.get("urls_changed_examples")
    assert isinstance(changed, list)
    return DiffView(
        baseline=str(diff["baseline"]),
        regressions=int(str(diff["regressions"])),
        new_codes=codes("new_findings"),
        resolved_codes=codes("resolved_findings"),
        sitemaps_added=strings("sitemaps_added"),
        sitemaps_removed=strings("sitemaps_removed"),
        sitemaps_added_total=len(_list(diff, "sitemaps_added")),
        sitemaps_removed_total=len(_list(diff, "sitemaps_removed")),
        urls_added=int(str(diff["urls_added"])),
        urls_removed=int(str(diff["urls_removed"])),
        urls_added_examples=strings("urls_added_examples"),
        urls_removed_examples=strings("urls_removed_examples"),
        changed=tuple(UrlChange(c["url"], c["before"], c["after"]) for c in changed),
        changed_total=int(str(diff["urls_changed"])),
    )


def _list(diff: Json, key: str) -> list[object]:
    items = diff.get(key)
    assert isinstance(items, list)
    return items
