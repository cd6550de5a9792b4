"""The comparison with a baseline (`--baseline`) as the HTML report shows it. Pure: no I/O.

With a baseline the report opens with it: what is new (the regressions, then the new findings
by code), what was fixed, and the URLs that changed, each with its previous and current values.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from auditor.codes import Code
from auditor.models import FieldChange, NotIndexable
from auditor.report.encode import Json
from auditor.report.html_rows import MAX_LIST_ITEMS, Link, link


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


def diff_view_of(diff: Json) -> DiffView:
    """The report's `diff` object (auditor.monitoring.compare.diff_json) as the HTML shows it."""
    known = {code.value: code for code in Code}

    def codes(key: str) -> dict[Code, int]:
        counts = diff.get(key)
        assert isinstance(counts, dict)
        return {known[name]: n for name, n in counts.items() if name in known}

    def strings(key: str) -> tuple[str, ...]:
        return tuple(str(item) for item in _list(diff, key)[:MAX_LIST_ITEMS])

    return DiffView(
        baseline=str(diff["baseline"]),
        regressions=int(str(diff["regressions"])),
        fail_on_new=str(diff.get("fail_on_new", "error")),
        regression_lines=tuple(
            _regression(item, known) for item in _list(diff, "regression_examples")
        ),
        new_codes=codes("new_findings"),
        resolved_codes=codes("resolved_findings"),
        became_not_indexable=int(str(diff.get("became_not_indexable", 0))),
        became_indexable=int(str(diff.get("became_indexable", 0))),
        sitemaps_added=strings("sitemaps_added"),
        sitemaps_removed=strings("sitemaps_removed"),
        sitemaps_added_total=len(_list(diff, "sitemaps_added")),
        sitemaps_removed_total=len(_list(diff, "sitemaps_removed")),
        urls_added=int(str(diff["urls_added"])),
        urls_removed=int(str(diff["urls_removed"])),
        urls_added_examples=strings("urls_added_examples"),
        urls_removed_examples=strings("urls_removed_examples"),
        changed=tuple(_change(item) for item in _list(diff, "urls_changed_examples")),
        changed_total=int(str(diff["urls_changed"])),
    )


def _regression(item: object, known: Mapping[str, Code]) -> RegressionLine:
    assert isinstance(item, dict)
    verdict = item.get("became_not_indexable")
    return RegressionLine(
        kind=str(item["kind"]),
        subject=link(str(item["subject"])),
        codes=tuple(known[code] for code in item["codes"] if code in known),
        became_not_indexable=NotIndexable(verdict).label if verdict else None,
    )


def _change(item: object) -> ChangeLine:
    assert isinstance(item, dict)
    fields = tuple(
        FieldChange(str(c["field"]).replace("_", " "), str(c["before"]), str(c["after"]))
        for c in item.get("changes") or ()
    )
    return ChangeLine(link(str(item["url"])), fields, bool(item.get("regression")))


def _list(diff: Json, key: str) -> list[object]:
    items = diff.get(key, [])
    assert isinstance(items, list)
    return items
