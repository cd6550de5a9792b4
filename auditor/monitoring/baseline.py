"""Reading a baseline report (`--baseline`) as a stream: never a whole JSON document in memory.

ijson (its C backend, yajl2_c, when installed) yields parse events; each URL entry leaves only a
digest and a packed value behind (auditor.monitoring.diff). Blocking: run it in a thread, as
`diff_section` does for the report's `diff` part.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import ijson

from auditor.errors import BaselineError
from auditor.models import StatusClass
from auditor.monitoring.diff import MAX_EXAMPLES, BaselineFacts, UrlDiff, diff_json, pack
from auditor.report.encode import SCHEMA_VERSION, Json
from auditor.results.digest_table import DigestTable
from auditor.results.summary import Summary
from auditor.urls import parse_http_url, url_digest


def read_baseline(path: Path) -> BaselineFacts:
    """The old report's sitemaps, finding counts, and a compact table of its URLs."""
    try:
        with path.open("rb") as source:
            head = _head(source, path)
            source.seek(0)
            table, by_code = _urls_and_codes(source, path)
    except OSError as exc:
        raise BaselineError(f"--baseline {path}: cannot read it ({exc.strerror})") from exc
    return BaselineFacts(
        source=str(path),
        generated_at=str(head["generated_at"]),
        sitemaps=frozenset(head["sitemaps"]),
        by_code=by_code,
        urls=table,
    )


def removed_locs(path: Path, unseen: set[int], *, limit: int) -> list[str]:
    """A second pass: the `loc` of at most `limit` baseline URLs whose digest is in `unseen`."""
    found: list[str] = []
    if not unseen:
        return found
    with path.open("rb") as source:
        for prefix, event, value in _events(source, path):
            if prefix == "urls.item.loc" and event == "string" and _digest(value) in unseen:
                found.append(value)
                if len(found) >= limit:
                    break
    return found


def _events(source: IO[bytes], path: Path) -> Iterator[tuple[str, str, Any]]:
    try:
        yield from ijson.parse(source, use_float=True)
    except ijson.JSONError as exc:  # IncompleteJSONError too: a truncated file
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__  # yajl: 3 lines
        raise BaselineError(f"--baseline {path}: not a complete JSON report ({reason})") from None


def _head(source: IO[bytes], path: Path) -> dict[str, Any]:
    """schema_version (which must be first and ours), generated_at, the sitemap URLs."""
    head: dict[str, Any] = {"sitemaps": []}
    events = _events(source, path)
    first = [next(events, None), next(events, None), next(events, None)]
    if first[:2] != [("", "start_map", None), ("", "map_key", "schema_version")]:
        raise BaselineError(f"--baseline {path}: not a sitemap-audit JSON report")
    version = first[2][2] if first[2] is not None else None
    if version != SCHEMA_VERSION:
        raise BaselineError(
            f"--baseline {path}: schema_version {version}, this version reads {SCHEMA_VERSION}"
        )
    for prefix, event, value in events:
        if prefix == "generated_at":
            head["generated_at"] = value
        elif prefix == "sitemaps.item.url" and event == "string":
            head["sitemaps"].append(value)
        elif prefix == "urls":  # the URLs come next: the head ends here
            return head
    raise BaselineError(f"--baseline {path}: not a sitemap-audit JSON report (no urls)")


def _urls_and_codes(source: IO[bytes], path: Path) -> tuple[DigestTable, dict[str, int]]:
    table = DigestTable()
    by_code: dict[str, int] = {}
    loc = final_url = None
    status: int | None = None
    checked = seen_summary = False
    key = ""
    for prefix, event, value in _events(source, path):
        if prefix.startswith("urls.item"):
            if prefix == "urls.item.loc":
                loc = value
            elif prefix == "urls.item.status":
                checked, status = True, value
            elif prefix == "urls.item.final_url":
                final_url = value
            elif prefix == "urls.item" and event == "end_map":
                digest = _digest(loc) if isinstance(loc, str) else 0
                if digest:
                    status_class = StatusClass.of(status) if checked else None
                    table.setdefault(digest, pack(status_class, final_url))
                loc = final_url = status = None
                checked = False
        elif prefix == "summary.by_code" and event == "map_key":
            key = value
        elif prefix.startswith("summary.by_code.") and event == "number":
            by_code[key] = int(value)
        elif prefix == "summary":
            seen_summary = True
    if not seen_summary:
        raise BaselineError(f"--baseline {path}: not a sitemap-audit JSON report (no summary)")
    return table, by_code


def _digest(loc: str) -> int:
    parsed = parse_http_url(loc)
    # As the reader does (auditor.sitemap.reader): the normalised key, else the text as listed.
    return url_digest(parsed.key if parsed is not None else loc)


async def diff_section(diff: UrlDiff, summary: Summary) -> Json:
    """The report's `diff`; the removed URLs' examples come from a second pass over the file."""
    unseen = diff.unseen()
    examples: list[str] = []
    if unseen:
        path = Path(diff.baseline.source)
        examples = await asyncio.to_thread(removed_locs, path, set(unseen), limit=MAX_EXAMPLES)
    current = {code.value: n for code, n in summary.by_code.items()}
    return diff_json(diff, current_by_code=current, removed=len(unseen), removed_examples=examples)
