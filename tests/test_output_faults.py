"""Output faults: report folders missing, read-only or on a full disk, and signals at
any moment of a run. A report on disk is always whole, or absent; never half written.

Exit codes (docs/reference/exit-codes.md): a report folder that cannot be written when the run
starts is a usage error (2); an output that cannot be written once the run has ended, a full disk
included, is a failed run (3); either way one line on stderr and no partial file.
"""

from __future__ import annotations

import asyncio
import ctypes
import json
import os
import resource
import signal
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from aiohttp import web
from prometheus_client.parser import text_string_to_metric_families

from auditor.demo.documents import sitemapindex, url, urlset, xml_page
from auditor.demo.server import Route, Served, serve
from auditor.errors import ExitCode
from tests.helpers import validate_report

pytestmark = pytest.mark.slow  # each case runs the command in a process of its own

ROOT = Path(__file__).parent.parent
CLONE_NEWUSER = 0x10000000  # <sched.h>
OUTPUTS = {"json": "r.json", "html": "r.html", "metrics": "m.prom", "junit": "j.xml"}


def output_flags(folder: Path, **elsewhere: Path) -> list[str]:
    """--json, --html, --metrics, --junit into `folder` (or where `elsewhere` says)."""
    flags: list[str] = []
    for flag, name in OUTPUTS.items():
        flags += [f"--{flag}", str(elsewhere.get(flag, folder) / name)]
    return flags


def sitemap_file(folder: Path, urls: int = 3) -> Path:
    path = folder / "s.xml"
    path.write_text(urlset([url(f"https://example.com/{n}") for n in range(urls)]))
    path.chmod(0o644)
    return path


def assert_whole(folder: Path) -> dict[str, bool]:
    """Every output in `folder` is whole; no temporary or spool file is left. Which exist."""
    names = {path.name for path in folder.iterdir()}
    leftovers = {n for n in names if n.startswith(".") or ".tmp" in n or ".part" in n}
    leftovers |= {n for n in names if n.startswith("m.prom.")}  # prometheus_client's temporary
    assert leftovers == set()
    if "r.json" in names:
        validate_report(json.loads((folder / "r.json").read_text()))
    if "r.html" in names:
        html = (folder / "r.html").read_text()
        assert html.startswith("<!DOCTYPE html>")
        assert html.rstrip().endswith("</html>")
    if "m.prom" in names:
        families = list(text_string_to_metric_families((folder / "m.prom").read_text()))
        assert "sitemap_audit_complete" in {family.name for family in families}
    if "j.xml" in names:
        ET.parse(folder / "j.xml")
    if "s.state" in names:
        json.loads((folder / "s.state").read_text())
    return {name: name in names for name in [*OUTPUTS.values(), "s.state"]}


def one_line(stderr: str) -> None:
    assert len(stderr.strip().splitlines()) == 1, stderr
    assert "Traceback" not in stderr


def run_cli(argv: list[str], *, preexec: Callable[[], None] | None = None) -> tuple[int, str]:
    done = subprocess.run(
        [sys.executable, "-m", "auditor", *argv],
        cwd=ROOT, preexec_fn=preexec, capture_output=True, text=True, check=False, timeout=60,
    )  # fmt: skip
    return done.returncode, done.stderr


# --- missing, read-only, full ----------------------------------------------------------------


def test_missing_output_folders_are_created(tmp_path: Path) -> None:
    sitemap = sitemap_file(tmp_path)
    folders = {flag: tmp_path / flag / "deeper" for flag in OUTPUTS}
    state = tmp_path / "state" / "deeper" / "s.state"
    argv = ["--no-check", "--quiet", *output_flags(tmp_path, **folders), "--state", str(state)]
    assert run_cli([*argv, str(sitemap)])[0] == ExitCode.OK
    for flag, folder in folders.items():
        assert assert_whole(folder)[OUTPUTS[flag]]
    assert assert_whole(state.parent)["s.state"]


