"""The baseline's section as each output shows it: the HTML part, the lines, the Markdown.

With a baseline the report opens with it: what is new (the regressions, then the new findings
by code), what was fixed, and the URLs that changed, each with its previous and current values.
Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from auditor.codes import Code
from auditor.models import NotIndexable, Regression
from auditor.report.html_rows import MAX_LIST_ITEMS, Link, link
from auditor.report.markdown import MAX_LINES, text
from auditor.report.section import HtmlPart, Slot, printable
from auditor.wings.baseline.compare import FieldChange, UrlChange

if TYPE_CHECKING:
    from auditor.wings.baseline.diff_section import DiffSection

TEMPLATE = "auditor.wings.baseline:changes.html.j2"
TERMINAL_CHARS = 70  # a URL is cut here in the terminal; the reports have it whole


@dataclass(frozen=True, slots=True)
class ChangeLine:
    """A URL whose facts changed since the baseline, field by field."""

    url: Link
    fields: tuple[FieldChange, ...]
    regression: bool


@dataclass(frozen=True, slots=True)
class RegressionLine:
    """One regression: what regressed, and why."""

    kind: str  # url, sitemap, target
    subject: Link
    codes: tuple[Code, ...]
    became_not_indexable: str | None  # the reason, as the report says it


@dataclass(frozen=True, slots=True)
class DiffView:
    """The comparison with a baseline report (`--baseline`), as the report shows it."""

    baseline: str  # which report: its path, or when it was made
    regressions: int
    fail_on_new: str
    regression_lines: Sequence[RegressionLine]  # a bounded sample, URLs first
    new_codes: Mapping[Code, int]  # findings by code that are new since the baseline
    resolved_codes: Mapping[Code, int]
    became_not_indexable: int = 0
    became_indexable: int = 0
    sitemaps_added: Sequence[str] = ()  # bounded samples; the totals are below
    sitemaps_removed: Sequence[str] = ()
    sitemaps_added_total: int = 0
    sitemaps_removed_total: int = 0
    urls_added: int = 0
    urls_removed: int = 0
    urls_added_examples: Sequence[str] = ()
    urls_removed_examples: Sequence[str] = ()
    changed: Sequence[ChangeLine] = ()  # a bounded sample
    changed_total: int = 0


def diff_part(diff: DiffSection) -> HtmlPart:
    """The part the report opens with (auditor.wings.baseline.diff_section)."""
    title = "Changes since the baseline"
    return HtmlPart("changes", title, Slot.TOP, TEMPLATE, diff_view(diff))


def diff_view(diff: DiffSection) -> DiffView:
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


def diff_lines(diff: DiffSection) -> tuple[str, str]:
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
    """One line of the terminal: printable, cut at TERMINAL_CHARS."""
    text = printable(text)
    return text if len(text) <= TERMINAL_CHARS else text[: TERMINAL_CHARS - 1] + "…"


def diff_markdown(diff: DiffSection) -> str:
    """The Markdown summary's part: the regressions, what is new and fixed, the URLs."""
    regressions = diff.regressions
    lines = [f"### Since the baseline: {regressions:,} regression{'' if regressions == 1 else 's'}"]
    examples = diff.regression_examples
    for item in examples[:MAX_LINES]:
        codes = ", ".join(f"`{code}`" for code in item.codes)
        lost = item.verdict
        why = codes + (f" (not indexable: {text(lost)})" if lost else "")
        lines.append(f"- {text(item.subject)}: {why or 'not indexable'}")
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
    shown = ", ".join(f"`{code}` {n:,}" for code, n in ranked[:MAX_LINES])
    return shown + (f", … {len(ranked) - MAX_LINES} more codes" if len(ranked) > MAX_LINES else "")
