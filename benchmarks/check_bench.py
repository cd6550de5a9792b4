"""Benchmark the URL-check stage of `sitemap-audit` against a bare aiohttp loop, on loopback.

    python benchmarks/check_bench.py [--urls N] [--rounds R] [--concurrency C] [--quick]
                                     [--json PATH] [--run-timeout S]

Starts serve_pages.py in its own process on 127.0.0.1: robots.txt -> a sitemap index -> plain
XML children of at most 50,000 URLs -> N pages /p/<i>, each 200 OK with about 200 bytes of HTML.
Then, for --rounds rounds (the order rotates each round), runs each variant in a fresh child and
measures its wall time, CPU time (user + sys) and peak RSS with os.wait4 (that child's own
rusage), and the server's CPU time over the same span (/proc/<pid>/stat):

- bare-list: a bare aiohttp loop (one ClientSession, TCPConnector(limit=C, limit_per_host=C),
  asyncio.Semaphore(C) bounding the tasks in flight, GET, read the body, count the status
  class) over the N page URLs generated directly, without reading any sitemap;
- bare-sitemaps: the same loop, after fetching robots.txt, the index and the children and
  parsing them whole with defusedxml;
- auditor-get / auditor-auto / auditor-uvloop: `sitemap-audit http://127.0.0.1:PORT/
  --concurrency C --per-host C --workers 1 --method get|auto --loop asyncio|uvloop --no-progress
  --quiet --json FILE --allow-private` (auto asks with HEAD; uvloop is GET on uvloop), in one
  process as the bare loop (benchmarks/suite.py measures --workers).

Two bare loops, because they differ by more than the sitemaps: under strace -c, bare-list makes
one mmap, mremap and munmap per response, bare-sitemaps and the auditor none. asyncio reads a
socket with recv(256 KiB), above glibc malloc's initial mmap threshold (128 KiB); glibc raises
that threshold once a larger mmapped block is freed, as after a multi-MB sitemap read whole.

A run counts only when its answer is right: N URLs checked, all 2xx (the report's summary or
the loop's own count), exit code 0, and the server saw exactly N page requests. Wall time is the
whole process, interpreter start and (for the auditor) discovery, validation and the report
included; "inner s" is the loop's own time, or the report's summary.duration_s. "other CPU s"
is what the rest of the machine used meanwhile: runs with much of it were disturbed.
Prints a markdown table and writes the runs and medians as JSON (--json); exits 1 when a run
failed.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import aiohttp
from defusedxml import ElementTree
from measure import cpu_seconds, machine_busy_s
from results import spread, stats
from rows import read_summary
from serve_pages import page_url

HERE = Path(__file__).resolve().parent
AUDITOR = Path(sys.executable).parent / "sitemap-audit"
DEFAULT_JSON = HERE / "results" / "check_bench.json"
VARIANTS = ("bare-list", "bare-sitemaps", "auditor-get", "auditor-auto", "auditor-uvloop")
# Throughput ratios are given against each bare loop, round by round.
REFERENCES = ("bare-list", "bare-sitemaps")
_SITEMAP_NS = "{http://www.sitemaps.org/schemas/sitemap/0.9}"


# --- the bare loop (runs in its own child: `check_bench.py --bare BASE ...`) -----------------


async def sitemap_locs(session: aiohttp.ClientSession, base: str) -> list[str]:
    """robots.txt -> its Sitemap: lines -> each document, parsed whole with defusedxml."""
    async with session.get(f"{base}/robots.txt") as response:
        robots = await response.text()
    pending = [
        line.split(":", 1)[1].strip()
        for line in robots.splitlines()
        if line.lower().startswith("sitemap:")
    ]
    locs: list[str] = []
    while pending:
        async with session.get(pending.pop(0)) as response:
            root = ElementTree.fromstring(await response.read())
        found = [loc.text.strip() for loc in root.iter(f"{_SITEMAP_NS}loc") if loc.text]
        if root.tag == f"{_SITEMAP_NS}sitemapindex":
            pending += found
        else:
            locs += found
    return locs


async def bare_check(base: str, urls: int, concurrency: int, *, from_sitemaps: bool) -> object:
    """GET every page with at most `concurrency` requests in flight; count the answers."""
    classes: Counter[str] = Counter()
    errors: Counter[str] = Counter()
    started = time.perf_counter()
    connector = aiohttp.TCPConnector(limit=concurrency, limit_per_host=concurrency)
    async with aiohttp.ClientSession(connector=connector) as session:
        semaphore = asyncio.Semaphore(concurrency)

        async def fetch(url: str) -> None:
            try:
                async with session.get(url) as response:
                    await response.read()
                    classes[f"{response.status // 100}xx"] += 1
            except (aiohttp.ClientError, TimeoutError) as exc:
                errors[type(exc).__name__] += 1
            finally:
                semaphore.release()

        locs: Iterable[str]
        if from_sitemaps:
            locs = await sitemap_locs(session, base)
        else:
            locs = (page_url(base, n) for n in range(urls))
        tasks: set[asyncio.Task[None]] = set()
        for url in locs:
            await semaphore.acquire()  # tasks are made as slots free up: memory stays flat
            task = asyncio.create_task(fetch(url))
            tasks.add(task)
            task.add_done_callback(tasks.discard)
        await asyncio.gather(*tasks)
    return {
        "checked": sum(classes.values()) + sum(errors.values()),
        "by_status_class": dict(classes),
        "errors": dict(errors),
        "inner_s": time.perf_counter() - started,
    }


# --- the driver ----------------------------------------------------------------------------


@dataclass(slots=True)
class Run:
    variant: str
    round: int
    wall_s: float
    cpu_s: float
    peak_rss_mb: float
    server_cpu_s: float
    other_cpu_s: float
    exit_code: int
    checked: int = -1
    by_status_class: dict[str, int] = field(default_factory=dict)
    inner_s: float | None = None
    server_requests: dict[str, int] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def urls_per_s(self) -> float:
        return self.checked / self.wall_s if self.checked > 0 else 0.0


@dataclass(frozen=True, slots=True)
class Child:
    wall_s: float
    cpu_s: float
    peak_rss_mb: float
    exit_code: int
    stdout: str
    stderr: str


def spawn(argv: Sequence[str], work: Path, timeout_s: float) -> Child:
    """Run argv in a fresh child; its own rusage via os.wait4; killed after timeout_s."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
    outputs = [
        (os.POSIX_SPAWN_OPEN, fd, str(work / name), flags, 0o644)
        for fd, name in ((1, "stdout.txt"), (2, "stderr.txt"))
    ]
    started = time.perf_counter()
    pid = os.posix_spawn(argv[0], list(argv), os.environ, file_actions=outputs)
    killer = threading.Timer(timeout_s, _kill, (pid,))
    killer.start()
    try:
        _, status, usage = os.wait4(pid, 0)
    finally:
        killer.cancel()
    wall_s = time.perf_counter() - started
    return Child(
        wall_s=wall_s,
        cpu_s=usage.ru_utime + usage.ru_stime,
        peak_rss_mb=usage.ru_maxrss / 1024,  # KiB on Linux
        exit_code=os.waitstatus_to_exitcode(status),
        stdout=(work / "stdout.txt").read_text(errors="replace"),
        stderr=(work / "stderr.txt").read_text(errors="replace"),
    )


