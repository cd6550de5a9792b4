"""What a line says: its format (log_formats), its time (log_times), its page (log_targets)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from auditor.errors import ConfigError
from auditor.urls import parse_http_url
from auditor.wings.logs.log_formats import (
    CADDY_FIELDS,
    NGINX_FIELDS,
    LogField,
    LogFormat,
    json_object,
    sniff_format,
)
from auditor.wings.logs.log_settings import field_paths, log_field
from auditor.wings.logs.log_targets import (
    host_of,
    is_page,
    listed_keys,
    request_target,
    target_key,
)
from auditor.wings.logs.log_times import ClfTimes, json_seconds
from tests.wings.logs.log_lines import FORMATS, GOOGLEBOT_IP, Hit

WHEN = datetime(2026, 11, 1, 8, 30, tzinfo=UTC)
HIT = Hit(GOOGLEBOT_IP, WHEN, "/a?b=1")


@pytest.mark.parametrize("name", FORMATS)
def test_each_format_is_told_from_its_first_lines(name: str) -> None:
    lines = [FORMATS[name](HIT).encode()] * 3
    assert sniff_format(lines, given=LogFormat.AUTO) is LogFormat(name)
    assert sniff_format(lines, given=LogFormat(name)) is LogFormat(name)


def test_a_combined_log_is_also_a_common_one_but_not_the_other_way() -> None:
    combined, common = FORMATS["combined"](HIT).encode(), FORMATS["common"](HIT).encode()
    assert sniff_format([combined], given=LogFormat.COMMON) is LogFormat.COMMON
    assert sniff_format([common], given=LogFormat.COMBINED) is None


def test_a_few_bad_first_lines_do_not_hide_the_format() -> None:
    good = FORMATS["combined"](HIT).encode()
    assert sniff_format([b"junk", good, b"more junk", good], given=LogFormat.AUTO) is (
        LogFormat.COMBINED
    )
    assert sniff_format([b"junk", b"junk", good], given=LogFormat.AUTO) is None


@pytest.mark.parametrize(
    "lines",
    [
        [b"<html><body>Not a log</body></html>"],
        [b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"],
        [b"[1, 2, 3]", b"[4]"],  # JSON, but no objects
        [b"date,url,status", b"2026-01-01,/a,200"],
    ],
)
def test_what_is_no_log_is_no_format(lines: list[bytes]) -> None:
    assert sniff_format(lines, given=LogFormat.AUTO) is None


def test_the_json_presets_read_their_fields() -> None:
    nginx = json_object(FORMATS["json"](HIT).encode())
    caddy = json_object(FORMATS["caddy"](HIT).encode())
    assert nginx is not None
    assert caddy is not None
    for fields, document in ((NGINX_FIELDS, nginx), (CADDY_FIELDS, caddy)):
        assert fields.value(document, LogField.ADDRESS) == GOOGLEBOT_IP
        assert "Googlebot" in str(fields.value(document, LogField.AGENT))
        assert fields.value(document, LogField.HOST) == "www.example.com"
    assert CADDY_FIELDS.value(caddy, LogField.TARGET) == "/a?b=1"
    assert NGINX_FIELDS.value(nginx, LogField.REQUEST) == "GET /a?b=1 HTTP/1.1"


def test_log_field_names_a_key_of_ones_own() -> None:
    document = {"client": {"address": "1.2.3.4"}, "remote_addr": "9.9.9.9"}
    given = field_paths([log_field("ip=client.address")])
    assert NGINX_FIELDS.overridden(given).value(document, LogField.ADDRESS) == "1.2.3.4"


@pytest.mark.parametrize("text", ["ip", "ip=", "=client", "where=x", "ip=a..b"])
def test_a_log_field_that_is_none_is_refused(text: str) -> None:
    with pytest.raises(ConfigError, match="--log-field"):
        log_field(text)


@given(
    st.datetimes(min_value=datetime(1971, 1, 1), max_value=datetime(2100, 1, 1)),  # noqa: DTZ001 - naive: the zone is the test's
    st.integers(min_value=-14 * 60, max_value=14 * 60),
)
def test_clf_times_are_read_with_their_zone(moment: datetime, minutes: int) -> None:
    zone = timezone(timedelta(minutes=minutes))
    local = moment.replace(microsecond=0, tzinfo=zone)
    text = local.strftime("%d/%b/%Y:%H:%M:%S %z").encode()
    times = ClfTimes()
    assert times.seconds(text) == int(local.timestamp())
    assert times.seconds(text) == int(local.timestamp())  # the minute remembered: the same


@pytest.mark.parametrize(
    "text",
    [
        b"30/Feb/2026:10:00:00 +0000",
        b"10/Foo/2026:10:00:00 +0000",
        b"10/Oct/2026:24:00:00 +0000",
        b"10/Oct/2026:10:61:00 +0000",
        b"10/Oct/2026:10:00:00 +2500",
        b"10/Oct/2026:10:00:00 0000",
        b"10/Oct/2026:10:00:00",
        b"",
    ],
)
def test_a_time_that_is_none_is_none(text: bytes) -> None:
    assert ClfTimes().seconds(text) is None


@pytest.mark.parametrize(
    ("value", "seconds"),
    [
        (1_762_000_000, 1_762_000_000),
        (1_762_000_000.75, 1_762_000_000),
        ("1762000000.123", 1_762_000_000),  # nginx's $msec
        (1_762_000_000_000, 1_762_000_000),  # milliseconds
        ("2026-11-01T08:30:00+00:00", int(WHEN.timestamp())),
        ("2026-11-01T09:30:00+01:00", int(WHEN.timestamp())),
        ("2026-11-01T08:30:00Z", int(WHEN.timestamp())),
        ("01/Nov/2026:08:30:00 +0000", int(WHEN.timestamp())),
        ("2026-11-01T08:30:00", None),  # no zone: never guessed
        ("yesterday", None),
        (True, None),
        (None, None),
        (-5, None),
        (float("nan"), None),
    ],
)
def test_json_times(value: object, seconds: int | None) -> None:
    assert json_seconds(value, ClfTimes()) == seconds


@pytest.mark.parametrize(
    ("line", "target"),
    [
        (b"GET /a HTTP/1.1", b"/a"),
        (b"HEAD /a?b HTTP/2.0", b"/a?b"),
        (b"GET /a", b"/a"),  # HTTP/0.9
        (b"-", None),
        (b"", None),
        (b"\\x16\\x03\\x01\\x02\\x00\\x01\\x00", None),  # TLS on a plain port, as nginx logs it
        (b"GET /a b HTTP/1.1", None),
    ],
)
def test_a_request_lines_target(line: bytes, target: bytes | None) -> None:
    assert request_target(line) == target


PATHS = st.text(alphabet="abcXYZ019-._~!$&'()*+,;=:@/?%é ", max_size=30)


@given(path=PATHS)
def test_a_logged_target_is_keyed_as_the_listed_url_is(path: str) -> None:
    """The fast way (a plain target) and the full one (auditor.urls) give one key."""
    target = ("/" + path).encode()
    found = target_key(target, "www.example.com")
    listed = listed_keys("https://www.example.com" + "/" + path)
    parsed = parse_http_url("https://www.example.com/" + path)
    if parsed is None or found is None:
        assert found is None or listed is None
        return
    assert listed is not None
    assert found[0] == listed.with_host
    hostless = target_key(target, None)
    assert hostless is not None
    assert hostless[0] == listed.path


def test_escapes_and_dot_segments_are_normalised() -> None:
    one = target_key(b"/caf%c3%a9/./x/../y", None)
    listed = listed_keys("https://www.example.com/caf%C3%A9/y")
    assert one is not None
    assert listed is not None
    assert one[0] == listed.path


def test_an_absolute_target_names_its_host() -> None:
    found = target_key(b"http://Shop.Example.com:8080/a", None)
    listed = listed_keys("https://shop.example.com/a")
    assert found is not None
    assert listed is not None
    assert found[0] == listed.with_host


@pytest.mark.parametrize("target", [b"*", b"example.com:443", b"a" * 9000])
def test_what_names_no_page(target: bytes) -> None:
    assert target_key(target, None) is None


@pytest.mark.parametrize(
    ("key", "page"),
    [
        (b"/", True),
        (b"/shoes/red", True),
        (b"/shoes/red.html", True),
        (b"/index.php?x=1", True),
        (b"/a.css", False),
        (b"/img/logo.PNG", False),
        (b"/robots.txt", False),
        (b"/sitemap.xml", False),
        (b"/feed.rss?page=2", False),
    ],
)
def test_what_looks_like_a_page(key: bytes, page: bool) -> None:
    assert is_page(key) is page


@pytest.mark.parametrize(
    ("logged", "host"),
    [
        ("www.example.com:443", "www.example.com"),
        ("WWW.Example.COM.", "www.example.com"),
        ("[::1]:8443", "::1"),
        ("-", None),
        ("", None),
    ],
)
def test_a_logged_host(logged: str, host: str | None) -> None:
    assert host_of(logged) == host
