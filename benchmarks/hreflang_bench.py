"""hreflang at scale: 1M URLs with 4 alternates each, parsed, validated and return links judged.

    python benchmarks/hreflang_bench.py [--urls 1000000] [--rounds 3] [--data DIR]

The tree (robots.txt -> an index -> 20 gzipped children) lists every page in 4 languages, each
entry naming its 4 versions (itself included) with `<xhtml:link>`, as Django's sitemap
framework writes them: every return link is there, so the right answer is no finding at all,
1M URLs, 4M hreflang links. Served by nginx (or benchmarks/serve_site.py) from another process
on 127.0.0.1, round by round (the order rotates): the bare aiohttp + defusedxml loop of the suite
(benchmarks/bare.py parse: fetch, parse each document whole, count its `<loc>`s) and
`sitemap-audit --no-check` (parse, validate every link, keep the pairs on disk, judge the return
links, write the reports). Targets: the auditor at least 0.6x the bare loop's URLs/s
in the same round, peak RSS (its processes together) under 150 MB. A run whose counts are wrong
fails. Prints a markdown table; exits 1 when a run failed or a target was missed.
"""

from __future__ import annotations

import argparse
import gzip
import json
import shutil
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path

from measure import Measured, run_measured
from rows import AUDITOR, CORES, read_summary
from site_server import free_port, port_free, start_server

LANGUAGES = ("en", "fr", "de", "es")
CHILDREN = 20
MIN_RATIO = 0.6
MAX_RSS_MB = 150.0
NS = (
    'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml"'
)


