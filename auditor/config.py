"""The audit's configuration: one frozen record, checked once when it is made.

Field names are the long option names (docs/reference/options.md) with `_` for `-` (units added
where a flag has none: `timeout` is `timeout_s`, `max-age` is `max_age_days`). A setting's
default and range are declared once, on its field (`ranged`); RANGES is read from the fields.
Pure: no I/O.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from enum import StrEnum
from pathlib import Path
from types import MappingProxyType
from typing import TypeVar

from auditor._version import __version__
from auditor.codes import Severity
from auditor.errors import ConfigError
from auditor.limits import MAX_SITEMAP_BYTES
from auditor.urls import parse_http_url, redact_userinfo, split_userinfo

DEFAULT_USER_AGENT = f"sitemap-auditor/{__version__}"
_NEED_HISTORY = ("budget", "budget_time_s", "max_age_days", "resume")
# Search Console's verdicts are Googlebot's: robots.txt and noindex are judged for it, whatever
# User-Agent the auditor sends (--robots-agent).
DEFAULT_ROBOTS_AGENT = "Googlebot"
# "Googlebot crawls the first 2MB of a supported file type" (Search Central, "Googlebot").
CRAWL_PAGE_BYTES = 2 * 1024 * 1024
_HEADER_NAME = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")  # RFC 9110 §5.1: a token
# RFC 9110 §5.5: no CR, LF or NUL in a field value (libcurl sends a line break as written).
_NOT_IN_HEADER = re.compile(r"[\r\n\0]")


# --- the range of every numeric setting: declared with its default on the setting's field,
# applied by the command line's parser, the `--config` and fleet file readers, and AuditConfig
# (the library). Each range is what a real use needs: past it a value only costs memory (every
# request in flight holds some) or breaks a library (libcurl's timeout is a C long of ms).


@dataclass(frozen=True, slots=True)
class NumberRange:
    """The values a setting may take, both ends included; `unit` names what it counts."""

    least: int | float
    most: int | float
    unit: str
    option: bool = True  # a command-line option (`--name`); False: the library's alone

    @property
    def integer(self) -> bool:
        return isinstance(self.least, int) and isinstance(self.most, int)

    def __contains__(self, value: object) -> bool:
        if not isinstance(value, int | float) or isinstance(value, bool):
            return False
        if self.integer and not isinstance(value, int):
            return False
        return math.isfinite(value) and self.least <= value <= self.most

    def text(self) -> str:
        """'from 1 to 10,000 requests'."""
        return f"from {_number(self.least)} to {_number(self.most)} {self.unit}"


T = TypeVar("T")
_SECONDS = "seconds"
_RANGE = "range"  # the metadata key of a field's range


def ranged(default: T, least: float, most: float, unit: str, *, option: bool = True) -> T:
    """A numeric setting's default and range, declared together on its AuditConfig field.

    RANGES is read from the fields: each range is declared once, where its default is.
    """
    number_range = NumberRange(least, most, unit, option)
    return field(default=default, metadata={_RANGE: number_range})


# The command's own numbers, no run's configuration: the fleet's, and --keep's.
COMMAND_RANGES = {
    "fleet_workers": NumberRange(1, 1_024, "processes"),
    "fleet_concurrency": NumberRange(1, 100_000, "sites"),
    "keep": NumberRange(1, 100_000, "reports"),
}


def option_name(key: str) -> str:
    """How a setting is named to the user: `--timeout` for `timeout_s`; a library one by name."""
    number_range = RANGES.get(key)
    if number_range is not None and not number_range.option:
        return key
    if key == "log_days":  # its unit is in its name: `--log-days`, not `--log`
        return "--log-days"
    return "--" + key.removesuffix("_days").removesuffix("_s").replace("_", "-")


def out_of_range(key: str, value: object) -> str | None:
    """Why `value` cannot be setting `key`, or None when it can (or `key` has no range).

    'must be from 1 to 10,000 requests in flight, not 0'.
    """
    number_range = RANGES.get(key)
    if number_range is None or value in number_range:
        return None
    return f"must be {number_range.text()}, not {value}"


def ranges_markdown() -> str:
    """SECURITY.md's table of ranges, generated from RANGES (a test keeps them equal)."""
    rows = ["| setting | from | to | unit |", "|---|---|---|---|"]
    for key, number_range in RANGES.items():
        least, most = _number(number_range.least), _number(number_range.most)
        rows.append(f"| `{option_name(key)}` | {least} | {most} | {number_range.unit} |")
    return "\n".join(rows) + "\n"


