"""Conditional page checks through the history: a 304 confirms the last verdict, counted.

The site sends an ETag and answers 304 to an If-None-Match naming it (RFC 9110 §13.1.2). A
run with a history sends each page's last ETag; the page's body is then never read, and its
verdict (a noindex, read from that body the night before) stands. Every test once with each
transport of the URL checks.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from auditor.demo.server import serve
from tests.wings.history.site import HistorySite, audit_night, entries

pytestmark = pytest.mark.usefixtures("engine")


@pytest.mark.parametrize("workers", [1, 2])
async def test_a_304_confirms_the_last_verdict(tmp_path: Path, workers: int) -> None:
    site = HistorySite(6, etags=True)
    site.change("/p1", noindex=True)
    site.change("/p2", status=404)
    history = tmp_path / "h.sqlite"
    async with serve(site.routes) as served:
        first = await audit_night(tmp_path, served.base, 0, history=history, workers=workers)
        site.change("/p5", noindex=True)  # a new ETag: answered in full
        second = await audit_night(tmp_path, served.base, 1, history=history, workers=workers)
    said = second.report["summary"]["history"]
    # Five pages had an ETag (not the 404): four unchanged, one changed.
    assert said["not_modified"] == 4
    assert sum(site.answered_304.values()) == 4
    by_path = entries(second)
    confirmed = {path for path, entry in by_path.items() if entry.get("not_modified")}
    assert confirmed == {"/p0", "/p1", "/p3", "/p4"}
    # The noindex of /p1 was read from its body on night 0; a 304 keeps it.
    assert (by_path["/p1"]["status"], by_path["/p1"]["indexability_reason"]) == (
        200,
        "noindex_meta",
    )
    assert by_path["/p1"]["checked_at"] == "2026-11-24T12:00:00Z"
    assert "carried" not in by_path["/p1"]
    assert by_path["/p5"]["indexability_reason"] == "noindex_meta"
    assert first.report["summary"]["history"]["not_modified"] == 0
    # Confirmed verdicts are this run's: counted as checked, compared like any check.
    assert second.report["summary"]["checked"] == 6
    assert second.report["summary"]["indexability"]["not_indexable"] == 3


async def test_a_page_that_forgets_its_etag_is_asked_in_full_next_time(tmp_path: Path) -> None:
    site = HistorySite(2, etags=True)
    history = tmp_path / "h.sqlite"
    async with serve(site.routes) as served:
        await audit_night(tmp_path, served.base, 0, history=history)
        site.etags = False
        second = await audit_night(tmp_path, served.base, 1, history=history)
        site.etags = True
        third = await audit_night(tmp_path, served.base, 2, history=history)
    assert second.report["summary"]["history"]["not_modified"] == 0
    assert third.report["summary"]["history"]["not_modified"] == 0  # it had no ETag to send
    assert sum(site.answered_304.values()) == 0
