"""The core's options of what to request: checks, methods, headers, `--remap`, TLS, addresses.

A part of the core's rows (auditor.options.core_rows), kept apart to keep each module small.
Pure: no I/O.
"""

from __future__ import annotations

from auditor.config import Engine, Method
from auditor.options.row import CONFIG_ONLY, Group, Kind, Option, choices

_G = Group
REQUEST: tuple[Option, ...] = (
    Option("no-check", _G.REQUEST, "validate the sitemaps only", Kind.FLAG),
    Option(
        "method",
        _G.REQUEST,
        "%(default)s (default): reads each page's head; head: status only",
        Kind.CHOICE,
        choices=choices(Method),
        checks_only=True,
        absent_none=True,
    ),
    Option(
        "engine",
        _G.REQUEST,
        "for URL checks (%(default)s)",
        Kind.CHOICE,
        choices=choices(Engine),
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
        "per request (default %(default)s)",
        Kind.NUMBER,
        metavar="S",
        setting="timeout_s",
        absent_none=True,
    ),
    Option(
        "retries",
        _G.REQUEST,
        "for 429, 5xx, timeouts, resets (default %(default)s)",
        Kind.NUMBER,
        metavar="N",
        absent_none=True,
    ),
    Option(
        "max-redirects",
        _G.REQUEST,
        "hops followed (%(default)s)",
        Kind.NUMBER,
        metavar="N",
    ),
    Option(
        "slow",
        _G.REQUEST,
        "url.slow above S seconds (default %(default)s)",
        Kind.NUMBER,
        metavar="S",
        setting="slow_s",
        checks_only=True,
        absent_none=True,
    ),
    Option("user-agent", _G.REQUEST, "default %(default)s", metavar="S", absent_none=True),
    Option(
        "robots-agent",
        _G.REQUEST,
        "robots.txt and noindex as (%(default)s)",
        metavar="NAME",
    ),
    Option(
        "header",
        _G.REQUEST,
        "to targets' hosts",
        metavar="'Name: value'",
        repeat=True,
        setting="headers",
    ),
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
)
