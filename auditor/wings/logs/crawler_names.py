"""Which crawler a user agent claims to be: Google's crawler family and Bingbot. Pure: no I/O.

A claim is only a claim: auditor.wings.logs.crawler_ranges says whether the address agrees
(docs/explanation/rules.md#verified-crawlers).
"""

from __future__ import annotations

import re
from enum import StrEnum


class Family(StrEnum):
    """Whose published address ranges verify a claim."""

    GOOGLE = "googlebot"  # googlebot.json: Google's common crawlers
    BING = "bingbot"  # bingbot.json


class Bot(StrEnum):
    """A crawler a log line's user agent names; its value is the token it is named by.

    Google's common crawlers (Google Search Central, "Google's common crawlers") crawl from
    the addresses of googlebot.json; Bingbot from those of bingbot.json.
    """

    GOOGLEBOT = "Googlebot"
    GOOGLEBOT_IMAGE = "Googlebot-Image"
    GOOGLEBOT_NEWS = "Googlebot-News"
    GOOGLEBOT_VIDEO = "Googlebot-Video"
    STOREBOT = "Storebot-Google"
    INSPECTION_TOOL = "Google-InspectionTool"
    GOOGLE_OTHER = "GoogleOther"
    BINGBOT = "bingbot"

    @property
    def family(self) -> Family:
        """Whose ranges verify it."""
        return Family.BING if self is Bot.BINGBOT else Family.GOOGLE

    @property
    def search(self) -> bool:
        """Whether it crawls for Google Search's index (a `crawl_log` hit counts only these).

        Storebot-Google crawls for Shopping, Google-InspectionTool answers Search Console's
        URL Inspection and the Rich Results Test when a person asks, GoogleOther fetches for
        Google's research and development: none of them is Search crawling a page.
        """
        return self in SEARCH

    @property
    def bit(self) -> int:
        """Its bit in a set of crawlers kept as an integer."""
        return BITS[self]


_ORDER = tuple(Bot)
BITS = {member: 1 << number for number, member in enumerate(_ORDER)}
# Google Search's own crawlers (a `crawl_log` hit counts only these: Bot.search).
SEARCH = frozenset({Bot.GOOGLEBOT, Bot.GOOGLEBOT_IMAGE, Bot.GOOGLEBOT_NEWS, Bot.GOOGLEBOT_VIDEO})
# Longer tokens first: "Googlebot-Image/1.0" names Googlebot-Image, not Googlebot. The tokens
# as Google and Bing write them (case matters, as it does to their own robots.txt parsers'
# user agent strings): "Googlebot/2.1", "bingbot/2.0".
_TOKEN = re.compile(
    rb"(Googlebot-Image|Googlebot-News|Googlebot-Video|Googlebot|Storebot-Google"
    rb"|Google-InspectionTool|GoogleOther|bingbot)"
)
_BY_TOKEN = {member.value.encode(): member for member in Bot}
# Every claim holds one of these: auditor.wings.logs.log_feed looks at the lines holding one,
# and only at those, for claims (a search for each is far cheaper than reading every line).
CLAIM_MARKS = (b"Google", b"bingbot")
_KEPT = 4096  # user agents remembered (a log has a few hundred distinct crawler ones)


class CrawlerNames:
    """User agent bytes -> the crawler it claims to be (or None), remembered."""

    def __init__(self) -> None:
        self._known: dict[bytes, Bot | None] = {}

    def claim(self, agent: bytes) -> Bot | None:
        """The crawler `agent` names; None when it names none of ours."""
        known = self._known
        if agent in known:
            return known[agent]
        if len(known) >= _KEPT:
            known.clear()
        found = _TOKEN.search(agent)
        crawler = known[agent] = _BY_TOKEN[found.group(1)] if found else None
        return crawler


def bits_names(bits: int) -> tuple[str, ...]:
    """The crawlers of a set kept as an integer (Bot.bit), in the enum's order."""
    return tuple(member.value for member in _ORDER if bits & BITS[member])
