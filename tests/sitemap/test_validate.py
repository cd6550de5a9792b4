"""sitemap.validate and urls: the value rules of sitemap entries, and URL normalisation."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from urllib.parse import urlsplit

import pytest
from hypothesis import given
from hypothesis import strategies as st

from auditor import urls as urls_module
from auditor.codes import Code
from auditor.limits import MAX_LOC_CHARS
from auditor.models import Finding, JsonScalar, finding
from auditor.sitemap import dates as dates_module
from auditor.sitemap.dates import Lastmod, parse_lastmod, xsd_earliest
from auditor.sitemap.parse.events import SitemapEntry, UrlEntry
from auditor.sitemap.validate import (
    CHANGEFREQS,
    EntryContext,
    validate_changefreq,
    validate_lastmod,
    validate_loc,
    validate_priority,
    validate_sitemap_entry,
    validate_url_entry,
)
from auditor.urls import (
    HttpUrl,
    Mismatch,
    Scope,
    authority_of,
    needs_escaping,
    netloc_of,
    parse_http_url,
    split_http_url,
    url_digest,
)
from tests.helpers import NOW, deeper

SITEMAP = "https://example.com/catalog/sitemap.xml"
PLUS_14 = timezone(timedelta(hours=14))


def http(url: str) -> HttpUrl:
    parsed = parse_http_url(url)
    assert parsed is not None, url
    return parsed


def folder_ctx(sitemap: str = SITEMAP, *, now: datetime = NOW) -> EntryContext:
    """A urlset's context: host and folder rules."""
    return EntryContext(sitemap, now, Scope.of(http(sitemap), with_folder=True))


def index_ctx(sitemap: str = SITEMAP) -> EntryContext:
    """A sitemap index's context: host rule only."""
    return EntryContext(sitemap, NOW, Scope.of(http(sitemap), with_folder=False))


def view(found: tuple[Finding, ...]) -> list[tuple[Code, dict[str, JsonScalar]]]:
    return [(item.code, dict(item.detail or {})) for item in found]


def found_codes(found: tuple[Finding, ...]) -> list[Code]:
    return [item.code for item in found]


# --- W3C Datetime -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "earliest", "xsd_valid"),
    [
        ("2024", datetime(2024, 1, 1, tzinfo=PLUS_14), False),
        ("2024-05", datetime(2024, 5, 1, tzinfo=PLUS_14), False),
        ("2024-05-06", datetime(2024, 5, 6, tzinfo=PLUS_14), True),
        ("2024-02-29", datetime(2024, 2, 29, tzinfo=PLUS_14), True),
        ("2024-05-06T10:20Z", datetime(2024, 5, 6, 10, 20, tzinfo=UTC), False),
        (
            "2024-05-06T10:20+02:00",
            datetime(2024, 5, 6, 10, 20, tzinfo=timezone(timedelta(hours=2))),
            False,
        ),
        ("2024-05-06T10:20:30Z", datetime(2024, 5, 6, 10, 20, 30, tzinfo=UTC), True),
        (
            "2024-05-06T10:20:30-05:30",
            datetime(2024, 5, 6, 10, 20, 30, tzinfo=timezone(-timedelta(hours=5, minutes=30))),
            True,
        ),
        ("2024-05-06T10:20:30.5Z", datetime(2024, 5, 6, 10, 20, 30, 500_000, tzinfo=UTC), True),
        (
            "2024-05-06T10:20:30.123456789+00:00",
            datetime(2024, 5, 6, 10, 20, 30, 123_456, tzinfo=UTC),
            True,
        ),
    ],
)
def test_the_six_w3c_forms(text: str, earliest: datetime, xsd_valid: bool) -> None:
    parsed = parse_lastmod(text)
    assert parsed == Lastmod(earliest, w3c_valid=True, xsd_valid=xsd_valid)
    assert parsed is not None
    assert parsed.earliest.utcoffset() == earliest.utcoffset()


@pytest.mark.parametrize(
    "text",
    [
        "2024-05-06T10:20",
        "2016-01-25 15:35:12",  # a space instead of T
        "2024-05-06 10:20:30Z",
        "2024-02-30",  # February 30
        "2023-02-29",
        "2024-13-01",  # month 13
        "2024-00-10",
        "2024-05-06T24:00:01Z",  # hour 24 is only the end of the day, 24:00:00
        "2024-05-06T24:30:00Z",
        "2024-05-06T10:60Z",
        "2024-05-06T10:20:61Z",
        "",
        "2024-1-5",
        "24-05-06",
        "2024-05-06T10:20:30+25:00",  # zone +25:00
        "2024-05-06T10:20:30+05:60",
        "2024-05-06T10:20:30+0200",
        "2024-05-06T10:20:30.Z",
        "2024-05-06t10:20:30z",
        " 2024-05-06",
        "2024-05-06\n",
        "\uff12\uff10\uff12\uff14",  # full-width digits
        "0000",
        "yesterday",
    ],
)
def test_neither_w3c_nor_xsd(text: str) -> None:
    assert parse_lastmod(text) is None