def _number(value: float) -> str:
    return f"{value:,}" if isinstance(value, int) else f"{value:,g}"


class TargetKind(StrEnum):
    """How discovery starts from a target."""

    SITE = "site"  # robots.txt, then the known locations
    ROBOTS = "robots"  # the Sitemap: lines of this robots.txt
    SITEMAP = "sitemap"  # this document (urlset, index, text, RSS or Atom)


@dataclass(frozen=True, slots=True)
class Target:
    """One target the user asked for (auditor.discovery.targets classifies the argument).

    `path` is set for a local file; `url` is then its file: URI.
    """

    input: str
    kind: TargetKind
    url: str
    path: Path | None = None
    # The userinfo a URL target was given with (`https://user:password@staging.example/`):
    # basic auth for the target's own origin only (auditor.http_stack), never shown: `input`
    # shows it redacted and `url` is without it, so nothing written from them holds it.
    userinfo: str | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        url, userinfo = split_userinfo(self.url)
        if userinfo is not None:
            object.__setattr__(self, "url", url)
            object.__setattr__(self, "userinfo", self.userinfo or userinfo)
        object.__setattr__(self, "input", redact_userinfo(self.input))

    @property
    def label(self) -> str:
        """A short name for report files: the host, or the file's stem."""
        if self.path is not None:
            return self.path.stem or "file"
        parsed = parse_http_url(self.url)
        return parsed.host if parsed else "target"

    @property
    def title(self) -> str:
        """What reports are titled by: the host, or the file as given (`public/sitemap.xml`)."""
        return self.input if self.path is not None else self.label


class FailOn(StrEnum):
    """The lowest severity that makes the run exit 1 (docs/explanation/design.md#exit-codes)."""

    ERROR = "error"
    WARNING = "warning"
    NOTICE = "notice"
    NEVER = "never"

    def trips(self, severity: Severity) -> bool:
        """Whether a finding of `severity` is at or above this threshold."""
        if self is FailOn.NEVER:
            return False
        return severity.rank >= Severity(self.value).rank


class EventLoop(StrEnum):
    """Which event loop runs the audit (`--loop`): uvloop when installed, unless told."""

    AUTO = "auto"
    ASYNCIO = "asyncio"
    UVLOOP = "uvloop"


class Engine(StrEnum):
    """Which HTTP library requests the listed URLs (`--engine`); sitemaps are always aiohttp's.

    CURL: libcurl's multi interface through pycurl (a fraction of aiohttp's CPU per request);
    AIOHTTP: the library that streams the sitemaps, also used when pycurl cannot be imported.
    """

    CURL = "curl"
    AIOHTTP = "aiohttp"


class Method(StrEnum):
    """How URLs are requested (`--method`).

    GET (the default) reads each HTML page's head, so that noindex and canonical work
    out of the box; HEAD reads statuses and headers only; AUTO asks HEAD, and GET when HEAD is
    refused or gives an error.
    """

    AUTO = "auto"
    HEAD = "head"
    GET = "get"

    def page_checks(self) -> tuple[str, ...]:
        """What a check reads of each page with this method (the report's config says it)."""
        heads = (
            "status",
            "redirects",
            "robots.txt",
            "x-robots-tag",
            "link-canonical",
            "last-modified",
        )
        if self is Method.GET:
            return (*heads, "meta-robots", "html-canonical")
        return heads  # HEAD; AUTO reads a page only where HEAD is refused or errs