def _kill(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)


def server_stats(base: str, *, reset: bool) -> dict[str, int]:
    with urllib.request.urlopen(f"{base}/_stats{'?reset=1' if reset else ''}") as answer:
        stats = json.load(answer)
    assert isinstance(stats, dict)
    return {str(key): int(value) for key, value in stats.items()}


def command(variant: str, base: str, urls: int, concurrency: int, work: Path) -> list[str]:
    if variant.startswith("bare-"):
        argv = [sys.executable, str(Path(__file__).resolve()), "--bare", base]
        argv += ["--urls", str(urls), "--concurrency", str(concurrency)]
        return argv + (["--from-sitemaps"] if variant == "bare-sitemaps" else [])
    # One process, as the bare loop: --workers is the benchmark suite's concern.
    method, loop = ("get", "uvloop") if variant == "auditor-uvloop" else (variant[8:], "asyncio")
    argv = [str(AUDITOR), f"{base}/", "--concurrency", str(concurrency), "--workers", "1"]
    argv += ["--per-host", str(concurrency), "--method", method, "--no-progress", "--quiet"]
    argv += ["--loop", loop]
    return [*argv, "--json", str(work / "report.json"), "--out", str(work), "--allow-private"]


def measure(
    variant: str, number: int, base: str, server_pid: int, args: argparse.Namespace, work: Path
) -> Run:
    report = work / "report.json"
    report.unlink(missing_ok=True)
    argv = command(variant, base, args.urls, args.concurrency, work)
    server_stats(base, reset=True)
    server_before, busy_before = cpu_seconds(server_pid), machine_busy_s()
    child = spawn(argv, work, args.run_timeout)
    server_cpu_s = cpu_seconds(server_pid) - server_before
    busy_s = machine_busy_s() - busy_before
    run = Run(
        variant=variant,
        round=number,
        wall_s=child.wall_s,
        cpu_s=child.cpu_s,
        peak_rss_mb=child.peak_rss_mb,
        server_cpu_s=server_cpu_s,
        # What else ran meanwhile (other processes, interrupts): noise when well above 0.
        other_cpu_s=busy_s - child.cpu_s - server_cpu_s,
        exit_code=child.exit_code,
        server_requests=server_stats(base, reset=True),
    )
    try:
        if variant.startswith("bare-"):
            answer = json.loads(child.stdout)
            run.inner_s = float(answer["inner_s"])
            if answer["errors"]:
                run.problems.append(f"errors {answer['errors']}")
        else:
            answer = read_summary(report)
            run.inner_s = float(str(answer["duration_s"]))
        run.checked = int(answer["checked"])
        run.by_status_class = {str(k): int(v) for k, v in dict(answer["by_status_class"]).items()}
    except (OSError, ValueError, KeyError, TypeError) as exc:
        run.problems.append(f"no result ({type(exc).__name__}: {exc})")
    if run.exit_code != 0:
        run.problems.append(f"exit {run.exit_code}")
    if run.checked != args.urls or run.by_status_class != {"2xx": args.urls}:
        run.problems.append(f"checked {run.checked:,} {run.by_status_class}")
    requests = run.server_requests.get("GET", 0) + run.server_requests.get("HEAD", 0)
    if requests != args.urls:
        run.problems.append(f"server saw {run.server_requests}")
    if child.stderr.strip():
        print(f"    [stderr] {child.stderr.strip()[:2000]}", flush=True)
    return run