# --- lastmod ------------------------------------------------------------------------------------


def xsd_valid(text: str) -> bool:
    return xsd_earliest(text) is not None


@pytest.mark.parametrize(
    "text",
    [
        "2016-01-25 15:35:12",  # Search Console: "Invalid date"
        "",
        "2024-1-5",
        "yesterday",
        "2024-13-01",
        "2024-02-30",
        "2024-05-06T10:20:30+25:00",
        "2024-05-06T10:20",  # a time without seconds nor zone: neither grammar's
    ],
)
def test_lastmod_invalid(text: str) -> None:
    found = validate_lastmod(text, folder_ctx(), url="https://example.com/catalog/a")
    assert view(found) == [(Code.LASTMOD_INVALID, {"value": text, "grammar": "W3C Datetime"})]
    assert found[0].url == "https://example.com/catalog/a"
    assert found[0].sitemap == SITEMAP


@pytest.mark.parametrize(
    ("text", "now", "future"),
    [
        # 10 minutes of clock skew are allowed.
        ("2026-11-23T12:10:00Z", NOW, False),
        ("2026-11-23T12:10:01Z", NOW, True),
        ("2026-11-23T12:10:00.5Z", NOW, True),
        ("2026-11-23T14:10:00+02:00", NOW, False),
        ("2026-11-23T14:10:01+02:00", NOW, True),
        ("2026-11-23T02:10:01-10:00", NOW, True),
        ("2026-11-23T11:00:00Z", NOW, False),
        # A date starts earliest in UTC+14: 2026-11-24 begins at 2026-11-23T10:00Z.
        ("2026-11-23", NOW, False),
        ("2026-11-24", NOW, False),
        ("2026-11-25", NOW, True),
        ("2026-11-24", datetime(2026, 11, 23, 9, 50, tzinfo=UTC), False),
        ("2026-11-24", datetime(2026, 11, 23, 9, 49, 59, tzinfo=UTC), True),
        ("2026-12", NOW, True),
        ("2026-11", NOW, False),
        ("2027", NOW, True),
        ("2026", NOW, False),
    ],
)
def test_lastmod_future(text: str, now: datetime, future: bool) -> None:
    found = validate_lastmod(text, folder_ctx(now=now), url=None)
    assert (Code.LASTMOD_FUTURE in found_codes(found)) is future
    assert Code.LASTMOD_INVALID not in found_codes(found)
    if future:
        [item] = [f for f in found if f.code is Code.LASTMOD_FUTURE]
        assert item.detail == {"value": text, "now": now.isoformat()}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2024", [Code.LASTMOD_XSD_MISMATCH]),
        ("2024-05", [Code.LASTMOD_XSD_MISMATCH]),
        ("2024-05-06", []),
        ("2024-05-06T10:20Z", [Code.LASTMOD_XSD_MISMATCH]),
        ("2024-05-06T10:20:30+02:00", []),
        ("2024-05-06T10:20:30.25Z", []),
        ("2024-05-06T10:20:30+14:30", [Code.LASTMOD_XSD_MISMATCH]),  # XSD: zones to ±14:00
        ("2030", [Code.LASTMOD_FUTURE, Code.LASTMOD_XSD_MISMATCH]),
    ],
)
def test_lastmod_xsd_mismatch_notice(text: str, expected: list[Code]) -> None:
    found = validate_lastmod(text, folder_ctx(), url=None)
    assert found_codes(found) == expected
    for item in found:
        if item.code is Code.LASTMOD_XSD_MISMATCH:
            assert item.detail == {"value": text, "valid_for": "w3c"}


@pytest.mark.parametrize(
    ("text", "next_day"),
    [
        ("2024-05-01T24:00:00Z", datetime(2024, 5, 2, tzinfo=UTC)),
        ("2024-12-31T24:00:00.000+02:00", datetime(2024, 12, 31, 22, tzinfo=UTC)),
    ],
)
def test_the_end_of_a_day_is_the_xsds_alone(text: str, next_day: datetime) -> None:
    """XML Schema Part 2 §3.2.7 allows 24:00:00 (the next day's start); W3C hours stop at 23."""
    assert parse_lastmod(text) == Lastmod(next_day, w3c_valid=False, xsd_valid=True)
    found = validate_lastmod(text, folder_ctx(), url=None)
    assert view(found) == [(Code.LASTMOD_XSD_MISMATCH, {"value": text, "valid_for": "xsd"})]