@dataclass(frozen=True, slots=True)
class AuditConfig:
    """Everything one audit run needs to know; override fields with `dataclasses.replace`."""

    targets: tuple[Target, ...]
    out: Path = Path("reports")
    json: Path | None = None
    html: Path | None = None
    csv: Path | None = None  # a folder: urls.csv and findings.csv (auditor.report.csv_writer)
    markdown: Path | None = None  # a summary in Markdown, for a CI job summary
    reports_url: str | None = None  # where the reports are read: the Markdown links there
    no_check: bool = False
    concurrency: int = ranged(128, 1, 10_000, "requests in flight")
    per_host: int = ranged(8, 1, 10_000, "requests in flight")
    # Processes for the CPU-heavy work (the CLI: cores): checkers, or with no_check, parse
    # helpers (parse_helpers) beside this one; 1: everything in the audit's own process.
    workers: int = ranged(1, 1, 1_024, "processes")
    loop: EventLoop = EventLoop.AUTO
    rate: float | None = ranged(None, 0.001, 10_000.0, "requests per second")
    timeout_s: float = ranged(15.0, 0.001, 3_600.0, _SECONDS)
    retries: int = ranged(2, 0, 100, "retries")
    max_redirects: int = ranged(10, 0, 100, "hops")
    method: Method = Method.GET
    engine: Engine = Engine.CURL
    user_agent: str = DEFAULT_USER_AGENT
    robots_agent: str = DEFAULT_ROBOTS_AGENT  # whose robots.txt group and noindex are judged
    headers: tuple[tuple[str, str], ...] = ()
    remap: tuple[str, ...] = ()  # `--remap 'REGEX REPLACEMENT'`: where requests go (net.remap)
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    sample: int | None = ranged(None, 1, 1_000_000, "URLs")
    fail_on: FailOn = FailOn.ERROR
    # What is new since the baseline fails the run from this severity on (NEVER: it never does).
    fail_on_new: FailOn = FailOn.ERROR
    # A sitemap whose baseline URLs are listed nowhere now, more than this share of them and more
    # than this many, regresses (sitemap.urls_dropped; docs/explanation/rules.md#urls-dropped).
    max_drop: float = ranged(10.0, 0.0, 100.0, "percent of its URLs")  # the baseline listed in it
    max_drop_urls: int = ranged(100, 0, 1_000_000_000, "URLs")
    accept_file: Path | None = None  # known issues: reported, never failing the run
    baseline: Path | None = None
    metrics: Path | None = None
    junit: Path | None = None
    junit_failures_only: bool = False  # the failing cases alone, not one per URL
    state: Path | None = None
    allow_private: bool = False
    ca_file: Path | None = None  # also trust this CA (a staging site's own), beside the system's
    insecure: bool = False  # verify no certificate; a target's failing one is still a finding
    # url.slow: an answer slower than this (docs/explanation/rules.md#slow)
    slow_s: float = ranged(3.0, 0.001, 3_600.0, _SECONDS)
    # The sitemap side (docs/explanation/design.md#safety): every read is bounded.
    sitemap_concurrency: int = ranged(4, 1, 1_000, "documents")
    # A whole sitemap download; `timeout_s` bounds each silence.
    sitemap_timeout_s: float = ranged(300.0, 0.001, 86_400.0, _SECONDS)
    max_depth: int = ranged(5, 0, 100, "levels")
    max_sitemaps: int = ranged(100_000, 1, 10_000_000, "documents")
    max_sitemap_bytes: int = ranged(
        MAX_SITEMAP_BYTES, 1, 20 * MAX_SITEMAP_BYTES, "bytes", option=False
    )
    # Findings kept in the report per sitemap; all are counted.
    findings_per_sitemap: int = ranged(1_000, 0, 100_000, "findings", option=False)
    backoff_base_s: float = ranged(0.5, 0.0, 60.0, _SECONDS, option=False)
    max_retry_after_s: float = ranged(60.0, 0.0, 3_600.0, _SECONDS, option=False)
    # A run that does not move this long is stuck and ends (auditor.processes.watchdog); None:
    # the watchdog's own window, from the timeouts and pauses above (tests set a short one).
    stall_s: float | None = ranged(None, 0.01, 86_400.0, _SECONDS, option=False)
    # Big sites (auditor.wings.history, docs/how-to/big-sites.md): every URL's last verdict kept in
    # `history` between runs; at most `budget` requests a run, or `budget_time_s` seconds of
    # requests; every URL requested at least every `max_age_days`; `resume`: continue the
    # history's interrupted run.
    history: Path | None = None
    budget: int | None = ranged(None, 0, 1_000_000_000, "requests")  # 0: every verdict carried
    budget_time_s: float | None = ranged(None, 0.001, 30 * 86_400.0, _SECONDS)
    max_age_days: int | None = ranged(None, 1, 3_650, "days")
    resume: bool = False
    # The crawl (docs/how-to/coverage.md): the site read link by link, held against its sitemaps.
    crawl: bool = False
    crawl_max: int = ranged(100_000, 1, 100_000_000, "URLs")  # URLs it takes in to request
    crawl_depth: int = ranged(100, 0, 10_000, "clicks")  # clicks from a start page
    crawl_page_bytes: int = ranged(CRAWL_PAGE_BYTES, 1, 8 * CRAWL_PAGE_BYTES, "bytes")
    crawl_hosts: tuple[str, ...] = ()  # hosts beside the targets' (and their www. aliases)
    crawl_starts: tuple[str, ...] = ()  # start pages beside the targets' home pages
    crawl_nofollow: bool = False  # follow rel="nofollow" links too
    # coverage.deep: a listed URL more clicks than this from a start page.
    deep_clicks: int = ranged(3, 0, 10_000, "clicks")
    # Access logs (auditor.wings.logs, docs/how-to/server-logs.md): what Googlebot crawled.
    access_logs: tuple[Path, ...] = ()  # files, folders, globs, `-` for stdin
    log_format: str = "auto"  # each file's own, or one of the formats the wing reads
    log_fields: tuple[str, ...] = ()  # `NAME=KEY`: a JSON lines' key for a field
    log_days: int = ranged(30, 1, 3_650, "days")  # the window: logs.not_crawled
    log_error_rate: float = ranged(10.0, 0.0, 100.0, "percent")  # logs.crawler_errors above it
    crawler_ranges: tuple[str, ...] = ()  # newer crawler ranges: FILE, googlebot=FILE, ...

    def __post_init__(self) -> None:
        """Refuse values that cannot work, naming the option and its range (RANGES)."""
        if not self.targets:
            raise ConfigError("at least one target is needed")
        for setting in fields(self):
            value = getattr(self, setting.name)
            problem = None if value is None else out_of_range(setting.name, value)
            if isinstance(value, Path) and "\0" in str(value):  # no file name holds one
                problem = "holds a NUL character"
            if problem is not None:
                raise ConfigError(f"{option_name(setting.name)} {problem}")
        check_field_value("--user-agent", self.user_agent)
        for name, value in self.headers:
            if not _HEADER_NAME.fullmatch(name):
                raise ConfigError(f"--header name {name!r} is not a token (RFC 9110 §5.1)")
            check_field_value(f"--header {name}", value)
        self._check_history()
        if self.crawl and not self.crawl_starts and all(t.path is not None for t in self.targets):
            raise ConfigError("--crawl needs a site to start from: a URL target, or --crawl-start")

    def _check_history(self) -> None:
        """The history's options only with a history, and a history only with URL checks."""
        given = [name for name in _NEED_HISTORY if getattr(self, name) not in (None, False)]
        if given and self.history is None:
            raise ConfigError(f"{option_name(given[0])} needs --history (where verdicts are kept)")
        if self.history is not None and self.no_check:
            raise ConfigError("--history keeps URL checks; it means nothing with --no-check")
        if self.history is not None and self.sample is not None:
            raise ConfigError("--sample or --history, not both: --budget checks part of a site")
        if self.history is not None and self.crawl:
            # The crawl requests every page it reaches, past any budget, and keeps no verdict.
            raise ConfigError("--crawl or --history, not both: a crawl requests every page")


# Every numeric setting's range, by AuditConfig's field name (the command's own: its argparse
# name). The option is the key with `-` for `_`, less a unit suffix: `timeout_s` is `--timeout`
# (`option_name`).
RANGES: Mapping[str, NumberRange] = MappingProxyType(
    {
        **{item.name: item.metadata[_RANGE] for item in fields(AuditConfig) if item.metadata},
        **COMMAND_RANGES,
    }
)


def check_field_value(option: str, value: str) -> None:
    """ConfigError if a header value holds CR, LF or NUL: the check of every value sent."""
    if _NOT_IN_HEADER.search(value):
        raise ConfigError(f"{option}: a header value holds no CR, LF or NUL (RFC 9110 §5.5)")
