"""A child that runs the command again and again, each run in a process whose files stop
growing at a limit, as on a full disk (RLIMIT_FSIZE, SIGXFSZ ignored: a write past it fails with
EFBIG). For tests/test_output_faults.py.

The package is imported once, here; each run is a fork of this process (no thread runs yet), so
a run costs its own work and not the interpreter's start. Jobs come on stdin, one JSON object a
line: `argv`, and `limit` (bytes; null: none). For each one line goes to stdout: the run's exit
code (or minus the signal that ended it) and what it wrote on stderr (through a pipe, which the
limit does not touch).
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import resource
import signal
import sys
import traceback

from auditor.cli.main import main

# What the command imports only for some options: imported here, once, not in every run.
for _module in (
    "auditor.report.metrics",
    "auditor.wings.baseline.baseline_reader",
    "auditor.wings.history.verdict_store",
    "auditor.wings.crawl.coverage",
):
    importlib.import_module(_module)

# An exit code of our own: the run raised out of main() (a traceback is on its stderr).
RAISED = 70


def run_one(argv: list[str], limit: int | None, stderr: int) -> None:  # in the fork: never returns
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    os.dup2(stderr, 2)
    code = RAISED
    try:
        if limit is not None:
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
        code = main(argv)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else RAISED
    except BaseException:  # shown to the test, which fails on it
        traceback.print_exc()
    finally:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError):
                stream.flush()
        os._exit(code)


def serve_jobs() -> None:
    for line in sys.stdin:
        job = json.loads(line)
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(read)
            run_one(job["argv"], job["limit"], write)
        os.close(write)
        with os.fdopen(read, "rb") as pipe:
            said = pipe.read()
        _, status = os.waitpid(pid, 0)
        answer = {
            "code": os.waitstatus_to_exitcode(status),
            "stderr": said.decode(errors="replace"),
        }
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    serve_jobs()
