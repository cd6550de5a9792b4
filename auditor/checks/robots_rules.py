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
# A part of an X-Robots-Tag value may start with the user agent its rules are for
# ("googlebot: noindex"): a product token (RFC 9309 §2.2.1: letters, "_" and "-"; digits after
# the first letter, as in "googlebot-image2"), then a colon. A date's parts ("15:00:00") are none.
_AGENT_PREFIX = re.compile(r"\s*([a-z][a-z0-9_-]*)\s*:\s*(.*)", re.IGNORECASE | re.DOTALL)
# A part that is one rule, bare or with its value after a colon (`nofollow`, `max-snippet: 20`).
_RULE = re.compile(r"\s*[a-z][a-z0-9_-]*\s*(?::.*)?", re.IGNORECASE | re.DOTALL)
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
    """The longest run of comma-separated parts, from the first, that reads as a date.

    The run ends before a part that reads as a rule (`nofollow`, `max-snippet: 20`): a date's
    later parts hold digits or several words, and a lenient date reader would otherwise take
    `25 Jun 2010 15:00:00 PST, nofollow` for a date and drop its zone.
    """
    end = next((at for at, part in enumerate(parts[1:], 1) if _RULE.fullmatch(part)), len(parts))
    for count in range(end, 0, -1):
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
    only, and a user agent's prefix applies to the rules after it (`otherbot: noindex,
    nofollow`). One line may hold several agents' rules: RFC 9110 §5.3 lets a proxy merge field
    lines into one, commas between them (`otherbot: noarchive, googlebot: noindex`).
    """
    said = NO_RULES
    for value in values:
        for agent, rules in agent_runs(value):
            if agent is None or agent in agents:
                said = said | robots_rules(rules)
    return said


def agent_runs(value: str) -> list[tuple[str | None, str]]:
    """One X-Robots-Tag value cut where a user agent's prefix starts a run of rules.

    Each run: the agent it is for (lower-case; None: every crawler, before the first prefix)
    and its rules, comma-separated, as `robots_rules` reads them. A rule that takes a value
    after its colon (`unavailable_after: ...`, `max-snippet: 20`) is no prefix, and the commas
    and colons of an `unavailable_after` date start no run.
    """
    runs: list[tuple[str | None, str]] = []
    agent: str | None = None
    parts: list[str] = []
    for part in value.split(","):
        prefix = _AGENT_PREFIX.fullmatch(part)
        if prefix is None or prefix[1].lower() in _VALUED_RULES:
            parts.append(part)
            continue
        if parts:
            runs.append((agent, ",".join(parts)))
        agent, parts = prefix[1].lower(), [prefix[2]]
    runs.append((agent, ",".join(parts)))
    return runs


def header_noindex(values: Iterable[str], agents: frozenset[str]) -> bool:
    """Whether X-Robots-Tag values forbid indexing to everyone or to one of `agents`."""
    return header_robots(values, agents).noindex
