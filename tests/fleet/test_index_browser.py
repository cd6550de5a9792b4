"""The fleet's HTML index in a real browser (headless Chromium), as the site report is."""

from __future__ import annotations

import asyncio
from pathlib import Path

from auditor.fleet.fleet_summary import decide_fleet
from auditor.fleet.index_html import index_view, render_index
from tests.browser import Page
from tests.fleet.test_summary import FOLDER, facts, mixed
from tests.report.test_browser import look_at
from tests.report.test_browser import pytestmark as browser_marks

pytestmark = browser_marks

SORT_BY_ERRORS = """(() => {
  const head = document.querySelectorAll("table.sites thead th")[2];
  head.querySelector("button").click();
  const first = document.querySelector("table.sites tbody tr td:nth-child(2) b");
  return [head.getAttribute("aria-sort"), first.textContent];
})()"""


async def sites_table(page: Page, javascript: bool) -> None:
    """Every site has its row, worst first; with JavaScript, a header sorts the table."""
    names = await page.evaluate(
        "[...document.querySelectorAll('table.sites tbody tr td:nth-child(2) b')]"
        ".map((b) => b.textContent)"
    )
    assert names[:3] == ["cut", "lost", "never"]  # no verdict first, then the worst
    assert sorted(names) == sorted(outcome.site.name for outcome in mixed())
    assert await page.evaluate("document.querySelectorAll('#chart rect').length") == 2
    if javascript:
        assert await page.evaluate(SORT_BY_ERRORS) == ["descending", "worse"]


def write_index(path: Path) -> None:
    """The index of a fleet with every kind of site: passed, failed, lost, stopped, not run."""
    outcomes = mixed()
    decision = decide_fleet(outcomes, complete=True)
    view = index_view(outcomes, facts(), decision, folder=FOLDER, summary_name="fleet.json")
    path.write_text(render_index(view), encoding="utf-8")


async def test_the_fleet_index_in_a_browser(tmp_path: Path) -> None:
    index = tmp_path / "fleet.html"
    await asyncio.to_thread(write_index, index)  # its links are made with the file system's paths
    await look_at(index, tmp_path, expect="FAILED", extra=sites_table)