@pytest.mark.parametrize(
    ("text", "future"),
    [
        ("2016-01-25T15:35:12", False),  # xsd:dateTime allows no zone, W3C Datetime does not
        ("2024-05-06T10:20:30.5", False),
        ("2024-05-06Z", False),  # xsd:date takes a zone; W3C Datetime wants a time with one
        ("2026-11-23T21:00:00", False),  # no zone: at UTC+14 that was 07:00Z, before the audit
        ("2026-11-24T03:00:00", True),  # at UTC+14: 13:00Z, after 12:00Z and its skew
    ],
)
def test_a_time_without_a_zone_is_a_notice_never_an_error(text: str, future: bool) -> None:
    """Valid for exactly one of W3C Datetime and the XSD is the notice, both ways."""
    found = validate_lastmod(text, folder_ctx(), url=None)
    expected = [Code.LASTMOD_FUTURE] if future else []
    assert found_codes(found) == [*expected, Code.LASTMOD_XSD_MISMATCH]
    assert found[-1].detail == {"value": text, "valid_for": "xsd"}


# The six W3C Datetime forms, by how many of (year, month, day, hour, minute, second, fraction)
# each one writes.
_W3C_FORMS = (1, 2, 3, 5, 6, 7)


def _designator(minutes: int) -> str:
    sign = "-" if minutes < 0 else "+"
    return f"{sign}{abs(minutes) // 60:02}:{abs(minutes) % 60:02}"


_ZONES = st.one_of(
    st.just("Z"),
    st.integers(-14 * 60, 14 * 60).map(_designator),
    st.sampled_from(
        ["+14:01", "-15:00", "+23:59", "+24:00", "+05:60", "+5:00", "+0500", "", "UTC"]
    ),
)


def _zone(text: str) -> timezone | None:
    """The zone a W3C designator names (None: not a valid designator)."""
    if text == "Z":
        return UTC
    if len(text) != 6 or text[3] != ":" or int(text[4:]) > 59 or int(text[1:3]) > 23:
        return None
    offset = timedelta(hours=int(text[1:3]), minutes=int(text[4:]))
    return timezone(-offset if text[0] == "-" else offset)


@given(
    moment=st.datetimes(),  # naive: the zone is drawn on its own
    kept=st.sampled_from(_W3C_FORMS),
    digits=st.integers(1, 9),
    zone=_ZONES,
)
def test_every_w3c_form_means_its_earliest_moment(
    moment: datetime, kept: int, digits: int, zone: str
) -> None:
    m = moment
    fraction = f"{m.microsecond:06}{'7' * 3}"[:digits]
    written = [f"{m.year:04}", f"-{m.month:02}", f"-{m.day:02}", f"T{m.hour:02}", f":{m.minute:02}",
               f":{m.second:02}", f".{fraction}"]  # fmt: skip
    text = "".join(written[:kept]) + (zone if kept > 3 else "")
    parsed = parse_lastmod(text)
    tz = _zone(zone) if kept > 3 else PLUS_14
    xsd_only = kept > 5 and zone == ""  # a time to the second, no zone: the XSD's alone
    if xsd_only:
        tz = PLUS_14
    if tz is None:
        assert parsed is None, text
        return
    assert parsed is not None, text
    values = [m.year, m.month, m.day, m.hour, m.minute, m.second, int(fraction[:6].ljust(6, "0"))]
    year, month, day, hour, minute, second, micro = [*values[:kept], *(0, 1, 1, 0, 0, 0, 0)[kept:]]
    expected = datetime(year, month, day, hour, minute, second, micro, tzinfo=tz)
    assert parsed.earliest == expected
    assert parsed.earliest.utcoffset() == expected.utcoffset()
    assert parsed.w3c_valid is not xsd_only
    assert parsed.xsd_valid is (
        kept == 3 or (kept > 5 and abs(expected.utcoffset() or timedelta()) <= timedelta(hours=14))
    )


@given(st.text(st.sampled_from("0123456789-T:Z+.Z \u0663x"), max_size=32) | st.text(max_size=32))
def test_any_lastmod_gives_findings_that_agree(text: str) -> None:
    found = validate_lastmod(text, folder_ctx(), url=None)
    parsed = parse_lastmod(text)
    codes = found_codes(found)
    assert (Code.LASTMOD_INVALID in codes) is (parsed is None)
    if parsed is None:
        assert not xsd_valid(text), text
        [item] = found
        assert item.code is Code.LASTMOD_INVALID
    else:  # the notice says "valid for one grammar only", exactly
        mismatch = not (parsed.w3c_valid and parsed.xsd_valid)
        assert (Code.LASTMOD_XSD_MISMATCH in codes) is mismatch, text
        assert parsed.xsd_valid is xsd_valid(text), text


# --- changefreq and priority ---------------------------------------------------------------------


@pytest.mark.parametrize("text", sorted(CHANGEFREQS))
def test_changefreq_allowed(text: str) -> None:
    assert validate_changefreq(text, folder_ctx(), url=None) == ()


def test_changefreq_has_the_seven_values() -> None:
    seven = {"always", "hourly", "daily", "weekly", "monthly", "yearly", "never"}
    assert seven == CHANGEFREQS


@pytest.mark.parametrize("text", ["Daily", "DAILY", " daily", "weekly ", "", "sometimes", "1"])
def test_changefreq_invalid_is_never_coerced(text: str) -> None:
    found = validate_changefreq(text, folder_ctx(), url="https://example.com/catalog/a")
    assert view(found) == [(Code.CHANGEFREQ_INVALID, {"value": text})]
    assert found[0].url == "https://example.com/catalog/a"


