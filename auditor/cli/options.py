"""The command line's options: the parser in groups, and the run's configuration.

Checks what argparse cannot (paths, patterns, headers, a CA file) and builds the AuditConfig;
UsageError (exit 2) for anything that cannot run. Blocking checks (is a path a folder, a file
readable) happen here, before the event loop starts.

See docs/reference/options.md.
"""

from __future__ import annotations

import argparse
import os
import re
import ssl
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import NoReturn

from auditor.cli.config_file import parse_with_config, read_config_file
from auditor.config import (
    CRAWL_PAGE_BYTES,
    DEFAULT_ROBOTS_AGENT,
    AuditConfig,
    Engine,
    EventLoop,
    FailOn,
    Method,
    Target,
    TargetKind,
)
from auditor.discovery.targets import parse_target
from auditor.errors import UsageError
from auditor.urls import parse_http_url

PROG = "sitemap-audit"
SCHEMAS = ("report", "fleet")  # --print-schema: the JSON report's, or the fleet summary's
# Options that only mean something when URLs are requested.
CHECK_ONLY = ("rate", "method", "include", "exclude", "sample", "slow")
# The demo's slow pages and its page that never answers show in seconds, not minutes.
DEMO_TIMEOUT_S = 2.0
DEMO_SLOW_S = 1.0
DEMO_RETRIES = 1
_DEMO_PLACEHOLDER = Target("--demo", TargetKind.SITE, "http://127.0.0.1/")
_HEADER_NAME = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")  # RFC 9110 §5.1: a token


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def build_parser() -> argparse.ArgumentParser:
    """Every option of the command, in the groups `--help` shows (docs/reference/options.md)."""
    parser = _Parser(prog=PROG, description="Audit the sitemaps of a site.")
    add = parser.add_argument
    add("targets", nargs="*", metavar="TARGET", help="site root, robots.txt, sitemap URL or file")
    add("--version", action="store_true", help="print the versions (engine, libraries) and exit")
    add("--demo", action="store_true", help="audit the embedded demo site (no network needed)")
    add("--config", type=Path, metavar="PATH", help="TOML file of these options (flags win)")
    _output_options(parser.add_argument_group("output"))
    _request_options(parser.add_argument_group("what to request"))
    _politeness_options(parser.add_argument_group("politeness"))
    _bounds_options(parser.add_argument_group("bounds"))
    _crawl_options(parser.add_argument_group("crawl (coverage)"))
    _process_options(parser.add_argument_group("processes"))
    _monitoring_options(parser.add_argument_group("monitoring"))
    _fleet_options(parser.add_argument_group("fleet"))
    return parser


def _output_options(group: argparse._ArgumentGroup) -> None:
    add = group.add_argument
    add("--out", type=Path, default=Path("reports"), metavar="DIR", help="report folder")
    add(
        "--json", type=Path, metavar="PATH", help="the JSON report here (not auto-named); -: stdout"
    )
    add("--html", type=Path, metavar="PATH", help="the HTML report here (default: beside the JSON)")
    add("--csv", type=Path, metavar="DIR", help="also urls.csv and findings.csv in DIR")
    add(
        "--print-schema",
        nargs="?",
        const="report",
        choices=SCHEMAS,
        help="print a JSON schema and exit: the report's (default) or the fleet summary's",
    )
    noise = group.add_mutually_exclusive_group()
    noise.add_argument("--quiet", action="store_true", help="print the verdict only")
    noise.add_argument("--verbose", action="store_true", help="log every step (debug)")
    add("--no-progress", action="store_true", help="no progress bar")
    add("--no-color", action="store_true", help="no colours (also when NO_COLOR is set)")


def _request_options(group: argparse._ArgumentGroup) -> None:
    add = group.add_argument
    add("--no-check", action="store_true", help="validate the sitemaps only")
    methods = [m.value for m in Method]
    add(
        "--method", choices=methods, help="get (default): reads each page's head; head: status only"
    )
    engines = [e.value for e in Engine]
    add("--engine", choices=engines, default=Engine.CURL.value, help="for URL checks (curl)")
    add("--include", action="append", default=[], metavar="REGEX", help="check matching URLs")
    add("--exclude", action="append", default=[], metavar="REGEX", help="skip matching URLs")
    add("--sample", type=int, metavar="N", help="check a random sample of N URLs")
    add("--timeout", type=float, metavar="S", help="per request (default 15)")
    add("--retries", type=int, metavar="N", help="for 429, 5xx, timeouts, resets (default 2)")
    add("--max-redirects", type=int, default=10, metavar="N", help="hops followed (10)")
    add("--slow", type=float, metavar="S", help="url.slow above S seconds (default 3)")
    add("--user-agent", metavar="S", help="default sitemap-auditor/VERSION")
    agent = DEFAULT_ROBOTS_AGENT
    add(
        "--robots-agent", default=agent, metavar="NAME", help=f"robots.txt and noindex as ({agent})"
    )
    add("--header", action="append", default=[], metavar="'Name: value'", help="to targets' hosts")
    add("--ca-file", type=Path, metavar="PATH", help="also trust this CA (a staging site's)")
    add("--allow-private", action="store_true", help="allow private and link-local addresses")


