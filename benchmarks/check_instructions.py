"""Instructions per checked URL, counted by valgrind: the check benchmark without the noise.

    python benchmarks/check_instructions.py [--small N] [--large N] [--variants ...]

Wall and CPU times on a shared 2-core machine vary by tens of percent from run to run.
Instruction counts do not: callgrind counts the user-space instructions a process executes,
whatever else runs. Each variant of check_bench.py (the bare loops, the auditor with GET or
HEAD-first) runs under `valgrind --tool=callgrind` against a page server of --small URLs and
one of --large URLs (each in its own process on 127.0.0.1); the difference divided by the
difference in URLs is the cost of one more URL, start-up and imports left out.

Not a throughput measure: system calls and the kernel's share (the same for every variant)
are not counted, so a ratio of instructions overstates the gap in wall time. Use it to see
whether a change to the hot path made each URL cheaper. Needs Debian's `valgrind`; takes a
few minutes (valgrind runs Python about 50 times slower).
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from check_bench import VARIANTS, command, start_server

_COLLECTED = re.compile(r"Collected\s*:\s*(\d+)")


def instructions(argv: list[str], work: Path) -> int:
    """The instructions callgrind counted for one run of `argv` (its exit code is checked)."""
    out = work / "callgrind.out"
    done = subprocess.run(
        ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *argv],
        capture_output=True,
        text=True,
        check=False,
    )
    found = _COLLECTED.search(done.stderr)
    if done.returncode != 0 or found is None:
        raise SystemExit(f"{argv[0]} failed under valgrind (exit {done.returncode})")
    return int(found.group(1))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--small", type=int, default=1_000)
    parser.add_argument("--large", type=int, default=4_000)
    parser.add_argument("--concurrency", type=int, default=128)
    parser.add_argument("--variants", nargs="+", choices=VARIANTS, default=list(VARIANTS))
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed (apt-get install valgrind)")
    if not 0 < args.small < args.large:
        parser.error("0 < --small < --large")
    servers = [start_server(args.small), start_server(args.large)]
    per_url: dict[str, float] = {}
    try:
        with tempfile.TemporaryDirectory() as folder:
            work = Path(folder)
            for variant in args.variants:
                counts = [
                    instructions(command(variant, base, urls, args.concurrency, work), work)
                    for urls, (_, base) in zip((args.small, args.large), servers, strict=True)
                ]
                per_url[variant] = (counts[1] - counts[0]) / (args.large - args.small)
                print(f"{variant:14} {per_url[variant]:>10,.0f} instructions/URL", flush=True)
    finally:
        for server, _ in servers:
            server.terminate()
            server.wait()
    if "bare-list" in per_url:
        for variant, count in per_url.items():
            print(f"bare-list / {variant}: {per_url['bare-list'] / count:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