@pytest.mark.parametrize(
    "text", ["0", "0.0", "1", "1.0", ".5", "+0.5", "0.5", "1.", "+1.000", "-0", "0.123456789"]
)
def test_priority_valid(text: str) -> None:
    assert validate_priority(text, folder_ctx(), url=None) == ()


@pytest.mark.parametrize(
    "text",
    ["1.5", "-0.1", "1e-1", "0,5", "", "abc", " 0.5", "NaN", "inf", "1.0000001", "0x1", "."],
)
def test_priority_invalid_is_never_coerced(text: str) -> None:
    found = validate_priority(text, folder_ctx(), url=None)
    assert view(found) == [(Code.PRIORITY_INVALID, {"value": text})]


# --- loc ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "empty"), [(None, False), ("", True)])
def test_loc_missing(text: str | None, empty: bool) -> None:
    verdict = validate_loc(text, folder_ctx(), line=7)
    assert verdict.url is None
    assert view(verdict.findings) == [(Code.LOC_MISSING, {"line": 7, "empty": empty})]
    assert verdict.findings[0].sitemap == SITEMAP


@pytest.mark.parametrize(
    "text",
    [
        "/catalog/a",
        "catalog/a",
        "//example.com/catalog/a",
        "ftp://example.com/catalog/a",
        "mailto:someone@example.com",
        "javascript:alert(1)",
        "https://example.com:99999/catalog/",
        "https://example.com:abc/catalog/",
        "https://[::1/catalog/",
        "https://[zz]/catalog/",
        "https:///catalog/a",
        "http://",
    ],
)
def test_loc_invalid(text: str) -> None:
    verdict = validate_loc(text, folder_ctx())
    assert verdict.url is None
    assert found_codes(verdict.findings) == [Code.LOC_INVALID]
    assert verdict.findings[0].url == text
    assert not verdict.off_scope


def test_loc_length_limit() -> None:
    base = "https://example.com/catalog/"
    ok = base + "a" * (MAX_LOC_CHARS - 1 - len(base))
    too_long = ok + "a"
    assert len(ok) == 2047
    assert validate_loc(ok, folder_ctx()).findings == ()
    verdict = validate_loc(too_long, folder_ctx())
    assert view(verdict.findings) == [(Code.LOC_TOO_LONG, {"length": 2048})]
    assert verdict.url is not None  # still a usable URL


@pytest.mark.parametrize(
    ("text", "escaped"),
    [
        ("https://example.com/catalog/a b", False),
        ('https://example.com/catalog/a"b', False),
        ("https://example.com/catalog/<a>", False),
        ("https://example.com/catalog/caf\u00e9", False),
        ("https://example.com/catalog/100%", False),
        ("https://example.com/catalog/%2", False),
        ("https://example.com/catalog/%zz", False),
        ("https://example.com/catalog/a{b}", False),
        ("https://example.com/catalog/a\tb", False),
        ("https://example.com/catalog/%20x", True),
        ("https://example.com/catalog/caf%C3%A9?q=a%2fb&r=1", True),
        ("https://example.com/catalog/a?b=c#frag", True),
    ],
)
def test_loc_not_escaped(text: str, escaped: bool) -> None:
    verdict = validate_loc(text, folder_ctx())
    found = [code for code in found_codes(verdict.findings) if code is not Code.LOC_FRAGMENT]
    assert found == ([] if escaped else [Code.LOC_NOT_ESCAPED])
    assert needs_escaping(text) is not escaped


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("https://other.com/catalog/a", "host"),
        ("https://example.org/catalog/a", "host"),
        ("https://www.example.com/catalog/a", "www"),
        ("http://example.com/catalog/a", "scheme"),
        ("https://example.com:8443/catalog/a", "port"),
        ("http://www.example.com/catalog/a", "www"),  # host first, worst first
    ],
)
def test_loc_host_mismatch(text: str, kind: str) -> None:
    verdict = validate_loc(text, folder_ctx())
    assert view(verdict.findings) == [(Code.LOC_HOST_MISMATCH, {"kind": kind})]
    assert verdict.off_scope
    assert verdict.url is not None


def test_loc_host_mismatch_www_both_ways() -> None:
    ctx = folder_ctx("https://www.example.com/sitemap.xml")
    verdict = validate_loc("https://example.com/a", ctx)
    assert view(verdict.findings) == [(Code.LOC_HOST_MISMATCH, {"kind": "www"})]


def test_loc_port_rule_when_the_sitemap_has_a_port() -> None:
    ctx = folder_ctx("https://example.com:8443/sitemap.xml")
    assert validate_loc("https://example.com:8443/a", ctx).findings == ()
    verdict = validate_loc("https://example.com/a", ctx)
    assert view(verdict.findings) == [(Code.LOC_HOST_MISMATCH, {"kind": "port"})]