def ratios(runs: Sequence[Run], variant: str, reference: str) -> list[float]:
    """Per round: this variant's URLs/s over the reference's, both runs right."""
    found = []
    for number in sorted({run.round for run in runs}):
        mine = [r for r in runs if r.round == number and r.variant == variant and r.ok]
        ref = [r for r in runs if r.round == number and r.variant == reference and r.ok]
        if mine and ref:
            found.append(mine[0].urls_per_s / ref[0].urls_per_s)
    return found


# Columns of the table and of the JSON summary: name, value of a run, format.
COLUMNS = (
    ("wall s", "wall_s", ".2f"),
    ("URLs/s", "urls_per_s", ",.0f"),
    ("inner s", "inner_s", ".2f"),
    ("peak RSS MB", "peak_rss_mb", ".1f"),
    ("CPU s", "cpu_s", ".2f"),
    ("server CPU s", "server_cpu_s", ".2f"),
    ("other CPU s", "other_cpu_s", ".2f"),
)


def values(runs: Sequence[Run], attribute: str) -> list[float]:
    found = (getattr(run, attribute) for run in runs if run.ok)
    return [float(value) for value in found if value is not None]


def summarise(runs: Sequence[Run]) -> dict[str, dict[str, object]]:
    rows: dict[str, dict[str, object]] = {}
    for variant in VARIANTS:
        mine = [run for run in runs if run.variant == variant]
        if not mine:
            continue
        row: dict[str, object] = {"runs": len(mine), "ok": sum(run.ok for run in mine)}
        row |= {attribute: stats(values(mine, attribute)) for _, attribute, _ in COLUMNS}
        for reference in REFERENCES:
            per_round = ratios(runs, variant, reference)
            row[f"urls_per_s_vs_{reference}"] = stats(per_round)
            row[f"urls_per_s_vs_{reference}_per_round"] = per_round
        rows[variant] = row
    return rows


