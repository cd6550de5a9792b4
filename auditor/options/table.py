"""Every option of the auditor, declared once: the one table the rest is derived from.

An option's name, value, default, `--help` group and text, and the places it may be given
(`Place`). The command line's parser (auditor.cli.parser), the reader of `--config` files, of
fleet sites and of the library's keywords (auditor.options.values) and the reference page
(docs/reference/options.md) are all made from OPTIONS, so they cannot disagree. Pure: no I/O.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from types import MappingProxyType

from auditor.config import (
    CRAWL_PAGE_BYTES,
    DEFAULT_ROBOTS_AGENT,
    RANGES,
    Engine,
    EventLoop,
    FailOn,
    Method,
    NumberRange,
)


class Place(StrEnum):
    """Where an option may be given besides the command line, which takes every option."""

    CONFIG = "config"  # a key of the `--config` TOML file
    LIBRARY = "library"  # a keyword of auditor.run() and auditor.audit_site()
    SITE = "fleet site"  # a key of a fleet file's [[site]] table


class Kind(StrEnum):
    """What an option's value is; the parser and the key reader check it alike."""

    FLAG = "flag"  # given or not: true or false in a file
    COUNT = "count"  # -q, -qq: a number of times, 0 to MAX_COUNT
    TEXT = "text"
    PATH = "path"  # relative paths in a file are taken from the file's folder
    NUMBER = "number"  # an int or a float by its range (RANGES), always within it
    DURATION = "duration"  # `90m`, `8h`, `1h30m` (or seconds): a float of seconds, in its range
    CHOICE = "choice"  # one of `choices`


class Group(StrEnum):
    """The groups of `--help` and of the reference page, in their order."""

    COMMAND = ""  # what the command is (TARGET, --demo, --config): shown first, untitled
    OUTPUT = "output"
    REQUEST = "what to request"
    POLITENESS = "politeness"
    BOUNDS = "bounds"
    CRAWL = "crawl (coverage)"
    PROCESSES = "processes"
    MONITORING = "monitoring"
    BIG_SITES = "big sites"
    FLEET = "fleet"


MAX_COUNT = 2  # a counted flag (`quiet = 2` is -qq)
EVERYWHERE = frozenset(Place)
# A run's outputs: a fleet names each site's itself.
RUN_OUTPUT = frozenset({Place.CONFIG, Place.LIBRARY})
# The command's own (how it shows itself, what it audits, the fleet): a config file may set it.
CONFIG_ONLY = frozenset({Place.CONFIG})
COMMAND_ONLY: frozenset[Place] = frozenset()  # runs something else, or names the file itself