@pytest.mark.parametrize(
    "text",
    [
        "https://example.com/other/a",
        "https://example.com/catalog",
        "https://example.com/catalogue/a",
        "https://example.com/",
        "https://example.com",
    ],
)
def test_loc_out_of_scope(text: str) -> None:
    verdict = validate_loc(text, folder_ctx())
    assert view(verdict.findings) == [(Code.LOC_OUT_OF_SCOPE, {"folder": "/catalog/"})]
    assert verdict.off_scope


@pytest.mark.parametrize(
    "text",
    [
        "https://example.com/catalog/",
        "https://example.com/catalog/a",
        "https://example.com/catalog/deep/x.html?q=1",
        "HTTPS://EXAMPLE.COM/catalog/a",
        "https://example.com:443/catalog/a",
    ],
)
def test_loc_in_scope(text: str) -> None:
    verdict = validate_loc(text, folder_ctx())
    assert verdict.findings == ()
    assert not verdict.off_scope
    assert verdict.url == http(text)


def test_root_sitemap_scope_is_the_whole_host() -> None:
    ctx = folder_ctx("https://example.com/sitemap.xml")
    assert validate_loc("https://example.com/any/where", ctx).findings == ()
    assert validate_loc("https://example.com", ctx).findings == ()


def test_dot_segments_cannot_leave_the_folder() -> None:
    verdict = validate_loc("https://example.com/catalog/../admin/x", folder_ctx())
    assert found_codes(verdict.findings) == [Code.LOC_OUT_OF_SCOPE]


def test_no_scope_means_no_location_rule() -> None:
    ctx = EntryContext(SITEMAP, NOW)
    assert validate_loc("http://other.com:81/x", ctx).findings == ()
    assert found_codes(validate_loc("other.com/x", ctx).findings) == [Code.LOC_INVALID]


def test_several_loc_problems_together() -> None:
    text = "https://other.com/catalog/" + "\u00e9" * 2100
    verdict = validate_loc(text, folder_ctx())
    assert found_codes(verdict.findings) == [
        Code.LOC_TOO_LONG,
        Code.LOC_NOT_ESCAPED,
        Code.LOC_HOST_MISMATCH,
    ]


# --- whole entries --------------------------------------------------------------------------------


def test_url_entry_keeps_parser_problems_first_and_names_the_sitemap() -> None:
    parser_problem = finding(
        Code.ENTRY_DUPLICATE_TAG, url="https://example.com/catalog/a", tag="loc", line=3
    )
    entry = UrlEntry(
        "https://example.com/catalog/a",
        2,
        lastmod="2024-13-01",
        changefreq="Daily",
        priority="1.5",
        problems=(parser_problem,),
    )
    verdict = validate_url_entry(entry, folder_ctx())
    assert found_codes(verdict.findings) == [
        Code.ENTRY_DUPLICATE_TAG,
        Code.LASTMOD_INVALID,
        Code.CHANGEFREQ_INVALID,
        Code.PRIORITY_INVALID,
    ]
    assert all(item.sitemap == SITEMAP for item in verdict.findings)
    assert all(item.url == "https://example.com/catalog/a" for item in verdict.findings)
    assert verdict.url == http("https://example.com/catalog/a")


def test_url_entry_without_loc() -> None:
    verdict = validate_url_entry(UrlEntry(None, 4, lastmod="2024-05-06"), folder_ctx())
    assert view(verdict.findings) == [(Code.LOC_MISSING, {"line": 4, "empty": False})]


def test_clean_url_entry() -> None:
    entry = UrlEntry("https://example.com/catalog/a", 2, "2024-05-06", "daily", "0.5")
    assert validate_url_entry(entry, folder_ctx()).findings == ()


@pytest.mark.parametrize(
    ("loc", "expected"),
    [
        ("https://example.com/other/s.xml", []),  # index entries: no folder rule
        ("https://example.com/s.xml", []),
        ("https://www.example.com/other/s.xml", [(Code.LOC_HOST_MISMATCH, {"kind": "www"})]),
        ("https://cdn.example.net/s.xml", [(Code.LOC_HOST_MISMATCH, {"kind": "host"})]),
        ("http://example.com/s.xml", [(Code.LOC_HOST_MISMATCH, {"kind": "scheme"})]),
    ],
)
def test_sitemap_entry_checks_the_host_only(
    loc: str, expected: list[tuple[Code, dict[str, JsonScalar]]]
) -> None:
    verdict = validate_sitemap_entry(SitemapEntry(loc, 3), index_ctx())
    assert view(verdict.findings) == expected
    assert verdict.off_scope is bool(expected)


def test_sitemap_entry_lastmod_is_checked() -> None:
    entry = SitemapEntry("https://example.com/s.xml", 3, "2016-01-25 15:35:12")
    verdict = validate_sitemap_entry(entry, index_ctx())
    assert found_codes(verdict.findings) == [Code.LASTMOD_INVALID]


