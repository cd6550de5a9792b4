"""`--baseline`: the earlier report read into a comparison store, before the run starts.

The report is read as a stream by the one reader of the format (auditor.report.reader), which
bounds every line of a hostile file; each URL leaves one row of facts on disk
(auditor.wings.baseline.comparison), never an object in memory. A baseline that cannot be
read is a usage error (exit 2), found before this run writes anything; so is the report of a run
that reached no target (auditor.results.reach), which lists nothing to compare with.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from auditor.errors import BaselineError, ReportReadError
from auditor.models import TargetRecord
from auditor.report.reader import ReportReader
from auditor.wings.baseline.compare import BaselineHead, Gate
from auditor.wings.baseline.comparison import BaselineRow, Comparison, Document, Field
from auditor.wings.baseline.comparison_rows import OMITTED, Key, reported_keys, reported_url_facts


async def open_comparison(path: Path, *, folder: Path, gate: Gate) -> Comparison:
    """A comparison store holding the baseline's rows (BaselineError when it cannot be read)."""
    return await asyncio.to_thread(load_comparison, path, folder=folder, gate=gate)


def load_comparison(path: Path, *, folder: Path, gate: Gate) -> Comparison:
    """`open_comparison`, blocking."""
    reader = ReportReader(path)
    try:
        head = reader.head()
    except ReportReadError as exc:
        raise BaselineError(f"--baseline {exc}") from None
    cause = head.outage()
    if cause is not None:  # an outage compares with nothing: every known issue would page again
        raise BaselineError(
            f"--baseline {path}: the site was unreachable in that run ({cause}): "
            "not a baseline; give the last report that reached it"
        )
    folder.mkdir(parents=True, exist_ok=True)
    comparison = Comparison(folder, head=BaselineHead(str(path), head.generated_at), gate=gate)
    try:
        seen = comparison.add_baseline(report_rows(reader, head.targets))
    except ReportReadError as exc:
        comparison.discard()
        raise BaselineError(f"--baseline {exc}") from None
    except BaseException:
        comparison.discard()
        raise
    if "summary" not in seen:
        comparison.discard()
        raise BaselineError(f"--baseline {path}: not a complete report (no summary)")
    return comparison


def report_rows(reader: ReportReader, targets: Iterable[TargetRecord]) -> Iterator[BaselineRow]:
    """A report's rows in one pass: URLs' facts, findings as keys, documents, closing fields."""
    for target in targets:
        for item in target.findings:
            yield Key("target", target.input, item.code.value, item.url or "")
    try:
        for where, obj in reader.records():
            match where:
                case "urls":
                    facts = reported_url_facts(obj)
                    if facts is not None:
                        yield facts
                case "sitemaps":
                    yield from _document(obj)
                case _:
                    yield from _closing(obj)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise ReportReadError(
            f"{reader.path}: a record this version cannot read ({exc!r})"
        ) from None


def _document(obj: Mapping[str, Any]) -> Iterator[BaselineRow]:
    url = str(obj["url"])
    yield Document(url)
    yield from reported_keys("sitemap", url, obj.get("findings") or ())
    for code in obj.get("findings_omitted") or {}:
        yield Key("sitemap", url, str(code), OMITTED)


def _closing(fields: Mapping[str, Any]) -> Iterator[BaselineRow]:
    """A closing field: run findings become keys; every field's name is told."""
    for name in fields:
        yield Field(name)
    yield from reported_keys("url", "", fields.get("run_findings") or ())
    for code in fields.get("run_findings_omitted") or {}:
        yield Key("url", "", str(code), OMITTED)
