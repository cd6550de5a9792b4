"""`--access-log` end to end: a loopback site, its generated logs, every output.

The logs are generated for the tests' clock (tests.helpers.NOW): 31 days of lines, so that the
window of `--log-days 30` is covered and `logs.not_crawled` is judged.
"""

from __future__ import annotations

import json
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families

from auditor.config import Engine
from auditor.demo.documents import Page, redirect, url, urlset, xml_page
from auditor.demo.server import serve
from auditor.wings.logs.log_files import AccessLogError
from tests.helpers import NOW, run_audit
from tests.wings.logs.log_lines import (
    BINGBOT_IP,
    BINGBOT_UA,
    BROWSER_UA,
    FORMATS,
    GOOGLEBOT_IP,
    GOOGLEBOT_IP6,
    SPOOFER_IP,
    Hit,
    write_log,
)

DAY = timedelta(days=1)
START = NOW - timedelta(days=31)
HTML = {"Content-Type": "text/html"}


def routes(base: str) -> dict[str, Page]:
    listed = ["/", "/crawled", "/never", "/moved", "/failing", "/noindex"]
    return {
        "/sitemap.xml": xml_page(urlset([url(base + path) for path in listed])),
        "/": Page(200, b"<html><head><title>Home</title></head></html>", HTML),
        "/crawled": Page(200, b"<html><head><title>Crawled</title></head></html>", HTML),
        "/never": Page(200, b"<html><head><title>Never</title></head></html>", HTML),
        "/moved": redirect(301, base + "/"),
        "/failing": Page(200, b"<html><head><title>Fine to us</title></head></html>", HTML),
        "/noindex": Page(
            200, b"<html><head><meta name=robots content=noindex></head></html>", HTML
        ),
        "/unlisted": Page(200, b"<html><head><title>Unlisted</title></head></html>", HTML),
    }


def hits(host: str) -> list[Hit]:
    """What the site's log says: Googlebot daily on the home page, the rest here and there."""

    def at(day: float, path: str, **fields: object) -> Hit:
        fields.setdefault("address", GOOGLEBOT_IP)
        return Hit(when=START + day * DAY, path=path, host=host, **fields)  # type: ignore[arg-type]

    found = [at(day, "/") for day in range(32)]
    found += [at(day, "/crawled", address=GOOGLEBOT_IP6) for day in (3, 20)]
    found += [at(day, "/moved") for day in (4, 5, 6)]
    found += [at(day, "/failing", status=503) for day in (7, 8)] + [at(9, "/failing")]
    found += [at(10, "/noindex")]
    found += [at(day, "/unlisted") for day in range(1, 12)]
    found += [at(2, "/crawled", address=BINGBOT_IP, agent=BINGBOT_UA)]
    found += [at(day, "/never", address=SPOOFER_IP) for day in (1, 2, 3)]  # a false Googlebot
    found += [at(day, "/never", address="10.1.2.3", agent=BROWSER_UA) for day in range(30)]
    found.sort(key=lambda hit: hit.when)
    return found


def codes(report: dict[str, object]) -> Counter[str]:
    summary = report["summary"]
    assert isinstance(summary, dict)
    return Counter({code: n for code, n in summary["by_code"].items() if code.startswith("logs.")})


def crawl_logs(report: dict[str, object]) -> dict[str, dict[str, object]]:
    urls = report["urls"]
    assert isinstance(urls, list)
    return {entry["loc"].rsplit("/", 1)[1]: entry["crawl_log"] for entry in urls}


EXPECTED = Counter(
    {
        "logs.not_crawled": 1,  # /never: only a false Googlebot and a browser came
        "logs.crawled_not_indexable": 2,  # /moved (301), /noindex
        "logs.crawler_errors": 1,  # /failing: 2 of its 3 hits were 503s
        "logs.crawled_not_listed": 1,  # /unlisted
        "logs.spoofed_crawler": 1,
    }
)