def table(runs: Sequence[Run]) -> str:
    names = [name for name, _, _ in COLUMNS] + [f"vs {reference}" for reference in REFERENCES]
    lines = [
        "| variant | ok | " + " | ".join(names) + " |",
        "|---|---|" + "---|" * len(names),
    ]
    for variant in VARIANTS:
        mine = [run for run in runs if run.variant == variant]
        if not mine:
            continue
        cells = [f"{sum(run.ok for run in mine)}/{len(mine)}"]
        cells += [spread(values(mine, attribute), fmt) for _, attribute, fmt in COLUMNS]
        for reference in REFERENCES:
            per_round = ratios(runs, variant, reference)
            cells.append(spread(per_round, ".2f") + "x" if per_round else "-")
        lines.append(f"| {variant} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def start_server(urls: int) -> tuple[subprocess.Popen[str], str]:
    argv = [sys.executable, str(HERE / "serve_pages.py"), "--urls", str(urls)]
    server = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True)
    assert server.stdout is not None
    line = server.stdout.readline()
    if not line.strip():
        server.wait()
        raise SystemExit("the page server did not start")
    return server, f"http://127.0.0.1:{int(line)}"


def code_state() -> str:
    """The project's commit, `-dirty` when edited: an editable install runs the working tree."""
    describe = ["git", "-C", str(HERE.parent), "describe", "--always", "--dirty"]
    done = subprocess.run(describe, capture_output=True, text=True, check=False)
    return done.stdout.strip() or "unknown"