def own_files_only() -> None:  # in the child, before exec
    """Root writes anywhere: in a user namespace of its own, where root is mapped to no one,
    a process keeps its owner's rights on files and loses root's power to override them."""
    if ctypes.CDLL(None, use_errno=True).unshare(CLONE_NEWUSER) != 0:
        raise OSError(ctypes.get_errno(), "unshare(CLONE_NEWUSER)")


@pytest.mark.parametrize("flag", list(OUTPUTS))
def test_a_read_only_folder_is_one_line_and_leaves_nothing(tmp_path: Path, flag: str) -> None:
    sitemap = sitemap_file(tmp_path)
    writable, read_only = tmp_path / "w", tmp_path / "ro"
    writable.mkdir()
    read_only.mkdir()
    read_only.chmod(0o555)
    argv = output_flags(writable, **{flag: read_only})
    try:
        code, stderr = run_cli(
            ["--no-check", "--quiet", *argv, str(sitemap)],
            preexec=own_files_only if os.geteuid() == 0 else None,
        )
    except subprocess.SubprocessError as exc:  # no user namespaces here: root ignores modes
        pytest.skip(f"cannot make a folder read-only for root: {exc}")
    finally:
        read_only.chmod(0o755)  # for pytest's clean-up
    one_line(stderr)
    assert list(read_only.iterdir()) == []
    written = assert_whole(writable)
    if flag == "json":  # known before the run starts: nothing is run nor written
        assert code == ExitCode.USAGE
        assert not any(written.values())
    else:  # the run ended and its JSON report is whole; the outputs after the failed one wait
        assert code == ExitCode.FAILED
        order = list(OUTPUTS)
        assert written == {
            name: order.index(other) < order.index(flag) for other, name in OUTPUTS.items()
        } | {"s.state": False}


def small_files(limit: int) -> Callable[[], None]:
    def limited() -> None:  # in the child: files stop growing at `limit`, as on a full disk
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return limited


@pytest.mark.parametrize(
    ("urls", "limit", "written"),
    [(20_000, 200_000, set()), (3, 10_000, {"r.json", "s.state"})],
    ids=["json_report", "html_report"],
)
def test_a_full_disk_is_one_line_exit_3_and_no_half_file(
    tmp_path: Path, urls: int, limit: int, written: set[str]
) -> None:
    sitemap = sitemap_file(tmp_path, urls)
    out = tmp_path / "out"
    argv = ["--no-check", "--quiet", *output_flags(out), "--state", str(out / "s.state")]
    code, stderr = run_cli([*argv, str(sitemap)], preexec=small_files(limit))
    assert code == ExitCode.FAILED
    one_line(stderr)
    present = assert_whole(out)
    assert {name for name, there in present.items() if there} == written


# --- signals at any moment ---------------------------------------------------------------------

PAGES = 120  # three children of 40 pages behind an index
PARALLEL = 4  # runs at once: each is mostly waiting for its pages


def slow_page(delay_s: float) -> Route:
    async def handler(request: web.Request) -> web.StreamResponse:
        await asyncio.sleep(delay_s)
        return web.Response(text="<html>fine</html>", content_type="text/html")

    return handler