# --- urls -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "key"),
    [
        ("HTTPS://Example.COM/a", "https://example.com/a"),
        ("https://example.com:443/a", "https://example.com/a"),
        ("http://example.com:80/a", "http://example.com/a"),
        ("http://example.com:8080/a", "http://example.com:8080/a"),
        ("https://example.com:80/a", "https://example.com:80/a"),
        ("https://example.com", "https://example.com/"),
        ("https://example.com?q=1", "https://example.com/?q=1"),
        ("https://example.com/a#frag", "https://example.com/a"),
        ("https://example.com/a?b=c#frag", "https://example.com/a?b=c"),
        ("https://example.com/a%2fb?x=%3a", "https://example.com/a%2Fb?x=%3A"),
        ("https://example.com/A/b", "https://example.com/A/b"),  # the path keeps its case
        ("https://[::1]:8443/x", "https://[::1]:8443/x"),
        ("https://user:pw@example.com/x", "https://example.com/x"),
    ],
)
def test_http_url_key(url: str, key: str) -> None:
    assert http(url).key == key


def test_same_page_same_key() -> None:
    keys = {
        http(url).key
        for url in [
            "https://example.com/a%2fb",
            "HTTPS://EXAMPLE.com:443/a%2Fb",
            "https://example.com/a%2Fb#top",
        ]
    }
    assert len(keys) == 1


@pytest.mark.parametrize(
    ("url", "same_as"),
    [
        ("https://example.com/a/../b", "https://example.com/b"),
        ("https://example.com/./b", "https://example.com/b"),
        ("https://example.com/%7Euser", "https://example.com/~user"),
        # a raw character keys as the escape a browser requests (RFC 3987 §3.1)
        ("https://example.com/caf\u00e9", "https://example.com/caf%C3%A9"),
        ("https://example.com/caf\u00e9", "https://example.com/caf%c3%a9"),
        ("https://example.com/a b", "https://example.com/a%20b"),
        ("https://example.com/s?q=caf\u00e9&x={1}", "https://example.com/s?q=caf%C3%A9&x=%7B1%7D"),
    ],
)
def test_key_follows_rfc3986_normalisation(url: str, same_as: str) -> None:
    assert http(url).key == http(same_as).key


@pytest.mark.parametrize(
    ("url", "other"),
    [
        ("https://example.com/caf\u00e9", "https://example.com/cafe"),
        ("https://example.com/a%2Fb", "https://example.com/a/b"),  # an escaped reserved one
        ("https://example.com/s?q=it's", "https://example.com/s?q=it%27s"),
    ],
)
def test_key_keeps_apart_what_a_browser_requests_apart(url: str, other: str) -> None:
    assert http(url).key != http(other).key


@pytest.mark.parametrize(
    ("url", "origin"),
    [
        ("https://Example.com/x", "https://example.com"),
        ("http://example.com:8080/x", "http://example.com:8080"),
        ("https://[::1]/x", "https://[::1]"),
    ],
)
def test_origin(url: str, origin: str) -> None:
    assert http(url).origin == origin


@pytest.mark.parametrize(
    "text",
    [
        "ftp://example.com/",
        "example.com/a",
        "https://",
        "https://exa mple.com/",
        "https://example.com:0x50/",
        "https://[::1/",
        "file:///etc/passwd",
        "http:// [::1]/",  # urlsplit reads the host "::1" past the space
        "http://u ser@example.com/",
        "http://[::1]x/",  # urlsplit reads the host "::1" and drops the rest
        "http://[::1]:8x/",
    ],
)
def test_parse_http_url_refuses(text: str) -> None:
    assert parse_http_url(text) is None


def test_url_digest_is_stable_and_non_zero() -> None:
    # blake2b, not hash(): the same in every process whatever PYTHONHASHSEED says.
    assert url_digest("https://example.com/") == 6581209984513522196
    digests = {url_digest(f"https://example.com/{i}") for i in range(2000)}
    assert len(digests) == 2000
    assert 0 not in digests
    assert all(0 < digest < 2**64 for digest in digests)


@pytest.mark.parametrize(
    ("base", "with_folder", "scope"),
    [
        (
            "https://example.com/catalog/sitemap.xml",
            True,
            Scope("https", "example.com", 443, "/catalog/"),
        ),
        (
            "https://example.com/catalog/sitemap.xml",
            False,
            Scope("https", "example.com", 443, None),
        ),
        ("https://example.com/sitemap.xml", True, Scope("https", "example.com", 443, "/")),
        ("http://example.com:8080", True, Scope("http", "example.com", 8080, "/")),
        ("https://example.com/a/b/", True, Scope("https", "example.com", 443, "/a/b/")),
    ],
)
def test_scope_of(base: str, with_folder: bool, scope: Scope) -> None:
    assert Scope.of(http(base), with_folder=with_folder) == scope


