"""The library's entry points: `audit_site` (async), `run` (blocking) and `read_report`."""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
from concurrent.futures import Future
from pathlib import Path

from auditor.api.keywords import Target, config_of
from auditor.api.results import AuditRun, Report
from auditor.config import AuditConfig
from auditor.flow.audit import AuditResult, audit
from auditor.processes.event_loop import run_in_loop


async def audit_site(target: Target, *more: Target, **options: object) -> AuditRun:
    """Audit a site, robots.txt, sitemap URL or local file (more targets may follow).

    `options` are the command's long options with `_` for `-`, as in the TOML config:
    `no_check=True`, `per_host=4`, `json="audit.json"`, `csv="tables"`, `fail_on="warning"`.
    UsageError (exit code 2 at the command) for an option that cannot run.
    """
    config = await asyncio.to_thread(config_of, (target, *more), options)
    return AuditRun(await audit(config), csv=config.csv)


def run(target: Target, *more: Target, **options: object) -> AuditRun:
    """`audit_site` for scripts and notebooks: blocks until the audit ends.

    It runs in a thread with its own event loop, so that it also works where a loop is already
    running (Jupyter). A KeyboardInterrupt (the notebook's interrupt) stops the run, which
    still writes its report, marked incomplete (exit code 3); a second one leaves it.
    """
    config = config_of((target, *more), options)
    stopper = _Stopper()
    done: Future[AuditResult] = Future()
    thread = threading.Thread(
        target=_audit_in_thread, args=(config, stopper, done), name="sitemap-audit", daemon=True
    )
    thread.start()
    try:
        result = done.result()
    except KeyboardInterrupt:
        stopper.stop()
        result = done.result()
    return AuditRun(result, csv=config.csv)


def read_report(path: str | os.PathLike[str]) -> Report:
    """An earlier JSON report, read as a stream; ReportReadError when it is not one."""
    report = Report(Path(path))
    _ = report.head  # its head checked now: the schema version, that it is ours
    return report


class _Stopper:
    """A way for the caller's thread to set the audit's stop event in the audit's loop."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._target: tuple[asyncio.AbstractEventLoop, asyncio.Event] | None = None
        self._stopped = False

    def attach(self, loop: asyncio.AbstractEventLoop, stop: asyncio.Event) -> None:
        with self._lock:
            self._target = (loop, stop)
            if self._stopped:
                loop.call_soon_threadsafe(stop.set)

    def stop(self) -> None:
        with self._lock:
            self._stopped = True
            if self._target is not None:
                loop, event = self._target
                with contextlib.suppress(RuntimeError):  # the run ended, its loop closed
                    loop.call_soon_threadsafe(event.set)


def _audit_in_thread(config: AuditConfig, stopper: _Stopper, done: Future[AuditResult]) -> None:
    async def audited() -> AuditResult:
        stop = asyncio.Event()
        stopper.attach(asyncio.get_running_loop(), stop)
        return await audit(config, stop=stop)

    try:
        done.set_result(run_in_loop(audited(), config.loop))
    except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread, raised there
        done.set_exception(exc)