def _politeness_options(group: argparse._ArgumentGroup) -> None:
    add = group.add_argument
    add("--concurrency", type=int, default=128, metavar="N", help="requests in flight (128)")
    add("--per-host", type=int, default=8, metavar="N", help="in flight per host (8)")
    add("--rate", type=float, metavar="R", help="requests per second per host")


def _bounds_options(group: argparse._ArgumentGroup) -> None:
    add = group.add_argument
    add("--sitemap-concurrency", type=int, default=4, metavar="N", help="sitemaps read at once (4)")
    add("--sitemap-timeout", type=float, default=300.0, metavar="S", help="per sitemap (300)")
    add("--max-depth", type=int, default=5, metavar="N", help="index nesting followed (5)")
    add("--max-sitemaps", type=int, default=100_000, metavar="N", help="documents read (100000)")


def _crawl_options(group: argparse._ArgumentGroup) -> None:
    add = group.add_argument
    add("--crawl", action="store_true", help="crawl the site too: pages missing from the sitemaps")
    add("--crawl-max", type=int, default=100_000, metavar="N", help="URLs requested (100000)")
    add("--crawl-depth", type=int, default=100, metavar="N", help="clicks from the home page (100)")
    add(
        "--crawl-page-bytes",
        type=int,
        default=CRAWL_PAGE_BYTES,
        metavar="N",
        help="of each page read (2 MiB, as Google)",
    )
    add("--crawl-host", action="append", default=[], metavar="HOST", help="a host in scope too")
    add("--crawl-start", action="append", default=[], metavar="URL", help="a start page too")
    add("--crawl-nofollow", action="store_true", help='follow rel="nofollow" links too')
    add("--deep-clicks", type=int, default=3, metavar="N", help="coverage.deep beyond N clicks (3)")


def _process_options(group: argparse._ArgumentGroup) -> None:
    add = group.add_argument
    help_workers = "processes for checks, or parsing with --no-check (the cores: %(default)s)"
    add("--workers", type=int, default=_cores(), metavar="N", help=help_workers)
    loops = [e.value for e in EventLoop]
    add("--loop", choices=loops, default=EventLoop.AUTO.value, help="uvloop when installed (auto)")


def _monitoring_options(group: argparse._ArgumentGroup) -> None:
    add = group.add_argument
    fail_on = [f.value for f in FailOn]
    add("--fail-on", choices=fail_on, default=FailOn.ERROR.value, help="exit 1 at this (error)")
    add(
        "--fail-on-new",
        choices=fail_on,
        default=FailOn.ERROR.value,
        help="with --baseline: exit 1 when something new since it is at this (error)",
    )
    add("--baseline", type=Path, metavar="PATH", help="an earlier JSON report: diff, regressions")
    add(
        "--accept-file",
        type=Path,
        metavar="FILE",
        help="known issues (lines: CODE, URL-REGEX, or both): reported, never failing",
    )
    add("--metrics", type=Path, metavar="PATH", help="Prometheus textfile")
    add("--junit", type=Path, metavar="PATH", help="JUnit XML for CI")
    add("--state", type=Path, metavar="PATH", help="sitemap validators kept between runs")


def _fleet_options(group: argparse._ArgumentGroup) -> None:
    add = group.add_argument
    add("--fleet", type=Path, metavar="FILE", help="audit every site of FILE as a Dask task")
    add("--scheduler", metavar="tcp://HOST:PORT", help="a running Dask scheduler (--fleet)")
    add("--fleet-workers", type=int, metavar="N", help="LocalCluster processes (the cores)")
    add("--fleet-concurrency", type=int, metavar="N", help="sites at once (the workers)")


