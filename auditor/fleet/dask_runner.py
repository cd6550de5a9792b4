"""Sites as tasks of Dask distributed: an embedded LocalCluster, or a running scheduler.

At most `limit` sites are submitted at once, one more each time one ends, so the same loop
serves both kinds of cluster. A task whose worker dies is run once more on another worker (the
scheduler's allowed-failures = 1), then given up (KilledWorker); a task that raises is run once
more (retries = 1). Every site yields exactly one outcome. Blocking throughout: Dask's client
runs its own event loop in a thread; call this from a thread that runs no loop.
"""

from __future__ import annotations

import importlib.metadata
import logging
import signal
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from multiprocessing import resource_tracker
from types import ModuleType
from typing import TYPE_CHECKING, Any

from auditor._version import __version__
from auditor.errors import UsageError
from auditor.fleet.sites import FailureKind, FleetSite, SiteFailure, SiteReport

if TYPE_CHECKING:
    from distributed import Client, Future

log = logging.getLogger(__name__)
EXTRA = "pip install 'sitemap-auditor[fleet]'"
TICK_S = 0.5  # how often the loop looks at the stop event while it waits on the sites
# After a stop, how long a site that ended may take to hand its result over: one whose worker
# died since is computed again, and waited for without end when no worker is left.
STOP_GRACE_S = 5.0
CONNECT_TIMEOUT_S = 10.0  # --scheduler: how long to try to reach it
ALLOWED_FAILURES = 1  # a site whose worker died is run once more, then reported as failed
DASK_CONFIG: dict[str, object] = {
    # Scheduler side, read when a LocalCluster starts (a remote scheduler has its own).
    "distributed.scheduler.allowed-failures": ALLOWED_FAILURES,
    # A worker is handed as many sites as it has threads, none waiting on it: a site waiting
    # on a worker that dies is blamed for the death too.
    "distributed.scheduler.worker-saturation": 1.0,
    # A result gathered just as its worker dies: connecting to the dead worker is retried this
    # long (the default, 30 s, stalls the whole fleet).
    "distributed.comm.timeouts.connect": "5s",
}
_DASK_LOGGERS = (
    "distributed",
    "distributed.client",
    "distributed.scheduler",
    "distributed.nanny",
    "distributed.worker",
    "distributed.core",
)

SiteTask = Callable[[FleetSite], SiteReport | SiteFailure]
Result = SiteReport | SiteFailure


@dataclass(frozen=True, slots=True)
class ClusterSpec:
    """Where the sites run: a scheduler's address, or a LocalCluster of `workers` processes."""

    scheduler: str | None  # tcp://HOST:PORT; None: an embedded LocalCluster
    workers: int  # LocalCluster processes, one thread each
    concurrency: int | None  # sites at once; None: the cluster's threads
    dask_log_level: int = logging.CRITICAL  # the fleet reports failures itself


def import_distributed() -> ModuleType:
    """Dask distributed, imported now (never by a single-site run); UsageError naming the extra."""
    try:
        import distributed  # noqa: PLC0415 - the optional extra, for --fleet only
    except ImportError:
        raise UsageError(f"--fleet needs Dask distributed: {EXTRA}") from None
    return distributed


@contextmanager
def open_cluster(spec: ClusterSpec) -> Iterator[tuple[Client, int]]:
    """A client of the cluster and how many sites to run at once; closed when the block ends.

    Dask's configuration is held for the whole run: the in-process scheduler reads its connect
    timeout at every connection, not only at start.
    """
    distributed = import_distributed()
    import dask  # noqa: PLC0415 - installed with distributed

    for name in _DASK_LOGGERS:  # they propagate to the command's handler otherwise
        logging.getLogger(name).setLevel(spec.dask_log_level)
    with dask.config.set(DASK_CONFIG):
        if spec.scheduler is None:
            with (
                _local_cluster(distributed, spec.workers) as cluster,
                distributed.Client(cluster, set_as_default=False) as client,
            ):
                yield client, spec.concurrency or spec.workers
            return
        with _remote_client(distributed, spec.scheduler) as client:
            yield client, spec.concurrency or _threads(client)


@contextmanager
def _local_cluster(distributed: ModuleType, workers: int) -> Iterator[Any]:
    """A LocalCluster on loopback: `workers` processes of one thread, each site in its own."""
    with _deaf_to_ctrl_c():  # the threads Dask starts now, and the processes they start
        cluster = _start_local_cluster(distributed, workers)
    with cluster:
        yield cluster


