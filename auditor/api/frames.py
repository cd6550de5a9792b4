"""A run's URLs as a pandas DataFrame, for notebooks (the optional extra `pandas`)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import islice
from typing import TYPE_CHECKING, Any

from auditor.errors import MissingExtraError
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
)
_WHOLE_NUMBERS = ("line", "status", "final_status", "redirect_hops", "elapsed_ms", "findings")
# Rows become columns a chunk at a time: Python objects for one chunk, never for every URL.
CHUNK_ROWS = 100_000


def urls_frame(urls: Iterable[ReportedUrl]) -> pd.DataFrame:
    """One row per URL, the columns of URL_FRAME_COLUMNS (MissingExtraError without pandas).

    `codes` holds the URL's distinct finding codes separated by spaces, as urls.csv does; the
    whole numbers are pandas' nullable Int64 (empty where the URL was not requested).
    """
    try:
        import pandas as pd  # noqa: PLC0415 - an optional extra, loaded only here
    except ImportError:
        raise MissingExtraError(
            "urls_frame() needs pandas: pip install 'sitemap-auditor[pandas]'"
        ) from None
    types = dict.fromkeys(_WHOLE_NUMBERS, "Int64")
    frames = [pd.DataFrame(columns).astype(types) for columns in _column_chunks(urls)]
    if not frames:
        return pd.DataFrame({name: [] for name in URL_FRAME_COLUMNS}).astype(types)
    return pd.concat(frames, ignore_index=True)


def _column_chunks(urls: Iterable[ReportedUrl]) -> Iterator[dict[str, list[Any]]]:
    iterator = iter(urls)
    while chunk := list(islice(iterator, CHUNK_ROWS)):
        columns: dict[str, list[Any]] = {name: [] for name in URL_FRAME_COLUMNS}
        for url in chunk:
            for name, value in zip(URL_FRAME_COLUMNS, _row(url), strict=True):
                columns[name].append(value)
        yield columns


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
    )
