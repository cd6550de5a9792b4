"""A run's URLs, findings and changes as pandas DataFrames, for notebooks (the extra `pandas`).

Typed as an analyst wants them: `lastmod` a UTC datetime (NaT where it is no date), `priority` a
float (NaN where it is no number), whole numbers pandas' nullable Int64, severity and
indexability ordered categoricals (`frame[frame.worst_severity >= "warning"]`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from itertools import islice
from typing import TYPE_CHECKING, Any

from auditor.codes import Severity
from auditor.errors import MissingExtraError
from auditor.models import Finding, Indexability, NotIndexable
from auditor.report.decode import ReportedUrl

if TYPE_CHECKING:
    import pandas as pd

URL_FRAME_COLUMNS = (
    "loc",
    "sitemap",
    "line",
    "lastmod",
    "changefreq",
    "priority",
    "status",
    "final_url",
    "final_status",
    "redirect_hops",
    "elapsed_ms",
    "method",
    "codes",
    "worst_severity",
    "findings",
    "indexability",
    "indexability_reason",
    "checked_at",
    "carried",
    "googlebot_hits",  # with --access-log: Google Search's verified hits in the window
    "googlebot_last",  # ... the last one's time (UTC), and its status
    "googlebot_last_status",
    "crawlers",  # ... the verified crawlers that came, space-separated
)
FINDING_FRAME_COLUMNS = (
    "code",
    "severity",
    "url",
    "sitemap",
    "line",
    "message",
    "detail",
    "accepted",
    "about",
)
CHANGE_FRAME_COLUMNS = (
    "url",
    "change",
    "status_before",
    "status_after",
    "indexability_before",
    "indexability_after",
    "new_codes",
    "resolved_codes",
    "regression",
)
_WHOLE_NUMBERS = (
    *("line", "status", "final_status", "redirect_hops", "elapsed_ms", "findings"),
    *("googlebot_hits", "googlebot_last_status"),
)
# Ordered from mildest to worst, and in the verdict's precedence: comparisons read naturally.
SEVERITIES = tuple(reversed(Severity))
INDEXABILITY = (Indexability.INDEXABLE, Indexability.NOT_INDEXABLE, Indexability.NOT_CHECKED)
# Rows become columns a chunk at a time: Python objects for one chunk, never for every URL.
CHUNK_ROWS = 100_000


def pandas() -> Any:
    """pandas, or MissingExtraError saying which extra brings it."""
    try:
        import pandas as pd  # noqa: PLC0415 - an optional extra, loaded only here
    except ImportError:
        raise MissingExtraError(
            "data frames need pandas: pip install 'sitemap-auditor[pandas]'"
        ) from None
    return pd


def urls_frame(urls: Iterable[ReportedUrl]) -> pd.DataFrame:
    """One row per URL, the columns of URL_FRAME_COLUMNS (MissingExtraError without pandas).

    `codes` holds the URL's distinct finding codes separated by spaces, as urls.csv does.
    """
    pd = pandas()
    frames = [_typed(pd.DataFrame(columns)) for columns in _chunks(urls, URL_FRAME_COLUMNS, _row)]
    if not frames:
        return _typed(pd.DataFrame({name: [] for name in URL_FRAME_COLUMNS}))
    return pd.concat(frames, ignore_index=True)


def findings_frame(rows: Iterable[tuple[Finding, str, int | None]]) -> pd.DataFrame:
    """One row per finding kept by the report: (finding, what it is about, its line)."""
    pd = pandas()
    columns: dict[str, list[Any]] = {name: [] for name in FINDING_FRAME_COLUMNS}
    for item, about, line in rows:
        values = (
            item.code.value,
            item.severity.value,
            item.url,
            item.sitemap,
            line,
            item.message,
            json.dumps(dict(item.detail)) if item.detail else None,
            item.accepted,
            about,
        )
        for name, value in zip(FINDING_FRAME_COLUMNS, values, strict=True):
            columns[name].append(value)
    frame = pd.DataFrame(columns)
    frame["severity"] = pd.Categorical(
        frame["severity"], categories=_values(SEVERITIES), ordered=True
    )
    frame["code"] = frame["code"].astype("category")
    frame["line"] = frame["line"].astype("Int64")
    return frame.astype({"accepted": bool})


def changes_frame(rows: Iterable[dict[str, object]]) -> pd.DataFrame:
    """One row per URL added, removed or changed since a baseline (auditor.api.compare)."""
    pd = pandas()
    frame = pd.DataFrame(list(rows), columns=list(CHANGE_FRAME_COLUMNS))
    for name in ("status_before", "status_after"):
        frame[name] = frame[name].astype("Int64")
    frame["change"] = frame["change"].astype("category")
    return frame.astype({"regression": bool})


def _chunks(
    items: Iterable[Any], names: tuple[str, ...], row: Any
) -> Iterator[dict[str, list[Any]]]:
    iterator = iter(items)
    while chunk := list(islice(iterator, CHUNK_ROWS)):
        columns: dict[str, list[Any]] = {name: [] for name in names}
        for item in chunk:
            for name, value in zip(names, row(item), strict=True):
                columns[name].append(value)
        yield columns


def _typed(frame: pd.DataFrame) -> pd.DataFrame:
    pd = pandas()
    frame = frame.astype(dict.fromkeys(_WHOLE_NUMBERS, "Int64"))
    for name in ("lastmod", "googlebot_last"):
        frame[name] = pd.to_datetime(frame[name], utc=True, errors="coerce", format="ISO8601")
    frame["priority"] = pd.to_numeric(frame["priority"], errors="coerce").astype("float64")
    ordered = (
        ("worst_severity", SEVERITIES),
        ("indexability", INDEXABILITY),
        ("indexability_reason", tuple(NotIndexable)),
    )
    for name, categories in ordered:
        frame[name] = pd.Categorical(frame[name], categories=_values(categories), ordered=True)
    return frame


def _values(members: Iterable[Any]) -> list[str]:
    return [member.value for member in members]


def _row(url: ReportedUrl) -> tuple[object, ...]:
    worst = url.worst_severity
    return (
        url.loc,
        url.sitemap,
        url.line,
        url.lastmod,
        url.changefreq,
        url.priority,
        url.status,
        url.final_url,
        url.final_status,
        len(url.redirects) if url.checked else None,
        url.elapsed_ms,
        url.method,
        " ".join(url.codes) or None,
        worst.value if worst is not None else None,
        len(url.findings),
        url.indexability.value,
        url.not_indexable.value if url.not_indexable is not None else None,
        url.checked_at,
        url.carried,
        *_log_cells(url.crawl_log),
    )


def _log_cells(crawl_log: Mapping[str, Any] | None) -> tuple[object, object, object, object]:
    """googlebot_hits, googlebot_last, googlebot_last_status, crawlers (None: no logs)."""
    if crawl_log is None:
        return None, None, None, None
    bots = " ".join(str(bot) for bot in crawl_log.get("bots") or ()) or None
    return crawl_log.get("hits"), crawl_log.get("last"), crawl_log.get("last_status"), bots
