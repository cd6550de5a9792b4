"""The Markdown summary's list of what fails the run, grouped by sitemap, within a byte budget.

Each group names its sitemap; under it each code with how to fix it, then its URLs with their
status or cause (lychee's job summary lists every failing link so). What the budget leaves out
is counted, and the reader told where all of it is. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from auditor.codes import Code
from auditor.config import FailOn
from auditor.report.failing import (
    ALTERNATES,
    CRAWLED,
    RUN,
    TARGETS,
    Failing,
    FailingUrls,
    SitemapGroup,
)
from auditor.report.markdown_text import code, text
from auditor.report.places import shown_place

_PLACES = {
    TARGETS: "The targets",
    RUN: "Across the run (hreflang return links)",
    ALTERNATES: "hreflang alternates no sitemap lists",
    CRAWLED: "Pages only the crawl found",
}
WHERE_ALL = "every one is in the JSON report and the JUnit file"


def failing_part(
    failing: FailingUrls,
    *,
    fail_on: FailOn,
    fail_on_new: FailOn | None,
    budget_bytes: int,
    workspace: Path | None,
) -> str:
    """`### What fails the run`, then a part per group, cut where `budget_bytes` ends."""
    if not failing.failing and not failing.regressions:
        return ""
    lines = [f"### What fails the run: {_headline(failing, fail_on, fail_on_new)}"]
    used = len(lines[0].encode())
    cut = False
    for group in failing.groups.values():
        for line in _group_lines(group, workspace=workspace):
            size = len(line.encode()) + 1
            if used + size > budget_bytes:
                cut = True
                break
            lines.append(line)
            used += size
        if cut:
            break
    if cut or any(group.left_out or group.regressed_left_out for group in failing.groups.values()):
        lines += ["", f"The job summary's size is bounded: not every line is shown; {WHERE_ALL}."]
    return "\n".join(lines)


def _headline(failing: FailingUrls, fail_on: FailOn, fail_on_new: FailOn | None) -> str:
    said = []
    if failing.failing:
        others = failing.failing - failing.urls
        subjects = [_n(failing.urls, "URL")] if failing.urls else []
        subjects += [_n(others, "finding") + " of documents or targets"] if others else []
        said.append(f"{' and '.join(subjects)} at --fail-on {fail_on.value}")
    if failing.regressions and fail_on_new is not None:
        said.append(
            f"{_n(failing.regressions, 'regression')} since the baseline "
            f"(--fail-on-new {fail_on_new.value})"
        )
    return "; ".join(said)


def _group_lines(group: SitemapGroup, *, workspace: Path | None) -> Iterator[str]:
    """The group's heading, then for each code its fix and its subjects."""
    place = _PLACES.get(group.place) or code(shown_place(group.place, workspace=workspace))
    yield ""
    yield f"#### {place}" + (f" ({group.failing:,} failing)" if group.failing else "")
    by_code: dict[Code | None, list[Failing]] = {}
    for line in sorted(group.kept, key=lambda item: item.subject):
        by_code.setdefault(line.codes[0] if line.codes else None, []).append(line)
    ranked = sorted(by_code.items(), key=lambda pair: _rank(pair[0]))
    for first, lines in ranked:
        yield ""
        yield _code_heading(first, len(lines))
        yield ""
        yield from (_subject_line(line, group.place, workspace=workspace) for line in lines)
    more = []
    if group.left_out:
        more.append(f"{group.left_out:,} more failing")
    if group.regressed_left_out:
        more.append(f"{_n(group.regressed_left_out, 'more regression')}")
    if more:
        yield f"- … and {', '.join(more)} ({WHERE_ALL})"


def _rank(first: Code | None) -> tuple[int, str]:
    return (1, "") if first is None else (-first.severity.rank, first.value)


def _code_heading(first: Code | None, count: int) -> str:
    if first is None:
        return f"Became not indexable ({count:,})"
    info = first.info
    head = f"{code(first.value)} {info.severity.value} ({count:,}): {text(info.title)}"
    return f"{head}. Fix: {text(info.fix)}"


def _subject_line(line: Failing, place: str, *, workspace: Path | None) -> str:
    """`- `URL` — 404`, with its other codes, and what is new since the baseline."""
    if line.itself and line.subject == place:
        subject = "the document itself"
    else:
        subject = code(shown_place(line.subject, workspace=workspace))
    said = f"- {subject} — {text(line.cause)}"
    if len(line.codes) > 1:
        said += "; also " + ", ".join(code(item.value) for item in line.codes[1:])
    if line.new:
        new = ", ".join(code(name) for name in sorted(line.new))
        said += f"; **new since the baseline**: {new}"
    if line.lost_indexability:
        said += f" (not indexable now: {code(line.lost_indexability)})"
    return said


def _n(count: int, noun: str) -> str:
    return f"{count:,} {noun}{'' if count == 1 else 's'}"
