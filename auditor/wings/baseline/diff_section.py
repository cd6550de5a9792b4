"""The baseline's section of the report: `diff`, the run held against an earlier report.

Counts, and example lists capped at MAX_EXAMPLES (the first by URL: the same every run); the
regressions themselves are kept in the comparison's store, which JUnit reads back one at a
time. Its views too: the HTML part (of auditor.wings.baseline.diff_view's records), the
terminal's lines, the Markdown. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from auditor.codes import Code
from auditor.config import FailOn
from auditor.models import NotIndexable
from auditor.report.html_rows import MAX_LIST_ITEMS, link
from auditor.report.markdown import MAX_LINES
from auditor.report.markdown_text import code
from auditor.report.places import shown_place
from auditor.report.section import (
    HtmlPart,
    Json,
    Lines,
    MakeGauge,
    Regression,
    RegressionSource,
    Slot,
    printable,
)
from auditor.wings.baseline.compare import (
    MAX_EXAMPLES,
    BaselineHead,
    Drop,
    DropLimit,
    FieldChange,
    UrlChange,
)
from auditor.wings.baseline.diff_view import TEMPLATE, ChangeLine, DiffView, RegressionLine

_CODES = {code.value: code for code in Code}
_TERMINAL_CHARS = 70  # a URL is cut here in the terminal; the reports have it whole


@dataclass(frozen=True, slots=True)
class DiffSection:
    """What changed since the baseline, and what regressed (docs/reference/report.md)."""

    head: BaselineHead
    fail_on_new: FailOn
    regressions: int  # subjects that regressed, each once
    url_regressions: int = 0  # ...of them URLs
    regression_examples: tuple[Regression, ...] = ()  # URLs first
    sitemaps_added: tuple[str, ...] = ()
    sitemaps_removed: tuple[str, ...] = ()
    urls_added: int = 0
    urls_added_examples: tuple[str, ...] = ()
    urls_removed: int = 0
    urls_removed_examples: tuple[str, ...] = ()
    urls_changed: int = 0
    urls_changed_examples: tuple[UrlChange, ...] = ()
    became_not_indexable: int = 0
    became_indexable: int = 0
    sitemaps_dropping: tuple[Drop, ...] = ()  # over --max-drop, the first MAX_EXAMPLES
    max_drop: DropLimit = field(default_factory=DropLimit)
    new_findings: Mapping[str, int] = field(default_factory=dict)  # by code, sorted
    resolved_findings: Mapping[str, int] = field(default_factory=dict)
    cases: RegressionSource | None = None  # every regression, read back for JUnit
    # Local sitemaps are named relative to it in the Markdown (the current folder: a CI job's
    # checkout), never by the runner's absolute file:///...
    workspace: Path | None = None

    place = "diff"
    last_known = None
    clause = None  # its regressions are the verdict's own words

    @property
    def new_codes(self) -> Mapping[Code, int]:
        """Findings by code that are new since the baseline (codes this version knows)."""
        return {_CODES[name]: n for name, n in self.new_findings.items() if name in _CODES}

    def to_json(self) -> Json:
        """The report's `diff`."""
        return {
            "baseline": self.head.source,
            "baseline_generated_at": self.head.generated_at,
            "max_examples": MAX_EXAMPLES,
            "fail_on_new": self.fail_on_new.value,
            "regressions": self.regressions,
            "regression_examples": [item.to_json() for item in self.regression_examples],
            "sitemaps_added": list(self.sitemaps_added),
            "sitemaps_removed": list(self.sitemaps_removed),
            "urls_added": self.urls_added,
            "urls_added_examples": list(self.urls_added_examples),
            "urls_removed": self.urls_removed,
            "urls_removed_examples": list(self.urls_removed_examples),
            "urls_changed": self.urls_changed,
            "urls_changed_examples": [change.to_json() for change in self.urls_changed_examples],
            "urls_broken": self.url_regressions,
            "urls_broken_examples": [
                item.subject for item in self.regression_examples if item.kind == "url"
            ],
            "became_not_indexable": self.became_not_indexable,
            "became_indexable": self.became_indexable,
            "sitemaps_dropping": [drop.to_json() for drop in self.sitemaps_dropping],
            "max_drop": {"percent": self.max_drop.share_pct, "urls": self.max_drop.urls},
            "new_findings": dict(self.new_findings),
            "resolved_findings": dict(self.resolved_findings),
        }

    def html(self) -> HtmlPart:
        """The part the report opens with: what is new, what was fixed, what changed."""
        return _diff_part(self)

    def lines(self) -> Lines:
        """Two lines after the codes."""
        return Lines(tail=_diff_lines(self))

    def gauges(self, gauge: MakeGauge, target: str) -> None:
        """Regressions since the baseline (docs/reference/metrics.md)."""
        gauge("regressions", "Regressions since the baseline.").labels(target).set(self.regressions)

    def markdown(self) -> str:
        """What regressed, what is new and fixed, the URLs added, removed and changed."""
        return _diff_markdown(self)

    def junit(self) -> RegressionSource | None:
        """A failing case per regression, in a suite of their own."""
        return self.cases


