"""Start-up: the CPU of a `--no-check` run of one small sitemap file, per sitemap-audit given.

    python benchmarks/startup_bench.py FILE AUDITOR [AUDITOR ...] [--rounds N] [--flags "..."]

Runs each auditor on FILE (`--no-check --quiet --no-progress`, its JSON report to a scratch
folder) round by round, the auditors alternating, and prints each one's median, min and max CPU
(user + sys of the child, from wait4) and wall time. No network: the file is read from disk.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path


def one_run(auditor: Path, file: Path, work: Path, flags: list[str]) -> tuple[float, float]:
    """(CPU s, wall s) of one run."""
    argv = [str(auditor), str(file), "--no-check", "--quiet", "--no-progress", *flags]
    argv += ["--json", str(work / "report.json"), "--out", str(work)]
    started = time.monotonic()
    child = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.monotonic() - started
    child.returncode = os.waitstatus_to_exitcode(status)
    assert child.stderr is not None
    errors = child.stderr.read().decode(errors="replace").strip()
    if child.returncode not in (0, 1):
        raise SystemExit(f"{auditor}: exit {child.returncode}: {errors[-300:]}")
    return usage.ru_utime + usage.ru_stime, wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("file", type=Path)
    parser.add_argument("auditors", type=Path, nargs="+")
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--flags", default="", help="more options for every run, one string")
    args = parser.parse_args()
    cpu: dict[Path, list[float]] = {auditor: [] for auditor in args.auditors}
    wall: dict[Path, list[float]] = {auditor: [] for auditor in args.auditors}
    with tempfile.TemporaryDirectory() as scratch:
        for auditor in args.auditors:  # a warm page cache for every round
            one_run(auditor, args.file, Path(scratch), args.flags.split())
        for _ in range(args.rounds):
            for auditor in args.auditors:
                spent, took = one_run(auditor, args.file, Path(scratch), args.flags.split())
                cpu[auditor].append(spent)
                wall[auditor].append(took)
    for auditor in args.auditors:
        c, w = cpu[auditor], wall[auditor]
        print(
            f"{auditor}: CPU {statistics.median(c):.3f} s ({min(c):.3f}-{max(c):.3f}), "
            f"wall {statistics.median(w):.3f} s ({min(w):.3f}-{max(w):.3f}), {len(c)} runs"
        )


if __name__ == "__main__":
    main()
