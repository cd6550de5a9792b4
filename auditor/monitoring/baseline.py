"""`--baseline`: the earlier report read into a comparison store, before the run starts.

The report is read as a stream by the one reader of the format (auditor.report.reader), which
bounds every line of a hostile file; each URL leaves one row of facts on disk
(auditor.monitoring.store), never an object in memory. A baseline that cannot be read is a
usage error (exit 2), found before this run writes anything.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from auditor.errors import BaselineError, ReportReadError
from auditor.monitoring.compare import BaselineHead, Gate
from auditor.monitoring.facts import OMITTED, Key, UrlFacts, reported_keys, reported_url_facts
from auditor.monitoring.store import Comparison
from auditor.report.reader import ReportReader


async def open_comparison(path: Path, *, folder: Path, gate: Gate) -> Comparison:
    """A comparison store holding the baseline's rows (BaselineError when it cannot be read)."""
    return await asyncio.to_thread(_load, path, folder, gate)


def _load(path: Path, folder: Path, gate: Gate) -> Comparison:
    reader = ReportReader(path)
    try:
        head = reader.head()
        closing = reader.closing()
    except ReportReadError as exc:
        raise BaselineError(f"--baseline {exc}") from None
    if "summary" not in closing:
        raise BaselineError(f"--baseline {path}: not a complete report (no summary)")
    folder.mkdir(parents=True, exist_ok=True)
    comparison = Comparison(folder, head=BaselineHead(str(path), head.generated_at), gate=gate)
    try:
        comparison.add_baseline(
            _urls(reader), _keys(reader, head.targets, closing), _documents(reader)
        )
    except ReportReadError as exc:
        comparison.discard()
        raise BaselineError(f"--baseline {exc}") from None
    except BaseException:
        comparison.discard()
        raise
    return comparison


def _urls(reader: ReportReader) -> Iterator[UrlFacts]:
    for obj in reader.section("urls"):
        try:
            facts = reported_url_facts(obj)
        except (KeyError, TypeError, ValueError) as exc:
            raise ReportReadError(
                f"{reader.path}: a urls[] entry this version cannot read ({exc!r})"
            ) from None
        if facts is not None:
            yield facts


def _keys(reader: ReportReader, targets: Any, closing: Mapping[str, Any]) -> Iterator[Key]:
    """The findings of the baseline's documents, targets and run, as keys."""
    try:
        for obj in reader.section("sitemaps"):
            url = str(obj["url"])
            yield from reported_keys("sitemap", url, obj.get("findings") or ())
            for code in obj.get("findings_omitted") or {}:
                yield Key("sitemap", url, str(code), OMITTED)
        for target in targets:
            yield from reported_keys("target", target.input, _as_json(target.findings))
        yield from reported_keys("url", "", closing.get("run_findings") or ())
        for code in closing.get("run_findings_omitted") or {}:
            yield Key("url", "", str(code), OMITTED)
    except (KeyError, TypeError, AttributeError) as exc:
        raise ReportReadError(
            f"{reader.path}: a record this version cannot read ({exc!r})"
        ) from None


def _documents(reader: ReportReader) -> Iterator[str]:
    for obj in reader.section("sitemaps"):
        yield str(obj["url"])


def _as_json(findings: Any) -> list[dict[str, Any]]:
    return [{"code": item.code.value, "url": item.url} for item in findings]
