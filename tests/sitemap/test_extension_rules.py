"""Each rule of the four extensions on one entry: sound entries give nothing, a mistake its code.

The entries go through the whole document path (parser, validators) as a parse helper runs it.
"""

from __future__ import annotations

from datetime import timedelta

import pytest

from auditor.codes import Code
from auditor.models import Finding
from auditor.sitemap.extensions.hreflang import judge_code
from auditor.sitemap.validated_entries import ValidatedUrl
from tests.helpers import NOW
from tests.sitemap.test_parse_extensions import document
from tests.sitemap.test_validated_entries import validated

PAGE = "https://example.com/page"
FRESH = (NOW - timedelta(hours=3)).strftime("%Y-%m-%dT%H:%M:%SZ")


def entry_findings(extra: str, *, loc: str = PAGE) -> list[Finding]:
    body = document(f"<url><loc>{loc}</loc>{extra}</url>")
    return [f for item in validated(body) if isinstance(item, ValidatedUrl) for f in item.findings]


def link(hreflang: str, href: str, rel: str = "alternate") -> str:
    return f'<xhtml:link rel="{rel}" hreflang="{hreflang}" href="{href}"/>'


SELF = link("en", PAGE)
SOUND_VIDEO = {
    "thumbnail_loc": "https://example.com/t.jpg",
    "title": "Grilling steaks",
    "description": "How to grill steaks.",
    "content_loc": "https://example.com/v.mp4",
}


def video(**values: str) -> str:
    """A `<video:video>`; a value None leaves the child out, `tag=N` writes N tags."""
    merged = {**SOUND_VIDEO, **values}
    tags = int(merged.pop("tags", "0"))
    children = "".join(
        f"<video:{name.split('@')[0]}{_attribute(name)}>{value}</video:{name.split('@')[0]}>"
        for name, value in merged.items()
        if value != "-"
    )
    return f"<video:video>{children}{'<video:tag>t</video:tag>' * tags}</video:video>"


def _attribute(name: str) -> str:
    if "@" not in name:
        return ""
    attribute, value = name.split("@", 1)[1].split("=", 1)
    return f' {attribute}="{value}"'


def news(**values: str) -> str:
    merged = {"name": "Times", "language": "en", "publication_date": FRESH, "title": "Launch"}
    merged.update(values)
    publication = "".join(
        f"<news:{key}>{merged[key]}</news:{key}>"
        for key in ("name", "language")
        if merged[key] != "-"
    )
    rest = "".join(
        f"<news:{key}>{value}</news:{key}>"
        for key, value in merged.items()
        if key not in ("name", "language") and value != "-"
    )
    return f"<news:news><news:publication>{publication}</news:publication>{rest}</news:news>"


def image(loc: str | None = "https://cdn.example.com/a.jpg", extra: str = "") -> str:
    inner = f"<image:loc>{loc}</image:loc>" if loc is not None else ""
    return f"<image:image>{inner}{extra}</image:image>"


SOUND = {
    "a cluster with x-default and regions": SELF
    + link("en-GB", "https://example.co.uk/page")
    + link("fr-CA", "https://example.com/ca/page")
    + link("zh-Hant-TW", "https://example.com/tw/page")
    + link("x-default", "https://example.com/"),
    "uk on a Ukrainian path": link("uk", PAGE),
    "an image on a CDN": image(),
    "a video": video(),
    "a video with every optional field": video(
        duration="600",
        rating="4.5",
        view_count="12",
        publication_date="2026-11-01T10:00:00+01:00",
        expiration_date="2027-01-01",
        family_friendly="yes",
        requires_subscription="no",
        live="no",
        **{"restriction@relationship=deny": "CN RU", "platform@relationship=allow": "web tv"},
        **{"uploader@info=https://example.com/chef": "Chef"},
        tags="32",
    ),
    "a video played elsewhere": video(content_loc="-", player_loc="https://example.com/p?v=1"),
    "fresh news": news(),
    "news in Traditional Chinese": news(language="zh-tw"),
    "news in a three-letter language": news(language="fil"),
}


