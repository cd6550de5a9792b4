"""auditor.wings.logs.crawler_names and crawler_ranges: who claims, and whether it is true."""

from __future__ import annotations

import io
import json
import urllib.request
from pathlib import Path

import pytest

from auditor.wings.logs import refresh_ranges
from auditor.wings.logs.access_logs import SHIPPED_RANGES, load_ranges
from auditor.wings.logs.crawler_names import Bot, CrawlerNames, Family, bits_names
from auditor.wings.logs.crawler_ranges import (
    Address,
    CrawlerRanges,
    RangesError,
    parse_address,
    read_ranges,
)
from auditor.wings.logs.log_files import AccessLogError
from auditor.wings.logs.log_settings import ranges_file
from tests.wings.logs.log_lines import BINGBOT_UA, BROWSER_UA, GOOGLEBOT_UA, IMAGE_UA

# Google Search Central, "Google's common crawlers": the user agent strings as published.
AGENTS = {
    GOOGLEBOT_UA: Bot.GOOGLEBOT,
    "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)": Bot.GOOGLEBOT,
    IMAGE_UA: Bot.GOOGLEBOT_IMAGE,
    "Googlebot-Video/1.0": Bot.GOOGLEBOT_VIDEO,
    "Mozilla/5.0 (X11; Linux x86_64; Storebot-Google/1.0) AppleWebKit/537.36 (KHTML, like "
    "Gecko) Chrome/79.0.3945.88 Safari/537.36": Bot.STOREBOT,
    "Mozilla/5.0 (compatible; Google-InspectionTool/1.0;)": Bot.INSPECTION_TOOL,
    "GoogleOther-Image/1.0": Bot.GOOGLE_OTHER,
    "Mozilla/5.0 (compatible; GoogleOther)": Bot.GOOGLE_OTHER,
    BINGBOT_UA: Bot.BINGBOT,
}
NOT_CRAWLERS = [
    BROWSER_UA,
    "Mozilla/5.0 (Windows NT 5.1; rv:11.0) Gecko Firefox/11.0 (via ggpht.com GoogleImageProxy)",
    "Mozilla/5.0 (compatible; AdsBot-Google-Mobile)",  # a special crawler: other ranges
    "Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)",
    "-",
]


@pytest.mark.parametrize(("agent", "crawler"), AGENTS.items())
def test_each_crawler_is_named_by_its_token(agent: str, crawler: Bot) -> None:
    assert CrawlerNames().claim(agent.encode()) is crawler


@pytest.mark.parametrize("agent", NOT_CRAWLERS)
def test_other_agents_claim_no_crawler_of_ours(agent: str) -> None:
    assert CrawlerNames().claim(agent.encode()) is None


def test_only_googles_own_search_crawlers_count_as_hits() -> None:
    search = {crawler for crawler in Bot if crawler.search}
    assert search == {
        Bot.GOOGLEBOT,
        Bot.GOOGLEBOT_IMAGE,
        Bot.GOOGLEBOT_NEWS,
        Bot.GOOGLEBOT_VIDEO,
    }
    assert bits_names(Bot.BINGBOT.bit | Bot.GOOGLEBOT.bit) == ("Googlebot", "bingbot")


# Addresses from the shipped files' prefixes, and others of no crawler's.
@pytest.mark.parametrize(
    ("address", "family", "where"),
    [
        (b"66.249.66.1", Family.GOOGLE, Address.VERIFIED),  # 66.249.66.0/27
        (b"66.249.66.31", Family.GOOGLE, Address.VERIFIED),
        (b"2001:4860:4801:10::1", Family.GOOGLE, Address.VERIFIED),  # 2001:4860:4801:10::/64
        (b"[2001:4860:4801:10::1]", Family.GOOGLE, Address.VERIFIED),
        (b"::ffff:66.249.66.1", Family.GOOGLE, Address.VERIFIED),
        (b"157.55.39.1", Family.BING, Address.VERIFIED),  # 157.55.39.0/24
        (b"157.55.39.1", Family.GOOGLE, Address.OUTSIDE),  # Bing's address, Google's claim
        (b"66.249.66.1", Family.BING, Address.OUTSIDE),
        (b"203.0.113.7", Family.GOOGLE, Address.OUTSIDE),
        (b"2001:db8::1", Family.GOOGLE, Address.PRIVATE),  # documentation: no crawler's
        (b"10.0.0.5", Family.GOOGLE, Address.PRIVATE),
        (b"192.168.1.1", Family.GOOGLE, Address.PRIVATE),
        (b"100.64.0.1", Family.GOOGLE, Address.PRIVATE),
        (b"127.0.0.1", Family.GOOGLE, Address.PRIVATE),
        (b"crawl-66-249-66-1.googlebot.com", Family.GOOGLE, Address.NOT_AN_ADDRESS),
        (b"-", Family.GOOGLE, Address.NOT_AN_ADDRESS),
        (b"999.1.1.1", Family.GOOGLE, Address.NOT_AN_ADDRESS),
        (b"1.2.3", Family.GOOGLE, Address.NOT_AN_ADDRESS),
    ],
)
def test_an_address_is_checked_against_the_claimed_crawlers_ranges(
    ranges: CrawlerRanges, address: bytes, family: Family, where: Address
) -> None:
    assert ranges.check(address, family) is where
    assert ranges.check(address, family) is where  # remembered: the same