def environment() -> dict[str, object]:
    cpu = Path("/proc/cpuinfo").read_text() if Path("/proc/cpuinfo").exists() else ""
    model = re.search(r"^model name\s*:\s*(.+)$", cpu, re.MULTILINE)
    return {
        "code": code_state(),
        "python": platform.python_version(),
        "aiohttp": aiohttp.__version__,
        "cpus": os.cpu_count(),
        "cpu_model": model.group(1) if model else None,
        "platform": platform.platform(),
    }


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--urls", type=int, help="pages in the site (default 200,000)")
    parser.add_argument("--rounds", type=int, help="rounds of every variant (default 3)")
    parser.add_argument("--concurrency", type=int, default=128, help="C (default 128)")
    parser.add_argument("--quick", action="store_true", help="20,000 URLs, 2 rounds")
    parser.add_argument("--json", type=Path, default=DEFAULT_JSON, help="results file")
    parser.add_argument("--run-timeout", type=float, default=900.0, help="seconds per run")
    parser.add_argument("--variants", nargs="+", choices=VARIANTS, default=list(VARIANTS))
    # The bare loop's own child: `check_bench.py --bare BASE --urls N --concurrency C`.
    parser.add_argument("--bare", metavar="BASE", help=argparse.SUPPRESS)
    parser.add_argument("--from-sitemaps", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    args.urls = args.urls or (20_000 if args.quick else 200_000)
    args.rounds = args.rounds or (2 if args.quick else 3)
    if args.urls < 1 or args.rounds < 1 or args.concurrency < 1:
        parser.error("--urls, --rounds and --concurrency must be at least 1")
    args.variants = [variant for variant in VARIANTS if variant in args.variants]
    return args


def main() -> int:
    args = parse_args()
    if args.bare:
        answer = asyncio.run(
            bare_check(args.bare, args.urls, args.concurrency, from_sitemaps=args.from_sitemaps)
        )
        print(json.dumps(answer))
        return 0
    env = environment()
    print(f"auditor: {AUDITOR}, code at {env['code']}, {env['cpus']} CPUs", flush=True)
    print(
        f"{args.urls:,} URLs, C = {args.concurrency}, {args.rounds} rounds, "
        f"variants {', '.join(args.variants)}",
        flush=True,
    )
    work = Path(tempfile.mkdtemp(prefix="check-bench-"))
    server, base = start_server(args.urls)
    print(f"page server pid {server.pid} at {base}", flush=True)
    # Warm the page cache for both programs' imports, so that round 1 is not the odd one out.
    subprocess.run([str(AUDITOR), "--version"], check=True, stdout=subprocess.DEVNULL)
    subprocess.run([sys.executable, "-c", "import aiohttp, defusedxml"], check=True)
    runs: list[Run] = []
    try:
        for number in range(1, args.rounds + 1):
            shift = (number - 1) % len(args.variants)
            for variant in args.variants[shift:] + args.variants[:shift]:
                run = measure(variant, number, base, server.pid, args, work)
                runs.append(run)
                print(
                    f"  round {number} {variant:<13} {run.wall_s:7.2f} s "
                    f"{run.urls_per_s:8,.0f} URLs/s  cpu {run.cpu_s:6.2f} s  "
                    f"rss {run.peak_rss_mb:6.1f} MB  server cpu {run.server_cpu_s:6.2f} s  "
                    f"other cpu {run.other_cpu_s:5.2f} s  "
                    f"conns {run.server_requests.get('connections', 0)}  "
                    f"{'OK' if run.ok else 'FAILED: ' + '; '.join(run.problems)}",
                    flush=True,
                )
    finally:
        server.terminate()
        server.wait(timeout=10)
        shutil.rmtree(work, ignore_errors=True)
    if (code_after := code_state()) != env["code"]:  # an editable install: the tree moved
        print(f"WARNING: the code changed during the benchmark: now at {code_after}")
        env["code_after"] = code_after
    print()
    print(table(runs))
    print(
        f"\nmedian (min-max) over the rounds; URLs/s = {args.urls:,} / wall s of the whole child "
        "process. bare-list generates its URL list, reading no sitemap; bare-sitemaps reads "
        "robots.txt, the index and its children first (defusedxml, whole documents); the "
        "auditor discovers, streams and validates the sitemaps, checks every URL and writes "
        "its JSON report. Inner s: the loop's own time, or the report's summary.duration_s. "
        "Server CPU s: the page server's utime + stime during the run (one process, one core). "
        "Other CPU s: the machine's busy CPU time during the run less the child's and the "
        "server's (other processes, interrupts): noise when well above 0. The vs columns: "
        "the median (min-max) of per-round throughput ratios."
    )
    results = {
        "benchmark": "check_bench",
        "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "environment": env,
        "parameters": {
            "urls": args.urls,
            "rounds": args.rounds,
            "concurrency": args.concurrency,
            "per_sitemap": 50_000,
            "quick": args.quick,
            "auditor_command": command("auditor-get", base, args.urls, args.concurrency, work),
        },
        "summary": summarise(runs),
        "runs": [asdict(run) | {"ok": run.ok, "urls_per_s": run.urls_per_s} for run in runs],
    }
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(results, indent=2) + "\n")
    print(f"results: {args.json}")
    return 0 if all(run.ok for run in runs) else 1


if __name__ == "__main__":
    sys.exit(main())
