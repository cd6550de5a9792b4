"""The finding codes: a closed set, and the catalog of their words (codes.toml).

Codes are a contract (docs/explanation/design.md#findings): never rename one. The catalog (severity,
title, Search Console name, fix) is data beside this module, read once as the package is imported.
Pure: no I/O but that read of the package's own file.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from types import MappingProxyType


class Severity(StrEnum):
    """How bad a finding is; ordered from worst to mildest."""

    ERROR = "error"
    WARNING = "warning"
    NOTICE = "notice"

    @property
    def rank(self) -> int:
        """Higher is worse: error 3, warning 2, notice 1."""
        return _RANK[self]


_RANK = {Severity.ERROR: 3, Severity.WARNING: 2, Severity.NOTICE: 1}


class Code(StrEnum):
    """Stable finding codes, one per rule.

    Listed in docs/reference/codes.md; each rule and its source in docs/explanation/rules.md.
    """

    DISCOVERY_NONE_FOUND = "discovery.none_found"
    DISCOVERY_SAME_DOCUMENT = "discovery.same_document"
    TARGET_DNS = "target.dns"
    TARGET_CONNECT = "target.connect"
    TARGET_TIMEOUT = "target.timeout"
    TARGET_TLS = "target.tls"
    TARGET_PROTOCOL = "target.protocol"
    ROBOTS_UNREACHABLE = "robots.unreachable"
    ROBOTS_NO_SITEMAP = "robots.no_sitemap"
    ROBOTS_RELATIVE_SITEMAP = "robots.relative_sitemap"
    SITEMAP_BLOCKED_BY_ROBOTS = "sitemap.blocked_by_robots"
    SITEMAP_HTTP_ERROR = "sitemap.http_error"
    SITEMAP_REDIRECTED = "sitemap.redirected"
    SITEMAP_UNSUPPORTED_FORMAT = "sitemap.unsupported_format"
    SITEMAP_TOO_LARGE = "sitemap.too_large"
    SITEMAP_COMPRESSION_ERROR = "sitemap.compression_error"
    SITEMAP_BAD_NAMESPACE = "sitemap.bad_namespace"
    SITEMAP_NAMESPACE_HTTPS = "sitemap.namespace_https"
    SITEMAP_EMPTY = "sitemap.empty"
    SITEMAP_URLS_DROPPED = "sitemap.urls_dropped"
    SITEMAP_TOO_MANY_URLS = "sitemap.too_many_urls"
    SITEMAP_INVALID_TEXT_LINE = "sitemap.invalid_text_line"
    XML_MALFORMED = "xml.malformed"
    XML_FORBIDDEN = "xml.forbidden"
    XML_ENCODING = "xml.encoding"
    XML_LEADING_WHITESPACE = "xml.leading_whitespace"
    XML_BOM = "xml.bom"
    INDEX_NESTED = "index.nested"
    INDEX_LOOP = "index.loop"
    INDEX_TOO_DEEP = "index.too_deep"
    INDEX_TOO_MANY_SITEMAPS = "index.too_many_sitemaps"
    INDEX_DUPLICATE_CHILD = "index.duplicate_child"
    LOC_MISSING = "loc.missing"
    FEED_ITEM_WITHOUT_LINK = "feed.item_without_link"
    ENTRY_DUPLICATE_TAG = "entry.duplicate_tag"
    ENTRY_UNKNOWN_TAG = "entry.unknown_tag"
    LOC_INVALID = "loc.invalid"
    LOC_TOO_LONG = "loc.too_long"
    LOC_NOT_ESCAPED = "loc.not_escaped"
    LOC_HOST_MISMATCH = "loc.host_mismatch"
    LOC_OUT_OF_SCOPE = "loc.out_of_scope"
    LOC_DUPLICATE = "loc.duplicate"
    LOC_FRAGMENT = "loc.fragment"
    LOC_TRACKING_PARAM = "loc.tracking_param"
    LASTMOD_INVALID = "lastmod.invalid"
    LASTMOD_FUTURE = "lastmod.future"
    LASTMOD_XSD_MISMATCH = "lastmod.xsd_mismatch"
    LASTMOD_UNIFORM = "lastmod.uniform"
    LASTMOD_BEHIND_PAGE = "lastmod.behind_page"
    CHANGEFREQ_INVALID = "changefreq.invalid"
    PRIORITY_INVALID = "priority.invalid"
    HTTP_NOT_FOUND = "http.not_found"
    HTTP_CLIENT_ERROR = "http.client_error"
    HTTP_UNAUTHORIZED = "http.unauthorized"
    HTTP_FORBIDDEN = "http.forbidden"
    HTTP_SERVER_ERROR = "http.server_error"
    HTTP_BLOCKED = "http.blocked"
    REDIRECT_PERMANENT = "redirect.permanent"
    REDIRECT_TEMPORARY = "redirect.temporary"
    REDIRECT_CHAIN = "redirect.chain"
    REDIRECT_LOOP = "redirect.loop"
    REDIRECT_TOO_MANY = "redirect.too_many"
    REDIRECT_OTHER_HOST = "redirect.other_host"
    REDIRECT_HTTPS_DOWNGRADE = "redirect.https_downgrade"
    REDIRECT_BAD_LOCATION = "redirect.bad_location"
    REDIRECT_TO_ROOT = "redirect.to_root"
    REDIRECT_META_REFRESH = "redirect.meta_refresh"
    NET_TIMEOUT = "net.timeout"
    NET_DNS = "net.dns"
    NET_CONNECT = "net.connect"
    NET_TLS = "net.tls"
    NET_PROTOCOL = "net.protocol"
    NET_BLOCKED_ADDRESS = "net.blocked_address"
    URL_BLOCKED_BY_ROBOTS = "url.blocked_by_robots"
    URL_NOINDEX = "url.noindex"
    URL_UNAVAILABLE_AFTER = "url.unavailable_after"
    URL_HEAD_CUT_SHORT = "url.head_cut_short"
    URL_TITLE_NOT_FOUND = "url.title_not_found"
    URL_CANONICAL_ELSEWHERE = "url.canonical_elsewhere"
    URL_CANONICAL_CONFLICT = "url.canonical_conflict"
    URL_CANONICAL_NOT_INDEXABLE = "url.canonical_not_indexable"
    URL_SLOW = "url.slow"
    HREFLANG_INVALID_CODE = "hreflang.invalid_code"
    HREFLANG_UNSUPPORTED_CODE = "hreflang.unsupported_code"
    HREFLANG_AMBIGUOUS_CODE = "hreflang.ambiguous_code"
    HREFLANG_HREF_INVALID = "hreflang.href_invalid"
    HREFLANG_NOT_ALTERNATE = "hreflang.not_alternate"
    HREFLANG_DUPLICATE_LANGUAGE = "hreflang.duplicate_language"
    HREFLANG_MISSING_SELF = "hreflang.missing_self"
    HREFLANG_CONFLICTING_LANGUAGE = "hreflang.conflicting_language"
    HREFLANG_NO_RETURN_LINK = "hreflang.no_return_link"
    HREFLANG_ALTERNATE_NOT_INDEXABLE = "hreflang.alternate_not_indexable"
    HREFLANG_ALTERNATE_NOT_LISTED = "hreflang.alternate_not_listed"
    IMAGE_LOC_MISSING = "image.loc_missing"
    IMAGE_LOC_INVALID = "image.loc_invalid"
    IMAGE_TOO_MANY = "image.too_many"
    IMAGE_DEPRECATED_TAG = "image.deprecated_tag"
    NEWS_MISSING_TAG = "news.missing_tag"
    NEWS_TOO_MANY = "news.too_many"
    NEWS_LANGUAGE_INVALID = "news.language_invalid"
    NEWS_DATE_INVALID = "news.date_invalid"
    NEWS_STALE = "news.stale"
    NEWS_DEPRECATED_TAG = "news.deprecated_tag"
    VIDEO_MISSING_TAG = "video.missing_tag"
    VIDEO_LOC_INVALID = "video.loc_invalid"
    VIDEO_LOC_SAME_AS_PAGE = "video.loc_same_as_page"
    VIDEO_DURATION_INVALID = "video.duration_invalid"
    VIDEO_RATING_INVALID = "video.rating_invalid"
    VIDEO_DATE_INVALID = "video.date_invalid"
    VIDEO_EXPIRED = "video.expired"
    VIDEO_FLAG_INVALID = "video.flag_invalid"
    VIDEO_RESTRICTION_INVALID = "video.restriction_invalid"
    VIDEO_PLATFORM_INVALID = "video.platform_invalid"
    VIDEO_TOO_MANY_TAGS = "video.too_many_tags"
    VIDEO_TITLE_TOO_LONG = "video.title_too_long"
    VIDEO_DESCRIPTION_TOO_LONG = "video.description_too_long"
    VIDEO_UPLOADER_INVALID = "video.uploader_invalid"
    VIDEO_DEPRECATED_TAG = "video.deprecated_tag"
    COVERAGE_NOT_IN_SITEMAP = "coverage.not_in_sitemap"
    COVERAGE_ORPHAN = "coverage.orphan"
    COVERAGE_DEEP = "coverage.deep"
    LOGS_NOT_CRAWLED = "logs.not_crawled"
    LOGS_CRAWLED_NOT_LISTED = "logs.crawled_not_listed"
    LOGS_CRAWLED_NOT_INDEXABLE = "logs.crawled_not_indexable"
    LOGS_CRAWLER_ERRORS = "logs.crawler_errors"
    LOGS_ORPHAN_CRAWLED = "logs.orphan_crawled"
    LOGS_SPOOFED_CRAWLER = "logs.spoofed_crawler"
    RUN_LIMIT_REACHED = "run.limit_reached"
    RUN_MAX_AGE_EXCEEDED = "run.max_age_exceeded"
    INTERNAL_ERROR = "internal.error"

    @property
    def info(self) -> CodeInfo:
        """The catalog entry of this code."""
        return CATALOG[self]

    @property
    def severity(self) -> Severity:
        """The severity every finding of this code has."""
        return CATALOG[self].severity


@dataclass(frozen=True, slots=True)
class CodeInfo:
    """What the reports say about one code."""

    severity: Severity
    title: str  # what is wrong, in a few words
    search_console: str | None = None  # the name Search Console gives the problem, if any
    fix: str = field(kw_only=True)  # one line: what to change on the site
    source: str | None = field(default=None, kw_only=True)  # the rule's primary source, if given


def _load_catalog() -> MappingProxyType[Code, CodeInfo]:
    """The catalog's words (codes.toml), one entry for each code and none for another."""
    # Beside this module, as the package is always installed (importlib.resources would cost each
    # parse helper 0.8 MB of RSS for nothing).
    text = Path(__file__).with_name("codes.toml").read_text("utf-8")
    table = tomllib.loads(text)
    missing = {code.value for code in Code} ^ set(table)
    if missing:
        raise RuntimeError(f"codes.toml and auditor.codes.Code disagree on {sorted(missing)}")
    return MappingProxyType(
        {
            code: CodeInfo(
                Severity(entry["severity"]),
                entry["title"],
                entry.get("search_console"),
                fix=entry["fix"],
                source=entry.get("source"),
            )
            for code in Code
            for entry in (table[code.value],)
        }
    )


CATALOG = _load_catalog()


def by_severity(counts: Mapping[Code, int]) -> dict[Severity, int]:
    """Finding counts by code, added up per severity: worst first, zeros included."""
    totals = dict.fromkeys(Severity, 0)
    for code, count in counts.items():
        totals[code.severity] += count
    return totals