@pytest.mark.parametrize(
    ("url", "mismatch"),
    [
        ("https://example.com/x", None),
        ("https://www.example.com/x", Mismatch.WWW),
        ("https://shop.example.com/x", Mismatch.HOST),
        ("http://example.com/x", Mismatch.SCHEME),
        ("https://example.com:444/x", Mismatch.PORT),
    ],
)
def test_scope_mismatch(url: str, mismatch: Mismatch | None) -> None:
    scope = Scope.of(http("https://example.com/sitemap.xml"), with_folder=True)
    assert scope.mismatch(http(url)) is mismatch


_URL_PARTS = st.text(
    alphabet=st.sampled_from([*'aZ09-._~%/?#@:[]! \t\n\x00"\\^`{|}é', "\u0663", "\u00b2"]),
    max_size=12,
)


@pytest.mark.slow
@deeper(4)
@given(
    scheme=st.sampled_from(["http", "HTTPS", "ftp", "hTtP"]),
    host=st.sampled_from(["example.com", "EXAMPLE.com", "a", "[::1]", "ex ample", "", "x.y-z"]),
    port=st.sampled_from(["", ":", ":80", ":443", ":8080", ":99999", ":0", ":x", ":\u0663"]),
    rest=_URL_PARTS,
)
def test_fast_url_parse_agrees_with_urlsplit(scheme: str, host: str, port: str, rest: str) -> None:
    text = f"{scheme}://{host}{port}{rest}"
    assert parse_http_url(text) == split_http_url(text)


@pytest.mark.parametrize(
    "text",
    [
        "https://Example.com/a/b?x=1#frag",
        "http://a.b:8080/%7euser/./x/../y",
        "https://user:pw@example.com/",
        "http://example.com",
        "HTTP://EXAMPLE.COM:443/?",
        'https://example.com/caf\u00e9/"quoted"',
    ],
)
def test_common_urls_take_the_fast_path(text: str) -> None:
    assert urls_module._PLAIN_URL.fullmatch(text) is not None
    assert parse_http_url(text) == split_http_url(text)


@pytest.mark.slow
@deeper(3)
@given(
    scheme=st.sampled_from(["http", "HTTPS"]),
    host=st.sampled_from(["example.com", "EXAMPLE.com", "a", "[::1]", "x.y-z", "u:p@h"]),
    port=st.sampled_from(["", ":80", ":8080"]),
    rest=_URL_PARTS.filter(lambda rest: not rest or rest[0] in "/?#"),
)
def test_netloc_of_agrees_with_urlsplit(scheme: str, host: str, port: str, rest: str) -> None:
    text = f"{scheme}://{host}{port}{rest}"
    try:
        expected = urlsplit(text).netloc.lower()
    except ValueError:
        return  # not a URL the auditor would request
    assert netloc_of(text) == expected
    # The check stage keeps origins by authority: the authority alone must give the same one.
    parsed = parse_http_url(text)
    if parsed is not None:
        from_authority = parse_http_url(authority_of(text))
        assert from_authority is not None
        assert from_authority.origin == parsed.origin


_HOSTS = st.sampled_from(["example.com", "EXAMPLE.com", "www.example.com", "shop.example.com", "a"])
_SEGMENTS = st.sampled_from(
    ["a", "B", ".", "..", "%41", "%7e", "%2F", "%2e", "%zz", "caf%C3%A9", ""]
)


@st.composite
def http_urls(draw: st.DrawFn) -> str:
    """An absolute http(s) URL with mixed case, explicit ports, dot segments and escapes."""
    scheme = draw(st.sampled_from(["http", "https", "HTTPS", "hTtP"]))
    port = draw(st.sampled_from(["", ":80", ":443", ":8080"]))
    path = "/".join(draw(st.lists(_SEGMENTS, max_size=6)))
    query = draw(st.sampled_from(["", "?", "?a=%7e", "?b=%2f&c"]))
    return f"{scheme}://{draw(_HOSTS)}{port}/{path}{query}"


@deeper(2)
@given(http_urls())
def test_a_key_is_its_own_key(text: str) -> None:
    parsed = parse_http_url(text)
    assert parsed is not None
    again = parse_http_url(parsed.key)
    assert again is not None
    assert again.key == parsed.key  # normalising twice changes nothing
    assert url_digest(again.key) == url_digest(parsed.key)
    # Spelling the scheme and host in capitals, or the port out, is the same page.
    origin = f"{parsed.scheme.upper()}://{parsed.host.upper()}:{parsed.port}"
    spelt = parse_http_url(
        f"{origin}{parsed.path or '/'}{'?' if parsed.query else ''}{parsed.query}"
    )
    assert spelt is not None
    assert spelt.key == parsed.key


@deeper(2)
@given(http_urls(), http_urls())
def test_the_host_rules_agree_with_the_origins(sitemap: str, listed: str) -> None:
    base, url = parse_http_url(sitemap), parse_http_url(listed)
    assert base is not None
    assert url is not None
    scope = Scope.of(base, with_folder=True)
    assert scope.mismatch(base) is None
    assert scope.contains_path(base)
    kind = scope.mismatch(url)
    assert (kind is None) is (url.origin == base.origin)
    if kind is Mismatch.WWW:
        assert url.host.removeprefix("www.") == base.host.removeprefix("www.")
    back = Scope.of(url, with_folder=False).mismatch(base)
    assert (kind is None) is (back is None)
    assert (kind is Mismatch.WWW) is (back is Mismatch.WWW)  # www is the same either way


