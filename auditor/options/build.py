"""Option values -> the run's AuditConfig: what the command, a fleet site and the library share.

Checks what the table cannot (paths, patterns, headers, a CA file, options that do not go
together) and builds the AuditConfig; UsageError (exit 2) for anything that cannot run. Blocking
checks (is a path a folder, a file readable): call it before an event loop, or in a thread.

See docs/reference/options.md.
"""

from __future__ import annotations

import os
import ssl
from collections.abc import Mapping, Sequence
from dataclasses import replace
from enum import Enum
from pathlib import Path
from types import MappingProxyType
from typing import Any, cast

from auditor.checks.url_patterns import check_pattern
from auditor.config import AuditConfig, Target
from auditor.discovery.targets import parse_target
from auditor.errors import UsageError
from auditor.files import not_a_file, read_input
from auditor.limits import MAX_CA_FILE_BYTES
from auditor.net.remap import parse_rule
from auditor.options.row import FIELDS, Group
from auditor.options.table import OPTIONS
from auditor.urls import parse_http_url

STDOUT = Path("-")  # `--json -`, `--markdown -`
# The demo's slow pages and its page that never answers show in seconds, not minutes.
DEMO_QUICK = MappingProxyType({"timeout_s": 2.0, "retries": 1, "slow_s": 1.0})

# Options naming one file, read or written: a folder, a FIFO or a device there is refused.
_WRITTEN = ("json", "html", "markdown", "metrics", "junit", "state", "history")
_READ = ("accept_file", "baseline", "ca_file")
Values = Mapping[str, Any]  # every option by dest (auditor.options.table.defaults() and more)


def config_from_values(values: Values, targets: tuple[Target, ...]) -> AuditConfig:
    """Check what the option table cannot and build the run's configuration.

    Each option of a field sets it, its value made the field's kind (`_field_value`); one not
    given keeps the field's default, or with `--demo` the demo's quicker one.
    """
    _check_values(values)
    settings: dict[str, Any] = {}  # keywords of AuditConfig, by field
    for option in OPTIONS:
        field, value = option.field, values[option.dest]
        if field is not None and value is not None:
            settings[field] = _field_value(field, value)
    if values["demo"]:  # the demo shows coverage too, unless told to request nothing
        settings["crawl"] = settings["crawl"] or not values["no_check"]
        for field, quick in DEMO_QUICK.items():  # the user's own values win over the demo's
            settings.setdefault(field, quick)
    return replace(AuditConfig(targets=targets), **settings)


def _field_value(field: str, value: object) -> object:
    """An option's value as its field holds it: an enum, a tuple, a parsed header."""
    if field == "headers":
        return tuple(_header(str(text)) for text in cast("list[object]", value))
    default = FIELDS[field].default
    if isinstance(default, Enum):
        return type(default)(value)
    if isinstance(value, list):
        return tuple(value)
    return value


def _check_values(values: Values) -> None:
    """UsageError for option values that cannot work together or cannot be used."""
    for option in OPTIONS:
        if option.checks_only and values["no_check"] and values[option.dest]:
            raise UsageError(
                f"{option.flag} applies to URL checks; it means nothing with --no-check"
            )
    _check_outputs(values)
    if values["ca_file"] is not None:
        _check_ca_file(values["ca_file"])
    for pattern in (*values["include"], *values["exclude"]):
        try:
            check_pattern(pattern)  # RE2's: linear time, whatever the pattern
        except ValueError as exc:
            raise UsageError(f"bad regular expression {pattern!r}: {exc}") from None
    _check_crawl(values)
    _check_remote(values)
    _check_logs(values)


def _check_remote(values: Values) -> None:
    """UsageError for a `--remap` rule that is none, or a `--reports-url` that is no URL."""
    for rule in values["remap"]:
        try:
            parse_rule(rule)
        except ValueError as exc:
            raise UsageError(f"--remap {rule!r}: {exc}") from None
    url = values["reports_url"]
    if url is not None and parse_http_url(url) is None:
        raise UsageError(f"--reports-url wants an absolute http(s) URL, not {url!r}")


def _check_logs(values: Values) -> None:
    """UsageError for an access logs' option without access logs."""
    if values["access_log"]:
        return
    for option in OPTIONS:
        given = values[option.dest] != option.default_value()
        if option.group is Group.LOGS and option.dest != "access_log" and given:
            raise UsageError(f"{option.flag} needs --access-log (the logs it reads)")


def _check_crawl(values: Values) -> None:
    """UsageError for a start page or a host the crawl cannot use."""
    for start in values["crawl_start"]:
        if parse_http_url(start) is None:
            raise UsageError(f"--crawl-start wants an absolute http(s) URL, not {start!r}")
    for host in values["crawl_host"]:
        if parse_http_url(f"http://{host}/") is None or "/" in host.strip().rstrip("/"):
            raise UsageError(f"--crawl-host wants a host name (and :port), not {host!r}")


def _check_outputs(values: Values) -> None:
    """UsageError for files that cannot be read or written where they are asked."""
    for name in (*_WRITTEN, *_READ):
        path = values[name]
        kind = None if path is None or path == STDOUT else not_a_file(path)
        if kind is not None:  # a FIFO would block, a device never end (or be replaced)
            raise UsageError(f"--{name.replace('_', '-')} {path} is {kind}; give a file path")
    csv = values["csv"]
    if csv == STDOUT:
        raise UsageError("--csv writes two files into a folder; - (stdout) is for one file")
    if csv is not None and csv.exists() and not csv.is_dir():
        raise UsageError(f"--csv {csv} is a file; give a folder")
    html, json = values["html"], values["json"]
    if json == STDOUT and values["markdown"] == STDOUT:
        raise UsageError("--json - and --markdown - would both write to stdout; give one a file")
    if html is not None and json is not None and html.resolve() == json.resolve():
        raise UsageError("--html and --json name the same file")


def _check_ca_file(path: Path) -> None:

    try:
        read_input(path, max_bytes=MAX_CA_FILE_BYTES)  # a regular file, of a bounded size
        ssl.create_default_context().load_verify_locations(cafile=path)
    except (OSError, ssl.SSLError) as exc:
        raise UsageError(f"--ca-file {path}: not a readable PEM certificate ({exc})") from exc


def _header(text: str) -> tuple[str, str]:
    """'Name: value' split; AuditConfig refuses a name that is no token or a value with CR/LF."""
    name, colon, value = text.partition(":")
    if not colon:
        # Not echoed: the text may be a secret with its colon forgotten.
        raise UsageError("--header wants 'Name: value' (a colon after the name)")
    return name.strip(" \t"), value.strip(" \t")


def targets_from(texts: Sequence[str]) -> tuple[Target, ...]:
    """TARGET arguments classified (TargetError, a UsageError, for one that is neither)."""
    targets = []
    for text in texts:
        target = parse_target(text, is_file=Path.is_file)  # TargetError: a UsageError
        if target.path is not None and not os.access(target.path, os.R_OK):
            raise UsageError(f"{text!r}: file is not readable")
        targets.append(target)
    return tuple(targets)
