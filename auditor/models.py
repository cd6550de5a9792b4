"""Records that flow through the run: findings, and the report's records.

All frozen and slotted; they cross stage boundaries and (later) process boundaries. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import NamedTuple

from auditor.codes import Code, Severity

JsonScalar = str | int | float | bool | None
Detail = Mapping[str, JsonScalar]


@dataclass(frozen=True, slots=True)
class Finding:
    """One problem, as the report shows it (docs/explanation/design.md#findings)."""

    code: Code
    message: str
    url: str | None = None
    sitemap: str | None = None
    detail: Detail | None = None
    accepted: bool = False  # a known issue (--accept-file): reported, never failing the run

    @property
    def severity(self) -> Severity:
        """Severity comes from the catalog, never from the call site."""
        return self.code.severity


def finding(
    code: Code,
    message: str | None = None,
    /,
    *,
    url: str | None = None,
    sitemap: str | None = None,
    **detail: JsonScalar,
) -> Finding:
    """A finding whose message defaults to the code's title; keywords become its detail."""
    return Finding(code, message or code.info.title, url, sitemap, detail or None)


class SitemapKind(StrEnum):
    """What a fetched document turned out to be."""

    URLSET = "urlset"
    SITEMAPINDEX = "sitemapindex"
    TEXT = "text"
    RSS = "rss"
    ATOM = "atom"
    ROBOTS = "robots"


class FoundBy(StrEnum):
    """How the auditor came to read a document."""

    TARGET = "target"
    ROBOTS = "robots"
    PROBE = "probe"
    INDEX = "index"


class ExtensionFacts(NamedTuple):
    """What the report keeps of an entry's extensions: enough to explain its findings."""

    # (hreflang, href), the first few as written; only when the entry has an hreflang finding
    alternates: tuple[tuple[str, str], ...]
    hreflang: int  # every <xhtml:link> it has, kept or not
    images: int
    videos: int
    news: int
    cut: bool  # something was past a cap (alternates or items) or cut at its length

    def counts(self) -> dict[str, int]:
        """What it adds to the report's `summary.extensions` (the listing's extensions)."""
        return {
            "hreflang_urls": int(self.hreflang > 0),
            "hreflang_links": self.hreflang,
            "images": self.images,
            "videos": self.videos,
            "news": self.news,
        }


# --- a document's fetch --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AlreadyRead:
    """A redirect leads to a document this run reads anyway: nothing to read, nothing wrong."""

    url: str


# --- report records ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Redirect:
    """One hop of a redirect chain: the URL asked and the status it answered."""

    url: str
    status: int


class StatusClass(StrEnum):
    """How a URL answered, for counting: the report's `summary.by_status_class`."""

    S2XX = "2xx"
    S3XX = "3xx"
    S4XX = "4xx"
    S5XX = "5xx"
    NONE = "none"  # no HTTP answer: a network error, or a request refused before it left

    @classmethod
    def of(cls, status: int | None) -> StatusClass:
        """The class of a status code; an unusual code (1xx, 600+) counts as no answer."""
        if status is None or not 200 <= status < 600:
            return cls.NONE
        return _STATUS_CLASSES[status // 100]


_STATUS_CLASSES = {2: StatusClass.S2XX, 3: StatusClass.S3XX, 4: StatusClass.S4XX}
_STATUS_CLASSES[5] = StatusClass.S5XX


class Indexability(StrEnum):
    """Whether a search engine may index a listed URL, as its check saw it.

    Screaming Frog's "Indexability"; the rules: docs/explanation/rules.md#indexability.
    """

    INDEXABLE = "indexable"
    NOT_INDEXABLE = "not_indexable"
    NOT_CHECKED = "not_checked"  # no request was made (--no-check, --sample, filters)


class NotIndexable(StrEnum):
    """Why a checked URL cannot be indexed: one reason, the first in this order (precedence).

    auditor.checks.indexability chooses it; the order of the members is the precedence.
    """

    NO_RESPONSE = "no_response"  # no HTTP answer: network error, refused address
    REFUSED = "refused"  # refused to us: a bot shield's page, or 429 (maybe not to Google)
    CLIENT_ERROR = "client_error"  # 4xx, where the redirects ended
    SERVER_ERROR = "server_error"  # 5xx, where the redirects ended
    REDIRECTED = "redirected"  # the listed URL redirects (to its final URL)
    BLOCKED_BY_ROBOTS = "blocked_by_robots"  # robots.txt disallows it (or where it leads)
    NOINDEX_HEADER = "noindex_header"  # X-Robots-Tag
    NOINDEX_META = "noindex_meta"  # <meta name="robots">
    CANONICALISED = "canonicalised"  # its canonical names another URL
    SOFT_404 = "soft_404"  # a 2xx page whose title says it was not found

    @property
    def label(self) -> str:
        """How every output spells it, the report's JSON and the HTML alike: `client_error`.

        One spelling everywhere (JSON, CSV, frames, HTML, Markdown, terminal, JUnit), so that
        what a reader sees is what they search for; docs/explanation/rules.md#indexability says
        what each one means.
        """
        return self.value


class Validators(NamedTuple):
    """A page's last ETag and Last-Modified: a later check asks whether it changed since.

    RFC 9110 §13.1.2 (If-None-Match) and §13.1.3 (If-Modified-Since); a 304 says it did not.
    """

    etag: str | None
    last_modified: str | None


# Not frozen, though never changed once built: one is made per URL checked, and a frozen
# dataclass's __init__ (object.__setattr__ per field) costs three times as much.
@dataclass(slots=True)
class CheckResult:
    """What requesting one URL gave: plain data, so that a worker process can hand it over.

    `status` is the listed URL's own answer (a 301 for a redirect); `final_status` is the answer
    at the end of its redirects. Both are None when no answer came.
    """

    status: int | None
    final_url: str | None = None
    final_status: int | None = None
    redirects: tuple[Redirect, ...] = ()
    elapsed_ms: int | None = None
    method: str | None = None  # of the final answer: HEAD, or GET
    findings: tuple[Finding, ...] = ()
    # The page's Last-Modified, when it is not the answer's Date (lastmod.behind_page).
    last_modified: str | None = None
    # Why the URL cannot be indexed; None: indexable (auditor.checks.indexability).
    not_indexable: NotIndexable | None = None
    # The page's ETag, where it answered itself (no redirect) with a 2xx: a validator.
    etag: str | None = None
    # It answered 304 to a conditional request: its last verdict stands (auditor.wings.history).
    not_modified: bool = False
    # When the request was made (Unix seconds), where a history keeps it (--history).
    checked_at: float | None = None
    # An earlier run's verdict carried forward: this run did not request the URL (--budget).
    carried: bool = False

    @property
    def validators(self) -> Validators | None:
        """What a later check may send to ask whether the page changed (None: nothing).

        Only a page that answered itself (no redirect) with a 2xx has validators of its own.
        """
        status = self.status
        if status is None or not 200 <= status < 300 or self.redirects:
            return None
        if self.etag is None and self.last_modified is None:
            return None
        return Validators(self.etag, self.last_modified)

    @property
    def status_class(self) -> StatusClass:
        """The class of the listed URL's own answer."""
        return StatusClass.of(self.status)

    @property
    def failing(self) -> bool:
        """Whether the check found an error (not a warning or a notice)."""
        return bool(self.findings) and any(
            item.code.severity is Severity.ERROR for item in self.findings
        )

    @property
    def indexability(self) -> Indexability:
        """Indexable, or not (`not_indexable` says why)."""
        return Indexability.INDEXABLE if self.not_indexable is None else Indexability.NOT_INDEXABLE


class CrawlFacts(NamedTuple):
    """What the crawl (`--crawl`) learnt of a URL it reached: a NamedTuple, one per page.

    `depth`: clicks from a start page (0 for the start itself), the fewest the crawl found;
    `linked_from`: the first page the crawl read that links (or redirects) to it (None for a
    start page);
    `links`: the page's `<a href>` elements, None when the crawl did not read it (robots.txt,
    a nofollow link, a page it could not read, not HTML).
    """

    depth: int
    linked_from: str | None
    links: int | None
    requested: bool  # the crawl requested it (its check is the URL's)


class LogFacts(NamedTuple):
    """What the access logs (`--access-log`) say of a URL: a NamedTuple, one per URL."""

    hits: int  # Google Search's verified hits in the logs' window
    last: int | None  # the last one's Unix time (an earlier run's, with --history)
    last_status: int | None
    bots: tuple[str, ...]  # the verified crawlers that came
    bing_hits: int  # Bingbot's verified hits in the window
    errors: int  # Google Search's hits in the window that got a 5xx (or nginx's 499)


@dataclass(slots=True)  # not frozen, as CheckResult: two are made per URL checked
class UrlRecord:
    """One entry of the report's `urls[]`: a distinct URL and what was found about it."""

    loc: str
    sitemaps: tuple[str, ...]
    line: int | None = None
    lastmod: str | None = None
    changefreq: str | None = None
    priority: str | None = None
    findings: tuple[Finding, ...] = ()  # the listing's (the sitemap side)
    check: CheckResult | None = None  # None: not requested (--no-check, filtered, not sampled)
    digest: int = 0  # of the normalised URL (auditor.urls.url_digest); 0 when not an http(s) URL
    extensions: ExtensionFacts | None = None  # hreflang, image, video, news: what it said
    alternate_of: str | None = None  # no sitemap lists it: the URL naming it as an alternate
    crawl: CrawlFacts | None = None  # the crawl reached it (with `sitemaps` empty: only the crawl)
    crawl_log: LogFacts | None = None  # what the access logs say of it (--access-log)

    @property
    def listed(self) -> bool:
        """Whether a sitemap lists it (not an unlisted alternate, nor a page only crawled)."""
        return bool(self.sitemaps)

    @property
    def indexability(self) -> Indexability:
        """Indexable, not indexable (its check's `not_indexable` says why), or not checked.

        A verdict carried from an earlier run (--history) counts: the URL as last known.
        """
        check = self.check
        return Indexability.NOT_CHECKED if check is None else check.indexability

    @property
    def fresh_check(self) -> CheckResult | None:
        """This run's check of the URL: None when not requested, or its verdict is carried."""
        check = self.check
        return None if check is None or check.carried else check

    def with_check(self, check: CheckResult) -> UrlRecord:
        """This record with its check (dataclasses.replace costs more, once per URL)."""
        return UrlRecord(
            self.loc,
            self.sitemaps,
            self.line,
            self.lastmod,
            self.changefreq,
            self.priority,
            self.findings,
            check,
            self.digest,
            self.extensions,
            self.alternate_of,
            self.crawl,
            self.crawl_log,
        )


@dataclass(frozen=True, slots=True)
class RunFindings:
    """Findings about the run's URLs taken together (hreflang return links).

    No document's or URL's record holds them; the first are kept, the rest counted by code.
    """

    findings: tuple[Finding, ...]
    omitted: Mapping[Code, int] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Relisted:
    """URLs a sitemap lists that an earlier sitemap listed: their one check counts for it too."""

    sitemap: str
    digests: Sequence[int]


@dataclass(frozen=True, slots=True)
class SitemapRecord:
    """One entry of the report's `sitemaps[]`: a document of the tree (robots.txt included)."""

    url: str
    kind: SitemapKind | None
    parent: str | None
    depth: int
    found_by: FoundBy
    status: int | None = None
    final_url: str | None = None
    redirects: tuple[Redirect, ...] = ()
    content_type: str | None = None
    bytes: int = 0
    compressed: bool = False
    url_count: int = 0
    elapsed_ms: int | None = None
    findings: tuple[Finding, ...] = ()
    findings_omitted: Mapping[Code, int] = field(default_factory=dict)  # over the kept cap
    from_state: bool = False  # answered 304: the body read was the copy kept by --state
    # The extensions of its entries whose URL was listed before (no record of their own): they
    # count in the report's `summary.extensions` all the same.
    relisted_extensions: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ProbeResult:
    """One known location tried during discovery, and whether a sitemap was there."""

    url: str
    found: bool
    status: int | None = None


@dataclass(frozen=True, slots=True)
class TargetRecord:
    """One entry of the report's `targets[]`: what the user asked for and what discovery saw."""

    input: str
    kind: str
    url: str
    robots: str | None = None
    sitemaps: tuple[str, ...] = ()
    probes: tuple[ProbeResult, ...] = ()
    findings: tuple[Finding, ...] = ()
