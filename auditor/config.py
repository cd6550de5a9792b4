"""The audit's configuration: one frozen record, checked once when it is made.

Field names are the long option names (docs/reference/options.md) with `_` for `-` (units added
where a flag has none: `timeout` is `timeout_s`). Pure: no I/O.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from enum import StrEnum
from pathlib import Path

from auditor import __version__
from auditor.codes import Severity
from auditor.errors import ConfigError
from auditor.limits import MAX_SITEMAP_BYTES
from auditor.urls import parse_http_url

DEFAULT_USER_AGENT = f"sitemap-auditor/{__version__}"
# Search Console's verdicts are Googlebot's: robots.txt and noindex are judged for it, whatever
# User-Agent the auditor sends (--robots-agent).
DEFAULT_ROBOTS_AGENT = "Googlebot"
# "Googlebot crawls the first 2MB of a supported file type" (Search Central, "Googlebot").
CRAWL_PAGE_BYTES = 2 * 1024 * 1024


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

    @property
    def label(self) -> str:
        """A short name for report files: the host, or the file's stem."""
        if self.path is not None:
            return self.path.stem or "file"
        parsed = parse_http_url(self.url)
        return parsed.host if parsed else "target"


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
    no_check: bool = False
    concurrency: int = 128
    per_host: int = 8
    # Processes for the CPU-heavy work (the CLI: cores): checkers, or with no_check, parse
    # helpers (parse_helpers) beside this one; 1: everything in the audit's own process.
    workers: int = 1
    loop: EventLoop = EventLoop.AUTO
    rate: float | None = None
    timeout_s: float = 15.0
    retries: int = 2
    max_redirects: int = 10
    method: Method = Method.GET
    engine: Engine = Engine.CURL
    user_agent: str = DEFAULT_USER_AGENT
    robots_agent: str = DEFAULT_ROBOTS_AGENT  # whose robots.txt group and noindex are judged
    headers: tuple[tuple[str, str], ...] = ()
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    sample: int | None = None
    fail_on: FailOn = FailOn.ERROR
    # What is new since the baseline fails the run from this severity on (NEVER: it never does).
    fail_on_new: FailOn = FailOn.ERROR
    accept_file: Path | None = None  # known issues: reported, never failing the run
    baseline: Path | None = None
    metrics: Path | None = None
    junit: Path | None = None
    state: Path | None = None
    allow_private: bool = False
    ca_file: Path | None = None  # also trust this CA (a staging site's own), beside the system's
    slow_s: float = 3.0  # url.slow: an answer slower than this (docs/explanation/rules.md#slow)
    # The sitemap side (docs/explanation/design.md#safety): every read is bounded.
    sitemap_concurrency: int = 4
    sitemap_timeout_s: float = 300.0  # a whole sitemap download; `timeout_s` bounds each silence
    max_depth: int = 5
    max_sitemaps: int = 100_000
    max_sitemap_bytes: int = MAX_SITEMAP_BYTES
    findings_per_sitemap: int = 1_000  # kept in the report per sitemap; all are counted
    backoff_base_s: float = 0.5
    max_retry_after_s: float = 60.0
    # The crawl (docs/how-to/coverage.md): the site read link by link, held against its sitemaps.
    crawl: bool = False
    crawl_max: int = 100_000  # URLs it takes in to request
    crawl_depth: int = 100  # clicks from a start page
    crawl_page_bytes: int = CRAWL_PAGE_BYTES
    crawl_hosts: tuple[str, ...] = ()  # hosts beside the targets' (and their www. aliases)
    crawl_starts: tuple[str, ...] = ()  # start pages beside the targets' home pages
    crawl_nofollow: bool = False  # follow rel="nofollow" links too
    deep_clicks: int = 3  # coverage.deep: a listed URL more clicks than this from a start page

    def __post_init__(self) -> None:
        """Refuse values that cannot work, naming the option."""
        if not self.targets:
            raise ConfigError("at least one target is needed")
        for name in ("concurrency", "per_host", "workers", "sitemap_concurrency", "max_sitemaps"):
            _at_least(name, getattr(self, name), 1)
        for name in ("crawl_max", "crawl_page_bytes"):
            _at_least(name, getattr(self, name), 1)
        for name in ("crawl_depth", "deep_clicks"):
            _at_least(name, getattr(self, name), 0)
        for name in ("retries", "max_redirects", "max_depth", "findings_per_sitemap"):
            _at_least(name, getattr(self, name), 0)
        for name in ("timeout_s", "sitemap_timeout_s", "rate", "slow_s"):
            value = getattr(self, name)
            if value is not None and not (math.isfinite(value) and value > 0):
                raise ConfigError(f"{_option(name)} must be a number more than 0, not {value}")
        if self.sample is not None:
            _at_least("sample", self.sample, 1)
        if self.max_sitemap_bytes < 1:
            raise ConfigError("max_sitemap_bytes must be positive")
        if self.crawl and not self.crawl_starts and all(t.path is not None for t in self.targets):
            raise ConfigError("--crawl needs a site to start from: a URL target, or --crawl-start")


def checker_configs(config: AuditConfig) -> list[AuditConfig]:
    """One configuration per checker process: the run's limits shared out between them.

    Together the processes honour --concurrency, --per-host and --rate (any host's URLs go to
    every process). Never more processes than the smallest limit: each needs one request per
    host at least.
    """
    count = min(config.workers, config.concurrency, config.per_host)
    rate = config.rate / count if config.rate is not None else None
    shards = []
    for index in range(count):
        concurrency = _share(config.concurrency, count, index)
        per_host = min(_share(config.per_host, count, index), concurrency)
        shards.append(
            replace(config, concurrency=concurrency, per_host=per_host, rate=rate, workers=1)
        )
    return shards


def parse_helpers(config: AuditConfig) -> int:
    """Parse helper processes: only with --no-check, where no checker process needs the cores.

    With checks, the checker processes keep the cores busy, and parsing is a small part of a
    URL's cost (about 20 of 280 µs, measured); a helper would add memory and take no time off.
    As many helpers as workers, like checkers: this process handles every helper's entries
    (about a third of a URL's CPU) and parses only a share of the documents itself, so with one
    helper fewer a core sat idle whenever this process was busy (hreflang benchmark: 28-41 s
    a run with one helper on two cores, 30-31.5 s with two).
    """
    return config.workers if config.no_check and config.workers > 1 else 0


def _share(total: int, parts: int, index: int) -> int:
    """Part `index` of `total` split in `parts` as evenly as whole numbers allow."""
    return total // parts + (index < total % parts)


def _at_least(name: str, value: int, least: int) -> None:
    if value < least:
        raise ConfigError(f"{_option(name)} must be at least {least}, not {value}")


def _option(name: str) -> str:
    return "--" + name.removesuffix("_s").replace("_", "-")
