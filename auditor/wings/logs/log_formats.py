"""What an access log line looks like: the formats read, their patterns, which one a file is.

Apache's and nginx's combined and common formats, combined with a leading virtual host
(Apache's `vhost_combined`: `%v:%p`), and JSON lines with configurable field names (presets
for nginx's `log_format ... escape=json` and Caddy's access log). Pure: no I/O.

Sources: Apache HTTP Server, "Log Files" (Common Log Format, Combined Log Format) and
mod_log_config; nginx, ngx_http_log_module (`log_format combined`, `escape=json`); Caddy,
"log" directive (the JSON access log).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType

import orjson

from auditor.wings.logs.crawler_names import CLAIM_MARKS


class LogFormat(StrEnum):
    """The formats read (`--log-format`); AUTO: each file's own, from its first lines."""

    AUTO = "auto"
    COMBINED = "combined"
    COMMON = "common"
    VHOST_COMBINED = "vhost-combined"
    JSON = "json"  # JSON lines, the nginx preset's field names unless --log-field says others
    CADDY = "caddy"  # JSON lines as Caddy writes them

    @property
    def text(self) -> bool:
        """A format of the Apache kind (read by a regular expression)."""
        return self in (LogFormat.COMBINED, LogFormat.COMMON, LogFormat.VHOST_COMBINED)


# --- the text formats ----------------------------------------------------------------------
# Each field bounded, each quantifier possessive: a hostile line costs one pass, never a
# backtracking search. A quoted field holds escapes (Apache writes `\"`, nginx `\x22`).
_HOST = rb"\S{1,255}+"
_MONTH = rb"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)"
_TIME = rb"\[(\d\d/" + _MONTH + rb"/\d{4}:\d\d:\d\d:\d\d [+-]\d{4})\]"
_QUOTED = rb'"((?>[^"\\\n]{0,16384}+(?:\\.[^"\\\n]{0,16384}+){0,256}+))"'
_STATUS = rb"(\d{3})"
_COMMON = (
    rb"("
    + _HOST
    + rb") "
    + _HOST
    + rb" "
    + _HOST
    + rb" "
    + _TIME
    + rb" "
    + _QUOTED
    + rb" "
    + _STATUS
    + rb" (?:\d{1,20}+|-)"
)
_AGENTS = rb" " + _QUOTED + rb" " + _QUOTED
_TAIL = rb"(?:[ \t][^\n]{0,16384}+)?\r?"  # fields some servers add after the format's own


def _without_marks() -> bytes:
    """A quoted user agent that holds no claim's mark (CLAIM_MARKS), as one possessive pass.

    Runs of characters that cannot start a mark, each other character allowed when no mark
    starts there: `G(?!oogle)`, `b(?!ingbot)`.
    """
    firsts = sorted({mark[:1] for mark in CLAIM_MARKS})
    other = rb'[^"\\\n' + b"".join(firsts) + rb"]{0,16384}+"
    starts = b"|".join(
        re.escape(first)
        + rb"(?!"
        + b"|".join(re.escape(mark[1:]) for mark in CLAIM_MARKS if mark[:1] == first)
        + rb")"
        for first in firsts
    )
    return rb'"(?>' + other + rb"(?:(?:\\.|" + starts + rb")" + other + rb'){0,16384}+)"'


_CLEAN_AGENTS = rb" " + _QUOTED + rb" " + _without_marks()


@dataclass(frozen=True, slots=True)
class TextPattern:
    """A text format's patterns: one line with its fields; the plain lines of a block.

    `clean` matches a line's end then a whole valid line whose user agent holds no claim's
    mark, one line a match: a block's plain lines are all removed by one call (re.subn, see
    log_feed.clean_block), and what is left is the lines to read field by field (claims) and
    the bad lines. It starts with the line's end, not `^`: the regex engine then skips to the
    next line's end at once where a line is no plain one, instead of trying each of its bytes.
    `groups`: the group numbers of (virtual host, address, time, request, status, user agent);
    0 where there is none.
    """

    line: re.Pattern[bytes]
    clean: re.Pattern[bytes]
    groups: tuple[int, int, int, int, int, int]
    # Every valid line of a block: the line (group 1), then its fields' groups (re.findall).
    rows: re.Pattern[bytes]


def _pattern(body: bytes, plain: bytes, groups: tuple[int, int, int, int, int, int]) -> TextPattern:
    line = re.compile(body + _TAIL + rb"\Z")
    bare = re.sub(rb"\((?!\?)", b"(?:", plain)  # no group: nothing is kept of a plain line
    rows = re.compile(rb"^(" + body + rb")" + _TAIL + rb"$", re.MULTILINE)
    clean = re.compile(rb"\n" + bare + _TAIL + rb"(?=\n)")
    return TextPattern(line, clean, groups, rows)


