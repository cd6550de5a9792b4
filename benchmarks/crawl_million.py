"""One real crawl of the crawl task's shop at any size, served by nginx: its cost and counts.

    python benchmarks/crawl_million.py DIR [--pages 1000000]

Generates the shop under DIR (benchmarks/crawl_gen.py; kept for the next run), serves it with
nginx, runs `sitemap-audit --crawl` as the suite's crawl row does, and prints one JSON line:
wall and CPU seconds, the peak RSS of the process tree (sampled), and whether every coverage
count equals the generator's. The suite's crawl task runs 100k pages beside Scrapy; this one
runs the auditor alone, at the sizes where its memory is the question.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import crawl_gen
from measure import run_measured
from rows import read_summary
from site_server import free_port, start_server

HERE = Path(__file__).parent
TIMEOUT_S = 6 * 3600


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", type=Path)
    parser.add_argument("--pages", type=int, default=1_000_000)
    parser.add_argument("--auditor", default=str(Path(sys.executable).parent / "sitemap-audit"))
    args = parser.parse_args()
    directory = args.data / f"crawl-{args.pages}"
    expected = crawl_gen.load_expected(directory)
    if expected is None or expected.pages != args.pages:
        directory.mkdir(parents=True, exist_ok=True)
        base = f"http://127.0.0.1:{free_port()}"
        script = [sys.executable, str(HERE / "crawl_gen.py"), str(directory), "--base", base]
        subprocess.run([*script, "--pages", str(args.pages)], check=True, stdout=subprocess.DEVNULL)
        expected = crawl_gen.load_expected(directory)
        assert expected is not None
    args.data.chmod(0o755)  # nginx's workers run as another user
    port = int(expected.base.rsplit(":", 1)[1])
    server = start_server([(directory, port)], work=args.data / "server", crawl=frozenset({port}))
    work = args.data / "run"
    work.mkdir(exist_ok=True)
    argv = [args.auditor, f"{expected.base}/", "--crawl", "--crawl-max", "10000000"]
    argv += ["--workers", "1", "--concurrency", "128", "--per-host", "128", "--retries", "0"]
    argv += ["--allow-private", "--no-progress", "--quiet", "--json", str(work / "report.json")]
    argv += ["--out", str(work)]
    try:
        measured = run_measured(argv, work=work, timeout_s=TIMEOUT_S, server_pids=server.pids)
    finally:
        server.stop()
    coverage = read_summary(work / "report.json")["coverage"]
    assert isinstance(coverage, dict)
    wanted = expected.coverage()
    wrong = {key: coverage.get(key) for key, want in wanted.items() if coverage.get(key) != want}
    found = {
        "pages": expected.crawled,
        "wall_s": round(measured.wall_s, 1),
        "pages_per_s": round(expected.crawled / measured.wall_s),
        "cpu_s": round(measured.cpu_s, 1),
        "peak_rss_mb": round(measured.peak_rss_mb, 1),
        "other_cpu_s": round(measured.other_cpu_s, 1),
        "exit_code": measured.exit_code,
        "counts_wrong": wrong,
    }
    print(json.dumps(found))
    return 0 if measured.exit_code in (0, 1) and not wrong else 1


if __name__ == "__main__":
    raise SystemExit(main())
