"""Publish a run: the CSV files and the JSON report committed, then HTML, metrics and JUnit.

Every output reads the run's one Decision (auditor.results.verdict): the HTML headline, the
metrics' exit code, and (through the cases it holds) the JUnit file.
"""

from __future__ import annotations

import asyncio
import importlib
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import aiofiles.os

from auditor.codes import Code
from auditor.config import AuditConfig
from auditor.errors import ReportWriteError
from auditor.files import write_atomically
from auditor.models import TargetRecord
from auditor.net.remap import Remap
from auditor.report.csv_writer import CsvWriter
from auditor.report.encode import TOOL, Json, config_json, head_json, target_json
from auditor.report.failing import FailingUrls
from auditor.report.html_view import RunFacts, build_view
from auditor.report.html_writer import write_html
from auditor.report.json_writer import JsonReportWriter
from auditor.report.junit import JunitCases, write_junit
from auditor.report.markdown import Gates, Where, markdown_summary
from auditor.report.places import shown_place
from auditor.report.section import RegressionSource, Section, placed
from auditor.results.gates import gate_sentence
from auditor.results.reach import unreached
from auditor.results.samples import Samples
from auditor.results.summary import Summary
from auditor.results.verdict import Decision


@dataclass(frozen=True, slots=True)
class FinishedRun:
    """Everything a run's outputs say: its counts, samples, decision and the wings' sections."""

    config: AuditConfig
    started_at: datetime
    finished_at_s: float  # Unix time
    duration_s: float
    complete: bool
    summary: Summary
    samples: Samples
    targets: tuple[TargetRecord, ...]
    decision: Decision
    unreachable: bool = False  # no target answered at all (auditor.results.reach)
    sections: tuple[Section, ...] = ()  # the wings' (auditor.report.section), in order

    def summary_json(self) -> Json:
        """The report's `summary`: the run's counts, and the wings' sections placed in it."""
        return {
            **self.summary.to_json(duration_s=self.duration_s),
            **placed(self.sections, summary=True),
        }

    def new_codes(self) -> dict[Code, int]:
        """The findings by code the sections call new (since the baseline)."""
        return {code: n for section in self.sections for code, n in section.new_codes.items()}

    def regression_cases(self) -> RegressionSource | None:
        """The sections' failing cases for JUnit (the regressions), if any."""
        found = (cases for section in self.sections if (cases := section.junit()) is not None)
        return next(found, None)


async def open_outputs(
    config: AuditConfig, json_path: Path
) -> tuple[JsonReportWriter, CsvWriter | None]:
    """The streamed outputs, open: the JSON report's writer, and with --csv the CSV writer.

    ReportError when a folder cannot be written; then neither leaves a file behind.
    """
    writer = JsonReportWriter(json_path, remap=Remap.of(config.remap))
    await writer.open()
    if config.csv is None:
        return writer, None
    csv = CsvWriter(config.csv)
    try:
        await csv.open()
    except BaseException:
        await writer.discard()
        raise
    return writer, csv


def html_beside(json_path: Path) -> Path:
    """The HTML report's default path: the JSON's, with `.html` for its suffix (never itself)."""
    path = json_path.with_suffix(".html")
    return path if path != json_path else json_path.with_name(json_path.name + ".html")


async def publish(
    writer: JsonReportWriter,
    run: FinishedRun,
    *,
    junit: JunitCases | None,
    csv: CsvWriter | None = None,
    failing: FailingUrls | None = None,
) -> Path:
    """Write every output of the run (ReportWriteError when one fails); the HTML report's path.

    `failing`: what fails the run, gathered for the Markdown summary (with --markdown).
    """
    config = run.config
    if csv is not None:  # streamed during the run; the targets' findings are known only now
        csv.add_targets(run.targets)
        try:
            await csv.commit()
        except BaseException:
            await writer.discard()  # no spool left behind: the run fails with exit 3
            raise
    head = head_json(
        generated_at=run.started_at,
        complete=run.complete,
        unreachable=run.unreachable,
        config=config,
    )
    await writer.commit(
        head,
        targets=[target_json(target) for target in run.targets],
        summary=run.summary_json(),
        closing=placed(run.sections, summary=False),
    )
    html_path, gate = await _write_html_report(writer, run)
    if config.markdown is not None:
        paths = (writer.path, html_path)
        await _write_markdown(config.markdown, run, paths=paths, failing=failing, gate=gate)
    if config.metrics is not None:
        await _write_metrics(config.metrics, run)
    if config.junit is not None and junit is not None:
        cases = run.regression_cases()
        await write_junit(config.junit, junit, duration_s=run.duration_s, regressions=cases)
    return html_path


