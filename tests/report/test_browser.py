"""The HTML report in a real browser: headless Chromium, JavaScript on and off.

Each report is loaded from file://, screenshotted (paths printed), and must show its verdict
in the first viewport, log no console error, open no dialog and request nothing but itself.
Skipped only where chromium is missing and SITEMAP_AUDIT_REQUIRE_BROWSER is unset; .ci/run
sets it, so CI never skips silently.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from auditor.clock import FixedClock
from auditor.config import AuditConfig
from auditor.demo.server import DEMO_CA, serve, serve_demo
from auditor.demo.site import clean_routes
from auditor.flow.audit import audit
from tests.browser import Page, chromium, find_chromium, require_browser
from tests.helpers import NOW, run_audit, target
from tests.report.test_html import hostile_routes

CHROMIUM = find_chromium()
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        CHROMIUM is None and not require_browser(),
        reason="no chromium (SITEMAP_AUDIT_REQUIRE_BROWSER=1 makes this a failure)",
    ),
]

# "ok", or what is wrong with the verdict as the reader first sees the page.
VERDICT_SEEN = """(() => {
  const element = document.getElementById(%r);
  if (!element) return "missing";
  const style = getComputedStyle(element);
  if (style.display === "none" || style.visibility !== "visible" || +style.opacity < 0.9)
    return "hidden by its style";
  const box = element.getBoundingClientRect();
  if (box.width < 300 || box.height < 30) return "too small: " + box.width + "x" + box.height;
  if (box.top < 0 || box.left < 0 || box.bottom > innerHeight || box.right > innerWidth)
    return "outside the first viewport: " + JSON.stringify(box);
  const hit = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
  if (!element.contains(hit)) return "covered by " + (hit ? hit.outerHTML.slice(0, 80) : "nothing");
  return "ok";
})()"""
VERDICT_WORD = "document.querySelector('#verdict .badge').textContent.trim()"
RESOURCES = "performance.getEntriesByType('resource').length"
FILTER = """(() => {
  const box = document.querySelector("#problems .controls input[type=search]");
  box.value = %r;
  box.dispatchEvent(new Event("input"));
  return document.querySelectorAll("#problems details.group:not(.hidden)").length;
})()"""
GROUPS = "document.querySelectorAll('#problems details.group').length"
SORT = """(() => {
  const head = document.querySelectorAll("table.sitemaps thead th")[2];
  head.querySelector("button").click();
  return head.getAttribute("aria-sort");
})()"""


Extra = Callable[[Page, bool], Awaitable[None]]  # more checks on a page; True: JavaScript on


async def look_at(report: Path, shots: Path, *, expect: str, extra: Extra | None = None) -> None:
    """Load `report` with JavaScript on, then off; check what every reader must get."""
    if CHROMIUM is None:
        pytest.fail("SITEMAP_AUDIT_REQUIRE_BROWSER is set, and chromium is not installed")
    async with chromium(CHROMIUM) as browser:
        for javascript in (True, False):
            page = await browser.load(report.as_uri(), javascript=javascript)
            name = f"{report.stem}-js-{'on' if javascript else 'off'}.png"
            shot = await page.screenshot(shots / name)
            print(f"screenshot: {shot}")
            assert shot.stat().st_size > 10_000  # not a blank page
            assert await page.evaluate(VERDICT_SEEN % "verdict") == "ok"
            assert await page.evaluate(VERDICT_WORD) == expect
            scripted = await page.evaluate("document.documentElement.className")
            assert scripted == ("js" if javascript else "")  # the script ran, or could not
            if extra is not None:
                await extra(page, javascript)
            assert await page.evaluate(RESOURCES) == 0
            record = page.record
            assert record.console_errors == []
            assert record.dialogs == []
            assert record.requests == [report.as_uri()]  # nothing but the page itself


async def filter_and_sort(page: Page, javascript: bool) -> None:
    """With JavaScript: the filter narrows the problem groups, a header sorts its table."""
    groups = await page.evaluate(GROUPS)
    assert groups > 20
    if not javascript:
        assert await page.evaluate("document.querySelector('#problems .controls')") is None
        return
    assert await page.evaluate(FILTER % "http.not_found") == 1
    assert await page.evaluate(FILTER % "") == groups
    assert await page.evaluate(SORT) == "descending"


EXTENSIONS = """(() => {
  const part = document.querySelector("#extensions");
  const box = part.getBoundingClientRect();
  const rows = [...part.querySelectorAll("table.clusters tbody tr")];
  return {
    visible: box.height > 0,
    counts: part.querySelectorAll("table.ext-counts tr").length,
    clusters: rows.map((row) => row.cells[0].textContent.trim()),
    toc: document.querySelector("nav.toc a[href='#extensions']") !== null,
  };
})()"""


async def demo_checks(page: Page, javascript: bool) -> None:
    """The filter and sort, and the Extensions part: counts, the cluster missing a return."""
    await filter_and_sort(page, javascript)
    part = await page.evaluate(EXTENSIONS)
    assert part["visible"]
    assert part["toc"]
    assert part["counts"] == 6  # hreflang URLs and links, unlisted alternates, images, ...
    assert [text.rsplit("/", 2)[-2:] for text in part["clusters"]] == [["pricing", "en"]]


async def test_the_demo_report_in_a_browser(tmp_path: Path) -> None:
    async with serve_demo() as sites:
        audited = await run_audit(
            tmp_path,
            *sites,
            no_check=False,
            allow_private=False,
            ca_file=DEMO_CA,
            timeout_s=2.0,
            retries=1,
            slow_s=0.5,
        )
    await look_at(audited.result.html_path, tmp_path, expect="FAIL", extra=demo_checks)


async def test_hostile_strings_stay_inert_in_a_browser(tmp_path: Path) -> None:
    async with serve(hostile_routes) as served:
        audited = await run_audit(tmp_path, f"{served.base}/sitemap.xml", no_check=False)
    await look_at(audited.result.html_path, tmp_path, expect="FAIL")


async def test_a_clean_site_passes_in_a_browser(tmp_path: Path) -> None:
    async with serve(clean_routes) as served:
        audited = await run_audit(tmp_path, served.base + "/", no_check=False)
    assert audited.result.verdict.outcome.value == "PASS"
    await look_at(audited.result.html_path, tmp_path, expect="PASS")


LOGS = """(() => {
  const part = document.querySelector("#logs");
  const box = part.getBoundingClientRect();
  const chart = part.querySelector("svg[aria-label^='Googlebot']");
  return {
    visible: box.height > 0 && box.width > 300,
    toc: document.querySelector("nav.toc a[href='#logs']") !== null,
    columns: chart.querySelectorAll("rect").length,
    chartWidth: chart.getBoundingClientRect().width,
    unlisted: [...part.querySelectorAll("#logs-not-listed + .tablebox a.url")].map((a) => a.href),
    share: part.querySelector(".card .value").textContent.trim(),
  };
})()"""


async def test_the_googlebot_section_in_a_browser(tmp_path: Path) -> None:
    from tests.wings.logs.log_lines import FORMATS, write_log  # noqa: PLC0415
    from tests.wings.logs.test_access_logs import hits, routes  # noqa: PLC0415

    log = write_log(tmp_path / "access.log", [FORMATS["combined"](hit) for hit in hits("x")])
    async with serve(routes) as served:
        audited = await run_audit(
            tmp_path, f"{served.base}/sitemap.xml", no_check=False, access_logs=(log,)
        )

    async def section(page: Page, _javascript: bool) -> None:
        part = await page.evaluate(LOGS)
        assert part["visible"]
        assert part["toc"]
        assert part["columns"] == 31  # a column a day of the window with hits
        assert part["chartWidth"] > 300
        assert part["unlisted"] == [f"{served.base}/unlisted"]
        assert part["share"] == "75 %"

    await look_at(audited.result.html_path, tmp_path, expect="FAIL", extra=section)


async def test_an_interrupted_run_says_so_at_the_top(tmp_path: Path) -> None:
    stop = asyncio.Event()
    stop.set()  # stopped before anything was read
    async with serve(clean_routes) as served:
        config = AuditConfig(
            targets=(target(served.base + "/"),), json=tmp_path / "stopped.json", allow_private=True
        )
        result = await audit(config, clock=FixedClock(NOW), stop=stop)

    async def banner(page: Page, _javascript: bool) -> None:
        assert await page.evaluate(VERDICT_SEEN % "incomplete") == "ok"

    await look_at(result.html_path, tmp_path, expect="INCOMPLETE", extra=banner)


# Every cell of a table's header and first row can be brought into view by the reader: on the
# page, or by scrolling the table's own box; no box clips what it cannot scroll to; the page
# itself never scrolls sideways. [] when all is well.
REACHABLE = """((selector) => {
  const problems = [];
  const doc = document.documentElement;
  if (doc.scrollWidth > innerWidth + 1) problems.push("the page scrolls sideways");
  for (const table of document.querySelectorAll(selector)) {
    for (const cell of table.querySelectorAll("thead th, tbody tr:first-child td")) {
      for (let node = cell.parentElement; node !== document.body; node = node.parentElement) {
        const style = getComputedStyle(node);
        const scrolls = ["auto", "scroll"].includes(style.overflowX);
        if (node.scrollWidth > node.clientWidth + 1 && style.overflowX !== "visible" && !scrolls)
          problems.push("clipped by " + node.tagName + "." + node.className);
      }
      cell.scrollIntoView({block: "center", inline: "center"});
      const box = cell.getBoundingClientRect();
      const x = Math.min(Math.max(box.left + Math.min(box.width, 40) / 2, 1), innerWidth - 1);
      const y = Math.min(Math.max(box.top + Math.min(box.height, 20) / 2, 1), innerHeight - 1);
      const hit = document.elementFromPoint(x, y);
      if (box.width < 24 || !cell.contains(hit))
        problems.push("out of reach: " + cell.textContent.trim().slice(0, 30));
    }
  }
  return [...new Set(problems)];
})(%r)"""


# A phone (below 600 px) stacks the tables into cards: the test at 390 px is below.
@pytest.mark.parametrize(("width", "height", "mobile"), [(768, 1024, True), (1400, 900, False)])
async def test_every_column_is_reachable_on_a_tablet_and_a_desktop(
    tmp_path: Path, width: int, height: int, mobile: bool
) -> None:
    async with serve_demo() as sites:
        audited = await run_audit(
            tmp_path, *sites, no_check=False, allow_private=False, ca_file=DEMO_CA,
            timeout_s=2.0, retries=1, slow_s=0.5,
        )  # fmt: skip
    if CHROMIUM is None:
        pytest.fail("SITEMAP_AUDIT_REQUIRE_BROWSER is set, and chromium is not installed")
    async with chromium(CHROMIUM) as browser:
        page = await browser.load(
            audited.result.html_path.as_uri(), viewport=(width, height), mobile=mobile
        )
        for selector in (
            "#fix-first > .tablebox table",
            "table.sitemaps",
            "#problems details[open] table",
        ):
            assert await page.evaluate(REACHABLE % selector) == [], selector
        shot = await page.screenshot(tmp_path / f"report-{width}.png")
        print(f"screenshot: {shot}")


# Every column's header and the first row's values, on a screen of `innerWidth`: each value on
# screen (inside the viewport, clipped by no box), and its header either on screen too or said
# in the value's card (its ::before, from data-label). [] when all is well.
ON_SCREEN = """((selector) => {
  const problems = [];
  const tables = document.querySelectorAll(selector);
  if (!tables.length) return ["no table " + selector];
  const inside = (node) => {
    const box = node.getBoundingClientRect();
    if (box.width < 1 || box.left < -1 || box.right > innerWidth + 1) return false;
    for (let up = node.parentElement; up && up !== document.body; up = up.parentElement) {
      const clip = up.getBoundingClientRect();
      if (getComputedStyle(up).overflowX !== "visible" &&
          (box.left < clip.left - 1 || box.right > clip.right + 1)) return false;
    }
    return true;
  };
  const said = (text) => text.replace(/\\s+/g, " ").trim().toLowerCase();
  for (const table of tables) {
    const heads = [...table.querySelectorAll("thead th")];
    const cells = [...table.querySelectorAll("tbody tr:first-child td")];
    if (!heads.length || heads.length !== cells.length) {
      problems.push("shape " + selector);
      continue;
    }
    cells.forEach((cell, i) => {
      // Brought into view by scrolling the page down only: a column reached by scrolling its
      // table sideways is not on screen.
      for (let up = cell.parentElement; up; up = up.parentElement) up.scrollLeft = 0;
      scrollTo(0, cell.getBoundingClientRect().top + scrollY - innerHeight / 2);
      const head = said(heads[i].textContent);
      if (!inside(cell)) problems.push("value off screen: " + head);
      const label = getComputedStyle(cell, "::before").content.replace(/^"|"$/g, "");
      if (!(said(label) === head || inside(heads[i])))
        problems.push("header neither on screen nor in a card: " + head);
    });
  }
  return [...new Set(problems)];
})(%r)"""
# URL parts shorter than a line that a line break cuts in two: a path segment split. A URL's
# parts are its children, a text or a span each, between <wbr>s. [] when none is.
SEGMENTS_SPLIT = """(() => {
  const split = [];
  for (const link of document.querySelectorAll(".url")) {
    if (!link.getClientRects().length) continue;  // in a closed group: not laid out
    for (const part of link.childNodes) {
      if (part.nodeName === "WBR" || part.textContent.length > 24) continue;
      const range = document.createRange();
      range.selectNodeContents(part);
      const lines = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
      if (lines.size > 1) split.push(part.textContent);
    }
  }
  return split;
})()"""
PHONE_TABLES = (
    "#fix-first > .tablebox table",
    "table.sitemaps",
    "#problems details[open] table",
    "table.clusters",
    "table.regressions",
    "table.changed",
)


def _regressed_baseline(report: Path, baseline: Path) -> None:
    """The demo's report as if its 404 and its 500 had answered 200 the night before."""
    data = json.loads(report.read_text())
    for entry in data["urls"]:
        if entry.get("status") in (404, 500):
            entry.update(status=200, final_status=200, findings=[], indexability="indexable")
            entry.pop("indexability_reason", None)
    baseline.write_text(json.dumps(data))