def slow_site(base: str) -> dict[str, Route]:
    children = [f"{base}/c{n}.xml" for n in range(3)]
    routes: dict[str, Route] = {"/index.xml": xml_page(sitemapindex(children))}
    page = slow_page(0.05)
    for n, child in enumerate(children):
        pages = [f"/c{n}/p{m}" for m in range(PAGES // 3)]
        routes[child.removeprefix(base)] = xml_page(urlset([url(base + p) for p in pages]))
        routes |= dict.fromkeys(pages, page)
    return routes


@dataclass(frozen=True)
class Moment:
    """When to signal a run: `delay_s` after its start, or after its server has answered
    `pages` page requests (then `delay_s` more): moments on the run's own clock, which a
    loaded machine stretches, from its start-up to its last report."""

    pages: int | None
    delay_s: float

    def __str__(self) -> str:
        if self.pages is None:
            return f"{self.delay_s:.2f} s after start"
        return f"{self.pages}/{PAGES} pages requested + {self.delay_s:.2f} s"

    async def wait(self, served: Served) -> None:
        if self.pages is not None:
            while sum(n for path, n in served.hits.items() if "/p" in path) < self.pages:
                await asyncio.sleep(0.005)
        await asyncio.sleep(self.delay_s)


async def signalled_run(folder: Path, signum: int | None, moment: Moment) -> int:
    folder.mkdir()
    async with serve(slow_site) as served:
        argv = [
            *output_flags(folder), "--state", str(folder / "s.state"), "--concurrency", "8",
            "--quiet", "--no-progress", f"{served.base}/index.xml",
        ]  # fmt: skip
        with (folder.parent / f"{folder.name}.stderr").open("wb") as stderr:
            process = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "auditor", *argv, cwd=ROOT,
                stdout=asyncio.subprocess.DEVNULL, stderr=stderr,
            )  # fmt: skip
            ended = asyncio.ensure_future(process.wait())
            waiting = asyncio.ensure_future(moment.wait(served))
            await asyncio.wait({ended, waiting}, return_when=asyncio.FIRST_COMPLETED)
            waiting.cancel()
            if signum is not None and not ended.done():
                process.send_signal(signum)
            return await asyncio.wait_for(ended, timeout=30)


def outcome(folder: Path, returncode: int, signum: int) -> str:
    """What a run left, checked: reports whole or absent, the exit code agreeing with them."""
    present = assert_whole(folder)
    if not present["r.json"]:  # stopped before its report was begun: nothing at all
        assert not any(present.values())
        if returncode == 1:  # Ctrl-C inside Python's own start-up, before any of our code
            stderr = (folder.parent / f"{folder.name}.stderr").read_text()
            assert signum == signal.SIGINT
            assert "KeyboardInterrupt" in stderr
            assert str(ROOT / "auditor") not in stderr  # no frame of the package's code
        else:
            assert returncode in (-signum, ExitCode.FAILED)
        return f"before the run: no output, exit {returncode}"
    assert all(present.values())  # every output of the run, whole
    complete = json.loads((folder / "r.json").read_text())["complete"]
    metrics = {
        sample.name: sample.value
        for family in text_string_to_metric_families((folder / "m.prom").read_text())
        for sample in family.samples
    }
    assert metrics["sitemap_audit_complete"] == int(complete)
    if not complete:
        assert returncode == ExitCode.FAILED
        return "stopped: complete false, exit 3"
    # The run finished before the signal landed (0/1); or it landed as the finished process
    # was ending: then 3, or killed by it (SIGTERM once the command's handler is gone).
    assert returncode in (ExitCode.OK, ExitCode.FINDINGS, ExitCode.FAILED, -signum)
    return f"finished: complete true, exit {returncode}"


async def test_sigint_and_sigterm_at_twenty_moments_never_leave_a_half_written_output(
    tmp_path: Path,
) -> None:
    # In start-up (before any request), through the checks, and as the reports are written.
    moments = [Moment(None, delay_s) for delay_s in (0.0, 0.1, 0.2, 0.35)]
    moments += [Moment(round(1 + (PAGES - 1) * n / 13), 0.0) for n in range(14)]
    moments += [Moment(PAGES, 0.1), Moment(PAGES, 0.3)]
    signals = [signal.SIGINT, signal.SIGTERM] * 10
    limit = asyncio.Semaphore(PARALLEL)

    async def one(n: int) -> int:
        async with limit:
            return await signalled_run(tmp_path / f"run{n}", signals[n], moments[n])

    codes = await asyncio.gather(*(one(n) for n in range(20)))
    seen: Counter[str] = Counter()
    for n, (moment, signum, code) in enumerate(zip(moments, signals, codes, strict=True)):
        label = outcome(tmp_path / f"run{n}", code, signum)
        seen[label] += 1
        print(f"SIGNAL {signal.Signals(signum).name} at {moment}: {label}")
    print(f"SIGNAL outcomes: {dict(seen)}")
    assert seen["stopped: complete false, exit 3"] >= 10  # the moments inside the run