@pytest.mark.parametrize("name", SOUND)
def test_sound_extensions_give_no_finding(name: str) -> None:
    assert entry_findings(SOUND[name]) == []


WRONG = [
    # hreflang: Google Search Central, "Tell Google about localized versions of your page".
    (SELF + link("jp", "https://example.com/ja"), Code.HREFLANG_INVALID_CODE),
    (SELF + link("en_US", "https://example.com/us"), Code.HREFLANG_INVALID_CODE),
    (SELF + link("xx", "https://example.com/xx"), Code.HREFLANG_INVALID_CODE),
    (SELF + link("en-UK", "https://example.com/uk"), Code.HREFLANG_UNSUPPORTED_CODE),
    (SELF + link("es-419", "https://example.com/latam"), Code.HREFLANG_UNSUPPORTED_CODE),
    (SELF + link("uk", "https://example.co.uk/page"), Code.HREFLANG_AMBIGUOUS_CODE),
    (SELF + link("fr", "/fr/page"), Code.HREFLANG_HREF_INVALID),
    (SELF + '<xhtml:link href="https://example.com/fr"/>', Code.HREFLANG_HREF_INVALID),
    (SELF + link("fr", "https://example.com/fr", rel="canonical"), Code.HREFLANG_NOT_ALTERNATE),
    (
        SELF + link("fr", "https://example.com/fr") + link("FR", "https://example.com/fr2"),
        Code.HREFLANG_DUPLICATE_LANGUAGE,
    ),
    (link("fr", "https://example.com/fr"), Code.HREFLANG_MISSING_SELF),
    # image: Google Search Central, "Image sitemaps".
    (image(loc=None), Code.IMAGE_LOC_MISSING),
    (image(loc="img/a.jpg"), Code.IMAGE_LOC_INVALID),
    (image() * 1001, Code.IMAGE_TOO_MANY),
    (image(extra="<image:title>t</image:title>"), Code.IMAGE_DEPRECATED_TAG),
    (image(extra="<image:license>https://e.com/l</image:license>"), Code.IMAGE_DEPRECATED_TAG),
    # news: Google Search Central, "Create a news sitemap".
    (news(title="-"), Code.NEWS_MISSING_TAG),
    (news(name="-"), Code.NEWS_MISSING_TAG),
    (news(language="english"), Code.NEWS_LANGUAGE_INVALID),
    (news(publication_date="2026-11"), Code.NEWS_DATE_INVALID),
    (news(publication_date="yesterday"), Code.NEWS_DATE_INVALID),
    (news(publication_date="2026-11-20T10:00:00Z"), Code.NEWS_STALE),
    (news(keywords="a, b"), Code.NEWS_DEPRECATED_TAG),
    # video: Google Search Central, "Video sitemaps".
    (video(thumbnail_loc="-"), Code.VIDEO_MISSING_TAG),
    (video(content_loc="-"), Code.VIDEO_MISSING_TAG),
    (video(content_loc="clip.mp4"), Code.VIDEO_LOC_INVALID),
    (video(content_loc=PAGE), Code.VIDEO_LOC_SAME_AS_PAGE),
    (video(duration="0"), Code.VIDEO_DURATION_INVALID),
    (video(duration="28801"), Code.VIDEO_DURATION_INVALID),
    (video(duration="PT10M"), Code.VIDEO_DURATION_INVALID),
    (video(rating="5.5"), Code.VIDEO_RATING_INVALID),
    (video(rating="four"), Code.VIDEO_RATING_INVALID),
    (video(publication_date="2026/11/01"), Code.VIDEO_DATE_INVALID),
    (video(expiration_date="2026-01-01"), Code.VIDEO_EXPIRED),
    (video(family_friendly="true"), Code.VIDEO_FLAG_INVALID),
    (video(restriction="US CA"), Code.VIDEO_RESTRICTION_INVALID),
    (video(**{"restriction@relationship=allow": "USA"}), Code.VIDEO_RESTRICTION_INVALID),
    (video(**{"platform@relationship=allow": "desktop"}), Code.VIDEO_PLATFORM_INVALID),
    (video(**{"platform@relationship=maybe": "web"}), Code.VIDEO_PLATFORM_INVALID),
    (video(tags="33"), Code.VIDEO_TOO_MANY_TAGS),
    (video(title="t" * 101), Code.VIDEO_TITLE_TOO_LONG),
    (video(description="d" * 2049), Code.VIDEO_DESCRIPTION_TOO_LONG),
    (video(**{"uploader@info=https://other.example.org/c": "Chef"}), Code.VIDEO_UPLOADER_INVALID),
    (video(uploader="u" * 256), Code.VIDEO_UPLOADER_INVALID),
    (video(category="cooking"), Code.VIDEO_DEPRECATED_TAG),
    (video(**{"player_loc@autoplay=ap": "https://e.com/p"}), Code.VIDEO_DEPRECATED_TAG),
    # Both families share these.
    (news() + news(), Code.ENTRY_DUPLICATE_TAG),
    (video(title="-") + video(title="a</video:title><video:title>b"), Code.ENTRY_DUPLICATE_TAG),
    ("<image:picture>x</image:picture>", Code.ENTRY_UNKNOWN_TAG),
    (video(colour="red"), Code.ENTRY_UNKNOWN_TAG),
]  # fmt: skip


