"""Run one command in a fresh child and measure it: wall time, CPU and peak RSS of its whole tree.

Peak RSS: the sum of VmRSS over the child and all its descendants, sampled from /proc every
SAMPLE_S (pages shared between processes count once per process: an upper bound). CPU: user +
sys of the whole tree, the larger of os.wait4's (the child and the descendants it waited for)
and the sum of each process's own CPU as last sampled (a descendant nobody waited for still
counts). The rest of the machine's CPU meanwhile ("other CPU") says how disturbed the run was.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

SAMPLE_S = 0.02  # 50 Hz
_TICKS = os.sysconf("SC_CLK_TCK")
_PAGE = os.sysconf("SC_PAGE_SIZE")


@dataclass(frozen=True, slots=True)
class Measured:
    """What one child run cost, and what it printed (file paths, read by the row's judge)."""

    wall_s: float
    cpu_s: float
    peak_rss_mb: float  # the whole tree, sampled
    max_rss_mb: float  # wait4's ru_maxrss: the largest single process of the tree
    peak_processes: int
    other_cpu_s: float
    server_cpu_s: float
    exit_code: int
    timed_out: bool
    stdout: Path
    stderr: Path


def descendants(pid: int) -> list[int]:
    """`pid` and every process below it, from /proc/<pid>/task/<tid>/children."""
    found, pending = [], [pid]
    while pending:
        current = pending.pop()
        found.append(current)
        with contextlib.suppress(OSError):
            for task in os.scandir(f"/proc/{current}/task"):
                with contextlib.suppress(OSError):
                    children = Path(f"{task.path}/children").read_text().split()
                    pending.extend(int(child) for child in children)
    return found


def rss_bytes(pid: int) -> int:
    """Resident set size of one process (0 once it is gone)."""
    try:
        return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * _PAGE
    except (OSError, IndexError, ValueError):
        return 0


def cpu_seconds(pid: int) -> float:
    """utime + stime of a live process, from /proc/<pid>/stat (0 once it is gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0.0
    fields = stat[stat.rindex(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / _TICKS  # fields 14 and 15 of proc(5)


def machine_busy_s() -> float:
    """CPU seconds all CPUs spent busy since boot, from /proc/stat (everything but idle)."""
    ticks = [int(n) for n in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:9]]
    return (sum(ticks) - ticks[3] - ticks[4]) / _TICKS  # less idle and iowait


class TreeSampler:
    """Samples the tree's summed RSS in a thread until stopped, keeps the peak; and each
    process's own CPU as last seen."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.peak_bytes = 0
        self.peak_processes = 0
        self.cpu_by_pid: dict[int, float] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> TreeSampler:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stop.is_set():
            pids = descendants(self.pid)
            total = sum(rss_bytes(pid) for pid in pids)
            for pid in pids:
                self.cpu_by_pid[pid] = max(self.cpu_by_pid.get(pid, 0.0), cpu_seconds(pid))
            self.peak_bytes = max(self.peak_bytes, total)
            self.peak_processes = max(self.peak_processes, len(pids))
            self._stop.wait(SAMPLE_S)


def run_measured(
    argv: Sequence[str],
    *,
    work: Path,
    timeout_s: float,
    server_pids: Sequence[int] = (),
    env: Mapping[str, str] | None = None,
) -> Measured:
    """Run argv (stdout, stderr to files in `work`); killed, with its group, after timeout_s."""
    stdout, stderr = work / "stdout.txt", work / "stderr.txt"
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
    outputs = [
        (os.POSIX_SPAWN_OPEN, fd, str(path), flags, 0o644)
        for fd, path in ((1, stdout), (2, stderr))
    ]
    server_before = sum(cpu_seconds(pid) for pid in server_pids)
    busy_before = machine_busy_s()
    started = time.perf_counter()
    pid = os.posix_spawn(
        argv[0], list(argv), dict(env or os.environ), file_actions=outputs, setpgroup=0
    )
    timed_out = threading.Event()

    def kill() -> None:
        timed_out.set()
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pid, signal.SIGKILL)

    killer = threading.Timer(timeout_s, kill)
    killer.start()
    try:
        with TreeSampler(pid) as sampler:
            _, status, usage = os.wait4(pid, 0)
    finally:
        killer.cancel()
    wall_s = time.perf_counter() - started
    cpu_s = max(usage.ru_utime + usage.ru_stime, sum(sampler.cpu_by_pid.values()))
    server_cpu_s = sum(cpu_seconds(pid) for pid in server_pids) - server_before
    with contextlib.suppress(ProcessLookupError):  # stragglers of its group, if any
        os.killpg(pid, signal.SIGKILL)
    return Measured(
        wall_s=wall_s,
        cpu_s=cpu_s,
        peak_rss_mb=max(sampler.peak_bytes, usage.ru_maxrss * 1024) / 2**20,
        max_rss_mb=usage.ru_maxrss / 1024,  # KiB on Linux
        peak_processes=sampler.peak_processes,
        other_cpu_s=machine_busy_s() - busy_before - cpu_s - server_cpu_s,
        server_cpu_s=server_cpu_s,
        exit_code=os.waitstatus_to_exitcode(status),
        timed_out=timed_out.is_set(),
        stdout=stdout,
        stderr=stderr,
    )
