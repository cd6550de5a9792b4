"""The command (DESIGN §2): options -> AuditConfig -> audit() -> summary and exit code.

The only module that prints, reads the environment, or installs signal handlers.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import sys
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from dataclasses import replace
from pathlib import Path

from rich.console import Console

from auditor.cli.options import PROG, parse_command
from auditor.cli.terminal import plain_lines, rich_summary
from auditor.config import AuditConfig, Target, TargetKind
from auditor.errors import ExitCode, RunError, UsageError
from auditor.pipeline import AuditResult, OnProgress, audit
from auditor.processes.event_loop import run_in_loop
from auditor.report.schema import schema_text


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; return the exit code (DESIGN §2)."""
    try:
        args, config = parse_command(argv)
    except UsageError as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return exc.exit_code
    if config is None:
        print(schema_text(), end="")
        return ExitCode.OK
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.WARNING,
        format=f"{PROG}: %(levelname)s %(name)s: %(message)s",
    )
    show_progress = not (args.quiet or args.no_progress) and sys.stderr.isatty()
    try:
        result = run_in_loop(_run(config, demo=args.demo, progress=show_progress), config.loop)
    except (UsageError, RunError) as exc:  # auditor.errors says which exit code each one means
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted; no report written", file=sys.stderr)
        return ExitCode.FAILED
    try:
        _print_summary(result, quiet=args.quiet, no_check=config.no_check)
        sys.stdout.flush()
    except BrokenPipeError:  # `sitemap-audit ... | head`: the reader left; the verdict stands
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return result.exit_code


def run() -> None:
    """Console-script entry point."""
    sys.exit(main())


async def _run(config: AuditConfig, *, demo: bool, progress: bool) -> AuditResult:
    stop = asyncio.Event()
    with _stop_on_signals(stop), _progress_bar(shown=progress) as on_progress:
        if not demo:
            return await audit(config, stop=stop, on_progress=on_progress)
        async with _demo_site() as (urls, ca_file):
            # Private targets: the guard lets loopback through, never link-local (DESIGN §7).
            targets = tuple(Target("--demo", TargetKind.SITE, url) for url in urls)
            site = replace(config, targets=targets, ca_file=config.ca_file or ca_file)
            return await audit(site, stop=stop, on_progress=on_progress)


@contextmanager
def _progress_bar(*, shown: bool) -> Iterator[OnProgress | None]:
    if not shown:
        yield None
        return
    from auditor.cli.progress import ProgressBar  # noqa: PLC0415 - rich only for terminals

    with ProgressBar() as bar:
        yield bar.update


@asynccontextmanager
async def _demo_site() -> AsyncIterator[tuple[tuple[str, ...], Path]]:
    """The demo's site URLs, and the CA its https pages are signed by."""
    from auditor.demo import server  # noqa: PLC0415 - aiohttp's server only for --demo

    async with server.serve_demo() as urls:
        yield urls, server.DEMO_CA


class _stop_on_signals:  # noqa: N801 - used as a context manager, named like one
    """First Ctrl-C or SIGTERM: stop cleanly and write the report; the second one: abort."""

    def __init__(self, stop: asyncio.Event) -> None:
        self._stop = stop
        self._loop: asyncio.AbstractEventLoop | None = None

    def __enter__(self) -> None:
        self._loop = asyncio.get_running_loop()
        for signum in (signal.SIGINT, signal.SIGTERM):
            self._loop.add_signal_handler(signum, self._signalled, signum)

    def __exit__(self, *exc_info: object) -> None:
        assert self._loop is not None
        for signum in (signal.SIGINT, signal.SIGTERM):
            self._loop.remove_signal_handler(signum)

    def _signalled(self, signum: int) -> None:
        if self._stop.is_set():
            raise KeyboardInterrupt
        print(
            f"{PROG}: {signal.Signals(signum).name}: stopping, writing the report", file=sys.stderr
        )
        self._stop.set()


def _print_summary(result: AuditResult, *, quiet: bool, no_check: bool) -> None:
    """The verdict (--quiet); else counts, top codes and report paths: a table on a terminal."""
    if quiet:
        print(result.verdict.line)
    elif sys.stdout.isatty():
        Console(highlight=False).print(rich_summary(result, no_check=no_check))
    else:
        print("\n".join(plain_lines(result, no_check=no_check)))
