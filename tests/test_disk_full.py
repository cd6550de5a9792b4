"""A full disk at random points of a run: whichever writer meets it, one line and exit 3.

Each run is a child whose files stop growing at a limit (RLIMIT_FSIZE, as on a full disk; see
tests/disk_full_child.py). The limit is a seeded random point inside one writer's file (the
JSON and HTML reports, JUnit, CSV, metrics, a history, a baseline's comparison) as large as a
whole run writes it; beside that writer the run asks for other outputs, a crawl or hreflang now
and then. A file made earlier in the run may meet the limit first: the run must then fail there,
as well. It must never show a traceback, must say one line and exit 3, and must leave no
half-written file at a final path and no scratch file (docs/reference/exit-codes.md).
"""

from __future__ import annotations

import asyncio
import csv
import json
import random
import sqlite3
import sys
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from auditor.demo.documents import Page, url, urlset, xml_page
from auditor.demo.server import Route, serve
from auditor.errors import ExitCode
from tests.test_output_faults import ROOT, assert_whole, one_line

pytestmark = pytest.mark.slow  # fifty runs of the command

RUNS = 50
SEED = 20261123
CHILDREN = 2  # runs at once (each a fork of a child that imported the package once)
PAGES = 60
ALTERNATES = 4  # pages in two languages, in /hreflang.xml
# The writers a limit is drawn in, and the file each one writes (its size in a whole run).
WRITERS = {
    "json": "r.json",
    "html": "r.html",
    "junit": "j.xml",
    "csv": "csv/urls.csv",
    "metrics": "m.prom",
    "history": "h.sqlite",
    "baseline": "r.json",  # the comparison holds a row of the baseline's per URL, as the report
}
OPTIONAL = ("junit", "csv", "metrics")
XHTML = 'xmlns:xhtml="http://www.w3.org/1999/xhtml"'
HTML = {"Content-Type": "text/html"}


def site(base: str) -> dict[str, Route]:
    """Pages answering 200 (every tenth 404s), linked from the home page; two sitemaps of them,
    /hreflang.xml naming a few pages' alternates."""
    page = Page(200, b"<!doctype html><title>p</title><a href='/p1'>p1</a>", HTML)
    routes: dict[str, Route] = {f"/p{n}": page for n in range(PAGES) if n % 10}
    links = "".join(f"<a href='/p{n}'>{n}</a>" for n in range(PAGES))
    routes["/"] = Page(200, f"<!doctype html><title>home</title>{links}".encode(), HTML)
    plain, paired = [], []
    for n in range(PAGES):
        plain.append(url(f"{base}/p{n}", lastmod="2026-01-05"))
        extra = ""
        if n < ALTERNATES:
            extra = (
                f'<xhtml:link rel="alternate" hreflang="en" href="{base}/p{n}"/>'
                f'<xhtml:link rel="alternate" hreflang="de" href="{base}/p{n ^ 1}"/>'
            )
        paired.append(url(f"{base}/p{n}", lastmod="2026-01-05", extra=extra))
    routes["/s.xml"] = xml_page(urlset(plain))
    routes["/hreflang.xml"] = xml_page(urlset(paired).replace("<urlset ", f"<urlset {XHTML} "))
    return routes


@dataclass(frozen=True)
class Case:
    """One run: the writer whose file the limit is drawn in, the limit, what the run writes."""

    number: int
    writer: str
    limit: int | None
    mode: str = "history"  # "history", "crawl" (a crawl requests every page: not both), "none"
    baseline: bool = False
    outputs: frozenset[str] = frozenset(OPTIONAL)
    hreflang: bool = False


def argv(case: Case, folder: Path, base: str, baseline: Path) -> list[str]:
    flags = [
        "--quiet", "--no-progress", "--allow-private", "--timeout", "5",
        "--json", str(folder / "r.json"), "--html", str(folder / "r.html"),
    ]  # fmt: skip
    if "junit" in case.outputs:
        flags += ["--junit", str(folder / "j.xml")]
    if "metrics" in case.outputs:
        flags += ["--metrics", str(folder / "m.prom")]
    if "csv" in case.outputs:
        flags += ["--csv", str(folder / "csv")]
    if case.baseline:
        flags += ["--baseline", str(baseline)]
    if case.mode == "history":
        flags += ["--history", str(folder / "h.sqlite")]
    elif case.mode == "crawl":
        flags.append("--crawl")
    return [*flags, f"{base}/hreflang.xml" if case.hreflang else f"{base}/s.xml"]


def cases(sizes: dict[str, dict[str, int]]) -> list[Case]:
    """Seeded random points: a writer, and a limit inside its file as a whole run writes it
    (below 90% of it, so that it is met whatever a run's timings add). The other outputs, a
    crawl, hreflang and a baseline come now and then: the files made before the writer's (the
    history and the baseline's comparison are filled before the run) meet a small limit first.
    """
    rng = random.Random(SEED)
    drawn = []
    for number in range(RUNS):
        writer = rng.choice(list(WRITERS))
        mode = "history" if writer == "history" else rng.choice(["crawl", "none", "none", "none"])
        size = sizes["crawl" if mode == "crawl" else "history"][writer]
        optional = {name for name in OPTIONAL if name == writer or rng.random() < 0.3}
        drawn.append(
            Case(
                number,
                writer,
                rng.randrange(1, int(size * 0.9)),
                mode,
                baseline=writer == "baseline" or rng.random() < 0.1,
                outputs=frozenset(optional),
                hreflang=rng.random() < 0.2,
            )
        )
    return drawn


