"""Video sitemaps: `<video:video>` items of an entry (Google Search Central, "Video sitemaps").

Required: thumbnail_loc, title, description, and content_loc or player_loc, neither "the same as
the URL in the parent <loc> tag". duration 1 to 28,800 seconds; rating 0.0 to 5.0; dates a
complete date or with time and zone; family_friendly, requires_subscription, live yes or no;
restriction ISO 3166 codes and platform web/mobile/tv, each with a required relationship
allow|deny; at most 32 tags; description at most 2,048 characters (title 100: sitemap-video.xsd
only, a notice); uploader at most 255, its info URL "in the same domain as the <loc> tag".
Deprecated 2022-05-06: category, gallery_loc, price, tvshow, player_loc's autoplay and
allow_embed. Pure: no I/O.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from auditor.codes import Code
from auditor.models import Finding
from auditor.sitemap.dates import parse_lastmod
from auditor.sitemap.extensions.iso_codes import ISO_3166_1
from auditor.sitemap.extensions.items import ItemFindings, absolute, shown
from auditor.sitemap.parse.events import MediaItem
from auditor.urls import HttpUrl

REQUIRED = ("thumbnail_loc", "title", "description")
KNOWN = frozenset(
    {"thumbnail_loc", "title", "description", "content_loc", "player_loc", "duration"}
    | {"expiration_date", "rating", "view_count", "publication_date", "family_friendly"}
    | {"restriction", "platform", "requires_subscription", "uploader", "live"}
)
# Deprecated in 2022, and id / content_segment_loc: in the XSD, never documented.
DEPRECATED = frozenset(
    {"category", "gallery_loc", "price", "tvshow", "id", "content_segment_loc"}
    | {"player_loc@autoplay", "player_loc@allow_embed"}
)
MAX_DURATION_S = 28_800
MAX_TAGS = 32
MAX_TITLE_CHARS = 100
MAX_DESCRIPTION_CHARS = 2048
MAX_UPLOADER_CHARS = 255
FLAGS = ("family_friendly", "requires_subscription", "live")
PLATFORMS = frozenset({"web", "mobile", "tv"})
RELATIONSHIPS = frozenset({"allow", "deny"})
_RATING = re.compile(r"[0-9]+(?:\.[0-9]+)?|\.[0-9]+")
_DAY_CHARS = len("YYYY-MM-DD")


def validate_videos(
    items: list[MediaItem], *, loc: str, page: HttpUrl | None, sitemap: str, now: datetime
) -> list[Finding]:
    """The rules of one entry's videos."""
    said = ItemFindings(loc=loc, sitemap=sitemap)
    for item in items:
        said.structure(item, known=KNOWN, deprecated=DEPRECATED)
        said.missing(item, Code.VIDEO_MISSING_TAG, REQUIRED)
        values = item.values
        if not (values.get("content_loc") or values.get("player_loc")):
            said.say(Code.VIDEO_MISSING_TAG, "content_loc|player_loc", tag="video:content_loc")
        _locations(said, item, page)
        _numbers(said, item)
        _dates(said, item, now=now)
        _lists(said, item)
        _texts(said, item, page)
    return said.found


def _locations(said: ItemFindings, item: MediaItem, page: HttpUrl | None) -> None:
    for path in ("thumbnail_loc", "content_loc", "player_loc"):
        value = item.values.get(path)
        if not value:
            continue
        schemes = ("http", "https", "ftp") if path == "content_loc" else ("http", "https")
        url = absolute(value, schemes=schemes)
        if url is None:  # "accessible on a supported protocol: HTTP and FTP"
            said.say(Code.VIDEO_LOC_INVALID, path, tag=f"video:{path}", value=shown(value))
        elif path != "thumbnail_loc" and page is not None and url.key == page.key:
            said.say(Code.VIDEO_LOC_SAME_AS_PAGE, path, tag=f"video:{path}")


def _numbers(said: ItemFindings, item: MediaItem) -> None:
    duration = item.values.get("duration")
    if duration is not None and not (
        duration.isascii() and duration.isdigit() and 1 <= int(duration) <= MAX_DURATION_S
    ):
        said.say(Code.VIDEO_DURATION_INVALID, duration, value=shown(duration))
    rating = item.values.get("rating")
    if rating is not None and not (_RATING.fullmatch(rating) and 0.0 <= float(rating) <= 5.0):
        said.say(Code.VIDEO_RATING_INVALID, rating, value=shown(rating))
    for path in FLAGS:
        flag = item.values.get(path)
        if flag is not None and flag.lower() not in ("yes", "no"):
            said.say(Code.VIDEO_FLAG_INVALID, path, tag=f"video:{path}", value=shown(flag))
    if item.tags > MAX_TAGS:
        said.say(Code.VIDEO_TOO_MANY_TAGS, count=item.tags, limit=MAX_TAGS)


def _dates(said: ItemFindings, item: MediaItem, *, now: datetime) -> None:
    for path in ("publication_date", "expiration_date"):
        value = item.values.get(path)
        if value is None:
            continue
        parsed = parse_lastmod(value)
        if parsed is None or not parsed.w3c_valid or len(value) < _DAY_CHARS:
            said.say(Code.VIDEO_DATE_INVALID, path, tag=f"video:{path}", value=shown(value))
        elif path == "expiration_date":
            spread = timedelta(hours=50) if len(value) == _DAY_CHARS else timedelta()
            if parsed.earliest + spread < now:  # "Google Search won't show your video after"
                said.say(Code.VIDEO_EXPIRED, value, value=shown(value))


def _lists(said: ItemFindings, item: MediaItem) -> None:
    for path, code in (
        ("restriction", Code.VIDEO_RESTRICTION_INVALID),
        ("platform", Code.VIDEO_PLATFORM_INVALID),
    ):
        value = item.values.get(path)
        if value is None:
            continue
        relationship = item.values.get(f"{path}@relationship", "")
        words = value.split()
        known = ISO_3166_1 if path == "restriction" else PLATFORMS
        wrong = [
            word for word in words if (word.upper() if path == "restriction" else word) not in known
        ]
        if relationship not in RELATIONSHIPS or wrong:
            detail = (
                {"relationship": shown(relationship)} if relationship not in RELATIONSHIPS else {}
            )
            said.say(code, path, value=shown(value), **detail)


def _texts(said: ItemFindings, item: MediaItem, page: HttpUrl | None) -> None:
    title, description = item.values.get("title", ""), item.values.get("description", "")
    if len(title) > MAX_TITLE_CHARS:
        said.say(Code.VIDEO_TITLE_TOO_LONG, length=len(title), limit=MAX_TITLE_CHARS)
    if len(description) > MAX_DESCRIPTION_CHARS:
        said.say(
            Code.VIDEO_DESCRIPTION_TOO_LONG, length=len(description), limit=MAX_DESCRIPTION_CHARS
        )
    uploader = item.values.get("uploader", "")
    if len(uploader) > MAX_UPLOADER_CHARS:
        said.say(Code.VIDEO_UPLOADER_INVALID, "length", length=len(uploader))
    info = absolute(item.values.get("uploader@info"))
    if info is not None and page is not None and _site(info) != _site(page):
        said.say(Code.VIDEO_UPLOADER_INVALID, "info", info=shown(info.origin))


def _site(url: HttpUrl) -> str:
    return url.host.removeprefix("www.")