@pytest.mark.parametrize(
    ("name", "gzipped"), [(n, False) for n in FORMATS if n != "common"] + [("combined", True)]
)
async def test_every_format_gives_the_same_report(
    tmp_path: Path, engine: Engine, name: str, gzipped: bool
) -> None:
    async with serve(routes) as site:
        host = site.base.split("//", 1)[1].split(":", 1)[0]
        lines = [FORMATS[name](hit) for hit in hits(host)]
        log = write_log(tmp_path / f"access.{name}", lines, gzipped=gzipped)
        audited = await run_audit(
            tmp_path, f"{site.base}/sitemap.xml", no_check=False, access_logs=(log,)
        )
    report = audited.report
    assert codes(report) == EXPECTED
    logs = report["summary"]["logs"]
    assert logs["not_crawled_judged"] is True
    assert logs["files"][0]["format"] == name
    assert (logs["lines"], logs["bad_lines"]) == (len(lines), 0)
    googlebot = logs["googlebot"]
    # Indexable and listed: /, /crawled, /never, /failing; crawled: all but /never.
    assert (googlebot["indexable"], googlebot["indexable_crawled"]) == (4, 3)
    assert googlebot["not_listed_top"] == [{"url": f"{site.base}/unlisted", "hits": 11}]
    assert logs["spoofed"]["top"] == [{"address": SPOOFER_IP, "lines": 3}]
    assert logs["bingbot"] == {"hits": 1, "listed_crawled": 1}
    found = crawl_logs(report)
    assert found["crawled"]["bots"] == ["Googlebot", "bingbot"]
    assert (found["crawled"]["hits"], found["never"]["hits"], found["moved"]["hits"]) == (2, 0, 3)
    assert found["failing"]["errors"] == 2
    verdict = audited.result.verdict.text
    assert "Googlebot crawled 75 % of listed indexable URLs in 30 days" in verdict


async def test_every_output_says_it(tmp_path: Path) -> None:
    async with serve(routes) as site:
        log = write_log(tmp_path / "access.log", [FORMATS["combined"](h) for h in hits("x")])
        audited = await run_audit(
            tmp_path,
            f"{site.base}/sitemap.xml",
            no_check=False,
            access_logs=(log,),
            csv=tmp_path / "csv",
            metrics=tmp_path / "audit.prom",
            markdown=tmp_path / "summary.md",
        )
    rows = (tmp_path / "csv" / "urls.csv").read_text().splitlines()
    header = rows[0].split(",")
    assert header[-4:] == ["googlebot_hits", "googlebot_last", "googlebot_last_status", "crawlers"]
    home = next(row for row in rows[1:] if row.startswith(f"{site.base}/,"))
    assert home.split(",")[-4] == "31"  # the days of the window (the first line is older)
    assert home.endswith(",200,Googlebot")
    families = {
        f.name: f for f in text_string_to_metric_families((tmp_path / "audit.prom").read_text())
    }
    ratio = families["sitemap_audit_googlebot_crawled_ratio"].samples[0]
    assert ratio.value == 0.75
    claims = {
        (s.labels["crawler"], s.labels["address"]): s.value
        for s in families["sitemap_audit_crawler_claims"].samples
    }
    assert claims[("Googlebot", "outside")] == 3
    markdown = (tmp_path / "summary.md").read_text()
    assert "### Googlebot in the access logs (30 days)" in markdown
    html = audited.result.html_path.read_text()
    assert 'id="logs"' in html
    assert 'href="#logs"' in html
    assert html.count('<rect class="f-ok"') >= 30  # a column a day with hits