def test_the_fast_ipv4_reading_agrees_with_the_standard_library() -> None:
    import ipaddress  # noqa: PLC0415

    for text in ("0.0.0.0", "1.2.3.4", "255.255.255.255", "66.249.66.1", "172.31.255.255"):
        parsed = parse_address(text.encode())
        assert parsed is not None
        assert (abs(parsed[0]), parsed[1]) == (4, int(ipaddress.ip_address(text)))
    assert [parse_address(a)[0] for a in (b"172.31.255.255", b"172.32.0.0")] == [-4, 4]  # type: ignore[index]


def test_the_shipped_snapshot_says_its_date_and_origin() -> None:
    document = json.loads(SHIPPED_RANGES.read_text("utf-8"))
    for name in ("googlebot", "bingbot"):
        entry = document["crawlers"][name]
        assert entry["source"].startswith("https://")
        assert entry["copied_from"].startswith("https://")
        assert entry["copied_on"]
        assert len(entry["prefixes"]) > 20
    google = document["crawlers"]["googlebot"]
    assert google["creationTime"].startswith("2026-08-21")
    sources = {source.family: source for source in load_ranges(()).sources}
    assert sources[Family.GOOGLE].prefixes == len(google["prefixes"])
    assert sources[Family.BING].prefixes == 28


def published(*prefixes: str) -> str:
    items = [{"ipv6Prefix" if ":" in p else "ipv4Prefix": p} for p in prefixes]
    return json.dumps({"creationTime": "2099-01-01T00:00:00.000000", "prefixes": items})


def test_a_newer_published_file_replaces_that_crawlers_ranges(tmp_path: Path) -> None:
    newer = tmp_path / "googlebot.json"
    newer.write_text(published("198.51.100.0/24"))
    ranges = load_ranges((ranges_file(f"googlebot={newer}"),))
    assert ranges.check(b"198.51.100.9", Family.GOOGLE) is Address.VERIFIED
    assert ranges.check(b"66.249.66.1", Family.GOOGLE) is Address.OUTSIDE  # replaced
    assert ranges.check(b"157.55.39.1", Family.BING) is Address.VERIFIED  # kept
    created = {s.family: s.creation_time for s in ranges.sources}
    assert created[Family.GOOGLE] == "2099-01-01T00:00:00.000000"


def test_a_snapshot_file_names_its_crawlers(tmp_path: Path) -> None:
    snapshot = tmp_path / "ranges.json"
    snapshot.write_text(
        json.dumps({"crawlers": {"bingbot": json.loads(published("198.51.100.0/24"))}})
    )
    ranges = load_ranges((ranges_file(str(snapshot)),))
    assert ranges.check(b"198.51.100.9", Family.BING) is Address.VERIFIED
    assert ranges.check(b"66.249.66.1", Family.GOOGLE) is Address.VERIFIED  # shipped, kept


@pytest.mark.parametrize(
    "text",
    [
        "not json",
        "[]",
        '{"prefixes": []}',
        '{"crawlers": {"yandex": {"prefixes": [{"ipv4Prefix": "1.2.3.0/24"}]}}}',
        '{"crawlers": {"googlebot": {"prefixes": [{"ipv4Prefix": "1.2.3.0/99"}]}}}',
        '{"crawlers": {"googlebot": {"prefixes": ["1.2.3.0/24"]}}}',
    ],
)
def test_a_ranges_file_that_is_none_is_refused(text: str, tmp_path: Path) -> None:
    with pytest.raises(RangesError):
        read_ranges(text, name=None)
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(AccessLogError, match="crawler-ranges"):
        load_ranges((ranges_file(str(path)),))


def test_a_missing_ranges_file_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(AccessLogError, match="cannot read"):
        load_ranges((ranges_file(str(tmp_path / "missing.json")),))


def test_the_refresh_script_writes_a_snapshot_the_run_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No network: the two official URLs answered by stand-ins, as Google and Bing publish."""
    bodies = {
        refresh_ranges.SOURCES[Family.GOOGLE]: published("198.51.100.0/24", "2001:db8::/32"),
        refresh_ranges.SOURCES[Family.BING]: published("192.0.2.0/24"),
    }
    asked: list[str] = []

    def urlopen(request: urllib.request.Request, timeout: float) -> io.BytesIO:
        asked.append(request.full_url)
        return io.BytesIO(bodies[request.full_url].encode())

    monkeypatch.setattr(urllib.request, "urlopen", urlopen)
    out = tmp_path / "ranges.json"
    assert refresh_ranges.main(["--out", str(out)]) == 0
    assert sorted(asked) == sorted(bodies)
    ranges = load_ranges((ranges_file(str(out)),))
    assert ranges.check(b"198.51.100.9", Family.GOOGLE) is Address.VERIFIED
    assert ranges.check(b"2001:db8::1", Family.GOOGLE) is Address.VERIFIED
    assert ranges.check(b"192.0.2.1", Family.BING) is Address.VERIFIED
    assert ranges.check(b"66.249.66.1", Family.GOOGLE) is Address.OUTSIDE
    written = json.loads(out.read_text())["crawlers"]
    assert written["googlebot"]["creationTime"] == "2099-01-01T00:00:00.000000"
    assert written["bingbot"]["source"] == "https://www.bing.com/toolbox/bingbot.json"


def test_the_refresh_script_writes_nothing_when_a_file_is_no_ranges_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def urlopen(request: urllib.request.Request, timeout: float) -> io.BytesIO:
        return io.BytesIO(b"<html>moved</html>")

    monkeypatch.setattr(urllib.request, "urlopen", urlopen)
    out = tmp_path / "ranges.json"
    assert refresh_ranges.main(["--out", str(out)]) == 1
    assert not out.exists()