@pytest.mark.parametrize(("extra", "code"), WRONG, ids=[code.value for _, code in WRONG])
def test_each_mistake_gives_its_code_once(extra: str, code: Code) -> None:
    found = [item.code for item in entry_findings(extra)]
    assert found.count(code) == 1, found
    for item in entry_findings(extra):
        assert item.url == PAGE
        assert item.sitemap == "https://example.com/sitemap.xml"


def test_every_extension_code_has_a_mistake_above() -> None:
    families = ("hreflang.", "image.", "video.", "news.")
    run_wide = {Code.HREFLANG_NO_RETURN_LINK, Code.HREFLANG_CONFLICTING_LANGUAGE}
    run_wide |= {Code.HREFLANG_ALTERNATE_NOT_LISTED, Code.NEWS_TOO_MANY}  # test_hreflang_run
    run_wide |= {Code.HREFLANG_ALTERNATE_NOT_INDEXABLE}  # needs checks: test_hreflang_run
    wanted = {code for code in Code if code.value.startswith(families)} - run_wide
    assert wanted <= {code for _, code in WRONG}


def test_a_news_date_within_two_days_is_fresh_even_as_a_bare_date() -> None:
    """A bare date lasts until its end, anywhere on Earth: yesterday is not stale."""
    yesterday = (NOW - timedelta(days=1)).strftime("%Y-%m-%d")
    assert entry_findings(news(publication_date=yesterday)) == []


@pytest.mark.parametrize(
    ("value", "code"),
    [
        ("en", None),
        ("EN-gb", None),
        ("x-default", None),
        ("X-Default", None),
        ("zh-Hans", None),
        ("zh-Hans-CN", None),
        ("sr-Latn", None),
        ("iw", Code.HREFLANG_UNSUPPORTED_CODE),  # withdrawn: he
        ("eng", Code.HREFLANG_UNSUPPORTED_CODE),
        ("en-Qaaa", Code.HREFLANG_UNSUPPORTED_CODE),
        ("gb", Code.HREFLANG_INVALID_CODE),
        ("us", Code.HREFLANG_INVALID_CODE),
        ("en-JJ", Code.HREFLANG_INVALID_CODE),
        ("en-ZZ", Code.HREFLANG_UNSUPPORTED_CODE),  # user-assigned: Google ignores it
        ("", Code.HREFLANG_INVALID_CODE),
        ("en-", Code.HREFLANG_INVALID_CODE),
    ],
)
def test_language_codes(value: str, code: Code | None) -> None:
    judged = judge_code(value)
    assert (judged[0] if judged else None) is code
