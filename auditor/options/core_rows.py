"""The core's options: the command's own, its outputs, what to request, politeness, bounds.

Each wing declares its own rows (its Feature's `rows`); auditor.options.table puts them all in
one table. An option of an AuditConfig field takes its default and range from the field
(auditor.options.row). Pure: no I/O.
"""

from __future__ import annotations

from auditor.config import EventLoop, FailOn
from auditor.options.request_rows import REQUEST
from auditor.options.row import (
    COMMAND_ONLY,
    CONFIG_ONLY,
    RUN_OUTPUT,
    Group,
    Kind,
    Option,
    Place,
    choices,
    cores,
)

_FAIL_ON = choices(FailOn)
_G = Group
CORE: tuple[Option, ...] = (
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
        metavar="DIR",
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
    *REQUEST,
    # --- politeness
    Option(
        "concurrency",
        _G.POLITENESS,
        "requests in flight (%(default)s)",
        Kind.NUMBER,
        metavar="N",
    ),
    Option(
        "per-host",
        _G.POLITENESS,
        "in flight per host (%(default)s)",
        Kind.NUMBER,
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
        "sitemaps read at once (%(default)s)",
        Kind.NUMBER,
        metavar="N",
    ),
    Option(
        "sitemap-timeout",
        _G.BOUNDS,
        "per sitemap (%(default)s)",
        Kind.NUMBER,
        metavar="S",
        setting="sitemap_timeout_s",
    ),
    Option(
        "max-depth",
        _G.BOUNDS,
        "index nesting followed (%(default)s)",
        Kind.NUMBER,
        metavar="N",
    ),
    Option(
        "max-sitemaps",
        _G.BOUNDS,
        "documents read (%(default)s)",
        Kind.NUMBER,
        metavar="N",
    ),
    # --- processes
    Option(
        "workers",
        _G.PROCESSES,
        "processes that parse with --no-check and read big access logs (the cores: %(default)s)",
        Kind.NUMBER,
        metavar="N",
        default_factory=cores,
        default_words="the cores this process may use",
    ),
    Option(
        "loop",
        _G.PROCESSES,
        "uvloop when installed (%(default)s)",
        Kind.CHOICE,
        choices=choices(EventLoop),
    ),
    # --- monitoring
    Option(
        "fail-on",
        _G.MONITORING,
        "exit 1 at this (%(default)s)",
        Kind.CHOICE,
        choices=_FAIL_ON,
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