def test_a_file_that_is_no_log_exits_2_in_one_line_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from auditor.cli.main import main  # noqa: PLC0415

    sitemap = tmp_path / "sitemap.xml"
    sitemap.write_text(urlset([url("https://www.example.com/")]))
    picture = tmp_path / "picture.png"
    picture.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 8)
    argv = [
        str(sitemap),
        "--no-check",
        "--access-log",
        str(picture),
        "--json",
        str(tmp_path / "r.json"),
    ]
    assert main([*argv, "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1, err
    assert "picture.png" in err
    assert "Traceback" not in err
    assert not (tmp_path / "r.json").exists()  # refused before any report


@pytest.mark.parametrize("field", ["nope=client", "ip="])
def test_a_log_field_that_is_none_exits_2_in_one_line_before_any_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], field: str
) -> None:
    from auditor.cli.main import main  # noqa: PLC0415

    sitemap = tmp_path / "sitemap.xml"
    sitemap.write_text(urlset([url("https://www.example.com/")]))
    log = write_log(tmp_path / "access.log", [FORMATS["combined"](h) for h in hits("x")[:3]])
    argv = [str(sitemap), "--no-check", "--access-log", str(log), "--log-field", field]
    report = tmp_path / "r.json"
    assert main([*argv, "--json", str(report), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1, err
    assert "--log-field" in err
    assert "Traceback" not in err
    assert not report.exists()


def test_a_log_option_without_logs_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from auditor.cli.main import main  # noqa: PLC0415

    assert main(["https://www.example.com/", "--log-days", "7"]) == 2
    assert "--access-log" in capsys.readouterr().err


async def test_an_unreadable_ranges_file_is_a_usage_error(tmp_path: Path) -> None:
    sitemap = tmp_path / "sitemap.xml"
    sitemap.write_text(urlset([url("https://www.example.com/")]))
    log = write_log(tmp_path / "access.log", [FORMATS["combined"](h) for h in hits("x")[:3]])
    with pytest.raises(AccessLogError, match="crawler-ranges"):
        await run_audit(
            tmp_path, str(sitemap), access_logs=(log,), crawler_ranges=(str(tmp_path / "no.json"),)
        )


async def test_logs_on_stdin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import io  # noqa: PLC0415
    import sys  # noqa: PLC0415

    sitemap = tmp_path / "sitemap.xml"
    sitemap.write_text(urlset([url("https://www.example.com/"), url("https://www.example.com/a")]))
    lines = [FORMATS["combined"](Hit(GOOGLEBOT_IP, NOW - DAY, "/a"))] * 4
    data = "".join(f"{line}\n" for line in lines).encode()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    audited = await run_audit(tmp_path, str(sitemap), access_logs=(Path("-"),))
    found = crawl_logs(audited.report)
    assert found["a"]["hits"] == 4
    assert audited.report["summary"]["logs"]["files"][0]["source"] == "-"


async def test_the_history_keeps_the_last_hits_across_rotated_logs(tmp_path: Path) -> None:
    """Night one reads a month of logs; night two only its last day: /crawled is still known."""
    async with serve(routes) as site:
        all_hits = hits("x")
        month = write_log(tmp_path / "access.log.1", [FORMATS["combined"](h) for h in all_hits])
        last_day = [h for h in all_hits if h.when >= NOW - DAY]
        night = write_log(tmp_path / "access.log", [FORMATS["combined"](h) for h in last_day])
        history = tmp_path / "history.sqlite"
        common: dict[str, Any] = {"no_check": False, "history": history}
        first = await run_audit(
            tmp_path, f"{site.base}/sitemap.xml", access_logs=(month,), **common
        )
        second = await run_audit(
            tmp_path,
            f"{site.base}/sitemap.xml",
            access_logs=(night,),
            json=tmp_path / "r2.json",
            **common,
        )
    assert crawl_logs(first.report)["crawled"]["hits"] == 2
    again = crawl_logs(second.report)["crawled"]
    assert again["hits"] == 0  # not in last night's log...
    assert again["last"] == crawl_logs(first.report)["crawled"]["last"]  # ...but known crawled
    logs = second.report["summary"]["logs"]
    assert logs["not_crawled_judged"] is True  # the two nights' logs cover the window
    assert codes(second.report)["logs.not_crawled"] == 1  # /never only, not /crawled
    assert logs["googlebot"]["indexable_crawled"] == 3


async def test_the_library_takes_access_log(tmp_path: Path) -> None:
    from auditor.api.runs import audit_site  # noqa: PLC0415

    sitemap = tmp_path / "sitemap.xml"
    sitemap.write_text(urlset([url("https://www.example.com/a")]))
    recent = datetime.now(UTC) - timedelta(hours=1)  # the library's clock is the real one
    log = write_log(tmp_path / "access.log", [FORMATS["combined"](Hit(GOOGLEBOT_IP, recent, "/a"))])
    run = await audit_site(
        sitemap, access_log=[log], json=tmp_path / "r.json", no_check=True, log_days=7
    )
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["urls"][0]["crawl_log"]["hits"] == 1
    assert [section.place for section in run.result.sections] == ["summary.logs"]
