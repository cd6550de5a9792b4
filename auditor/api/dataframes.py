"""A run's URLs, findings and changes as pandas DataFrames, for notebooks (the extra `pandas`).

Typed as an analyst wants them: every time a UTC datetime (`lastmod`, `checked_at`; NaT where
there is none), `priority` a float (NaN where it is no number), whole numbers pandas' nullable
Int64, a finding's `detail` a dict, severity and indexability ordered categoricals
(`frame[frame.worst_severity >= "warning"]`). The frames share their categories (CATEGORIES):
the same dtype for a severity, a code, an indexability or a sitemap column wherever it is, so
that frames merge and concatenate without turning them back into strings.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from itertools import islice
from typing import TYPE_CHECKING, Any

from auditor.codes import Code, Severity
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
    "sitemap",
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
# What a URL's verdict is before and after (changes_frame): indexable, not checked, or a reason.
VERDICTS = (
    Indexability.INDEXABLE.value,
    Indexability.NOT_CHECKED.value,
    *(r.value for r in NotIndexable),
)
ABOUT = ("target", "sitemap", "url", "run")  # what a finding is about
CHANGES = ("added", "removed", "changed")
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


def categories() -> dict[str, Any]:
    """The categorical dtypes the frames share, by what they hold (MissingExtraError: no pandas)."""
    pd = pandas()
    return {
        "severity": pd.CategoricalDtype(_values(SEVERITIES), ordered=True),
        "code": pd.CategoricalDtype(sorted(code.value for code in Code)),
        "indexability": pd.CategoricalDtype(_values(INDEXABILITY), ordered=True),
        "reason": pd.CategoricalDtype(_values(NotIndexable), ordered=True),
        "verdict": pd.CategoricalDtype(list(VERDICTS)),
        "about": pd.CategoricalDtype(list(ABOUT)),
        "change": pd.CategoricalDtype(list(CHANGES)),
    }


def urls_frame(urls: Iterable[ReportedUrl]) -> pd.DataFrame:
    """One row per URL, the columns of URL_FRAME_COLUMNS (MissingExtraError without pandas).

    `codes` holds the URL's distinct finding codes separated by spaces, as urls.csv does.
    """
    pd = pandas()
    frames = [_typed(pd.DataFrame(columns)) for columns in _chunks(urls, URL_FRAME_COLUMNS, _row)]
    if not frames:
        return _typed(pd.DataFrame({name: [] for name in URL_FRAME_COLUMNS}))
    return pd.concat(frames, ignore_index=True)


FindingRow = tuple[Finding, str, int | None, str | None]  # finding, about, line, sitemap


def findings_frame(rows: Iterable[FindingRow]) -> pd.DataFrame:
    """One row per finding kept by the report: (finding, what it is about, its line, its sitemap).

    `sitemap` is the finding's own, else the sitemap that lists the URL it is about.
    """
    pd = pandas()
    columns: dict[str, list[Any]] = {name: [] for name in FINDING_FRAME_COLUMNS}
    for item, about, line, sitemap in rows:
        values = (
            item.code.value,
            item.severity.value,
            item.url,
            item.sitemap or sitemap,
            line,
            item.message,
            dict(item.detail) if item.detail else None,
            item.accepted,
            about,
        )
        for name, value in zip(FINDING_FRAME_COLUMNS, values, strict=True):
            columns[name].append(value)
    frame = pd.DataFrame(columns)
    shared = categories()
    typed = {"severity": shared["severity"], "code": shared["code"], "about": shared["about"]}
    frame = frame.astype({**typed, "line": "Int64", "accepted": bool})
    frame["detail"] = frame["detail"].astype(object)
    return frame


def changes_frame(rows: Iterable[dict[str, object]]) -> pd.DataFrame:
    """One row per URL added, removed or changed (auditor.wings.baseline.changes)."""
    pd = pandas()
    frame = pd.DataFrame(list(rows), columns=list(CHANGE_FRAME_COLUMNS))
    shared = categories()
    verdict = shared["verdict"]
    return frame.astype(
        {
            "status_before": "Int64",
            "status_after": "Int64",
            "change": shared["change"],
            "indexability_before": verdict,
            "indexability_after": verdict,
            "regression": bool,
        }
    )


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
    for name in ("lastmod", "checked_at", "googlebot_last"):
        frame[name] = pd.to_datetime(frame[name], utc=True, errors="coerce", format="ISO8601")
    frame["priority"] = pd.to_numeric(frame["priority"], errors="coerce").astype("float64")
    shared = categories()
    return frame.astype(
        {
            "worst_severity": shared["severity"],
            "indexability": shared["indexability"],
            "indexability_reason": shared["reason"],
            "carried": bool,
        }
    )


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