@given(st.text(max_size=40) | http_urls().map(lambda url: url.replace("a", " a\u00e9")))
def test_any_loc_gives_findings_never_an_error(text: str) -> None:
    ctx = folder_ctx()
    verdict = validate_loc(text, ctx)
    codes = found_codes(verdict.findings)
    assert (verdict.url is None) is (not text or Code.LOC_INVALID in codes)
    assert (Code.LOC_NOT_ESCAPED in codes) is (bool(text) and needs_escaping(text))
    assert verdict.off_scope is any(
        code in codes for code in (Code.LOC_HOST_MISMATCH, Code.LOC_OUT_OF_SCOPE)
    )


_URLISH = st.text(alphabet=st.sampled_from('htps:/.%2Fa9 "<>{|}^`\x00\x7fé'), max_size=40)


@given(st.one_of(_URLISH, st.text(max_size=40)))
def test_the_ascii_escaping_shortcut_agrees_with_the_full_rule(text: str) -> None:
    full = urls_module._NEEDS_ESCAPING.search(text) is not None
    assert needs_escaping(text) is full


_W3C_SHAPED = st.one_of(
    st.from_regex(r"\A\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})?)?\Z"),
    st.builds(  # real moments, as sitemaps write them
        lambda moment, zone, day: (
            moment.strftime("%Y-%m-%d" if day else "%Y-%m-%dT%H:%M:%S") + zone
        ),
        st.datetimes(min_value=datetime(1000, 1, 1)),  # noqa: DTZ001 - written without a zone
        st.sampled_from(["Z", "+14:00", "-14:00", "+14:01", "+05:30", "-23:59", "+24:00", ""]),
        st.booleans(),
    ),
)


@deeper(2)
@given(_W3C_SHAPED)
def test_the_common_w3c_forms_parse_as_the_general_pattern_does(text: str) -> None:
    fast = parse_lastmod.__wrapped__(text)
    general = dates_module._parse_any_w3c(text)
    if fast is not None and not fast.w3c_valid:
        fast = None  # the XSD's alone: the W3C parsers both refuse it
    assert fast == general
    if fast is not None and general is not None:
        assert fast.earliest.utcoffset() == general.earliest.utcoffset()


# --- findings that were false once, kept right
# -----------------------------------------------------


@pytest.mark.parametrize("listed", ["https://bücher.de/a", "https://BÜCHER.de/a"])
def test_idn_hosts_compare_and_deduplicate_in_their_idna_form(listed: str) -> None:
    """`https://bücher.de/a` in a sitemap at `https://xn--bcher-kva.de/` is on its host."""
    ctx = folder_ctx("https://xn--bcher-kva.de/sitemap.xml")
    verdict = validate_loc(listed, ctx)
    assert Code.LOC_HOST_MISMATCH not in found_codes(verdict.findings)
    assert verdict.url is not None
    assert verdict.url.key == http("https://xn--bcher-kva.de/a").key
    assert not verdict.off_scope


@pytest.mark.parametrize("listed", ["https://example.com:0/catalog/a", "http://[::1]:0/catalog/"])
def test_port_zero_is_no_default_port(listed: str) -> None:
    """RFC 6335 reserves port 0: a loc with it is invalid, never the scheme's default port."""
    verdict = validate_loc(listed, folder_ctx())
    assert found_codes(verdict.findings)[:1] == [Code.LOC_INVALID]
    assert parse_http_url(listed) is None
    assert split_http_url(listed) is None


@pytest.mark.parametrize(
    ("listed", "expected", "detail"),
    [
        ("https://example.com/catalog/a#reviews", [Code.LOC_FRAGMENT], {"fragment": "reviews"}),
        ("https://example.com/catalog/a?utm_source=x", [Code.LOC_TRACKING_PARAM], None),
        ("https://example.com/catalog/a;jsessionid=0A1B", [Code.LOC_TRACKING_PARAM], None),
        ("https://example.com/catalog/a?id=1&PHPSESSID=9f", [Code.LOC_TRACKING_PARAM], None),
        ("https://example.com/catalog/a?sid=7", [Code.LOC_TRACKING_PARAM], {"parameter": "sid"}),
        ("https://example.com/catalog/a?side=left&consider=1", [], None),
        ("https://example.com/catalog/a?q=utm_source", [], None),
    ],
)
def test_fragments_and_tracking_parameters(
    listed: str, expected: list[Code], detail: dict[str, str] | None
) -> None:
    verdict = validate_loc(listed, folder_ctx())
    assert found_codes(verdict.findings) == expected
    if detail is not None:
        assert verdict.findings[0].detail == detail
