"""robots.txt: `Sitemap:` lines (ours, to report relative ones) and rules (protego, Google-style).

Pure: no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urljoin

from protego import Protego

from auditor.urls import parse_http_url

# Google reads the first 500 KiB of a robots.txt and ignores the rest (RFC 9309 §2.5 allows it).
ROBOTS_MAX_BYTES = 500 * 1024
_SITEMAP_LINE = re.compile(r"\s*sitemap\s*:\s*(?P<value>[^#]*)", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class SitemapLine:
    """One `Sitemap:` line: the value as written and the absolute URL it means (None: unusable)."""

    line: int
    value: str
    url: str | None
    relative: bool


@dataclass(frozen=True, slots=True)
class RobotsTxt:
    """A parsed robots.txt."""

    url: str
    sitemaps: tuple[SitemapLine, ...]
    rules: Protego

    def allows(self, url: str, agent: str) -> bool:
        """Whether `agent` (its group, else `*`) may fetch `url` (longest match, `*` and `$`)."""
        return bool(self.rules.can_fetch(url, agent))

    def names_any(self, keys: frozenset[str]) -> bool:
        """Whether a `Sitemap:` line names one of these normalised URLs (cross-submission)."""
        for line in self.sitemaps:
            parsed = parse_http_url(line.url) if line.url else None
            if parsed is not None and parsed.key in keys:
                return True
        return False


def parse_robots(text: str, *, url: str) -> RobotsTxt:
    """Parse robots.txt text fetched from `url`.

    `Sitemap:` lines are independent of user-agent groups and may repeat (sitemaps.org); a
    relative value is resolved against the robots.txt URL, as Google does, and marked.
    """
    lines: list[SitemapLine] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        match = _SITEMAP_LINE.match(raw)
        if match is None:
            continue
        value = match["value"].strip()
        if not value:
            continue
        if parse_http_url(value) is not None:
            lines.append(SitemapLine(number, value, value, relative=False))
            continue
        resolved = urljoin(url, value)
        usable = parse_http_url(resolved) is not None and "://" not in value
        lines.append(SitemapLine(number, value, resolved if usable else None, relative=usable))
    return RobotsTxt(url, tuple(lines), Protego.parse(text))
