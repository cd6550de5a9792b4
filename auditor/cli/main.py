"""The command: options -> AuditConfig -> audit() -> summary and exit code.

The only module that prints (with the pre-commit hook), reads the environment (NO_COLOR), or
installs signal handlers (auditor.cli.signals).

See docs/reference/options.md.
"""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import sys
import tempfile
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TextIO

from auditor.cli.parser import PROG, QUIET_ALL, parse_command
from auditor.cli.signals import stop_on_signals
from auditor.cli.terminal import Shown, plain_lines
from auditor.config import AuditConfig, Target, TargetKind
from auditor.errors import ExitCode, ReportWriteError, RunError, UsageError
from auditor.flow.audit import AuditResult, audit
from auditor.flow.ticker import OnProgress
from auditor.net.remap import origin_rule
from auditor.options.build import STDOUT
from auditor.processes.event_loop import run_in_loop
from auditor.processes.heap import keep_large_blocks_mapped
from auditor.report.publish import report_path
from auditor.urls import parse_http_url

STDOUT_CHUNK_BYTES = 1 << 20


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; return the exit code (docs/explanation/design.md#exit-codes)."""
    try:
        args, config = parse_command(argv)
    except UsageError as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return exc.exit_code
    if args.version or args.print_schema:  # nothing to run
        from auditor.cli.version import version_text  # noqa: PLC0415 - only when asked

        print(version_text() + "\n" if args.version else _schema(args.print_schema), end="")
        return ExitCode.OK
    logging.basicConfig(
        level=(logging.WARNING, logging.INFO, logging.DEBUG)[args.verbose],
        format=f"{PROG}: %(levelname)s %(name)s: %(message)s",
    )
    # no-color.org: NO_COLOR set to any non-empty value turns colours off.
    no_color = args.no_color or bool(os.environ.get("NO_COLOR"))
    if config is None:  # --fleet: each site's configuration is made by the fleet's plan
        from auditor.cli.fleet_run import main_fleet  # noqa: PLC0415 - Dask only for --fleet

        return main_fleet(args, argv, no_color=no_color)
    keep_large_blocks_mapped()  # a long run's peak RSS (auditor.processes.heap)
    show_progress = not (args.quiet or args.no_progress) and sys.stderr.isatty()
    look = _Look(no_color=no_color, progress=show_progress)
    to_stdout = STDOUT in (config.json, config.markdown)
    with _spool_folder(used=to_stdout) as spool:
        try:
            run = _run(config, demo=args.demo, serve=args.serve, look=look, spool=spool)
            result = run_in_loop(run, config.loop)
            if spool is None and args.keep is not None:
                _keep_history(config, result, keep=args.keep)
        except (UsageError, RunError) as exc:  # auditor.errors says which exit code each one means
            print(f"{PROG}: error: {exc}", file=sys.stderr)
            return exc.exit_code
        except KeyboardInterrupt:
            print(f"{PROG}: interrupted; no report written", file=sys.stderr)
            return ExitCode.FAILED
        shown = Shown(str(result.json_path), str(result.html_path))
        if spool is not None:  # the report, then the summary on stderr: stdout is it alone
            shown = _to_stdout(config, result, spool)
    out = sys.stderr if to_stdout else sys.stdout
    try:
        _print_summary(
            result,
            quiet=args.quiet,
            no_check=config.no_check,
            out=out,
            no_color=look.no_color,
            shown=shown,
        )
        out.flush()
    except BrokenPipeError:  # `sitemap-audit ... | head`: the reader left; the verdict stands
        os.dup2(os.open(os.devnull, os.O_WRONLY), out.fileno())
    return result.exit_code


def _schema(which: str) -> str:
    """`--print-schema [report|fleet]`: the JSON report's schema, or the fleet summary's."""
    from auditor.report.schema import schema_text  # noqa: PLC0415 - only when asked

    if which == "fleet":
        from auditor.fleet.outputs import FLEET_SCHEMA  # noqa: PLC0415

        return schema_text(FLEET_SCHEMA)
    return schema_text()


@dataclass(frozen=True, slots=True)
class _Look:
    """How the command shows itself: colours, and the progress bar."""

    no_color: bool
    progress: bool


async def _run(
    config: AuditConfig, *, demo: bool, serve: Path | None, look: _Look, spool: Path | None
) -> AuditResult:
    stop = asyncio.Event()
    if spool is not None:
        config = await _spooled(config, spool)
    loop = asyncio.get_running_loop()
    stopping = stop_on_signals(stop, doing="stopping, writing the report", loop=loop)
    with stopping, _progress_bar(look) as on_progress:
        if serve is not None:
            async with _served(config, serve) as served:
                return await audit(served, stop=stop, on_progress=on_progress)
        if not demo:
            return await audit(config, stop=stop, on_progress=on_progress)
        async with _demo_site() as (urls, ca_file):
            # Private targets: the guard lets loopback through, never link-local
            # (docs/explanation/design.md#private-addresses).
            targets = tuple(Target("--demo", TargetKind.SITE, url) for url in urls)
            site = replace(config, targets=targets, ca_file=config.ca_file or ca_file)
            return await audit(site, stop=stop, on_progress=on_progress)


@asynccontextmanager
async def _served(config: AuditConfig, folder: Path) -> AsyncIterator[AuditConfig]:
    """`--serve DIR`: the folder served on loopback, every URL target's origin remapped there.

    The user's own --remap rules come first: one that names the same origin wins.
    """
    from auditor.demo.server import serve_folder  # noqa: PLC0415 - aiohttp's server

    origins = dict.fromkeys(
        parsed.origin
        for target in config.targets
        if target.path is None and (parsed := parse_http_url(target.url)) is not None
    )
    async with serve_folder(folder) as base:
        rules = tuple(origin_rule(origin, base) for origin in origins)
        yield replace(config, remap=(*config.remap, *rules))


async def _spooled(config: AuditConfig, folder: Path) -> AuditConfig:
    """`--json -` or `--markdown -`: that output made in `folder`, to be copied to stdout.

    With `--json -` the HTML report is written only where `--html` says: a pipe asked for the
    JSON alone.
    """
    if config.markdown == STDOUT:
        config = replace(config, markdown=folder / "summary.md")
    if config.json != STDOUT:
        return config
    auto = await report_path(replace(config, json=None), datetime.now(UTC))
    return replace(config, json=folder / auto.name, html=config.html or folder / "report.html")


def _to_stdout(config: AuditConfig, result: AuditResult, folder: Path) -> Shown:
    """The spooled output copied to stdout; where the summary says the reports are."""
    if config.json == STDOUT:
        _write_to_stdout(result.json_path)
        return Shown("stdout", str(result.html_path) if config.html is not None else None)
    _write_to_stdout(folder / "summary.md")
    return Shown(str(result.json_path), str(result.html_path))


def _keep_history(config: AuditConfig, result: AuditResult, *, keep: int) -> None:
    """`--keep`: a dated copy of a report written to a fixed path, in --out; the newest there.

    ReportWriteError (exit 3) when the copy cannot be made: the run's own outputs are whole.
    """
    from auditor.report.dated import keep_dated, prune  # noqa: PLC0415 - only with --keep

    label = config.targets[0].label
    try:
        if config.json is not None and result.started_at is not None:
            stamp = result.started_at.strftime("%Y%m%dT%H%M%SZ")
            html = result.html_path if result.html_path.exists() else None
            keep_dated(result.json_path, html, dated=config.out / f"{label}-{stamp}.json")
        prune(config.out, label, keep=keep)
    except OSError as exc:
        raise ReportWriteError(f"--keep in {config.out}: {exc.strerror or exc}") from None


def _write_to_stdout(path: Path) -> None:
    """The finished report, copied to stdout (a reader that leaves early is no error)."""
    try:
        with path.open("rb") as report:
            shutil.copyfileobj(report, sys.stdout.buffer, STDOUT_CHUNK_BYTES)
        sys.stdout.flush()
    except BrokenPipeError:  # `sitemap-audit --json - ... | head -c 100`
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


@contextmanager
def _spool_folder(*, used: bool) -> Iterator[Path | None]:
    """`--json -`: a temporary folder for the report until it is copied to stdout."""
    if not used:
        yield None
        return
    with tempfile.TemporaryDirectory(prefix=f"{PROG}-") as folder:
        yield Path(folder)


@contextmanager
def _progress_bar(look: _Look) -> Iterator[OnProgress | None]:
    if not look.progress:
        yield None
        return
    from rich.console import Console  # noqa: PLC0415 - rich only for terminals

    from auditor.cli.progress import ProgressBar  # noqa: PLC0415 - rich only for terminals

    with ProgressBar(Console(stderr=True, no_color=look.no_color)) as bar:
        yield bar.update


@asynccontextmanager
async def _demo_site() -> AsyncIterator[tuple[tuple[str, ...], Path]]:
    """The demo's site URLs, and the CA its https pages are signed by."""
    from auditor.demo import server  # noqa: PLC0415 - aiohttp's server only for --demo

    async with server.serve_demo() as urls:
        yield urls, server.DEMO_CA


def _print_summary(
    result: AuditResult,
    *,
    quiet: int,
    no_check: bool,
    out: TextIO | None = None,
    no_color: bool = False,
    shown: Shown | None = None,
) -> None:
    """Counts, codes, report paths and the verdict: a table on a terminal, lines otherwise.

    `-q`: the verdict line alone, on every run (a job's log, cron's mail); `-qq`: nothing. On
    `out` (default stdout; stderr when stdout carries the JSON report or the Markdown).
    """
    out = out or sys.stdout
    if quiet >= QUIET_ALL:
        return
    if quiet:
        print(result.verdict.line, file=out)
    elif out.isatty():
        from rich.console import Console  # noqa: PLC0415 - rich only for terminals

        from auditor.cli.terminal import rich_summary  # noqa: PLC0415

        console = Console(file=out, highlight=False, no_color=no_color)
        height = console.size.height
        console.print(rich_summary(result, no_check=no_check, height=height, shown=shown))
    else:
        print("\n".join(plain_lines(result, no_check=no_check, shown=shown)), file=out)
