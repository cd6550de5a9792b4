"""Value rules for sitemap entries: loc, lastmod, changefreq, priority (PROTOCOL.md, Entry tags).

Structure (missing or repeated tags, namespaces) is the parser's job; tree-wide rules (duplicates,
cross-submission) are the reader's. Pure: no I/O; the audit's clock comes in as `now`.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta, timezone
from decimal import Decimal

from auditor.codes import Code
from auditor.limits import MAX_LOC_CHARS
from auditor.models import Finding, SitemapEntry, UrlEntry, finding
from auditor.urls import HttpUrl, Scope, needs_escaping, parse_http_url

CHANGEFREQS = frozenset({"always", "hourly", "daily", "weekly", "monthly", "yearly", "never"})
# A lastmod a few minutes ahead is clock skew between the site and us, not a wrong date.
FUTURE_SKEW = timedelta(minutes=10)
# A date without a time starts earliest where the day starts first: UTC+14 (Line Islands).
_EARLIEST_ZONE = timezone(timedelta(hours=14))

# W3C Datetime (https://www.w3.org/TR/NOTE-datetime): YYYY, YYYY-MM, YYYY-MM-DD, then a time with
# hh:mm, hh:mm:ss or hh:mm:ss.s, which needs a time zone designator.
_W3C = re.compile(
    r"(?P<y>\d{4})(?:-(?P<mo>\d{2})(?:-(?P<d>\d{2})"
    r"(?:T(?P<h>\d{2}):(?P<mi>\d{2})(?::(?P<s>\d{2})(?:\.(?P<f>\d+))?)?"
    r"(?P<tz>Z|[+-]\d{2}:\d{2})?)?)?)?",
    re.ASCII,
)
# The forms sitemaps write (a day; a time to the second with a zone) are parsed by
# datetime.fromisoformat, a few times faster than the general pattern; a test keeps both equal.
# Hours, minutes and seconds in range: what fromisoformat might read otherwise stays W3C's.
_COMMON_W3C = re.compile(
    r"\d{4}-\d{2}-\d{2}(?:T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:Z|[+-](?:[01]\d|2[0-3]):[0-5]\d))?",
    re.ASCII,
)
# sitemap.xsd: the union of xsd:date and xsd:dateTime, where the zone is optional.
_XSD = re.compile(
    r"(?P<y>\d{4})-(?P<mo>\d{2})-(?P<d>\d{2})"
    r"(?:T(?P<h>\d{2}):(?P<mi>\d{2}):(?P<s>\d{2})(?:\.\d+)?)?(?P<tz>Z|[+-]\d{2}:\d{2})?",
    re.ASCII,
)
_SHOWN_CHARS = 200  # of a bad value, in a finding's detail
_XSD_MAX_ZONE = timedelta(hours=14)  # XML Schema 1.1 §D.2.1: zones from -14:00 to +14:00
# xsd:decimal: optional sign, digits with an optional fraction; no exponent, no comma.
_DECIMAL = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)", re.ASCII)
# The priorities sitemaps write (0, 0.5, 1.0, 0.80...): accepted without three Decimals.
_COMMON_PRIORITIES = frozenset(
    ["0", "1", *(f"{n / 10:.1f}" for n in range(11)), *(f"{n / 100:.2f}" for n in range(101))]
)


@dataclass(frozen=True, slots=True)
class W3CDatetime:
    """A valid lastmod: the earliest moment it can mean, and whether sitemap.xsd accepts it."""

    earliest: datetime
    xsd_valid: bool


# Sitemaps repeat their lastmod values (a build date, a day): each is parsed once. The result
# is immutable, so sharing it is safe.
@functools.lru_cache(maxsize=4096)
def parse_w3c_datetime(text: str) -> W3CDatetime | None:
    """Parse one of the six W3C Datetime forms exactly; None when the text is none of them."""
    if _COMMON_W3C.fullmatch(text):
        try:
            moment = datetime.fromisoformat(text)
        except ValueError:  # February 30...
            return None
        if moment.tzinfo is None:  # a day: it starts earliest at UTC+14
            return W3CDatetime(moment.replace(tzinfo=_EARLIEST_ZONE), xsd_valid=True)
        offset = moment.utcoffset()
        return W3CDatetime(moment, xsd_valid=offset is not None and abs(offset) <= _XSD_MAX_ZONE)
    return _parse_any_w3c(text)


def _parse_any_w3c(text: str) -> W3CDatetime | None:
    """`parse_w3c_datetime` through the general pattern: every form, every edge."""
    match = _W3C.fullmatch(text)
    if match is None:
        return None
    year, month, day, hour, tz = match.group("y", "mo", "d", "h", "tz")
    if hour is not None and tz is None:
        return None  # W3C: a time needs a time zone designator
    try:
        zone = _EARLIEST_ZONE if tz is None else _parse_zone(tz)
        fraction = match["f"] or "0"
        earliest = datetime(
            int(year),
            int(month or 1),
            int(day or 1),
            int(hour or 0),
            int(match["mi"] or 0),
            int(match["s"] or 0),
            int(fraction[:6].ljust(6, "0")),
            tzinfo=zone,
        )
    except ValueError:  # month 13, February 30, hour 24, zone +25:00...
        return None
    # sitemap.xsd also wants seconds with a time, and a zone within ±14:00 (_xsd_valid).
    xsd_valid = day is not None and (hour is None or match["s"] is not None)
    xsd_valid = xsd_valid and abs(zone.utcoffset(None)) <= _XSD_MAX_ZONE
    return W3CDatetime(earliest, xsd_valid)


def _xsd_valid(text: str) -> bool:
    """Whether sitemap.xsd (xsd:date or xsd:dateTime) accepts the value, ranges included."""
    match = _XSD.fullmatch(text)
    if match is None:
        return False
    try:
        zone = UTC if match["tz"] is None else _parse_zone(match["tz"])
        fields = (int(match[name] or 0) for name in ("y", "mo", "d", "h", "mi", "s"))
        year, month, day, hour, minute, second = fields
        datetime(year, month, day, hour, minute, second, tzinfo=zone)
    except ValueError:
        return False
    offset = zone.utcoffset(None)
    return abs(offset) <= _XSD_MAX_ZONE


def _parse_zone(tz: str) -> timezone:
    if tz == "Z":
        return UTC
    hours, minutes = int(tz[1:3]), int(tz[4:6])
    if minutes > 59:
        raise ValueError(tz)
    offset = timedelta(hours=hours, minutes=minutes)
    return timezone(-offset if tz[0] == "-" else offset)


@dataclass(frozen=True, slots=True)
class EntryContext:
    """What the rules need to know about the sitemap an entry comes from."""

    sitemap: str
    now: datetime
    scope: Scope | None = None  # None: no location rule (a local file before its first URL)
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


def validate_loc(
    text: str | None, ctx: EntryContext, *, line: int | None = None, cut: bool = False
) -> LocVerdict:
    """Apply the `<loc>` rules: present, absolute http(s), short, escaped, in scope.

    `cut`: the parser kept only the first limits.MAX_FIELD_CHARS characters of the value.
    """
    if not text:
        return LocVerdict(
            None,
            (finding(Code.LOC_MISSING, sitemap=ctx.sitemap, line=line, empty=text is not None),),
        )
    url = parse_http_url(text)
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
    off_scope = url is not None and ctx.scope is not None and _check_scope(url, text, ctx, found)
    return LocVerdict(url, tuple(found), off_scope)


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
    """W3C Datetime, exactly; later than the audit is a warning; XSD disagreement a notice."""
    parsed = parse_w3c_datetime(text)
    if parsed is None:
        return (
            finding(
                Code.LASTMOD_INVALID,
                url=url,
                sitemap=ctx.sitemap,
                value=text[:_SHOWN_CHARS],
                xsd_valid=_xsd_valid(text),
            ),
        )
    found: list[Finding] = []
    if parsed.xsd_valid and parsed.earliest <= ctx.latest:
        return ()  # the common case: nothing to say
    if parsed.earliest > ctx.latest:
        found.append(
            finding(
                Code.LASTMOD_FUTURE,
                url=url,
                sitemap=ctx.sitemap,
                value=text[:_SHOWN_CHARS],
                now=ctx.now.isoformat(),
            )
        )
    if not parsed.xsd_valid:
        found.append(
            finding(
                Code.LASTMOD_XSD_MISMATCH, url=url, sitemap=ctx.sitemap, value=text[:_SHOWN_CHARS]
            )
        )
    return tuple(found)


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
    verdict = validate_loc(entry.loc, ctx, line=entry.line, cut=entry.cut)
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
    return LocVerdict(verdict.url, tuple(found), verdict.off_scope)


def validate_sitemap_entry(entry: SitemapEntry, ctx: EntryContext) -> LocVerdict:
    """Rules of one `<sitemap>` of an index: its loc (host rule only) and lastmod."""
    verdict = validate_loc(entry.loc, ctx, line=entry.line, cut=entry.cut)
    found = [*_located(entry.problems, ctx), *verdict.findings]
    if entry.lastmod is not None:
        found.extend(validate_lastmod(entry.lastmod, ctx, url=entry.loc))
    return LocVerdict(verdict.url, tuple(found), verdict.off_scope)


def _located(problems: tuple[Finding, ...], ctx: EntryContext) -> list[Finding]:
    """The parser does not know which sitemap it reads; name it on its findings."""
    return [replace(problem, sitemap=ctx.sitemap) for problem in problems]
