"""The benchmark suite's pure pieces: expected counts, the fallback server's routes, stats."""

from __future__ import annotations

import dataclasses
import json
import sys
import threading
from collections import Counter
from pathlib import Path

import pytest

from auditor.wings.logs.access_logs import load_ranges
from auditor.wings.logs.crawler_names import Bot
from auditor.wings.logs.log_feed import LogRun
from auditor.wings.logs.log_files import expand_sources, read_logs
from auditor.wings.logs.log_formats import LogFormat
from auditor.wings.logs.log_tally import Window

sys.path.insert(0, str(Path(__file__).parent.parent / "benchmarks"))

from log_gen import generate
from results import Run, log_read_ratios, logs_targets, ratios, spread, table, targets
from rows import bare_final
from serve_site import route
from site_gen import OFF_HOST, Kind, expected_counts, kind_of, url_of
from site_server import nginx_conf

BASE = "http://127.0.0.1:8000"


def walk(path: str) -> tuple[int, int, bool]:
    """Follow the fallback server's routes from `path`: (first status, hops, looped)."""
    first, hops, seen = 0, 0, {path}
    while True:
        status, location = route(path)
        first = first or status
        if location is None:
            return first, hops, False
        hops += 1
        if location in seen:
            return first, hops, True
        seen.add(location)
        path = location


@pytest.mark.parametrize("urls", [1, 999, 20_000, 23_456])
def test_expected_counts_add_up_to_the_tree(urls: int) -> None:
    counts = expected_counts(BASE, urls, 20)
    assert sum(counts.kinds.values()) == urls
    assert sum(counts.by_status_class.values()) == urls
    assert counts.final_ok + counts.final_errors == urls
    assert sum(bare_final(counts).values()) == urls


def test_every_url_answers_what_the_counts_say() -> None:
    """The routes give each URL the status class, chain and loop its kind promises."""
    urls = 20_000
    counts = expected_counts(BASE, urls, 20)
    classes: Counter[str] = Counter()
    hops_total = loops = 0
    for n in range(urls):
        url = url_of(BASE, n)
        if kind_of(n) is Kind.OFF_HOST:
            assert url.startswith(f"http://{OFF_HOST}:8000/p/")
        first, hops, looped = walk(url.split(":8000", 1)[1])
        classes[f"{first // 100}xx"] += 1
        loops += looped
        hops_total += 0 if looped else hops
    assert dict(classes) == counts.by_status_class
    assert loops == counts.kinds["loop"] == 2
    assert hops_total == counts.redirect_hops
    assert (
        counts.by_code["redirect.permanent"] + counts.by_code["redirect.temporary"]
        == (counts.kinds["redirect"])
    )


@pytest.mark.slow
def test_most_urls_are_pages() -> None:
    counts = expected_counts(BASE, 1_000_000, 20)
    assert 0.94 < counts.kinds["page"] / counts.urls < 0.96
    assert counts.kinds["404"] == 20_000
    assert counts.kinds["500"] == 5_000
    assert counts.gzipped == 16


def run(row: str, number: int, wall_s: float, *, ok: bool = True) -> Run:
    problems = [] if ok else ["wrong"]
    return Run("t", 1000, row, number, wall_s, 1.0, 50.0, 50.0, 1, 0.0, 0.0, 0, problems=problems)


def test_ratios_pair_rounds_and_leave_out_wrong_runs() -> None:
    runs = [
        run("a", 1, 2.0),
        run("b", 1, 1.0),
        run("a", 2, 1.0),
        run("b", 2, 1.0),
        run("a", 3, 1.0, ok=False),
        run("b", 3, 1.0),
    ]
    assert ratios(runs, "t", "a", "b") == [0.5, 1.0]
    assert spread([0.5, 1.0, 0.75], ".2f") == "0.75 (0.50-1.00)"
    assert spread([], ".2f") == "-"


def test_cpu_per_url_is_the_trees_cpu_over_its_urls_and_compared_per_round() -> None:
    mine, lychee = run("a", 1, 2.0), run("lychee", 1, 1.0)
    mine.cpu_s, lychee.cpu_s = 0.1, 0.2  # 1000 URLs each
    assert mine.cpu_us_per_url == pytest.approx(100.0)
    assert ratios([mine, lychee], "t", "a", "lychee", "cpu_us_per_url") == [0.5]
    assert run("a", 1, 1.0, ok=False).cpu_us_per_url == 0.0


def test_cpu_targets_hold_the_default_row_to_lychees_cpu_per_url() -> None:
    runs = [run("auditor curl w2", 1, 1.0), run("lychee", 1, 2.0)]
    runs[0].cpu_s, runs[1].cpu_s = 0.09, 0.1
    found = {
        target.text: target.status
        for target in targets(
            runs, parse_task="p", small_parse_task=None, check_tasks=["t"], cores=2
        )
    }
    assert found["t: auditor curl w2 CPU per URL / lychee's"] == "met"
    assert found["t: auditor curl w2 CPU per URL / lychee's (stretch)"] == "MISSED"
    assert found["t: auditor curl w2 / lychee"] == "met"


def test_nginx_runs_the_workers_it_is_given() -> None:
    conf = nginx_conf([(Path("/srv"), 8000)], prefix=Path("/tmp/x"), log=Path("/tmp/x/log"))
    assert "worker_processes 1;" in conf
    conf = nginx_conf([(Path("/srv"), 8000)], prefix=Path("/x"), log=Path("/x/l"), workers=2)
    assert "worker_processes 2;" in conf


