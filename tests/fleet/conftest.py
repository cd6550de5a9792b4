"""A real `dask scheduler` and two `dask worker` processes on loopback, for `--scheduler`."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest
from distributed import Client

ROOT = Path(__file__).resolve().parent.parent.parent  # the workers import `tests.fleet.sites`
START_TIMEOUT_S = 60.0  # generous: other test suites share the machine's two cores
STOP_TIMEOUT_S = 15.0


def _address(path: Path, process: subprocess.Popen[bytes]) -> str:
    """The scheduler's address, once it listens (its file can be read half written)."""
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the scheduler exited early with {process.returncode}")
        try:
            return str(json.loads(path.read_text())["address"])
        except (FileNotFoundError, json.JSONDecodeError, KeyError):
            time.sleep(0.05)
    raise TimeoutError(path)


def _stop(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM (Dask's commands close cleanly on it), then SIGKILL to its whole group."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


@pytest.fixture
def dask_cluster(tmp_path: Path) -> Iterator[str]:
    """The address of a scheduler with two workers of one thread (each under a nanny)."""
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        # The scheduler's own configuration decides how often a dead worker's task reruns.
        "DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES": "1",
        "DASK_DISTRIBUTED__SCHEDULER__WORKER_SATURATION": "1.0",
        "DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT": "5s",
        "DASK_DISTRIBUTED__LOGGING__DISTRIBUTED": "error",
    }
    folder = tmp_path / "dask"
    folder.mkdir()
    logs = {name: (folder / f"{name}.log").open("wb") for name in ("scheduler", "w0", "w1")}
    scheduler = subprocess.Popen(
        [
            *(sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1"),
            *("--port", "0", "--no-dashboard", "--dashboard-address", "127.0.0.1:0"),
            *("--scheduler-file", str(folder / "scheduler.json")),
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=logs["scheduler"],  # a file: an unread pipe would fill and block it
        start_new_session=True,
    )
    workers: list[subprocess.Popen[bytes]] = []
    try:
        address = _address(folder / "scheduler.json", scheduler)
        for number in range(2):
            command = [sys.executable, "-m", "distributed.cli.dask_worker", address]
            command += ["--nworkers", "1", "--nthreads", "1", "--name", f"w{number}"]
            command += ["--host", "127.0.0.1", "--no-dashboard"]
            command += ["--local-directory", str(folder / f"w{number}")]
            workers.append(
                subprocess.Popen(
                    command,
                    env=env,
                    stdout=subprocess.DEVNULL,
                    stderr=logs[f"w{number}"],
                    start_new_session=True,
                )
            )
        with Client(address, timeout=START_TIMEOUT_S, set_as_default=False) as client:
            client.wait_for_workers(2, timeout=START_TIMEOUT_S)
        yield address
    finally:
        started = [psutil.Process(p.pid) for p in (*workers, scheduler) if p.poll() is None]
        descendants = [child for p in started for child in p.children(recursive=True)]
        for process in workers:  # first, while the scheduler still answers them
            _stop(process)
        _stop(scheduler)
        for log in logs.values():
            log.close()
        _gone, alive = psutil.wait_procs(descendants, timeout=5)
        assert not alive, alive