async def _write_html_report(writer: JsonReportWriter, run: FinishedRun) -> tuple[Path, str]:
    """The HTML report (`--html`, else beside the JSON): its path, and the gate sentence."""
    config = run.config
    facts = RunFacts(
        title=config.targets[0].title,
        generated_at=run.started_at,
        tool=f"{TOOL['name']} {TOOL['version']}",
        complete=run.complete,
        duration_s=run.duration_s,
        config=config_json(config),
        json_name=writer.path.name,
        gate=gate_sentence(
            run.decision,
            fail_on=config.fail_on,
            fail_on_new=config.fail_on_new if config.baseline is not None else None,
        ),
    )
    view = build_view(
        run.summary,
        run.samples,
        verdict=run.decision.verdict,
        facts=facts,
        targets=run.targets,
        parts=[part for section in run.sections if (part := section.html()) is not None],
        new_codes=run.new_codes(),
    )
    html_path = config.html or html_beside(writer.path)
    await write_html(html_path, view)
    return html_path, facts.gate


async def _write_markdown(
    path: Path,
    run: FinishedRun,
    *,
    paths: tuple[Path, Path],
    failing: FailingUrls | None,
    gate: str,
) -> None:
    """The summary; `paths`: the JSON and HTML reports'; `gate`: the gate sentence."""
    config = run.config
    regressions = run.regression_cases()
    if failing is not None and regressions is not None and regressions.regressions:
        await asyncio.to_thread(failing.add_regressions, regressions.regression_rows())
    examples = {
        code: kept[0].url.value
        for code, kept in run.samples.examples.items()
        if kept and kept[0].url is not None
    }
    workspace, json_path, html_path = await asyncio.to_thread(_shown_paths, paths)
    where = Where(
        config.targets[0].title,
        json_path,
        html_path,
        reports_url=config.reports_url,
        workspace=workspace,
    )
    fail_on_new = config.fail_on_new if config.baseline is not None else None
    text = markdown_summary(
        run.summary,
        run.decision,
        where=where,
        examples=examples,
        sections=run.sections,
        new=run.new_codes(),
        failing=failing,
        gates=Gates(gate, config.fail_on, fail_on_new),
    )
    try:
        await asyncio.to_thread(write_atomically, path, text.encode())
    except OSError as exc:
        raise ReportWriteError(f"cannot write the Markdown summary {path}: {exc.strerror}") from exc


def _shown_paths(paths: tuple[Path, Path]) -> tuple[Path, str, str]:
    """The current folder (a CI job's checkout), and the reports' paths in it (blocking)."""
    workspace = Path.cwd()
    json_path, html_path = (shown_place(p.absolute().as_uri(), workspace=workspace) for p in paths)
    return workspace, json_path, html_path


async def _write_metrics(path: Path, run: FinishedRun) -> None:
    # prometheus_client only for --metrics: a run without it does not pay for the import,
    # made in a thread since it reads /proc/self/stat (a blocking call) as it loads.
    await asyncio.to_thread(importlib.import_module, "auditor.report.metrics")
    from auditor.report.metrics import RunMetrics, write_metrics  # noqa: PLC0415

    metrics = RunMetrics(
        target=" ".join(target.input for target in run.config.targets),
        complete=run.complete,
        exit_code=run.decision.exit_code,
        duration_s=run.duration_s,
        finished_at_s=run.finished_at_s,
        reached=not any(unreached(target) for target in run.targets),
        unreachable=run.unreachable,
        sections=run.sections,
    )
    await write_metrics(path, run.summary, metrics)


async def report_path(config: AuditConfig, now: datetime) -> Path:
    """`--json PATH`, else `<out>/<host>-<UTC timestamp>.json`, never overwriting a report."""
    if config.json is not None:
        return config.json
    stem = f"{config.targets[0].label}-{now.strftime('%Y%m%dT%H%M%SZ')}"
    path = config.out / f"{stem}.json"
    number = 1
    while await aiofiles.os.path.exists(path):
        number += 1
        path = config.out / f"{stem}-{number}.json"
    return path