_VHOST = rb"(" + _HOST + rb") "
TEXT_PATTERNS: Mapping[LogFormat, TextPattern] = MappingProxyType(
    {
        LogFormat.COMMON: _pattern(_COMMON, _COMMON, (0, 1, 2, 3, 4, 0)),
        LogFormat.COMBINED: _pattern(
            _COMMON + _AGENTS, _COMMON + _CLEAN_AGENTS, (0, 1, 2, 3, 4, 6)
        ),
        LogFormat.VHOST_COMBINED: _pattern(
            _VHOST + _COMMON + _AGENTS, _VHOST + _COMMON + _CLEAN_AGENTS, (1, 2, 3, 4, 5, 7)
        ),
    }
)
# The order a file's format is tried in: the most fields first (a combined line is also a
# common one).
_SNIFF_ORDER = (LogFormat.VHOST_COMBINED, LogFormat.COMBINED, LogFormat.COMMON, LogFormat.JSON)


# --- JSON lines ----------------------------------------------------------------------------


class LogField(StrEnum):
    """What a JSON line's fields say; `--log-field NAME=KEY` names the key of one."""

    ADDRESS = "ip"
    TIME = "time"
    REQUEST = "request"  # "GET /path HTTP/1.1", where method and target are not apart
    METHOD = "method"
    TARGET = "target"
    STATUS = "status"
    AGENT = "ua"
    HOST = "host"


Path = tuple[str, ...]  # the keys from the object to a value: ("request", "headers", "User-Agent")


@dataclass(frozen=True, slots=True)
class FieldMap:
    """Where each field is in a JSON line: the paths tried, first present wins."""

    paths: Mapping[LogField, tuple[Path, ...]]

    def overridden(self, given: Mapping[LogField, Path]) -> FieldMap:
        """This map with the user's own keys (`--log-field`) first."""
        paths = dict(self.paths)
        for name, path in given.items():
            paths[name] = (path,)
        return FieldMap(MappingProxyType(paths))

    def value(self, document: Mapping[str, object], name: LogField) -> object:
        """The field's value in a line's object (None when absent); a list gives its first."""
        for path in self.paths.get(name, ()):
            value: object = document
            for key in path:
                if not isinstance(value, dict):
                    value = None
                    break
                value = value.get(key)
            if isinstance(value, list):
                value = value[0] if value else None
            if value is not None:
                return value
        return None


def _paths(**fields: str) -> FieldMap:
    return FieldMap(
        MappingProxyType(
            {
                LogField(name): tuple(tuple(alt.split(".")) for alt in spec.split("|"))
                for name, spec in fields.items()
            }
        )
    )


# nginx: the keys are whatever `log_format ... escape=json` names them; these are the names of
# the variables they hold, as the usual configurations write them (`"remote_addr":
# "$remote_addr"`, `"http_user_agent": "$http_user_agent"`).
NGINX_FIELDS = _paths(
    ip="remote_addr|client_ip|ip",
    time="time_iso8601|time_local|msec|timestamp|time|@timestamp",
    request="request",
    method="request_method|method",
    target="request_uri|uri|path",
    status="status",
    ua="http_user_agent|user_agent",
    host="host|http_host|server_name|vhost",
)
# Caddy: `request.client_ip` (the client behind trusted proxies) or `request.remote_ip`, the
# Unix time in `ts`, the request's headers as lists (caddyserver.com, "log" directive).
CADDY_FIELDS = _paths(
    ip="request.client_ip|request.remote_ip",
    time="ts",
    method="request.method",
    target="request.uri",
    status="status",
    ua="request.headers.User-Agent",
    host="request.host",
)
PRESETS: Mapping[LogFormat, FieldMap] = MappingProxyType(
    {LogFormat.JSON: NGINX_FIELDS, LogFormat.CADDY: CADDY_FIELDS}
)


def json_object(line: bytes) -> dict[str, object] | None:
    """A JSON line's object; None when the line is no JSON object."""
    try:
        document = orjson.loads(line)
    except orjson.JSONDecodeError:
        return None
    return document if isinstance(document, dict) else None


def _json_kind(line: bytes) -> LogFormat | None:
    document = json_object(line)
    if document is None:
        return None
    request = document.get("request")
    if isinstance(request, dict) and "uri" in request:
        return LogFormat.CADDY
    return LogFormat.JSON


# --- which format a file is ----------------------------------------------------------------

SNIFF_LINES = 32  # non-empty lines a file's format is judged on


def sniff_format(lines: Sequence[bytes], *, given: LogFormat) -> LogFormat | None:
    """The format of a file whose first non-empty lines are `lines`; None: not a log of it.

    `given`: the format asked for (`--log-format`), or AUTO. A file is of a format when at
    least half of its first lines are lines of it (a log may start with a bad line or two).
    """
    if not lines:
        return None
    candidates = _SNIFF_ORDER if given is LogFormat.AUTO else (given,)
    for candidate in candidates:
        kinds = [_kind(line, candidate) for line in lines]
        matching = [kind for kind in kinds if kind is not None]
        if matching and 2 * len(matching) >= len(lines):
            return (
                matching[0]
                if candidate is LogFormat.JSON and given is LogFormat.AUTO
                else candidate
            )
    return None


def _kind(line: bytes, candidate: LogFormat) -> LogFormat | None:
    """The format `line` is a line of, when it is one of `candidate`'s."""
    if candidate.text:
        return candidate if TEXT_PATTERNS[candidate].line.match(line.rstrip(b"\n")) else None
    kind = _json_kind(line)
    if kind is None:
        return None
    return kind if candidate is LogFormat.JSON else candidate