class Child:
    """tests/disk_full_child.py: runs the command, one job at a time."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self._process = process
        self._lock = asyncio.Lock()

    async def run(self, command: list[str], limit: int | None) -> tuple[int, str]:
        assert self._process.stdin is not None
        assert self._process.stdout is not None
        async with self._lock:
            job = json.dumps({"argv": command, "limit": limit}) + "\n"
            self._process.stdin.write(job.encode())
            await self._process.stdin.drain()
            line = await asyncio.wait_for(self._process.stdout.readline(), timeout=120)
        answer = json.loads(line)
        return answer["code"], answer["stderr"]


@asynccontextmanager
async def children(count: int) -> AsyncIterator[list[Child]]:
    pipe = asyncio.subprocess.PIPE
    started = [
        await asyncio.create_subprocess_exec(
            sys.executable, "-m", "tests.disk_full_child", cwd=ROOT, stdin=pipe, stdout=pipe
        )
        for _ in range(count)
    ]
    try:
        yield [Child(process) for process in started]
    finally:
        for process in started:
            assert process.stdin is not None
            process.stdin.close()
        for process in started:
            await asyncio.wait_for(process.wait(), timeout=30)


def whole_outputs(folder: Path) -> None:
    """What a failed run left at final paths is whole; its scratch files are gone."""
    assert_whole(folder)
    tables = folder / "csv"
    if tables.exists():
        names = {path.name for path in tables.iterdir()}
        assert names <= {"urls.csv", "findings.csv"}, names
        for name in names:
            with (tables / name).open(newline="", encoding="utf-8") as table:
                rows = list(csv.reader(table))
            assert rows
            assert all(len(row) == len(rows[0]) for row in rows)
    history = folder / "h.sqlite"
    if history.exists():  # earlier transactions kept, the failed one rolled back
        with sqlite3.connect(f"file:{history}?mode=ro", uri=True) as db:
            assert db.execute("PRAGMA quick_check").fetchone() == ("ok",)


# What an error line names, and the writer it is: the first that matches.
_NAMED = (
    ("JUnit", "junit"),
    ("HTML", "html"),
    ("metrics", "metrics"),
    (".csv", "csv"),
    ("--history", "history"),
    ("budget", "history"),
    ("comparison", "baseline"),
    ("hreflang", "hreflang store"),
    (".crawl", "crawl store"),
    ("r.json", "json"),
)


def failed_writer(stderr: str) -> str:
    """Which writer the error line names (for the printed tally)."""
    return next((writer for name, writer in _NAMED if name in stderr), "other")


async def whole_runs(pool: list[Child], tmp_path: Path, base: str) -> dict[str, dict[str, int]]:
    """What each writer writes in a whole run, with a history or a crawl; the baseline kept."""
    sizes: dict[str, dict[str, int]] = {}
    for mode in ("history", "crawl"):
        whole = tmp_path / f"whole-{mode}"
        whole.mkdir()
        case = Case(-1, "", None, mode, baseline=mode == "crawl")
        code, stderr = await pool[0].run(argv(case, whole, base, tmp_path / "baseline.json"), None)
        assert code == ExitCode.FINDINGS, stderr
        if mode == "history":
            (tmp_path / "baseline.json").write_bytes((whole / "r.json").read_bytes())
        files = {name: whole / file for name, file in WRITERS.items()}
        files["history"] = tmp_path / "whole-history" / WRITERS["history"]  # none with a crawl
        sizes[mode] = {name: path.stat().st_size for name, path in files.items()}
    return sizes


async def test_a_full_disk_at_fifty_random_points_is_one_line_and_exit_3(tmp_path: Path) -> None:
    async with serve(site) as served, children(CHILDREN) as pool:
        drawn = cases(await whole_runs(pool, tmp_path, served.base))
        waiting = list(reversed(drawn))
        results: dict[int, tuple[int, str]] = {}

        async def work(child: Child) -> None:
            while waiting:
                case = waiting.pop()
                folder = tmp_path / f"run{case.number}"
                folder.mkdir()
                command = argv(case, folder, served.base, tmp_path / "baseline.json")
                results[case.number] = await child.run(command, case.limit)

        await asyncio.gather(*(work(child) for child in pool))
    met: Counter[str] = Counter()
    for case in drawn:
        code, stderr = results[case.number]
        assert code == ExitCode.FAILED, (case, code, stderr)
        one_line(stderr)
        whole_outputs(tmp_path / f"run{case.number}")
        met[failed_writer(stderr)] += 1
    print(f"FULL DISK: limits drawn in {dict(Counter(case.writer for case in drawn))}")
    print(f"FULL DISK: the writer each run failed in: {dict(met)}")
    assert len(met) >= 5  # the limits reach several writers, not one
