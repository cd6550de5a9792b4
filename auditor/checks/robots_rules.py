"""Robots rules of a page: `<meta name="robots">` contents and `X-Robots-Tag` values.

Google (Search Central, "Robots meta tag, data-nosnippet, and X-Robots-Tag specifications"):
`noindex`, `none` (noindex, nofollow), and `unavailable_after: <date>` ("Do not show this page
in search results after the specified date/time"), for every crawler or, with a user agent's
prefix in the header, for that one (docs/explanation/rules.md#noindex, #unavailable-after).
Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from email.utils import parsedate_to_datetime

# Robots rules that stop indexing (Google: noindex, or none = noindex, nofollow), and those
# that stop a crawler following the page's links (nofollow, or none).
NOINDEX_RULES = frozenset({"noindex", "none"})
NOFOLLOW_RULES = frozenset({"nofollow", "none"})
_UNAVAILABLE_AFTER = re.compile(r"\s*unavailable_after\s*:\s*(.*)", re.IGNORECASE | re.DOTALL)
# An X-Robots-Tag value may start with the user agent it is for ("googlebot: noindex").
_AGENT_PREFIX = re.compile(r"\s*([a-z0-9_-]+)\s*:\s*(.*)", re.IGNORECASE | re.DOTALL)
# Rule names that take a value after a colon: not user agents.
_VALUED_RULES = frozenset(
    {"unavailable_after", "max-snippet", "max-image-preview", "max-video-preview"}
    | {"indexifembedded"}
)
# A moment written without its zone is taken at its latest (a day ends last at UTC-12), and a
# date at its last moment: "in the past" is never said too early.
_LATEST_ZONE = timezone(timedelta(hours=-12))
_DATE_CHARS = len("YYYY-MM-DD")


@dataclass(frozen=True, slots=True)
class RobotsRules:
    """What robots rules say: noindex, an `unavailable_after` date as written, nofollow."""

    noindex: bool = False
    unavailable_after: str | None = None
    nofollow: bool = False  # the crawl follows none of the page's links (auditor.wings.crawl.links)

    def __or__(self, other: RobotsRules) -> RobotsRules:
        return RobotsRules(
            self.noindex or other.noindex,
            self.unavailable_after or other.unavailable_after,
            self.nofollow or other.nofollow,
        )

    def expired(self, now: datetime) -> bool:
        """Whether the `unavailable_after` date has passed: Google drops the page then."""
        if self.unavailable_after is None:
            return False
        moment = parse_robots_date(self.unavailable_after)
        return moment is not None and moment < now


NO_RULES = RobotsRules()


def robots_rules(content: str) -> RobotsRules:
    """The rules of one robots meta's content or X-Robots-Tag value (comma-separated).

    An `unavailable_after` date may itself hold commas ("Friday, 25-Jun-10 15:00:00 PST"): the
    longest run of parts after it that reads as a date is its date.
    """
    parts = content.split(",")
    noindex, unavailable, nofollow = False, None, False
    for index, part in enumerate(parts):
        rule = part.strip().lower()
        nofollow = nofollow or rule in NOFOLLOW_RULES
        if rule in NOINDEX_RULES:
            noindex = True
        elif unavailable is None and (dated := _UNAVAILABLE_AFTER.fullmatch(part)) is not None:
            unavailable = _longest_date([dated[1], *parts[index + 1 :]])
    return RobotsRules(noindex, unavailable, nofollow)


def _longest_date(parts: list[str]) -> str | None:
    """The longest run of comma-separated parts, from the first, that reads as a date."""
    for count in range(len(parts), 0, -1):
        text = ",".join(parts[:count]).strip()
        if text and parse_robots_date(text) is not None:
            return text
    return None


def parse_robots_date(text: str) -> datetime | None:
    """An `unavailable_after` date, at the latest moment it can mean (None: unreadable).

    Google: "in a widely adopted format including, but not limited to RFC 822, RFC 850, and ISO
    8601".
    """
    try:
        moment = parsedate_to_datetime(text)  # RFC 822, RFC 850 (and RFC 2822)
    except (TypeError, ValueError, IndexError):
        try:
            moment = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))  # ISO 8601
        except ValueError:
            return None
    if moment.tzinfo is None:
        if len(text.strip()) <= _DATE_CHARS:
            moment += timedelta(days=1)  # a date: up to its last moment
        moment = moment.replace(tzinfo=_LATEST_ZONE)
    return moment


def header_robots(values: Iterable[str], agents: frozenset[str]) -> RobotsRules:
    """What X-Robots-Tag values say to everyone or to one of `agents` (lower-case).

    Google: `X-Robots-Tag: noindex` applies to every crawler; `googlebot: noindex` to Googlebot
    only.
    """
    said = NO_RULES
    for value in values:
        rules = value
        prefix = _AGENT_PREFIX.fullmatch(value)
        if prefix is not None and prefix[1].lower() not in _VALUED_RULES:
            if prefix[1].lower() not in agents:
                continue
            rules = prefix[2]
        said = said | robots_rules(rules)
    return said


def header_noindex(values: Iterable[str], agents: frozenset[str]) -> bool:
    """Whether X-Robots-Tag values forbid indexing to everyone or to one of `agents`."""
    return header_robots(values, agents).noindex
