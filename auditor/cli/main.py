"""The command line (DESIGN §2): argparse -> AuditConfig -> audit() -> summary and exit code.

The only module that prints, reads the environment, or installs signal handlers.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import re
import signal
import ssl
import sys
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from dataclasses import replace
from pathlib import Path
from typing import NoReturn

from rich.console import Console

from auditor import __version__
from auditor.cli.config_file import parse_with_config, read_config_file
from auditor.cli.terminal import plain_lines, rich_summary
from auditor.config import AuditConfig, EventLoop, FailOn, Method, Target, TargetKind
from auditor.discovery.targets import parse_target
from auditor.errors import (
    BaselineError,
    ConfigError,
    ConfigFileError,
    ExitCode,
    LoopError,
    ReportError,
    ReportWriteError,
    TargetError,
    UsageError,
)
from auditor.pipeline import AuditResult, OnProgress, audit
from auditor.processes.event_loop import run_in_loop
from auditor.report.schema import schema_text

PROG = "sitemap-audit"
# Options that only mean something when URLs are requested.
CHECK_ONLY = ("rate", "method", "include", "exclude", "sample", "slow")
# The demo's slow pages and its page that never answers show in seconds, not minutes.
DEMO_TIMEOUT_S = 2.0
DEMO_SLOW_S = 1.0
DEMO_RETRIES = 1
_DEMO_PLACEHOLDER = Target("--demo", TargetKind.SITE, "http://127.0.0.1/")


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def build_parser() -> argparse.ArgumentParser:
    """The whole option contract of DESIGN §2."""
    parser = _Parser(prog=PROG, description="Audit the sitemaps of a site.")
    add = parser.add_argument
    add("targets", nargs="*", metavar="TARGET", help="site root, robots.txt, sitemap URL or file")
    add("--version", action="version", version=f"%(prog)s {__version__}")
    add("--print-schema", action="store_true", help="print the JSON report's schema and exit")
    add("--demo", action="store_true", help="audit the embedded demo site (no network needed)")
    add("--out", type=Path, default=Path("reports"), metavar="DIR", help="report folder")
    add("--json", type=Path, metavar="PATH", help="the JSON report here (not auto-named)")
    add("--html", type=Path, metavar="PATH", help="the HTML report here (default: beside the JSON)")
    add("--no-check", action="store_true", help="validate the sitemaps only")
    add("--concurrency", type=int, default=128, metavar="N", help="requests in flight (128)")
    add("--per-host", type=int, default=8, metavar="N", help="in flight per host (8)")
    add(
        "--workers",
        type=int,
        default=_cores(),
        metavar="N",
        help="checker processes (the cores: %(default)s); 1 checks in this process",
    )
    add(
        "--loop",
        choices=[e.value for e in EventLoop],
        default=EventLoop.AUTO.value,
        help="event loop: uvloop when installed (auto)",
    )
    add("--rate", type=float, metavar="R", help="requests per second per host")
    add("--timeout", type=float, metavar="S", help="per request (default 15)")
    add("--retries", type=int, metavar="N", help="for 429, 5xx, timeouts, resets (default 2)")
    add("--max-redirects", type=int, default=10, metavar="N", help="hops followed (10)")
    add("--method", choices=[m.value for m in Method], help="auto: HEAD, GET when needed")
    add("--user-agent", metavar="S", help="default sitemap-auditor/VERSION")
    add("--header", action="append", default=[], metavar="'Name: value'", help="to targets' hosts")
    add("--include", action="append", default=[], metavar="REGEX", help="check matching URLs")
    add("--exclude", action="append", default=[], metavar="REGEX", help="skip matching URLs")
    add("--sample", type=int, metavar="N", help="check a random sample of N URLs")
    add("--slow", type=float, metavar="S", help="url.slow above S seconds (default 3)")
    add(
        "--fail-on",
        choices=[f.value for f in FailOn],
        default=FailOn.ERROR.value,
        help="exit 1 at this severity (error)",
    )
    add("--baseline", type=Path, metavar="PATH", help="an earlier JSON report: diff, regressions")
    add("--metrics", type=Path, metavar="PATH", help="Prometheus textfile")
    add("--junit", type=Path, metavar="PATH", help="JUnit XML for CI")
    add("--state", type=Path, metavar="PATH", help="sitemap validators kept between runs")
    add("--config", type=Path, metavar="PATH", help="TOML file of these options (flags win)")
    add("--allow-private", action="store_true", help="allow private and link-local addresses")
    add("--ca-file", type=Path, metavar="PATH", help="also trust this CA (a staging site's)")
    add("--sitemap-concurrency", type=int, default=4, metavar="N", help="sitemaps read at once (4)")
    add("--sitemap-timeout", type=float, default=300.0, metavar="S", help="per sitemap (300)")
    add("--max-depth", type=int, default=5, metavar="N", help="index nesting followed (5)")
    add("--max-sitemaps", type=int, default=100_000, metavar="N", help="documents read (100000)")
    noise = parser.add_mutually_exclusive_group()
    noise.add_argument("--quiet", action="store_true", help="print the verdict only")
    noise.add_argument("--verbose", action="store_true", help="log every step (debug)")
    add("--no-progress", action="store_true", help="no progress bar")
    return parser


def _cores() -> int:
    """The cores this process may run on (its CPU affinity), the default of --workers."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def config_from_args(args: argparse.Namespace, targets: tuple[Target, ...]) -> AuditConfig:
    """Check what argparse cannot and build the run's configuration."""
    for name in CHECK_ONLY:
        if args.no_check and getattr(args, name):
            raise UsageError(f"--{name} applies to URL checks; it means nothing with --no-check")
    for name in ("json", "html"):
        path = getattr(args, name)
        if path is not None and path.is_dir():
            raise UsageError(f"--{name} {path} is a folder; give a file path (or use --out)")
    if args.state is not None and args.state.is_dir():
        raise UsageError(f"--state {args.state} is a folder; give a file path")
    if (
        args.html is not None
        and args.json is not None
        and args.html.resolve() == args.json.resolve()
    ):
        raise UsageError("--html and --json name the same file")
    if args.ca_file is not None:
        _check_ca_file(args.ca_file)
    for pattern in (*args.include, *args.exclude):
        try:
            re.compile(pattern)
        except re.error as exc:
            raise UsageError(f"bad regular expression {pattern!r}: {exc}") from exc
    config = AuditConfig(
        targets=targets,
        out=args.out,
        json=args.json,
        html=args.html,
        no_check=args.no_check,
        concurrency=args.concurrency,
        per_host=args.per_host,
        workers=args.workers,
        loop=EventLoop(args.loop),
        rate=args.rate,
        max_redirects=args.max_redirects,
        method=Method(args.method or Method.AUTO),
        headers=tuple(_header(text) for text in args.header),
        include=tuple(args.include),
        exclude=tuple(args.exclude),
        sample=args.sample,
        fail_on=FailOn(args.fail_on),
        allow_private=args.allow_private,
        ca_file=args.ca_file,
        metrics=args.metrics,
        junit=args.junit,
        baseline=args.baseline,
        state=args.state,
        sitemap_concurrency=args.sitemap_concurrency,
        sitemap_timeout_s=args.sitemap_timeout,
        max_depth=args.max_depth,
        max_sitemaps=args.max_sitemaps,
    )
    given = {
        "user_agent": args.user_agent,
        "timeout_s": args.timeout,
        "retries": args.retries,
        "slow_s": args.slow,
    }
    if args.demo:  # the user's own values win over the demo's quick ones
        quick = {"timeout_s": DEMO_TIMEOUT_S, "retries": DEMO_RETRIES, "slow_s": DEMO_SLOW_S}
        given = {name: quick.get(name) if value is None else value for name, value in given.items()}
    return replace(config, **{name: value for name, value in given.items() if value is not None})


