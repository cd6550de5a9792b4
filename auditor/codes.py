"""The finding catalog: every code, its severity, title and Search Console name.

Codes are a contract (DESIGN §4): never rename one. Pure: no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
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
    """Stable finding codes (DESIGN §4), plus the two lastmod notices of PROTOCOL.md."""

    DISCOVERY_NONE_FOUND = "discovery.none_found"
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
    SITEMAP_EMPTY = "sitemap.empty"
    SITEMAP_TOO_MANY_URLS = "sitemap.too_many_urls"
    SITEMAP_INVALID_TEXT_LINE = "sitemap.invalid_text_line"
    XML_MALFORMED = "xml.malformed"
    XML_FORBIDDEN = "xml.forbidden"
    XML_ENCODING = "xml.encoding"
    XML_LEADING_WHITESPACE = "xml.leading_whitespace"
    INDEX_NESTED = "index.nested"
    INDEX_LOOP = "index.loop"
    INDEX_TOO_DEEP = "index.too_deep"
    INDEX_TOO_MANY_SITEMAPS = "index.too_many_sitemaps"
    INDEX_DUPLICATE_CHILD = "index.duplicate_child"
    LOC_MISSING = "loc.missing"
    ENTRY_DUPLICATE_TAG = "entry.duplicate_tag"
    ENTRY_UNKNOWN_TAG = "entry.unknown_tag"
    LOC_INVALID = "loc.invalid"
    LOC_TOO_LONG = "loc.too_long"
    LOC_NOT_ESCAPED = "loc.not_escaped"
    LOC_HOST_MISMATCH = "loc.host_mismatch"
    LOC_OUT_OF_SCOPE = "loc.out_of_scope"
    LOC_DUPLICATE = "loc.duplicate"
    LASTMOD_INVALID = "lastmod.invalid"
    LASTMOD_FUTURE = "lastmod.future"
    LASTMOD_XSD_MISMATCH = "lastmod.xsd_mismatch"
    LASTMOD_UNIFORM = "lastmod.uniform"
    CHANGEFREQ_INVALID = "changefreq.invalid"
    PRIORITY_INVALID = "priority.invalid"
    HTTP_NOT_FOUND = "http.not_found"
    HTTP_CLIENT_ERROR = "http.client_error"
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
    NET_TIMEOUT = "net.timeout"
    NET_DNS = "net.dns"
    NET_CONNECT = "net.connect"
    NET_TLS = "net.tls"
    NET_PROTOCOL = "net.protocol"
    NET_BLOCKED_ADDRESS = "net.blocked_address"
    URL_BLOCKED_BY_ROBOTS = "url.blocked_by_robots"
    URL_NOINDEX = "url.noindex"
    URL_SLOW = "url.slow"
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


_E, _W, _N = Severity.ERROR, Severity.WARNING, Severity.NOTICE
_FETCH = "Couldn't fetch / HTTP error"
_UNREAD = "Parsing error / unable to read your sitemap"
_URL_ACCESS = "URLs not accessible"

CATALOG: MappingProxyType[Code, CodeInfo] = MappingProxyType(
    {
        Code.DISCOVERY_NONE_FOUND: CodeInfo(
            _E,
            "No sitemap found in robots.txt nor at known paths",
            fix="Publish a sitemap and name it in robots.txt with a Sitemap: line",
        ),
        Code.ROBOTS_UNREACHABLE: CodeInfo(
            _W,
            "robots.txt could not be fetched",
            fix="Serve /robots.txt with 200 (or 404 if there is none); a 5xx stops Google crawling",
        ),
        Code.ROBOTS_NO_SITEMAP: CodeInfo(
            _N,
            "robots.txt has no Sitemap: line",
            fix="Add a Sitemap: line with the sitemap's absolute URL to robots.txt",
        ),
        Code.ROBOTS_RELATIVE_SITEMAP: CodeInfo(
            _W,
            "robots.txt Sitemap: value is not absolute",
            fix="Write the Sitemap: value as an absolute URL (https://host/sitemap.xml)",
        ),
        Code.SITEMAP_BLOCKED_BY_ROBOTS: CodeInfo(
            _E,
            "Sitemap URL is disallowed by robots.txt",
            "Sitemap blocked by robots.txt",
            fix="Remove the Disallow rule that matches the sitemap URL",
        ),
        Code.SITEMAP_HTTP_ERROR: CodeInfo(
            _E,
            "Sitemap answered an HTTP error",
            _FETCH,
            fix="Serve the sitemap with status 200 at the URL you submit",
        ),
        Code.SITEMAP_REDIRECTED: CodeInfo(
            _W,
            "Sitemap URL redirects",
            fix="Submit and list the sitemap's final URL, not one that redirects",
        ),
        Code.SITEMAP_UNSUPPORTED_FORMAT: CodeInfo(
            _E,
            "Not a sitemap (HTML, JSON, unknown root)",
            "Unsupported format",
            fix="Serve XML with a <urlset> or <sitemapindex> root (or a text, RSS or Atom feed)",
        ),
        Code.SITEMAP_TOO_LARGE: CodeInfo(
            _E,
            "Sitemap is over 52,428,800 bytes uncompressed",
            "Sitemap file size error",
            fix="Split it into sitemaps under 50 MB each, listed by a sitemap index",
        ),
        Code.SITEMAP_COMPRESSION_ERROR: CodeInfo(
            _E,
            "Compressed data is corrupt or truncated",
            "Compression error",
            fix="Regenerate the .gz file; check that the server does not gzip it twice",
        ),
        Code.SITEMAP_BAD_NAMESPACE: CodeInfo(
            _E,
            "Missing or wrong sitemap namespace",
            "Incorrect namespace",
            fix='Use xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" on the root element',
        ),
        Code.SITEMAP_EMPTY: CodeInfo(
            _W,
            "Sitemap has no entries",
            "Empty sitemap",
            fix="List the site's pages in it, or stop submitting it",
        ),
        Code.SITEMAP_TOO_MANY_URLS: CodeInfo(
            _E,
            "Sitemap lists more than 50,000 URLs",
            "Too many URLs",
            fix="Split it into sitemaps of at most 50,000 URLs behind a sitemap index",
        ),
        Code.SITEMAP_INVALID_TEXT_LINE: CodeInfo(
            _E,
            "Text sitemap line is not an absolute URL",
            "Invalid URL",
            fix="Put one absolute http(s) URL per line, nothing else",
        ),
        Code.XML_MALFORMED: CodeInfo(
            _E,
            "XML is not well-formed",
            _UNREAD,
            fix="Fix the XML at the line and column shown (often an unescaped &)",
        ),
        Code.XML_FORBIDDEN: CodeInfo(
            _E,
            "DTD, entity or external reference refused",
            _UNREAD,
            fix="Remove the DOCTYPE, entities and external references",
        ),
        Code.XML_ENCODING: CodeInfo(
            _E,
            "Document is not UTF-8",
            _UNREAD,
            fix="Save and serve the file as UTF-8, declared as UTF-8",
        ),
        Code.XML_LEADING_WHITESPACE: CodeInfo(
            _E,
            "Whitespace, BOM or junk before the XML declaration",
            _UNREAD,
            fix="Remove everything before <?xml (BOM, blank lines, stray output)",
        ),
        Code.INDEX_NESTED: CodeInfo(
            _E,
            "Sitemap index lists another index",
            "Nested sitemap indexes",
            fix="List urlset sitemaps only; flatten nested indexes into one",
        ),
        Code.INDEX_LOOP: CodeInfo(
            _E,
            "Sitemap index leads back to itself or an ancestor",
            fix="Remove the entry that points back to an index above it",
        ),
        Code.INDEX_TOO_DEEP: CodeInfo(
            _E,
            "Sitemap index nesting is deeper than the limit",
            fix="Flatten the indexes: one index listing urlset sitemaps",
        ),
        Code.INDEX_TOO_MANY_SITEMAPS: CodeInfo(
            _E,
            "Sitemap index lists more than 50,000 sitemaps",
            "Too many sitemaps",
            fix="Split the index into indexes of at most 50,000 sitemaps",
        ),
        Code.INDEX_DUPLICATE_CHILD: CodeInfo(
            _W,
            "The same child sitemap is listed more than once",
            fix="List each child sitemap once",
        ),
        Code.LOC_MISSING: CodeInfo(
            _E,
            "Entry has no <loc>",
            "Missing XML tag",
            fix="Give every <url> and <sitemap> a non-empty <loc>",
        ),
        Code.ENTRY_DUPLICATE_TAG: CodeInfo(
            _E,
            "Entry repeats a tag that may appear once",
            "Invalid XML: too many tags",
            fix="Keep one <loc>, <lastmod>, <changefreq> and <priority> per entry",
        ),
        Code.ENTRY_UNKNOWN_TAG: CodeInfo(
            _N,
            "Unknown element in the sitemap namespace",
            fix="Remove the element, or move it to its own namespace (image:, news:, ...)",
        ),
        Code.LOC_INVALID: CodeInfo(
            _E, "Not an absolute http(s) URL", "Invalid URL", fix="List absolute http(s) URLs only"
        ),
        Code.LOC_TOO_LONG: CodeInfo(
            _E,
            "URL is 2,048 characters or longer",
            "Invalid URL",
            fix="Shorten the URL below 2,048 characters",
        ),
        Code.LOC_NOT_ESCAPED: CodeInfo(
            _W,
            "URL has characters that must be percent-encoded",
            "Invalid URL",
            fix="Percent-encode spaces, quotes and other unsafe characters in the URL",
        ),
        Code.LOC_HOST_MISMATCH: CodeInfo(
            _E,
            "URL is on another scheme, host or port than the sitemap",
            "URL not allowed; Path mismatch: missing www / includes www (kind www)",
            fix="List URLs on the sitemap's scheme, host and port, or cross-submit in robots.txt",
        ),
        Code.LOC_OUT_OF_SCOPE: CodeInfo(
            _E,
            "URL is outside the sitemap's folder",
            "URL not allowed",
            fix="Move the sitemap to the site root, or list only URLs under its folder",
        ),
        Code.LOC_DUPLICATE: CodeInfo(
            _W, "URL is listed more than once", fix="List each URL once across all sitemaps"
        ),
        Code.LASTMOD_INVALID: CodeInfo(
            _E,
            "lastmod is not a W3C Datetime",
            "Invalid date",
            fix="Write lastmod as W3C Datetime: 2024-05-01 or 2024-05-01T10:00:00+00:00",
        ),
        Code.LASTMOD_FUTURE: CodeInfo(
            _W,
            "lastmod is later than the time of the audit",
            fix="Set lastmod to when the page really changed, never a future date",
        ),
        Code.LASTMOD_XSD_MISMATCH: CodeInfo(
            _N,
            "lastmod is a valid W3C Datetime that sitemap.xsd rejects",
            fix="Write a full date (YYYY-MM-DD), or a time with seconds and a zone",
        ),
        Code.LASTMOD_UNIFORM: CodeInfo(
            _N,
            "Every lastmod of the sitemap is the same moment (a build stamp?)",
            fix="Set each lastmod to its page's real modification time, not the build time",
        ),
        Code.CHANGEFREQ_INVALID: CodeInfo(
            _E,
            "changefreq is not an allowed value",
            "Invalid tag value",
            fix="Use always, hourly, daily, weekly, monthly, yearly or never, or drop it",
        ),
        Code.PRIORITY_INVALID: CodeInfo(
            _E,
            "priority is not a number from 0.0 to 1.0",
            "Invalid tag value",
            fix="Use a number from 0.0 to 1.0, or drop the tag",
        ),
        Code.HTTP_NOT_FOUND: CodeInfo(
            _E,
            "URL answers 404 or 410",
            _URL_ACCESS,
            fix="Remove the URL from the sitemap, or restore the page",
        ),
        Code.HTTP_CLIENT_ERROR: CodeInfo(
            _E,
            "URL answers a 4xx error",
            _URL_ACCESS,
            fix="Make the page answer 200, or remove it from the sitemap",
        ),
        Code.HTTP_SERVER_ERROR: CodeInfo(
            _E,
            "URL answers a 5xx error after retries",
            _URL_ACCESS,
            fix="Fix the server error; list only pages that answer 200",
        ),
        Code.HTTP_BLOCKED: CodeInfo(
            _W,
            "URL refused to us (401/403/429 or a bot challenge)",
            fix="Check that the firewall or bot shield lets search engines through",
        ),
        Code.REDIRECT_PERMANENT: CodeInfo(
            _W,
            "URL redirects permanently: list the target",
            fix="Replace the URL with its redirect target in the sitemap",
        ),
        Code.REDIRECT_TEMPORARY: CodeInfo(
            _W,
            "URL redirects temporarily",
            fix="List the final URL, or make the page answer 200 itself",
        ),
        Code.REDIRECT_CHAIN: CodeInfo(
            _W,
            "URL redirects more than once",
            fix="Point the sitemap (and the first redirect) straight at the final URL",
        ),
        Code.REDIRECT_LOOP: CodeInfo(
            _E,
            "Redirect chain revisits a URL",
            "URLs not followed",
            fix="Fix the redirect rules so that the chain ends on a page",
        ),
        Code.REDIRECT_TOO_MANY: CodeInfo(
            _E,
            "Too many redirects",
            "URLs not followed",
            fix="Shorten the chain to one hop, or list the final URL",
        ),
        Code.REDIRECT_OTHER_HOST: CodeInfo(
            _W,
            "Redirect ends on another host",
            fix="List the URL on the host where the page really is",
        ),
        Code.REDIRECT_HTTPS_DOWNGRADE: CodeInfo(
            _W,
            "Redirect goes from https to http",
            fix="Redirect to https, never from https to http",
        ),
        Code.REDIRECT_BAD_LOCATION: CodeInfo(
            _E,
            "Redirect Location is missing, unparsable or not http(s)",
            "URLs not followed",
            fix="Send an absolute http(s) URL in the Location header",
        ),
        Code.NET_TIMEOUT: CodeInfo(
            _E,
            "No complete answer within the timeout",
            _URL_ACCESS,
            fix="Make the page answer faster, or check the server's capacity",
        ),
        Code.NET_DNS: CodeInfo(
            _E,
            "Host name does not resolve",
            _URL_ACCESS,
            fix="Fix the host name, or its DNS records",
        ),
        Code.NET_CONNECT: CodeInfo(
            _E,
            "Connection refused or reset",
            _URL_ACCESS,
            fix="Check that the server listens on that port and accepts connections",
        ),
        Code.NET_TLS: CodeInfo(
            _E,
            "Certificate or TLS handshake failure",
            _URL_ACCESS,
            fix="Install a valid certificate chain for the host name",
        ),
        Code.NET_PROTOCOL: CodeInfo(
            _E,
            "Malformed HTTP response",
            _URL_ACCESS,
            fix="Fix the server or proxy sending a malformed HTTP response",
        ),
        Code.NET_BLOCKED_ADDRESS: CodeInfo(
            _E,
            "Refused by the private-address guard",
            fix="List public URLs only, or run with --allow-private for an internal site",
        ),
        Code.URL_BLOCKED_BY_ROBOTS: CodeInfo(
            _W,
            "URL is disallowed by robots.txt",
            "Sitemap contains URLs which are blocked by robots.txt",
            fix="Remove the URL from the sitemap, or the robots.txt rule that blocks it",
        ),
        Code.URL_NOINDEX: CodeInfo(
            _W,
            "URL says noindex",
            fix="Remove noindex pages from the sitemap, or remove the noindex",
        ),
        Code.URL_SLOW: CodeInfo(
            _N,
            "URL answered slower than the slow threshold",
            fix="Speed up the page (caching, lighter backend work)",
        ),
        Code.INTERNAL_ERROR: CodeInfo(
            _E,
            "Internal error of the auditor (a bug)",
            fix="Report it with the JSON report; the rest of the run is still valid",
        ),
    }
)


def codes_markdown() -> str:
    """The README's table of codes, generated from the catalog (a test keeps them equal)."""
    rows = [
        "| code | severity | what it means | Search Console | how to fix |",
        "|---|---|---|---|---|",
    ]
    for code in Code:
        info = code.info
        cells = (info.severity.value, info.title, info.search_console or "", info.fix)
        rows.append(f"| `{code.value}` | " + " | ".join(_cell(text) for text in cells) + " |")
    return "\n".join(rows) + "\n"


def _cell(text: str) -> str:
    """Text for a Markdown table cell: a `|` would end the cell, `<` could open a tag."""
    return text.replace("|", "\\|").replace("<", "&lt;")
