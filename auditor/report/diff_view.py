"""The comparison with a baseline (`--baseline`) as the HTML report shows it. Pure: no I/O."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from auditor.codes import Code
from auditor.report.encode import Json
from auditor.report.html_rows import MAX_LIST_ITEMS


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