def _cores() -> int:
    """The cores this process may run on (its CPU affinity), the default of --workers."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def parse_command(argv: Sequence[str] | None) -> tuple[argparse.Namespace, AuditConfig | None]:
    """The command line as options and a configuration; UsageError when it cannot run.

    No configuration for `--print-schema` and `--version` (they run nothing), nor for `--fleet`
    (each site's configuration is made by auditor.cli.fleet_file).
    """
    args = parse_with_config(build_parser(), argv, table_for=read_config_file)
    if args.print_schema or args.version or args.fleet is not None:
        return args, None
    for name in ("scheduler", "fleet_workers", "fleet_concurrency"):
        if getattr(args, name) is not None:
            raise UsageError(f"--{name.replace('_', '-')} goes with --fleet FILE")
    if args.demo and args.targets:
        raise UsageError("--demo audits the demo site only; give no TARGET with it")
    if not args.demo and not args.targets:
        raise UsageError("give at least one TARGET, or --demo")
    # The demo site's URL is only known once its server runs: a placeholder until then.
    targets = (_DEMO_PLACEHOLDER,) if args.demo else targets_from(args.targets)
    return args, config_from_args(args, targets)


def config_from_args(args: argparse.Namespace, targets: tuple[Target, ...]) -> AuditConfig:
    """Check what argparse cannot and build the run's configuration."""
    _check_args(args)
    config = AuditConfig(
        targets=targets,
        out=args.out,
        json=args.json,
        html=args.html,
        csv=args.csv,
        no_check=args.no_check,
        concurrency=args.concurrency,
        per_host=args.per_host,
        workers=args.workers,
        loop=EventLoop(args.loop),
        rate=args.rate,
        max_redirects=args.max_redirects,
        method=Method(args.method or Method.GET),
        engine=Engine(args.engine),
        robots_agent=args.robots_agent,
        headers=tuple(_header(text) for text in args.header),
        include=tuple(args.include),
        exclude=tuple(args.exclude),
        sample=args.sample,
        fail_on=FailOn(args.fail_on),
        fail_on_new=FailOn(args.fail_on_new),
        accept_file=args.accept_file,
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
        crawl=args.crawl or (args.demo and not args.no_check),  # the demo shows coverage too
        crawl_max=args.crawl_max,
        crawl_depth=args.crawl_depth,
        crawl_page_bytes=args.crawl_page_bytes,
        crawl_hosts=tuple(args.crawl_host),
        crawl_starts=tuple(args.crawl_start),
        crawl_nofollow=args.crawl_nofollow,
        deep_clicks=args.deep_clicks,
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


def _check_args(args: argparse.Namespace) -> None:
    """UsageError for option values that cannot work together or cannot be used."""
    for name in CHECK_ONLY:
        if args.no_check and getattr(args, name):
            raise UsageError(f"--{name} applies to URL checks; it means nothing with --no-check")
    for name in ("json", "html"):
        path = getattr(args, name)
        if path is not None and path.is_dir():
            raise UsageError(f"--{name} {path} is a folder; give a file path (or use --out)")
    if args.state is not None and args.state.is_dir():
        raise UsageError(f"--state {args.state} is a folder; give a file path")
    if args.csv is not None and args.csv.exists() and not args.csv.is_dir():
        raise UsageError(f"--csv {args.csv} is a file; give a folder")
    html, json = args.html, args.json
    if html is not None and json is not None and html.resolve() == json.resolve():
        raise UsageError("--html and --json name the same file")
    if args.ca_file is not None:
        _check_ca_file(args.ca_file)
    for pattern in (*args.include, *args.exclude):
        try:
            re.compile(pattern)
        except re.error as exc:
            raise UsageError(f"bad regular expression {pattern!r}: {exc}") from exc
    _check_crawl_args(args)


def _check_crawl_args(args: argparse.Namespace) -> None:
    """UsageError for a start page or a host the crawl cannot use."""
    for start in args.crawl_start:
        if parse_http_url(start) is None:
            raise UsageError(f"--crawl-start wants an absolute http(s) URL, not {start!r}")
    for host in args.crawl_host:
        if parse_http_url(f"http://{host}/") is None or "/" in host.strip().rstrip("/"):
            raise UsageError(f"--crawl-host wants a host name (and :port), not {host!r}")


def _check_ca_file(path: Path) -> None:
    try:
        ssl.create_default_context().load_verify_locations(cafile=path)
    except (OSError, ssl.SSLError) as exc:
        raise UsageError(f"--ca-file {path}: not a readable PEM certificate ({exc})") from exc


def _header(text: str) -> tuple[str, str]:
    name, colon, value = text.partition(":")
    if not colon or not _HEADER_NAME.fullmatch(name.strip()):
        raise UsageError(f"--header wants 'Name: value', not {text!r}")
    return name.strip(), value.strip()


def targets_from(texts: Sequence[str]) -> tuple[Target, ...]:
    """TARGET arguments classified (TargetError, a UsageError, for one that is neither)."""
    targets = []
    for text in texts:
        target = parse_target(text, is_file=Path.is_file)  # TargetError: a UsageError
        if target.path is not None and not os.access(target.path, os.R_OK):
            raise UsageError(f"{text!r}: file is not readable")
        targets.append(target)
    return tuple(targets)