def _diff_part(diff: DiffSection) -> HtmlPart:
    """The part the report opens with."""
    title = "Changes since the baseline"
    return HtmlPart("changes", title, Slot.TOP, TEMPLATE, _diff_view(diff))


def _diff_view(diff: DiffSection) -> DiffView:
    """The comparison with the baseline as the HTML shows it: bounded lists, and totals."""
    known = {code.value: code for code in Code}
    return DiffView(
        baseline=diff.head.source,
        regressions=diff.regressions,
        fail_on_new=diff.fail_on_new.value,
        regression_lines=tuple(_regression(item, known) for item in diff.regression_examples),
        new_codes=diff.new_codes,
        resolved_codes={
            known[name]: n for name, n in diff.resolved_findings.items() if name in known
        },
        became_not_indexable=diff.became_not_indexable,
        became_indexable=diff.became_indexable,
        sitemaps_added=diff.sitemaps_added[:MAX_LIST_ITEMS],
        sitemaps_removed=diff.sitemaps_removed[:MAX_LIST_ITEMS],
        sitemaps_added_total=len(diff.sitemaps_added),
        sitemaps_removed_total=len(diff.sitemaps_removed),
        urls_added=diff.urls_added,
        urls_removed=diff.urls_removed,
        urls_added_examples=diff.urls_added_examples[:MAX_LIST_ITEMS],
        urls_removed_examples=diff.urls_removed_examples[:MAX_LIST_ITEMS],
        changed=tuple(_change(item) for item in diff.urls_changed_examples),
        changed_total=diff.urls_changed,
    )


def _regression(item: Regression, known: Mapping[str, Code]) -> RegressionLine:
    verdict = item.verdict
    return RegressionLine(
        kind=item.kind,
        subject=link(item.subject),
        codes=tuple(known[code] for code in item.codes if code in known),
        became_not_indexable=NotIndexable(verdict).label if verdict else None,
    )


def _change(item: UrlChange) -> ChangeLine:
    fields = tuple(
        FieldChange(change.field.replace("_", " "), change.before, change.after)
        for change in item.changes
    )
    return ChangeLine(link(item.url), fields, item.regression is not None)


def _diff_lines(diff: DiffSection) -> tuple[str, str]:
    """What changed since the baseline, in two lines of the terminal's summary."""
    first = f"since the baseline: {_count(diff.regressions, 'regression')}"
    if diff.new_findings:
        first += "; new: " + ", ".join(f"{code} +{n}" for code, n in _top(diff.new_findings))
    if diff.resolved_findings:
        fixed = _top(diff.resolved_findings)
        first += "; fixed: " + ", ".join(f"{code} -{n}" for code, n in fixed)
    second = (
        f"  URLs +{diff.urls_added} -{diff.urls_removed}, {diff.urls_changed} changed "
        f"({diff.became_not_indexable} became not indexable)"
    )
    if diff.regression_examples:
        second += f"; first regression: {_short(diff.regression_examples[0].subject)}"
    return first, second


def _top(counts: Mapping[str, int]) -> list[tuple[str, int]]:
    return sorted(counts.items(), key=lambda pair: (-pair[1], pair[0]))[:5]


def _count(n: int, word: str) -> str:
    """`1 regression`, `3,000 regressions`."""
    return f"{n:,} {word}" if n == 1 else f"{n:,} {word}s"


def _short(text: str) -> str:
    """One line of the terminal: printable, cut at _TERMINAL_CHARS."""
    text = printable(text)
    return text if len(text) <= _TERMINAL_CHARS else text[: _TERMINAL_CHARS - 1] + "…"


def _diff_markdown(diff: DiffSection) -> str:
    """The Markdown summary's part: the regressions, what is new and fixed, the URLs."""
    regressions = diff.regressions
    lines = [f"### Since the baseline: {regressions:,} regression{'' if regressions == 1 else 's'}"]
    examples = diff.regression_examples
    for item in examples[:MAX_LINES]:
        codes = ", ".join(code(name) for name in item.codes)
        lost = item.verdict
        why = codes + (f" (not indexable: {code(lost)})" if lost else "")
        subject = code(shown_place(item.subject, workspace=diff.workspace))
        lines.append(f"- {subject}: {why or 'not indexable'}")
    left = regressions - min(len(examples), MAX_LINES)
    if left > 0:
        lines.append(f"- … and {left:,} more (all in the JSON report and the JUnit file)")
    new, fixed = _counted(diff.new_findings), _counted(diff.resolved_findings)
    lines.append("")
    lines.append(f"New findings: {new or 'none'}. Fixed: {fixed or 'none'}.")
    lines.append(
        f"URLs added {diff.urls_added:,}, removed {diff.urls_removed:,}, "
        f"changed {diff.urls_changed:,}."
    )
    return "\n".join(lines)


def _counted(counts: Mapping[str, int]) -> str:
    ranked = sorted(counts.items(), key=lambda pair: (-pair[1], pair[0]))
    shown = ", ".join(f"{code(name)} {n:,}" for name, n in ranked[:MAX_LINES])
    more = f", … {len(ranked) - MAX_LINES} more codes" if len(ranked) > MAX_LINES else ""
    return shown + more