def test_the_nights_generator_changes_half_with_their_lastmod() -> None:
    import random  # noqa: PLC0415 - this test's alone

    from nights_bench import GONE, NOINDEX, OK, Site  # noqa: PLC0415

    site = Site(1000, random.Random(1))
    made = site.change(1, 100)
    assert len({change.page for change in made}) == 100
    assert sum(change.lastmod for change in made) == 50
    assert all(site.state[change.page] in (GONE, NOINDEX) for change in made)
    assert all(site.lastmod[c.page] == (1 if c.lastmod else -1) for c in made)
    again = site.change(2, 1000)  # every page: the changed ones come back
    back = {change.page for change in made}
    assert all(site.state[c.page] == OK for c in again if c.page in back)


@pytest.mark.slow
def test_three_small_nights_are_right() -> None:
    """The nights task end to end on a small site: nginx, the audits, the judge."""
    import json  # noqa: PLC0415
    import shutil  # noqa: PLC0415
    import subprocess  # noqa: PLC0415
    import tempfile  # noqa: PLC0415

    from site_server import find_nginx  # noqa: PLC0415

    if find_nginx() is None:
        pytest.skip("nginx is not installed")
    auditor = Path(sys.executable).parent / "sitemap-audit"
    script = Path(__file__).parent.parent / "benchmarks" / "nights_bench.py"
    # nginx's workers run as another user: the site's folder must be readable by all.
    folder = Path(tempfile.mkdtemp(prefix="nights-"))
    folder.chmod(0o755)
    try:
        argv = [sys.executable, str(script), "run", str(folder), "--auditor", str(auditor)]
        argv += ["--urls", "3000", "--nights", "3", "--budget", "1200", "--changes", "60"]
        done = subprocess.run(argv, capture_output=True, text=True, timeout=600, check=False)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    assert done.returncode == 0, done.stderr[-3000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["requested_within_nights"] == 3000
    assert found["wrong_verdicts"] == 0
    assert found["lastmod_found_same_night"] == found["lastmod_changes"] == 60
    silent = found["silent_found_within_max_age"] + found["silent_pending_within_max_age"]
    assert silent == found["silent_changes"] == 60
    assert [night["requested"] for night in found["per_night"]] == [1200, 1200, 1200]
    assert found["per_night"][2]["not_modified"] > 0  # the ETags sent back


def test_the_journals_full_run_table_is_its_json() -> None:
    """The performance page shows the kept full run's table: it says what that run's JSON says."""
    journal = Path(__file__).parent.parent / "benchmarks" / "journal"
    suite = json.loads((journal / "suite-full.json").read_text("utf-8"))
    names = {field.name for field in dataclasses.fields(Run)}
    runs = [Run(**{k: v for k, v in run.items() if k in names}) for run in suite["runs"]]
    order = [(entry["task"], entry["row"], tuple(entry["vs"])) for entry in suite["summary"]]
    assert table(runs, order) in (journal / "RESULTS-full.md").read_text("utf-8")


def test_the_log_generator_writes_what_the_auditors_reader_counts(tmp_path: Path) -> None:
    """Both copies of the month, plain and rotated, read as the run reads them, give its counts."""
    want = generate(tmp_path, count=20_000, listed=2_000, files=4)
    assert want.files_gz == 2
    assert sorted(path.name for path in (tmp_path / "gz").iterdir()) == [
        "access.log",
        "access.log.1",
        "access.log.2.gz",
        "access.log.3.gz",
    ]
    ranges = load_ranges(())
    for folder in ("plain", "gz"):
        run = LogRun(ranges, Window(int(want.made_at) - 30 * 86_400, int(want.made_at)))
        read_logs(
            expand_sources([tmp_path / folder]),
            run,
            given=LogFormat.AUTO,
            stop=threading.Event(),
            spool=lambda keys: None,
            stats=[],
        )
        claims = run.counts.claims
        assert run.counts.lines == want.lines
        assert run.counts.bad == 0
        assert claims[Bot.GOOGLEBOT].verified == want.googlebot
        assert claims[Bot.GOOGLEBOT].outside == want.spoofed
        assert claims[Bot.BINGBOT].verified == want.bingbot
    assert 0.07 < want.googlebot / want.lines < 0.09


def test_the_logs_targets_read_the_reading_rate_against_the_bare_loop_per_round() -> None:
    bare = run("bare log loop", 1, 10.0)
    bare.urls = 1_000_000  # 100k lines/s
    mine = run("auditor --access-log", 1, 20.0)
    mine.details = {"log_lines_per_s": 80_000.0}
    mine.peak_rss_mb = 160.0
    alone = run("auditor --access-log w1", 1, 30.0)
    alone.peak_rss_mb = 120.0
    assert log_read_ratios([bare, mine, alone], "t") == [pytest.approx(0.8)]
    found = {target.text: target.status for target in logs_targets([bare, mine, alone], "t")}
    assert found == {
        "t: auditor log lines/s (reading)": "MISSED",
        "t: auditor reading / bare log loop (lines/s)": "met",
        "t: auditor peak RSS MB (all processes)": "MISSED",
        "t: auditor --workers 1 peak RSS MB": "met",
    }