def generate(tree: Path, base: str, urls: int) -> None:
    """The tree of `urls` URLs (urls / 4 pages in 4 languages), in CHILDREN gzipped sitemaps."""
    shutil.rmtree(tree, ignore_errors=True)
    tree.mkdir(parents=True)
    pages = urls // len(LANGUAGES)
    per_child = -(-pages // CHILDREN)
    children = []
    for k in range(CHILDREN):
        name = f"sitemap-{k}.xml.gz"
        children.append(f"<sitemap><loc>{base}/{name}</loc></sitemap>")
        with gzip.open(tree / name, "wt", compresslevel=1) as out:
            out.write(f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset {NS}>\n')
            for page in range(k * per_child, min(pages, (k + 1) * per_child)):
                links = "".join(
                    f'<xhtml:link rel="alternate" hreflang="{lang}" '
                    f'href="{base}/{lang}/page/{page}"/>'
                    for lang in LANGUAGES
                )
                for lang in LANGUAGES:
                    out.write(f"<url><loc>{base}/{lang}/page/{page}</loc>{links}</url>\n")
            out.write("</urlset>\n")
    index = f'<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex {NS}>\n'
    index += "\n".join(children) + "\n</sitemapindex>\n"
    (tree / "sitemap_index.xml").write_text(index)
    (tree / "robots.txt").write_text(f"User-agent: *\nSitemap: {base}/sitemap_index.xml\n")
    (tree / "hreflang.json").write_text(json.dumps({"base": base, "urls": urls}))


def prepare(data: Path, urls: int) -> tuple[Path, int]:
    """The tree (kept from an earlier run when its port is still free) and its port."""
    tree = data / f"hreflang-{urls}"
    stamp = tree / "hreflang.json"
    if stamp.exists():
        kept = json.loads(stamp.read_text())
        port = int(kept["base"].rsplit(":", 1)[1])
        if kept["urls"] == urls and port_free(port):
            return tree, port
    port = free_port()
    print(f"generating {urls:,} URLs with {len(LANGUAGES)} alternates each ...", flush=True)
    generate(tree, f"http://127.0.0.1:{port}", urls)
    return tree, port


@dataclass(frozen=True, slots=True)
class Run:
    row: str
    round: int
    measured: Measured
    urls: int
    problems: list[str]

    @property
    def rate(self) -> float:
        return self.urls / self.measured.wall_s if self.measured.wall_s else 0.0


def bare(base: str, work: Path, urls: int, number: int) -> Run:
    argv = [sys.executable, str(Path(__file__).with_name("bare.py")), "parse", base]
    measured = run_measured(argv, work=work, timeout_s=1800)
    problems = []
    try:
        answer = json.loads(measured.stdout.read_text().strip().splitlines()[-1])
    except (OSError, ValueError, IndexError) as exc:
        return Run("bare parse", number, measured, 0, [f"no result ({exc})"])
    if answer.get("urls") != urls:
        problems.append(f"urls {answer.get('urls')} (want {urls})")
    return Run("bare parse", number, measured, urls, problems)


def auditor(base: str, work: Path, urls: int, number: int) -> Run:
    report = work / "report.json"
    argv = [str(AUDITOR), f"{base}/", "--no-check", "--allow-private", "--no-progress"]
    argv += ["--quiet", "--json", str(report), "--out", str(work)]
    measured = run_measured(argv, work=work, timeout_s=1800)
    problems = [] if measured.exit_code == 0 else [f"exit {measured.exit_code}"]
    try:
        summary = read_summary(report)
    except (OSError, ValueError, AssertionError) as exc:
        return Run("auditor --no-check", number, measured, 0, [*problems, f"no report ({exc})"])
    extensions = summary.get("extensions") or {}
    assert isinstance(extensions, dict)
    wanted = {
        "urls": (summary.get("urls"), urls),
        "by_code": (summary.get("by_code"), {}),
        "hreflang_urls": (extensions.get("hreflang_urls"), urls),
        "hreflang_links": (extensions.get("hreflang_links"), urls * len(LANGUAGES)),
        "alternates": (summary.get("alternates"), 0),
    }
    problems += [f"{key} {got} (want {want})" for key, (got, want) in wanted.items() if got != want]
    if problems:
        problems.append(measured.stderr.read_text(errors="replace")[-500:])
    return Run("auditor --no-check", number, measured, urls, problems)


def table(runs: list[Run]) -> list[str]:
    lines = [
        "| round | row | ok | wall s | URLs/s | peak RSS MB | CPU s | other CPU s | vs bare |",
        "|---:|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    by_round = {(run.round, run.row): run for run in runs}
    for run in runs:
        reference = by_round.get((run.round, "bare parse"))
        ratio = f"{run.rate / reference.rate:.2f}x" if reference and run is not reference else "-"
        m = run.measured
        lines.append(
            f"| {run.round} | {run.row} | {'yes' if not run.problems else 'NO'} | "
            f"{m.wall_s:.2f} | {run.rate:,.0f} | {m.peak_rss_mb:.0f} | {m.cpu_s:.1f} | "
            f"{m.other_cpu_s:.1f} | {ratio} |"
        )
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--urls", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--data", type=Path, default=Path("/tmp/sitemap-bench"))
    args = parser.parse_args()
    tree, port = prepare(args.data, args.urls)
    base = f"http://127.0.0.1:{port}"
    server = start_server([(tree, port)], work=args.data / "hreflang-server")
    print(f"server: {server.name}; {CORES} cores", flush=True)
    runs: list[Run] = []
    work = args.data / "hreflang-work"
    try:
        for number in range(1, args.rounds + 1):
            order = (bare, auditor) if number % 2 else (auditor, bare)
            for row in order:
                shutil.rmtree(work, ignore_errors=True)
                work.mkdir(parents=True)
                runs.append(row(base, work, args.urls, number))
                print(table(runs)[-1], flush=True)
    finally:
        server.stop()
    print("\n".join(table(runs)))
    ratios = [
        run.rate / reference.rate
        for run in runs
        if run.row == "auditor --no-check"
        for reference in runs
        if reference.row == "bare parse" and reference.round == run.round and reference.rate
    ]
    peak = max(run.measured.peak_rss_mb for run in runs if run.row == "auditor --no-check")
    ratio = statistics.median(ratios)
    print(f"\nauditor / bare parse (median of same-round ratios): {ratio:.2f} (>= {MIN_RATIO})")
    print(f"auditor peak RSS, largest round: {peak:.0f} MB (< {MAX_RSS_MB:.0f})")
    failed = any(run.problems for run in runs)
    for run in runs:
        for problem in run.problems:
            print(f"round {run.round} {run.row}: {problem}")
    return 1 if failed or ratio < MIN_RATIO or peak >= MAX_RSS_MB else 0


if __name__ == "__main__":
    sys.exit(main())
