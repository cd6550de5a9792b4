"""`--remap 'REGEX REPLACEMENT'`: the URL a request is sent to, for the URL a sitemap names.

lychee's form (lychee-lib, remap.rs): rules are tried in their order, the first whose pattern
matches the URL rewrites every match in it, and `$1`, `${1}`, `$name`, `${name}` in the
replacement name the pattern's groups (`$$` is a `$`). The result must be an absolute http(s)
URL. Applied once, where a URL is handed to a transport (auditor.net.opener): every request
of a run (robots.txt, sitemaps, listed URLs, each redirect's next hop, canonicals, hreflang
targets) goes where the rules say, while findings and reports keep naming the URL the site
names. Patterns are RE2's, linear in the URL (auditor.checks.url_patterns says why). Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

import re2

from auditor.urls import DEFAULT_PORTS, parse_http_url

# `$1`, `${1}`, `$name`, `${name}` and `$$`, as Rust's regex crate reads a replacement.
_GROUP = re.compile(r"\$(?:\$|\{(\w+)\}|(\w+))")


@dataclass(frozen=True, slots=True)
class RemapRule:
    """One rule: its pattern, and its replacement in Python's template form."""

    text: str  # as given: 'REGEX REPLACEMENT'
    pattern: re2._Regexp
    template: str


def parse_rule(text: str) -> RemapRule:
    """One `--remap` value; ValueError saying what is wrong with it."""
    parts = text.split()
    if len(parts) != 2:
        raise ValueError("wants 'REGEX REPLACEMENT': a pattern and a URL, apart by a space")
    pattern, replacement = parts
    options = re2.Options()
    options.log_errors = False
    try:
        compiled = re2.compile(pattern, options)
    except re2.error as exc:
        reason = exc.args[0] if exc.args else "not a pattern"
        said = reason.decode(errors="replace") if isinstance(reason, bytes) else str(reason)
        raise ValueError(f"{said} (RE2 syntax: no backreferences or lookarounds)") from None
    return RemapRule(text, compiled, _template(replacement))


def _template(replacement: str) -> str:
    """Rust's `$1` form as Python's `\\g<1>`; every other character stays as it is."""
    parts, start = [], 0
    for match in _GROUP.finditer(replacement):
        parts.append(replacement[start : match.start()].replace("\\", "\\\\"))
        name = match[1] or match[2]
        parts.append("$" if name is None else f"\\g<{name}>")
        start = match.end()
    parts.append(replacement[start:].replace("\\", "\\\\"))
    return "".join(parts)


class Remap:
    """A run's rules; `requested(url)` the URL to send a request to."""

    def __init__(self, rules: Iterable[RemapRule] = ()) -> None:
        """Rules tried in their order (none: every URL is requested as it is)."""
        self.rules = tuple(rules)

    @classmethod
    def of(cls, texts: Iterable[str]) -> Remap:
        """The rules of `--remap` values (ValueError for one that is not a rule)."""
        return cls(parse_rule(text) for text in texts)

    def __bool__(self) -> bool:
        return bool(self.rules)

    def requested(self, url: str) -> str:
        """Where a request for `url` goes; ValueError when a rule makes it no http(s) URL."""
        for rule in self.rules:
            after, count = rule.pattern.subn(rule.template, url)
            after = str(after)
            if count:
                if parse_http_url(after) is None:
                    raise ValueError(f"--remap {rule.text!r} made {url} into {after!r}")
                return after
        return url

    def shown(self, url: str) -> str | None:
        """The remapped URL to show beside `url`, when a rule changes it (None: none does)."""
        try:
            after = self.requested(url)
        except ValueError:
            return None
        return after if after != url else None


NO_REMAP = Remap()


def origin_rule(origin: str, base: str) -> str:
    """The rule sending every URL of `origin` (`https://docs.example.com`) to `base`.

    Its default port written or not; the rest of the URL (path, query, fragment) kept.
    """
    parsed = parse_http_url(origin + "/")
    if parsed is None:
        raise ValueError(f"not an http(s) origin: {origin!r}")
    default = DEFAULT_PORTS[parsed.scheme]
    host = re2.escape(f"[{parsed.host}]" if ":" in parsed.host else parsed.host)
    port = f"(?::{default})?" if parsed.port == default else f":{parsed.port}"
    # Scheme and host are case-insensitive (RFC 3986 §6.2.2.1): `HTTPS://Docs.Example.com/`.
    return f"^(?i:{parsed.scheme}://{host}){port}([/?#]|$) {base}$1"
