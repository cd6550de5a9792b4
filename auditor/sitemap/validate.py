"""Value rules for sitemap entries: loc, lastmod, changefreq, priority.

Structure (missing or repeated tags, namespaces) is the parser's job; tree-wide rules (duplicates,
cross-submission) are the reader's. Pure: no I/O; the audit's clock comes in as `now`.

See docs/explanation/rules.md#entry-tags.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from decimal import Decimal

from auditor.codes import Code
from auditor.limits import MAX_LOC_CHARS
from auditor.models import Finding, finding
from auditor.sitemap.dates import parse_lastmod, parse_rfc822
from auditor.sitemap.parse.events import SitemapEntry, UrlEntry
from auditor.urls import HttpUrl, Scope, needs_escaping, parse_known

CHANGEFREQS = frozenset({"always", "hourly", "daily", "weekly", "monthly", "yearly", "never"})
# A lastmod a few minutes ahead is clock skew between the site and us, not a wrong date.
FUTURE_SKEW = timedelta(minutes=10)
_SHOWN_CHARS = 200  # of a bad value, in a finding's detail
# Session ids (a `;jsessionid=` path parameter, or a query parameter) and campaign tracking
# (`utm_*`, the ad networks' click ids): the page is the same without them.
_TRACKING = re.compile(
    r"[;?&](?P<name>jsessionid|phpsessid|sid|sessionid|utm_[a-z0-9_]+|gclid|fbclid|msclkid)=",
    re.IGNORECASE,
)
# xsd:decimal: optional sign, digits with an optional fraction; no exponent, no comma.
_DECIMAL = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)", re.ASCII)
# The priorities sitemaps write (0, 0.5, 1.0, 0.80...): accepted without three Decimals.
_COMMON_PRIORITIES = frozenset(
    ["0", "1", *(f"{n / 10:.1f}" for n in range(11)), *(f"{n / 100:.2f}" for n in range(101))]
)


@dataclass(frozen=True, slots=True)
class EntryContext:
    """What the rules need to know about the sitemap an entry comes from."""

    sitemap: str
    now: datetime
    scope: Scope | None = None  # None: no location rule (a local file before its first URL)
    rfc822_dates: bool = False  # an RSS 2.0 feed: its pubDate is RFC 822, not W3C Datetime
    feed: bool = False  # an RSS or Atom feed: an item may have no link
    latest: datetime = field(init=False)  # a lastmod after this is in the future

    def __post_init__(self) -> None:
        """Work out `latest` once per sitemap, not once per lastmod."""
        object.__setattr__(self, "latest", self.now + FUTURE_SKEW)


@dataclass(slots=True)  # not frozen, as models.CheckResult: one is made per URL read
class LocVerdict:
    """A `<loc>` checked: the parsed URL when usable, and what is wrong with it."""

    url: HttpUrl | None
    findings: tuple[Finding, ...]
    off_scope: bool = False  # host or path rule broken: a robots.txt cross-submit may waive it
    digest: int = 0  # of the URL's normalised form (auditor.urls.url_digest); 0: no URL


def validate_loc(
    text: str | None, ctx: EntryContext, *, line: int | None = None, cut: bool = False
) -> LocVerdict:
    """Apply the `<loc>` rules: present, absolute http(s), short, escaped, in scope.

    `cut`: the parser kept only the first limits.MAX_FIELD_CHARS characters of the value.
    """
    if not text:
        # RSS 2.0 ("All elements of an item are optional") and Atom (RFC 4287 §4.1.1: an entry
        # with content needs no link) allow an item without a link: it lists no URL
        # (docs/explanation/rules.md#feeds).
        code = Code.FEED_ITEM_WITHOUT_LINK if ctx.feed else Code.LOC_MISSING
        return LocVerdict(
            None, (finding(code, sitemap=ctx.sitemap, line=line, empty=text is not None),)
        )
    known = parse_known(text)
    url, digest = known if known is not None else (None, 0)
    found: list[Finding] = []
    if url is None:
        found.append(finding(Code.LOC_INVALID, url=text, sitemap=ctx.sitemap))
    if cut:  # the length is then at least the part kept
        found.append(
            finding(Code.LOC_TOO_LONG, url=text, sitemap=ctx.sitemap, length=len(text), cut=True)
        )
    elif len(text) >= MAX_LOC_CHARS:
        found.append(finding(Code.LOC_TOO_LONG, url=text, sitemap=ctx.sitemap, length=len(text)))
    if needs_escaping(text):
        found.append(finding(Code.LOC_NOT_ESCAPED, url=text, sitemap=ctx.sitemap))
    if url is not None and ("#" in text or "?" in text or ";" in text):
        found += _indexability(text, ctx)
    off_scope = url is not None and ctx.scope is not None and _check_scope(url, text, ctx, found)
    return LocVerdict(url, tuple(found), off_scope, digest)


def _indexability(text: str, ctx: EntryContext) -> list[Finding]:
    """`#fragment`s and session or tracking parameters in a loc.

    Crawlers drop fragments; session ids and tracking parameters make duplicates of one page
    (Google Search Central, "Consolidate duplicate URLs").

    See docs/explanation/rules.md#fragments-and-tracking.
    """
    found = []
    before, hash_mark, fragment = text.partition("#")
    if hash_mark:
        found.append(
            finding(Code.LOC_FRAGMENT, url=text, sitemap=ctx.sitemap, fragment=fragment[:80])
        )
    tracked = _TRACKING.search(before)
    if tracked is not None:
        parameter = tracked["name"].lower()
        found.append(
            finding(Code.LOC_TRACKING_PARAM, url=text, sitemap=ctx.sitemap, parameter=parameter)
        )
    return found


def _check_scope(url: HttpUrl, text: str, ctx: EntryContext, found: list[Finding]) -> bool:
    assert ctx.scope is not None
    kind = ctx.scope.mismatch(url)
    if kind is not None:
        found.append(
            finding(Code.LOC_HOST_MISMATCH, url=text, sitemap=ctx.sitemap, kind=kind.value)
        )
        return True
    if not ctx.scope.contains_path(url):
        found.append(
            finding(Code.LOC_OUT_OF_SCOPE, url=text, sitemap=ctx.sitemap, folder=ctx.scope.folder)
        )
        return True
    return False


def validate_lastmod(text: str, ctx: EntryContext, *, url: str | None) -> tuple[Finding, ...]:
    """W3C Datetime (or an RSS feed's RFC 822); later than the audit is a warning.

    docs/explanation/rules.md#lastmod-grammars: a value that exactly one of W3C Datetime and
    sitemap.xsd accepts is a notice, in both directions (a time without a zone,
    `2024-05-01T10:00:00`, is the XSD's alone).
    """
    if ctx.rfc822_dates:
        earliest = parse_rfc822(text)
        if earliest is None:
            return (_invalid_lastmod(text, ctx, url, grammar="RFC 822"),)
        return _future(text, earliest, ctx, url)
    parsed = parse_lastmod(text)
    if parsed is None:
        return (_invalid_lastmod(text, ctx, url, grammar="W3C Datetime"),)
    if parsed.w3c_valid and parsed.xsd_valid and parsed.earliest <= ctx.latest:
        return ()  # the common case: nothing to say
    found = list(_future(text, parsed.earliest, ctx, url))
    if not (parsed.w3c_valid and parsed.xsd_valid):
        valid_for = "w3c" if parsed.w3c_valid else "xsd"
        value = text[:_SHOWN_CHARS]
        found.append(
            finding(
                Code.LASTMOD_XSD_MISMATCH,
                url=url,
                sitemap=ctx.sitemap,
                value=value,
                valid_for=valid_for,
            )
        )
    return tuple(found)


def _invalid_lastmod(text: str, ctx: EntryContext, url: str | None, *, grammar: str) -> Finding:
    value = text[:_SHOWN_CHARS]
    return finding(Code.LASTMOD_INVALID, url=url, sitemap=ctx.sitemap, value=value, grammar=grammar)


def _future(
    text: str, earliest: datetime, ctx: EntryContext, url: str | None
) -> tuple[Finding, ...]:
    if earliest <= ctx.latest:
        return ()
    value, now = text[:_SHOWN_CHARS], ctx.now.isoformat()
    return (finding(Code.LASTMOD_FUTURE, url=url, sitemap=ctx.sitemap, value=value, now=now),)


def validate_changefreq(text: str, ctx: EntryContext, *, url: str | None) -> tuple[Finding, ...]:
    """sitemap.xsd enumeration, case-sensitive: never coerced to a nearby value."""
    if text in CHANGEFREQS:
        return ()
    return (
        finding(Code.CHANGEFREQ_INVALID, url=url, sitemap=ctx.sitemap, value=text[:_SHOWN_CHARS]),
    )


def validate_priority(text: str, ctx: EntryContext, *, url: str | None) -> tuple[Finding, ...]:
    """An xsd:decimal from 0.0 to 1.0 inclusive: never clamped nor replaced by 0.5."""
    if text in _COMMON_PRIORITIES:
        return ()
    if _DECIMAL.fullmatch(text) and Decimal(0) <= Decimal(text) <= Decimal(1):
        return ()
    return (
        finding(Code.PRIORITY_INVALID, url=url, sitemap=ctx.sitemap, value=text[:_SHOWN_CHARS]),
    )


def validate_url_entry(entry: UrlEntry, ctx: EntryContext) -> LocVerdict:
    """Every value rule of one `<url>`; structural problems from the parser are kept first."""
    verdict = validate_loc(entry.loc, ctx, line=entry.line, cut=entry.loc_cut)
    if not entry.problems and entry.lastmod is entry.changefreq is entry.priority is None:
        return verdict  # a bare <loc>: nothing else to check (most entries of large sitemaps)
    found = _located(entry.problems, ctx) if entry.problems else []
    found += verdict.findings
    if entry.lastmod is not None:
        found += validate_lastmod(entry.lastmod, ctx, url=entry.loc)
    if entry.changefreq is not None:
        found.extend(validate_changefreq(entry.changefreq, ctx, url=entry.loc))
    if entry.priority is not None:
        found.extend(validate_priority(entry.priority, ctx, url=entry.loc))
    return LocVerdict(verdict.url, tuple(found), verdict.off_scope, verdict.digest)


def validate_sitemap_entry(entry: SitemapEntry, ctx: EntryContext) -> LocVerdict:
    """Rules of one `<sitemap>` of an index: its loc and lastmod.

    Google (Search Central, "Manage your sitemaps with a sitemap index file"): the sitemaps an
    index names "must be in the same directory as the sitemap index file, or lower in the site
    hierarchy", on the same site unless cross-submitted: the location rule, as for URLs.
    """
    verdict = validate_loc(entry.loc, ctx, line=entry.line, cut=entry.loc_cut)
    found = [*_located(entry.problems, ctx), *verdict.findings]
    if entry.lastmod is not None:
        found.extend(validate_lastmod(entry.lastmod, ctx, url=entry.loc))
    return LocVerdict(verdict.url, tuple(found), verdict.off_scope, verdict.digest)


def _located(problems: tuple[Finding, ...], ctx: EntryContext) -> list[Finding]:
    """The parser does not know which sitemap it reads; name it on its findings."""
    return [replace(problem, sitemap=ctx.sitemap) for problem in problems]
