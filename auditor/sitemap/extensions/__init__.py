"""An entry's sitemap extensions judged: hreflang, image, video and news (Google Search Central).

Each family's rules, with their sources, are in its module; what needs the whole run (return
links, alternates no sitemap lists) is auditor.wings.hreflang.link_store's. Pure: no I/O.
"""

from __future__ import annotations

from datetime import datetime
from typing import NamedTuple

from auditor.codes import Code
from auditor.models import ExtensionFacts, Finding, finding
from auditor.sitemap.extensions.hreflang import Cluster, read_alternates
from auditor.sitemap.extensions.image import validate_images
from auditor.sitemap.extensions.news import validate_news
from auditor.sitemap.extensions.video import validate_videos
from auditor.sitemap.parse.events import Extensions, MediaItem
from auditor.urls import HttpUrl

# Alternates the report keeps for a URL with an hreflang finding (all are judged): enough to
# explain it. A URL whose alternates are sound keeps their count only: at millions of URLs,
# repeating every cluster would multiply the report's size.
REPORTED_ALTERNATES = 16


class ExtensionVerdict(NamedTuple):
    """One entry's extensions judged: findings, the hreflang cluster, what the report keeps."""

    findings: tuple[Finding, ...]
    cluster: Cluster | None
    facts: ExtensionFacts
    news: int  # its news:news, for the sitemap's limit of 1,000


def validate_extensions(
    extensions: Extensions,
    *,
    loc: str,
    page: HttpUrl | None,
    digest: int,
    sitemap: str,
    now: datetime,
) -> ExtensionVerdict:
    """Every extension rule of one `<url>`: `loc` as written, `page` parsed, `digest` its key's."""
    found = [
        finding(Code.ENTRY_UNKNOWN_TAG, url=loc, sitemap=sitemap, tag=tag)
        for tag in extensions.unknown
    ]
    own = digest if page is not None else None
    hreflang, cluster = read_alternates(
        extensions.alternates, loc=loc, own_digest=own, sitemap=sitemap
    )
    found += hreflang
    shown = extensions.alternates[:REPORTED_ALTERNATES] if hreflang else ()
    if extensions.media or extensions.images:  # most entries name alternates only
        found += _media_findings(extensions, loc=loc, page=page, sitemap=sitemap, now=now)
    listed_short = bool(shown) and len(shown) < len(extensions.alternates)
    cut = bool(extensions.dropped) or listed_short or any(item.cut for item in extensions.media)
    facts = ExtensionFacts(
        alternates=tuple((alternate.hreflang or "", alternate.href or "") for alternate in shown),
        hreflang=extensions.links,
        images=extensions.images,
        videos=extensions.videos,
        news=extensions.news,
        cut=cut,
    )
    return ExtensionVerdict(tuple(found), cluster, facts, extensions.news)


def _media_findings(
    extensions: Extensions, *, loc: str, page: HttpUrl | None, sitemap: str, now: datetime
) -> list[Finding]:
    by_kind: dict[str, list[MediaItem]] = {"image": [], "video": [], "news": []}
    for item in extensions.media:
        by_kind[item.kind].append(item)
    found = validate_images(by_kind["image"], extensions.images, loc=loc, sitemap=sitemap)
    found += validate_videos(by_kind["video"], loc=loc, page=page, sitemap=sitemap, now=now)
    found += validate_news(by_kind["news"], loc=loc, sitemap=sitemap, now=now)
    return found