def _check_ca_file(path: Path) -> None:
    try:
        ssl.create_default_context().load_verify_locations(cafile=path)
    except (OSError, ssl.SSLError) as exc:
        raise UsageError(f"--ca-file {path}: not a readable PEM certificate ({exc})") from exc


def _header(text: str) -> tuple[str, str]:
    name, colon, value = text.partition(":")
    if not colon or not re.fullmatch(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+", name.strip()):
        raise UsageError(f"--header wants 'Name: value', not {text!r}")
    return name.strip(), value.strip()


def _targets(texts: Sequence[str]) -> tuple[Target, ...]:
    targets = []
    for text in texts:
        try:
            target = parse_target(text, is_file=Path.is_file)
        except TargetError as exc:
            raise UsageError(str(exc)) from exc
        if target.path is not None and not os.access(target.path, os.R_OK):
            raise UsageError(f"{text!r}: file is not readable")
        targets.append(target)
    return tuple(targets)


def parse_command(argv: Sequence[str] | None) -> tuple[argparse.Namespace, AuditConfig | None]:
    """The command line as options and a configuration; UsageError when it cannot run.

    No configuration for `--print-schema`: it runs nothing.
    """
    try:
        args = parse_with_config(build_parser(), argv, table_for=read_config_file)
    except ConfigFileError as exc:
        raise UsageError(str(exc)) from exc
    if args.print_schema:
        return args, None
    if args.demo and args.targets:
        raise UsageError("--demo audits the demo site only; give no TARGET with it")
    if not args.demo and not args.targets:
        raise UsageError("give at least one TARGET, or --demo")
    # The demo site's URL is only known once its server runs: a placeholder until then.
    targets = (_DEMO_PLACEHOLDER,) if args.demo else _targets(args.targets)
    return args, config_from_args(args, targets)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; return the exit code (DESIGN §2)."""
    try:
        args, config = parse_command(argv)
    except (UsageError, ConfigError) as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return ExitCode.USAGE
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
    except ReportWriteError as exc:  # the run ended, its report could not be written
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return ExitCode.FAILED
    except (ReportError, BaselineError, LoopError) as exc:  # wrong before the run started
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return ExitCode.USAGE
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
        async with _demo_site() as (url, ca_file):
            # A private target: the guard lets loopback through, never link-local (DESIGN §7).
            target = Target("--demo", TargetKind.SITE, url)
            site = replace(config, targets=(target,), ca_file=config.ca_file or ca_file)
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
async def _demo_site() -> AsyncIterator[tuple[str, Path]]:
    """The demo site's URL, and the CA its https pages are signed by."""
    from auditor.demo import server  # noqa: PLC0415 - aiohttp's server only for --demo

    async with server.serve_demo() as url:
        yield url, server.DEMO_CA


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
