"""robots.txt: `Sitemap:` lines (ours, to report relative ones) and rules (protego, Google-style).

Pure: no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from urllib.parse import urljoin

from protego import Protego

from auditor.codes import Code
from auditor.errors import FetchError
from auditor.models import Finding, JsonScalar, Redirect, finding
from auditor.urls import parse_http_url

_SITEMAP_LINE = re.compile(r"\s*sitemap\s*:\s*(?P<value>[^#]*)", re.IGNORECASE)
# Lines that cannot forbid a URL: a robots.txt made only of these allows everything, and its
# URLs skip the rule matching (once per URL checked). Any other line keeps protego's answer.
_HARMLESS_LINE = re.compile(
    r"\s*(?:#.*|(?:user-?agent|allow|sitemap|crawl-delay|host)\s*:.*|disallow\s*:\s*(?:#.*)?)?",
    re.IGNORECASE,
)
# A Disallow of plain characters: protego's quoting leaves it, and the start of a path without
# `%`, as they are, so "this path starts with none of them" is its answer too.
_PLAIN_DISALLOW = re.compile(r"\s*disallow\s*:\s*([A-Za-z0-9/_.~-]+)\s*(?:#.*)?", re.IGNORECASE)
# A User-agent value that goes on past its product token ("Googlebot/2.1"): Google's parser
# keeps the leading [a-zA-Z_-] characters only (google/robotstxt, robots.cc, ExtractUserAgent).
_AGENT_LINE = re.compile(
    r"^(?P<key>[ \t]*user[- ]?agent[ \t]*:?[ \t]*)(?P<token>[A-Za-z_-]+)(?P<rest>[^#\r\n]*)",
    re.IGNORECASE | re.MULTILINE,
)


@dataclass(frozen=True, slots=True)
class SitemapDirective:
    """One `Sitemap:` line: the value as written and the absolute URL it means (None: unusable)."""

    line: int
    value: str
    url: str | None
    relative: bool


@dataclass(frozen=True, slots=True)
class RobotsTxt:
    """A parsed robots.txt; `rules` is None when they were not kept (see `without_rules`)."""

    url: str
    sitemaps: tuple[SitemapDirective, ...]
    sitemap_keys: frozenset[str]  # the normalised URLs of `sitemaps`, for cross-submission
    rules: Protego | None
    # The Disallow values of every group when all are plain (a URL whose path starts with none
    # of them is allowed, whatever its group); None: protego decides every URL.
    blocking: tuple[str, ...] | None = None
    # The file could not be read (5xx, 429, no answer): everything is disallowed (see
    # `unreachable`); the status it answered, when it answered.
    disallow_all: bool = False
    status: int | None = None

    @classmethod
    def unreachable(cls, url: str, *, status: int | None = None) -> RobotsTxt:
        """A robots.txt that could not be read: complete disallow.

        RFC 9309 §2.3.1.4: "If the robots.txt file is unreachable due to server or network
        errors, [...] the crawler MUST assume complete disallow." Google (Search Central, "How
        Google interprets the robots.txt specification") stops crawling the site, and treats 429
        as a server error (docs/explanation/rules.md#robots-status).
        """
        return cls(url, (), frozenset(), None, disallow_all=True, status=status)

    @property
    def silent(self) -> bool:
        """Unreachable without an answer (a timeout).

        A URL of its host that gets no answer either is not blocked for it (the URL's own
        failure says the same); one that does get an answer is.
        """
        return self.disallow_all and self.status is None

    @property
    def may_block(self) -> bool:
        """Whether any line of it can forbid a URL."""
        return self.disallow_all or self.blocking != ()

    def allows(self, url: str, agent: str) -> bool:
        """Whether `agent` (its group, else `*`) may fetch `url` (longest match, `*` and `$`)."""
        if self.disallow_all:
            return _plain_path(url) == "/robots.txt"  # RFC 9309 §2.2.2: always allowed
        if self.rules is None or self.blocking == ():
            return True
        if self.blocking is not None:
            path = _plain_path(url)
            if path is not None and not path.startswith(self.blocking):
                return True  # checked once per URL: most sites forbid a few folders, plainly
        return bool(self.rules.can_fetch(url, agent))

    def names_any(self, keys: frozenset[str]) -> bool:
        """Whether a `Sitemap:` line names one of these normalised URLs (cross-submission)."""
        return not self.sitemap_keys.isdisjoint(keys)

    def without_rules(self) -> RobotsTxt:
        """Only what cross-submission needs: a large rule set costs megabytes once parsed."""
        return replace(self, sitemaps=(), rules=None)


def robots_detail(robots: RobotsTxt, *, agent: str) -> dict[str, JsonScalar]:
    """The detail of a finding that `robots` blocks a URL for `agent`: which file, and why."""
    said: dict[str, JsonScalar] = {"robots": robots.url, "agent": agent}
    if robots.disallow_all:
        said["unreachable"] = True
        if robots.status is not None:
            said["robots_status"] = robots.status
    return said


def parse_robots(text: str, *, url: str, rules: bool = True) -> RobotsTxt:
    """Parse robots.txt text fetched from `url` (its rules too, unless `rules` is False).

    `Sitemap:` lines are independent of user-agent groups and may repeat (sitemaps.org); a
    relative value is resolved against the robots.txt URL, as Google does, and marked.
    """
    lines: list[SitemapDirective] = []
    keys: set[str] = set()
    for number, raw in enumerate(text.splitlines(), start=1):
        match = _SITEMAP_LINE.match(raw)
        if match is None or not (value := match["value"].strip()):
            continue
        parsed = parse_http_url(value)
        if parsed is not None:
            lines.append(SitemapDirective(number, value, value, relative=False))
            keys.add(parsed.key)
            continue
        resolved = parse_http_url(urljoin(url, value)) if "://" not in value else None
        if resolved is None:
            lines.append(SitemapDirective(number, value, None, relative=False))
            continue
        lines.append(SitemapDirective(number, value, urljoin(url, value), relative=True))
        keys.add(resolved.key)
    kept = Protego.parse(_product_tokens(text)) if rules else None
    return RobotsTxt(url, tuple(lines), frozenset(keys), kept, blocking=_blocking(text))


def _product_tokens(text: str) -> str:
    """User-agent values cut to their product token, as Google's parser reads them.

    "User-agent: Googlebot/2.1" is Googlebot's group (google/robotstxt, robots.cc:
    ExtractUserAgent keeps the leading [a-zA-Z_-]); protego would look for "googlebot/2.1".
    RFC 9309 §2.2.1: the product token is those characters (docs/explanation/rules.md#robots-agent).
    """
    return _AGENT_LINE.sub(_product_token, text)


def _product_token(line: re.Match[str]) -> str:
    if not line["rest"].strip():
        return line[0]
    return line["key"] + line["token"]


def _blocking(text: str) -> tuple[str, ...] | None:
    """The plain Disallow values of the file; None when some line may forbid otherwise."""
    found: list[str] = []
    for line in text.splitlines():
        if _HARMLESS_LINE.fullmatch(line) is not None:
            continue
        plain = _PLAIN_DISALLOW.fullmatch(line)
        if plain is None:
            return None
        found.append(plain[1])
    return tuple(found)


def _plain_path(url: str) -> str | None:
    """What follows the authority of an absolute URL, from its first `/`.

    None without one, or with a `%` (percent-encoding is protego's to decode).
    """
    start = url.find("/", url.find("//") + 2)
    if start < 0 or "%" in url:
        return None
    return url[start:]


@dataclass(frozen=True, slots=True)
class RobotsFetch:
    """What fetching one robots.txt gave: rules when it answered 2xx, a problem when it failed."""

    url: str
    status: int | None = None
    robots: RobotsTxt | None = None  # None: no rules (a 4xx); RobotsTxt.unreachable: disallow all
    problem: Finding | None = None  # robots.unreachable, or the redirect that could not be followed
    error: FetchError | None = None  # no answer at all: why (the target's own finding)
    bytes: int = 0
    final_url: str | None = None
    redirects: tuple[Redirect, ...] = ()
    elapsed_ms: int | None = None


def robots_findings(fetched: RobotsFetch) -> list[Finding]:
    """What a robots.txt read tells about discovery (docs/reference/codes.md#robots)."""
    if fetched.problem is not None:
        return [fetched.problem]
    robots = fetched.robots
    if robots is None or not robots.sitemaps:
        return [finding(Code.ROBOTS_NO_SITEMAP, url=fetched.url, status=fetched.status)]
    found: list[Finding] = []
    for line in robots.sitemaps:
        if line.url is None:
            message = "robots.txt Sitemap: value is not an http(s) URL"
            code = Code.LOC_INVALID
            found.append(finding(code, message, url=line.value, line=line.line, value=line.value))
        elif line.relative:
            code = Code.ROBOTS_RELATIVE_SITEMAP
            found.append(finding(code, url=line.url, line=line.line, value=line.value))
    return found
