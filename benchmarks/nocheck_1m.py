"""Benchmark `sitemap-audit --no-check` on a local tree of 1,000,000 URLs.

    python benchmarks/nocheck_1m.py [--urls N] [--children N] [--repeat N] [--data DIR]

Starts serve_tree.py in its own process on 127.0.0.1, generates the tree with gen_tree.py for
that server's root URL (cached under --data: kept while the server can bind the same port
again), runs the auditor on robots.txt in a fresh child, and measures its wall time and peak
RSS (os.wait4: the rusage of exactly that child). Checks summary.urls and summary.sitemaps
in the JSON report; exits 1 when a count is wrong or the auditor failed (exit code 2 or 3).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
AUDITOR = Path(sys.executable).parent / "sitemap-audit"


@dataclass(frozen=True, slots=True)
class Run:
    urls: int
    sitemaps: int
    wall_s: float
    cpu_s: float
    peak_rss_mb: float
    exit_code: int


def start_server(tree: Path, port: int) -> tuple[subprocess.Popen[str], int]:
    """serve_tree.py on `port` (0: any free one); falls back to any port if that one is taken."""
    command = [sys.executable, str(HERE / "serve_tree.py"), str(tree), "--port", str(port)]
    server = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    assert server.stdout is not None
    line = server.stdout.readline()
    if line.strip():
        return server, int(line)
    server.wait()
    if port == 0:
        raise SystemExit("the server did not start")
    return start_server(tree, 0)


def prepare_tree(tree: Path, urls: int, children: int) -> tuple[subprocess.Popen[str], str]:
    """Start the server; (re)generate the tree unless the cached one has the same root URL."""
    cache = tree / "expected.json"
    cached = json.loads(cache.read_text()) if cache.exists() else {}
    tree.mkdir(parents=True, exist_ok=True)
    old_base = str(cached.get("base", "http://127.0.0.1:0"))
    server, port = start_server(tree, int(old_base.rsplit(":", 1)[1]))
    base = f"http://127.0.0.1:{port}"
    sys.path.insert(0, str(HERE))
    from gen_tree import expected  # noqa: PLC0415 - a sibling script, not a package

    if cached == expected(base, urls, children):
        return server, base
    print(f"generating {urls:,} URLs in {children} children under {tree} ...", flush=True)
    started = time.perf_counter()
    generate = [sys.executable, str(HERE / "gen_tree.py"), str(tree), "--base", base]
    generate += ["--urls", str(urls), "--children", str(children)]
    try:
        subprocess.run(generate, check=True, stdout=subprocess.DEVNULL)
    except BaseException:
        server.terminate()
        raise
    print(f"generated in {time.perf_counter() - started:.1f} s", flush=True)
    return server, base


def code_state() -> str:
    """The project's commit, `-dirty` when edited: an editable install runs the working tree."""
    describe = ["git", "-C", str(HERE.parent), "describe", "--always", "--dirty"]
    done = subprocess.run(describe, capture_output=True, text=True, check=False)
    return done.stdout.strip() or "unknown"


def read_summary(report: Path) -> dict[str, object]:
    """The report's `summary` object: the last member, so only the file's tail is read."""
    with report.open("rb") as file:
        file.seek(max(0, report.stat().st_size - (1 << 20)))
        tail = file.read().decode()
    start = tail.rindex('"summary":') + len('"summary":')
    summary, _ = json.JSONDecoder().raw_decode(tail, start)
    assert isinstance(summary, dict)
    return summary


def audit_once(base: str, work: Path) -> Run:
    """One auditor run in a fresh child; its own rusage via os.wait4."""
    report = work / "report.json"
    report.unlink(missing_ok=True)
    argv = [str(AUDITOR), "--no-check", f"{base}/robots.txt", "--json", str(report)]
    argv += ["--out", str(work), "--allow-private", "--no-progress"]
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
    outputs = [
        (os.POSIX_SPAWN_OPEN, fd, str(work / name), flags, 0o644)
        for fd, name in ((1, "stdout.txt"), (2, "stderr.txt"))
    ]
    started = time.perf_counter()
    pid = os.posix_spawn(AUDITOR, argv, os.environ, file_actions=outputs)
    _, status, usage = os.wait4(pid, 0)
    wall_s = time.perf_counter() - started
    code = os.waitstatus_to_exitcode(status)
    for name in ("stdout.txt", "stderr.txt"):
        if text := (work / name).read_text().strip():
            print(f"  [{name}] " + text.replace("\n", "\n  "))
    summary = read_summary(report) if report.exists() else {}
    return Run(
        urls=int(str(summary.get("urls", -1))),
        sitemaps=int(str(summary.get("sitemaps", -1))),
        wall_s=wall_s,
        cpu_s=usage.ru_utime + usage.ru_stime,
        peak_rss_mb=usage.ru_maxrss / 1024,  # KiB on Linux
        exit_code=code,
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--urls", type=int, default=1_000_000)
    parser.add_argument("--children", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--data", type=Path, default=Path("/tmp/sitemap-bench"))
    args = parser.parse_args()
    tree = args.data / f"tree-{args.urls}-{args.children}"
    work = args.data / "run"
    work.mkdir(parents=True, exist_ok=True)
    server, base = prepare_tree(tree, args.urls, args.children)
    print(f"auditor: {AUDITOR}, code at {code_state()}", flush=True)
    try:
        runs = [audit_once(base, work) for _ in range(args.repeat)]
    finally:
        server.terminate()
        server.wait(timeout=10)
    want = (args.urls, args.children + 2)
    print(
        f"\n{'run':>3} {'urls':>9} {'sitemaps':>8} {'wall s':>8} {'cpu s':>7} "
        f"{'URLs/s':>9} {'peak RSS MB':>11} {'exit':>4}  counts"
    )
    ok = True
    for n, run in enumerate(runs, 1):
        right = (run.urls, run.sitemaps) == want and run.exit_code in (0, 1)
        ok = ok and right
        print(
            f"{n:>3} {run.urls:>9,} {run.sitemaps:>8} {run.wall_s:>8.2f} {run.cpu_s:>7.2f} "
            f"{run.urls / run.wall_s:>9,.0f} {run.peak_rss_mb:>11.1f} {run.exit_code:>4}  "
            f"{'OK' if right else f'WRONG (want {want[0]:,} urls, {want[1]} sitemaps)'}"
        )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