async def test_every_column_is_on_screen_or_in_a_card_on_a_390px_phone(tmp_path: Path) -> None:
    """Each table at 390 px: stacked into cards, every value under its column's name."""
    quick: dict[str, Any] = {"ca_file": DEMO_CA, "timeout_s": 2.0, "retries": 1, "slow_s": 0.5}
    async with serve_demo() as sites:
        first = await run_audit(tmp_path / "1", *sites, no_check=False, **quick)
        baseline = tmp_path / "baseline.json"
        _regressed_baseline(first.result.json_path, baseline)
        audited = await run_audit(
            tmp_path / "2", *sites, no_check=False, baseline=baseline, **quick
        )
    assert audited.report["diff"]["regressions"] >= 2
    if CHROMIUM is None:
        pytest.fail("SITEMAP_AUDIT_REQUIRE_BROWSER is set, and chromium is not installed")
    async with chromium(CHROMIUM) as browser:
        page = await browser.load(
            audited.result.html_path.as_uri(), viewport=(390, 844), mobile=True
        )
        for selector in PHONE_TABLES:
            assert await page.evaluate(ON_SCREEN % selector) == [], selector
        assert await page.evaluate(SEGMENTS_SPLIT) == []
        assert await page.evaluate(
            "document.documentElement.scrollWidth <= innerWidth + 1"
        )  # nothing scrolls sideways
        shot = await page.screenshot(tmp_path / "report-390-cards.png")
        print(f"screenshot: {shot}")
