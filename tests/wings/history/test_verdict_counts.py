"""With a budget, the verdict line speaks of the site as last known, never a part as the whole.

A loopback site of 20 pages, every one noindex, audited 8 URLs a night with a history: the
verdict counts the pages that cannot be indexed as the history knows them (fresh and carried),
says how many this run checked and how many were never checked; the report read back decides
the same line.
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

from auditor.api.runs import read_report
from auditor.demo.server import serve
from tests.wings.history.site import HistorySite, audit_night

# `; 16 of 20 listed URLs cannot be indexed, as last known; 8 checked this run, 4 never checked`
_KNOWN = re.compile(
    r"; ([\d,]+) of ([\d,]+) listed URLs cannot be indexed, as last known; "
    r"([\d,]+) checked this run(?:, ([\d,]+) never checked)?"
)


def known_counts(line: str) -> tuple[int, int, int, int]:
    found = _KNOWN.search(line)
    assert found is not None, line
    return tuple(int((part or "0").replace(",", "")) for part in found.groups())  # type: ignore[return-value]


async def test_the_verdict_counts_the_site_as_last_known(tmp_path: Path) -> None:
    site = HistorySite(20)
    site.change(*site.pages, noindex=True)
    history = tmp_path / "h.sqlite"
    lines, last_known = [], []
    async with serve(site.routes) as served:
        for number in range(3):
            audited = await audit_night(tmp_path, served.base, number, history=history, budget=8)
            lines.append(audited.result.verdict.line)
            last_known.append(audited.report["summary"]["history"]["last_known"])
            assert audited.report["summary"]["indexability"]["not_indexable"] == 8  # tonight's
            report = await asyncio.to_thread(read_report, audited.result.json_path)
            assert report.decision.verdict.line == audited.result.verdict.line
    assert [known_counts(line) for line in lines] == [
        (8, 20, 8, 12),
        (16, 20, 8, 4),
        (20, 20, 8, 0),
    ]
    assert [known["not_indexable"] for known in last_known] == [8, 16, 20]


async def test_a_first_night_that_found_nothing_says_so_of_this_run_alone(tmp_path: Path) -> None:
    """39 % checked and nothing found: "no findings this run", with what is not known yet."""
    site = HistorySite(20)
    async with serve(site.routes) as served:
        audited = await audit_night(
            tmp_path, served.base, 0, history=tmp_path / "h.sqlite", budget=8
        )
    line = audited.result.verdict.line
    assert line.startswith("PASS: ")
    assert ", no findings this run; " in line
    assert known_counts(line) == (0, 20, 8, 12)