@contextmanager
def _deaf_to_ctrl_c() -> Iterator[None]:
    """SIGINT blocked in this thread while the block runs, and in whatever it starts.

    A Ctrl-C reaches the whole process group: a worker process took it as a KeyboardInterrupt
    (a traceback, a dead worker, and a site result lost with it). Threads inherit the mask of
    the thread that starts them, processes that of the thread that forks them, through exec:
    Dask's loop thread, which spawns (and respawns) the workers, never takes SIGINT, nor do the
    workers; the command's main thread takes it again when the block ends, and decides.
    multiprocessing's resource tracker is started first: starting it unblocks SIGINT in the
    thread that does (resource_tracker.ensure_running), which would be one of Dask's.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    resource_tracker.ensure_running()
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def _start_local_cluster(distributed: ModuleType, workers: int) -> Any:
    return distributed.LocalCluster(
        n_workers=workers,
        threads_per_worker=1,  # one site per process: a site that kills it takes no other
        processes=True,
        host="127.0.0.1",
        # None would still bind 127.0.0.1:8787 (and warn when it is taken); ":0" all interfaces.
        dashboard_address="127.0.0.1:0",
        scheduler_kwargs={"dashboard": False, "allowed_failures": ALLOWED_FAILURES},
        worker_dashboard_address=None,
        silence_logs=logging.CRITICAL,
    )


@contextmanager
def _remote_client(distributed: ModuleType, address: str) -> Iterator[Client]:
    """A client of a running scheduler; UsageError when it cannot be reached or differs."""
    try:
        client = distributed.Client(address, timeout=CONNECT_TIMEOUT_S, set_as_default=False)
    except (OSError, ValueError, TypeError) as exc:  # refused, timed out, not an address
        raise UsageError(f"--scheduler {address}: cannot connect ({exc})") from None
    with client:
        _check_versions(client, address)
        allowed = client.run_on_scheduler(_allowed_failures)
        if allowed != ALLOWED_FAILURES:
            log.warning(
                "the scheduler at %s runs a task whose worker died %s more times "
                "(distributed.scheduler.allowed-failures); --fleet expects %s",
                address,
                allowed,
                ALLOWED_FAILURES,
            )
        yield client


def _check_versions(client: Client, address: str) -> None:
    """Refuse workers that run another version of the auditor (or of Python, Dask)."""
    try:
        client.get_versions(check=True)
    except ValueError as exc:
        raise UsageError(f"--scheduler {address}: versions differ ({exc})") from None
    found = client.run(_auditor_version)
    others = {worker: version for worker, version in found.items() if version != __version__}
    if others:
        worker, version = sorted(others.items())[0]
        raise UsageError(
            f"--scheduler {address}: worker {worker} runs sitemap-auditor {version}, "
            f"not {__version__}; install the same version everywhere"
        )


def _auditor_version() -> str:
    """Run on each worker: the version of the auditor installed there."""
    return importlib.metadata.version("sitemap-auditor")


def _allowed_failures(dask_scheduler: Any) -> int:
    """Run on the scheduler: how often it reruns a task whose worker died."""
    return int(dask_scheduler.allowed_failures)


def _threads(client: Client) -> int:
    """The cluster's threads in all (1 at least, before any worker has joined)."""
    workers = client.scheduler_info()["workers"].values()
    return max(1, sum(int(worker["nthreads"]) for worker in workers))


def run_sites(
    client: Client,
    task: SiteTask,
    sites: Iterable[FleetSite],
    *,
    limit: int,
    stop: threading.Event,
    on_start: Callable[[FleetSite], None],
) -> Iterator[tuple[FleetSite, Result]]:
    """Each site with its task's result, as they end; at most `limit` submitted at once.

    When `stop` is set, the sites still running are cancelled and yield an INTERRUPTED
    failure, the ones never started NOT_RUN: every site yields once.
    """
    from distributed import wait  # noqa: PLC0415 - the optional extra

    pending = iter(sites)
    running: dict[Future[Result], FleetSite] = {}
    token = uuid.uuid4().hex  # keys unique to this run: a shared scheduler serves many

    def submit_next() -> None:
        site = next(pending, None)
        if site is not None:
            key = f"sitemap-audit-{token}-{site.index}"
            future = client.submit(task, site, key=key, retries=1, pure=False)
            running[future] = site
            on_start(site)

    for _ in range(limit):
        submit_next()
    while running and not stop.is_set():
        try:
            with client.as_current():  # wait() asks for the current client; ours is no default
                done = wait(list(running), timeout=TICK_S, return_when="FIRST_COMPLETED").done
        except TimeoutError:
            continue
        for future in done:
            site = running.pop(future)
            result = _result_of(future, stop=stop)
            submit_next()
            yield site, result
    yield from _stopped(client, running, pending, stop=stop)


def _result_of(future: Future[Result], *, stop: threading.Event) -> Result:
    """The task's result, or why there is none; after a stop, within STOP_GRACE_S."""
    from distributed import KilledWorker  # noqa: PLC0415 - the optional extra

    given_up_at: float | None = None
    try:
        # Never read future.status here: a result whose worker died since it ended is "lost"
        # and computed again; result() waits for that, for ever when no worker is left.
        while True:
            try:
                return future.result(timeout=TICK_S)
            except TimeoutError:
                if not stop.is_set():
                    continue
                given_up_at = given_up_at or time.monotonic() + STOP_GRACE_S
                if time.monotonic() >= given_up_at:
                    message = "its result was lost with its worker when the fleet was stopped"
                    return SiteFailure(FailureKind.INTERRUPTED, message)
    except KilledWorker as exc:
        message = f"its worker died while running it, twice (last {exc.last_worker.address})"
        return SiteFailure(FailureKind.WORKER_LOST, message)
    except Exception as exc:  # noqa: BLE001 - any failure of the task is the site's failure
        return SiteFailure(FailureKind.ERROR, f"{type(exc).__name__}: {exc} (run twice)")
    finally:
        future.release()


def _stopped(
    client: Client,
    running: dict[Future[Result], FleetSite],
    pending: Iterator[FleetSite],
    *,
    stop: threading.Event,
) -> Iterator[tuple[FleetSite, Result]]:
    """After a stop: sites that just ended kept, running ones cancelled, the rest not run."""
    ended = {future: site for future, site in running.items() if future.done()}
    cancelled = [future for future in running if future not in ended]
    if cancelled:
        client.cancel(cancelled)
    for future, site in ended.items():
        yield site, _result_of(future, stop=stop)
    for future in cancelled:
        message = "running when the fleet was stopped"
        yield running[future], SiteFailure(FailureKind.INTERRUPTED, message)
    for site in pending:
        yield site, SiteFailure(FailureKind.NOT_RUN, "not started before the fleet was stopped")