def cores() -> int:
    """The cores this process may run on (CPU affinity), within --workers' range."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return min(cores or 1, int(RANGES["workers"].most))


@dataclass(frozen=True, slots=True)
class Option:
    """One option. `name` is its long flag without `--` (`per-host`), or `targets`."""

    name: str
    group: Group
    help: str
    kind: Kind = Kind.TEXT
    places: frozenset[Place] = EVERYWHERE
    default: object = None
    metavar: str | None = None
    choices: tuple[str, ...] = ()
    short: str | None = None  # `-o`
    repeat: bool = False  # given again for more: a list (`--include A --include B`)
    setting: str | None = None  # its RANGES key when not its dest (`timeout_s` for --timeout)
    exclusive: str | None = None  # a set of options of which one at most is given
    # A default the machine decides (its cores), computed when asked; `default_words` says it.
    default_factory: Callable[[], object] | None = None
    default_words: str | None = None
    optional_value: str | None = None  # `--print-schema` alone: this value
    checks_only: bool = False  # means nothing with --no-check (it shapes URL checks)

    @property
    def dest(self) -> str:
        """Its Python name: the attribute, the TOML key and the keyword (`per_host`)."""
        return self.name.replace("-", "_")

    @property
    def flag(self) -> str:
        """`--per-host`; `TARGET` for the positional targets."""
        return "TARGET" if self.positional else f"--{self.name}"

    @property
    def positional(self) -> bool:
        return self.name == "targets"

    @property
    def number_range(self) -> NumberRange | None:
        if self.kind not in (Kind.NUMBER, Kind.DURATION):
            return None
        return RANGES[self.setting or self.dest]

    def default_value(self) -> object:
        """The value when not given; a fresh list for a repeatable one."""
        if self.default_factory is not None:
            return self.default_factory()
        if self.repeat or self.positional:
            return []
        if self.kind is Kind.COUNT:
            return 0
        if self.kind is Kind.FLAG:
            return False
        return self.default


def _choices(values: type[StrEnum]) -> tuple[str, ...]:
    return tuple(member.value for member in values)


_FAIL_ON = _choices(FailOn)
_G = Group
OPTIONS: tuple[Option, ...] = (
    # --- what the command is
    Option(
        "targets",
        _G.COMMAND,
        "site root, robots.txt, sitemap URL or file",
        metavar="TARGET",
        places=CONFIG_ONLY,  # a fleet site's are its `target` key
    ),
    Option(
        "version",
        _G.COMMAND,
        "print the versions (engine, libraries) and exit",
        Kind.FLAG,
        COMMAND_ONLY,
        short="-V",
    ),
    Option(
        "demo",
        _G.COMMAND,
        "audit the embedded demo site (no network needed)",
        Kind.FLAG,
        CONFIG_ONLY,
    ),
    Option(
        "config",
        _G.COMMAND,
        "TOML file of these options (flags win)",
        Kind.PATH,
        frozenset({Place.LIBRARY}),
        metavar="PATH",
    ),
    # --- output
    Option(
        "out",
        _G.OUTPUT,
        "report folder",
        Kind.PATH,
        RUN_OUTPUT,
        Path("reports"),
        "DIR",
        short="-o",
    ),
    Option(
        "json",
        _G.OUTPUT,
        "the JSON report here (not auto-named); -: stdout",
        Kind.PATH,
        RUN_OUTPUT,
        metavar="PATH",
        short="-j",
    ),
    Option(
        "html",
        _G.OUTPUT,
        "the HTML report here (default: beside the JSON)",
        Kind.PATH,
        RUN_OUTPUT,
        metavar="PATH",
    ),
    Option(
        "csv",
        _G.OUTPUT,
        "also urls.csv and findings.csv in DIR",
        Kind.PATH,
        RUN_OUTPUT,
        metavar="DIR",
    ),
    Option(
        "markdown",
        _G.OUTPUT,
        "a summary in Markdown (a CI job summary); -: stdout",
        Kind.PATH,
        RUN_OUTPUT,
        metavar="PATH",
    ),
    Option(
        "reports-url",
        _G.OUTPUT,
        "where readers find the reports (a CI run's artifacts): the Markdown summary links there",
        Kind.TEXT,
        RUN_OUTPUT,
        metavar="URL",
    ),
    Option(
        "print-schema",
        _G.OUTPUT,
        "print a JSON schema and exit: the report's (default) or the fleet summary's",
        Kind.CHOICE,
        COMMAND_ONLY,
        choices=("report", "fleet"),
        optional_value="report",
    ),
    Option(
        "quiet",
        _G.OUTPUT,
        "-q: the verdict line alone, on every run; -qq: nothing at all (the exit code speaks)",
        Kind.COUNT,
        CONFIG_ONLY,
        short="-q",
        exclusive="noise",
    ),
    Option(
        "verbose",
        _G.OUTPUT,
        "-v: log every request (method, URL, status or failure, time, try, wait for the host) "
        "and what a stuck run waits for; -vv: the engine's internals too",
        Kind.COUNT,
        CONFIG_ONLY,
        short="-v",
        exclusive="noise",
    ),
    Option(
        "keep",
        _G.OUTPUT,
        "keep the newest N dated reports of the site in --out (a nightly job's history); "
        "with --json PATH, a dated copy goes there too",
        Kind.NUMBER,
        CONFIG_ONLY,
        metavar="N",
    ),
    Option("no-progress", _G.OUTPUT, "no progress bar", Kind.FLAG, CONFIG_ONLY),
    Option(
        "no-color",
        _G.OUTPUT,
        "no colours (also when NO_COLOR is set)",
        Kind.FLAG,
        CONFIG_ONLY,
    ),
    # --- what to request
    Option("no-check", _G.REQUEST, "validate the sitemaps only", Kind.FLAG),
    Option(
        "method",
        _G.REQUEST,
        "get (default): reads each page's head; head: status only",
        Kind.CHOICE,
        choices=_choices(Method),
        checks_only=True,
    ),
    Option(
        "engine",
        _G.REQUEST,
        "for URL checks (curl)",
        Kind.CHOICE,
        default=Engine.CURL.value,
        choices=_choices(Engine),
    ),
    Option(
        "include",
        _G.REQUEST,
        "check matching URLs",
        metavar="REGEX",
        repeat=True,
        checks_only=True,
    ),
    Option(
        "exclude",
        _G.REQUEST,
        "skip matching URLs",
        metavar="REGEX",
        repeat=True,
        checks_only=True,
    ),
    Option(
        "sample",
        _G.REQUEST,
        "check a random sample of N URLs",
        Kind.NUMBER,
        metavar="N",
        checks_only=True,
    ),
    Option(
        "timeout",
        _G.REQUEST,
        "per request (default 15)",
        Kind.NUMBER,
        metavar="S",
        setting="timeout_s",
    ),
    Option(
        "retries",
        _G.REQUEST,
        "for 429, 5xx, timeouts, resets (default 2)",
        Kind.NUMBER,
        metavar="N",
    ),
    Option(
        "max-redirects",
        _G.REQUEST,
        "hops followed (10)",
        Kind.NUMBER,
        default=10,
        metavar="N",
    ),
    Option(
        "slow",
        _G.REQUEST,
        "url.slow above S seconds (default 3)",
        Kind.NUMBER,
        metavar="S",
        setting="slow_s",
        checks_only=True,
    ),
    Option("user-agent", _G.REQUEST, "default sitemap-auditor/VERSION", metavar="S"),
    Option(
        "robots-agent",
        _G.REQUEST,
        f"robots.txt and noindex as ({DEFAULT_ROBOTS_AGENT})",
        default=DEFAULT_ROBOTS_AGENT,
        metavar="NAME",
    ),
    Option("header", _G.REQUEST, "to targets' hosts", metavar="'Name: value'", repeat=True),
    Option(
        "remap",
        _G.REQUEST,
        "request URLs matching REGEX at REPLACEMENT instead ($1 its groups; lychee's form): "
        "reports name the URL the site names",
        metavar="'REGEX REPLACEMENT'",
        repeat=True,
    ),
    Option(
        "serve",
        _G.REQUEST,
        "serve the built site in DIR on 127.0.0.1 and request the URL targets' origins there "
        "(a pull request's docs build; index.html for folders, 404.html for what is missing)",
        Kind.PATH,
        CONFIG_ONLY,
        metavar="DIR",
    ),
    Option(
        "ca-file",
        _G.REQUEST,
        "also trust this CA (a staging site's)",
        Kind.PATH,
        metavar="PATH",
    ),
    Option(
        "insecure",
        _G.REQUEST,
        "verify no TLS certificate (a target's failing one is still reported)",
        Kind.FLAG,
    ),
    Option(
        "allow-private",
        _G.REQUEST,
        "allow private and link-local addresses",
        Kind.FLAG,
    ),
    # --- politeness
    Option(
        "concurrency",
        _G.POLITENESS,
        "requests in flight (128)",
        Kind.NUMBER,
        default=128,
        metavar="N",
    ),
    Option(
        "per-host",
        _G.POLITENESS,
        "in flight per host (8)",
        Kind.NUMBER,
        default=8,
        metavar="N",
    ),
    Option(
        "rate",
        _G.POLITENESS,
        "requests per second per host",
        Kind.NUMBER,
        metavar="R",
        checks_only=True,
    ),
    # --- bounds
    Option(
        "sitemap-concurrency",
        _G.BOUNDS,
        "sitemaps read at once (4)",
        Kind.NUMBER,
        default=4,
        metavar="N",
    ),
    Option(
        "sitemap-timeout",
        _G.BOUNDS,
        "per sitemap (300)",
        Kind.NUMBER,
        default=300.0,
        metavar="S",
        setting="sitemap_timeout_s",
    ),
    Option(
        "max-depth",
        _G.BOUNDS,
        "index nesting followed (5)",
        Kind.NUMBER,
        default=5,
        metavar="N",
    ),
    Option(
        "max-sitemaps",
        _G.BOUNDS,
        "documents read (100000)",
        Kind.NUMBER,
        default=100_000,
        metavar="N",
    ),
    # --- the crawl, for coverage
    Option(
        "crawl",
        _G.CRAWL,
        "crawl the site too: pages missing from the sitemaps",
        Kind.FLAG,
    ),
    Option(
        "crawl-max",
        _G.CRAWL,
        "URLs requested (100000)",
        Kind.NUMBER,
        default=100_000,
        metavar="N",
    ),
    Option(
        "crawl-depth",
        _G.CRAWL,
        "clicks from the home page (100)",
        Kind.NUMBER,
        default=100,
        metavar="N",
    ),
    Option(
        "crawl-page-bytes",
        _G.CRAWL,
        "of each page read (2 MiB, as Google)",
        Kind.NUMBER,
        default=CRAWL_PAGE_BYTES,
        metavar="N",
    ),
    Option("crawl-host", _G.CRAWL, "a host in scope too", metavar="HOST", repeat=True),
    Option("crawl-start", _G.CRAWL, "a start page too", metavar="URL", repeat=True),
    Option("crawl-nofollow", _G.CRAWL, 'follow rel="nofollow" links too', Kind.FLAG),
    Option(
        "deep-clicks",
        _G.CRAWL,
        "coverage.deep beyond N clicks (3)",
        Kind.NUMBER,
        default=3,
        metavar="N",
    ),
    # --- processes
    Option(
        "workers",
        _G.PROCESSES,
        "processes for checks, or parsing with --no-check (the cores: %(default)s)",
        Kind.NUMBER,
        metavar="N",
        default_factory=cores,
        default_words="the cores this process may use",
    ),
    Option(
        "loop",
        _G.PROCESSES,
        "uvloop when installed (auto)",
        Kind.CHOICE,
        default=EventLoop.AUTO.value,
        choices=_choices(EventLoop),
    ),
    # --- monitoring
    Option(
        "fail-on",
        _G.MONITORING,
        "exit 1 at this (error)",
        Kind.CHOICE,
        default=FailOn.ERROR.value,
        choices=_FAIL_ON,
    ),
    Option(
        "fail-on-new",
        _G.MONITORING,
        "with --baseline: exit 1 when something new since it is at this (error)",
        Kind.CHOICE,
        default=FailOn.ERROR.value,
        choices=_FAIL_ON,
    ),
    Option(
        "max-drop",
        _G.MONITORING,
        "with --baseline: a sitemap whose URLs listed nowhere now are more than PCT percent of "
        "those it listed then regresses (10)",
        Kind.NUMBER,
        default=10.0,
        metavar="PCT",
    ),
    Option(
        "max-drop-urls",
        _G.MONITORING,
        "...and more than N of them: more than the larger of the two (100)",
        Kind.NUMBER,
        default=100,
        metavar="N",
    ),
    Option(
        "baseline",
        _G.MONITORING,
        "an earlier JSON report: diff, regressions",
        Kind.PATH,
        RUN_OUTPUT,
        metavar="PATH",
    ),
    Option(
        "accept-file",
        _G.MONITORING,
        "known issues (lines: CODE, URL-REGEX, or both): reported, never failing",
        Kind.PATH,
        metavar="FILE",
    ),
    Option(
        "metrics",
        _G.MONITORING,
        "Prometheus textfile",
        Kind.PATH,
        RUN_OUTPUT,
        metavar="PATH",
    ),
    Option(
        "junit",
        _G.MONITORING,
        "JUnit XML for CI: a case per URL, a suite per sitemap",
        Kind.PATH,
        RUN_OUTPUT,
        metavar="PATH",
    ),
    Option(
        "junit-failures-only",
        _G.MONITORING,
        "JUnit: the failing cases alone, not one per URL",
        Kind.FLAG,
        RUN_OUTPUT,
    ),
    Option(
        "state",
        _G.MONITORING,
        "sitemap validators kept between runs",
        Kind.PATH,
        RUN_OUTPUT,
        metavar="PATH",
    ),
    # --- big sites
    Option(
        "history",
        _G.BIG_SITES,
        "every URL's last verdict, kept between runs",
        Kind.PATH,
        metavar="PATH",
        checks_only=True,
    ),
    Option(
        "budget",
        _G.BIG_SITES,
        "requests a run at most; the rest carry their verdict",
        Kind.NUMBER,
        metavar="N",
    ),
    Option(
        "budget-time",
        _G.BIG_SITES,
        "stop requesting after this long (8h, 90m)",
        Kind.DURATION,
        metavar="DURATION",
        setting="budget_time_s",
    ),
    Option(
        "max-age",
        _G.BIG_SITES,
        "request every URL at least this often",
        Kind.NUMBER,
        metavar="DAYS",
        setting="max_age_days",
    ),
    Option("resume", _G.BIG_SITES, "continue the history's interrupted run", Kind.FLAG),
    # --- fleet
    Option(
        "fleet",
        _G.FLEET,
        "audit every site of FILE as a Dask task",
        Kind.PATH,
        CONFIG_ONLY,
        metavar="FILE",
    ),
    Option(
        "scheduler",
        _G.FLEET,
        "a running Dask scheduler (--fleet)",
        places=CONFIG_ONLY,
        metavar="tcp://HOST:PORT",
    ),
    Option(
        "fleet-workers",
        _G.FLEET,
        "LocalCluster processes (the cores)",
        Kind.NUMBER,
        CONFIG_ONLY,
        metavar="N",
    ),
    Option(
        "fleet-concurrency",
        _G.FLEET,
        "sites at once (the workers)",
        Kind.NUMBER,
        CONFIG_ONLY,
        metavar="N",
    ),
)
BY_DEST = MappingProxyType({option.dest: option for option in OPTIONS})


def grouped() -> Iterator[tuple[Group, list[Option]]]:
    """The options group by group, in the order of `--help`."""
    for group in Group:
        members = [option for option in OPTIONS if option.group is group]
        if members:
            yield group, members


def defaults() -> dict[str, object]:
    """Every option at its default, by dest (what a run given nothing starts from)."""
    return {option.dest: option.default_value() for option in OPTIONS}


def given_at(place: Place) -> frozenset[str]:
    """The dests that `place` may set."""
    return frozenset(option.dest for option in OPTIONS if place in option.places)
