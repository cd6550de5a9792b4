"""robots.txt: `Sitemap:` lines (ours, to report relative ones) and rules (protego, Google-style).

Pure: no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from urllib.parse import urljoin

from protego import Protego

from auditor.codes import Code
from auditor.models import Finding, Redirect, finding
from auditor.urls import parse_http_url

# Google reads the first 500 KiB of a robots.txt and ignores the rest (RFC 9309 §2.5 allows it).
ROBOTS_MAX_BYTES = 500 * 1024
# "Sitemap blocked by robots.txt" is Search Console's verdict: robots.txt as Googlebot reads it
# (its own group, else `*`), whatever User-Agent the auditor sends.
SEARCH_ENGINE_AGENT = "Googlebot"
_SITEMAP_LINE = re.compile(r"\s*sitemap\s*:\s*(?P<value>[^#]*)", re.IGNORECASE)
# Lines that cannot forbid a URL: a robots.txt made only of these allows everything, and its
# URLs skip the rule matching (once per URL checked). Any other line keeps protego's answer.
_HARMLESS_LINE = re.compile(
    r"\s*(?:#.*|(?:user-?agent|allow|sitemap|crawl-delay|host)\s*:.*|disallow\s*:\s*(?:#.*)?)?",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class SitemapLine:
    """One `Sitemap:` line: the value as written and the absolute URL it means (None: unusable)."""

    line: int
    value: str
    url: str | None
    relative: bool


@dataclass(frozen=True, slots=True)
class RobotsTxt:
    """A parsed robots.txt; `rules` is None when they were not kept (see `without_rules`)."""

    url: str
    sitemaps: tuple[SitemapLine, ...]
    sitemap_keys: frozenset[str]  # the normalised URLs of `sitemaps`, for cross-submission
    rules: Protego | None
    may_block: bool = True  # False: no line of it can forbid a URL

    def allows(self, url: str, agent: str = SEARCH_ENGINE_AGENT) -> bool:
        """Whether `agent` (its group, else `*`) may fetch `url` (longest match, `*` and `$`)."""
        return self.rules is None or not self.may_block or bool(self.rules.can_fetch(url, agent))

    def names_any(self, keys: frozenset[str]) -> bool:
        """Whether a `Sitemap:` line names one of these normalised URLs (cross-submission)."""
        return not self.sitemap_keys.isdisjoint(keys)

    def without_rules(self) -> RobotsTxt:
        """Only what cross-submission needs: a large rule set costs megabytes once parsed."""
        return replace(self, sitemaps=(), rules=None)


def parse_robots(text: str, *, url: str, rules: bool = True) -> RobotsTxt:
    """Parse robots.txt text fetched from `url` (its rules too, unless `rules` is False).

    `Sitemap:` lines are independent of user-agent groups and may repeat (sitemaps.org); a
    relative value is resolved against the robots.txt URL, as Google does, and marked.
    """
    lines: list[SitemapLine] = []
    keys: set[str] = set()
    for number, raw in enumerate(text.splitlines(), start=1):
        match = _SITEMAP_LINE.match(raw)
        if match is None or not (value := match["value"].strip()):
            continue
        parsed = parse_http_url(value)
        if parsed is not None:
            lines.append(SitemapLine(number, value, value, relative=False))
            keys.add(parsed.key)
            continue
        resolved = parse_http_url(urljoin(url, value)) if "://" not in value else None
        if resolved is None:
            lines.append(SitemapLine(number, value, None, relative=False))
            continue
        lines.append(SitemapLine(number, value, urljoin(url, value), relative=True))
        keys.add(resolved.key)
    may_block = any(_HARMLESS_LINE.fullmatch(line) is None for line in text.splitlines())
    kept = Protego.parse(text) if rules else None
    return RobotsTxt(url, tuple(lines), frozenset(keys), kept, may_block=may_block)


@dataclass(frozen=True, slots=True)
class RobotsFetch:
    """What fetching one robots.txt gave: rules when it answered 2xx, a problem when it failed."""

    url: str
    status: int | None = None
    robots: RobotsTxt | None = None
    problem: Finding | None = None  # robots.unreachable
    bytes: int = 0
    final_url: str | None = None
    redirects: tuple[Redirect, ...] = ()
    elapsed_ms: int | None = None


def robots_findings(fetched: RobotsFetch) -> list[Finding]:
    """What a robots.txt read tells about discovery (DESIGN §4 robots.*)."""
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
