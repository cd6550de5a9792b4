"""Hostile folders the outputs go to: `--keep`'s dated copies and pruning in an `--out` others
may write to, and the GitHub Action's step in a folder an earlier run left its files in.

What SECURITY.md promises is measured on the command: nothing outside the folder is ever
written, nothing of another's ever removed, one line and an exit code where a run cannot go on.
"""

from __future__ import annotations

import asyncio
import json
import os
import stat
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from auditor.cli.main import main
from auditor.demo.documents import url, urlset
from auditor.errors import ExitCode
from auditor.report.dated import keep_dated
from tests.cli.test_action import read_outputs
from tests.test_hostile_inputs import quiet, refused

_STAMP = "%Y%m%dT%H%M%SZ"
_WINDOW_S = 120  # seconds from now in which the run below surely starts


def write_sitemap(path: Path) -> Path:
    path.write_text(urlset([url("https://shop.example/a")]))
    return path


def dated_names(label: str, *, numbers: range = range(1, 2)) -> list[str]:
    """The dated stems a run starting within `_WINDOW_S` from now may take (`-n` for n > 1)."""
    now = datetime.now(UTC).replace(microsecond=0)
    stamps = [(now + timedelta(seconds=s)).strftime(_STAMP) for s in range(-2, _WINDOW_S)]
    return [f"{label}-{s}" + (f"-{n}" if n > 1 else "") for s in stamps for n in numbers]


def keep_run(tmp_path: Path, out: Path, *, keep: int = 100) -> tuple[int, Path]:
    """`--json latest.json --keep N --out OUT` on a clean local sitemap, in this process."""
    sitemap, latest = write_sitemap(tmp_path / "s.xml"), tmp_path / "latest.json"
    argv = ["--no-check", "-q", "--keep", str(keep), "--out", str(out), "--json", str(latest)]
    return main([*argv, str(sitemap)]), latest


def test_keep_never_writes_through_a_link_planted_at_a_dated_name(tmp_path: Path) -> None:
    """The dated copy followed a link at its name (the hard link failed, the copy did not)."""
    out, victims = tmp_path / "out", tmp_path / "victims"
    out.mkdir()
    victims.mkdir()
    for n, stem in enumerate(dated_names("s")):
        for suffix in (".json", ".html"):
            pointed = victims / f"{n}{suffix}"
            if n % 2:  # every other one to a file, the rest to nowhere
                pointed.write_bytes(b"precious\n")
            (out / f"{stem}{suffix}").symlink_to(pointed)
    before = {path.name: path.read_bytes() for path in victims.iterdir()}
    code, latest = keep_run(tmp_path, out)
    assert code == ExitCode.OK
    assert {path.name: path.read_bytes() for path in victims.iterdir()} == before
    links = [path for path in out.iterdir() if path.is_symlink()]
    assert len(links) == 2 * len(dated_names("s"))  # every link left as it was
    [copy] = [path for path in out.glob("*.json") if not path.is_symlink()]
    assert copy.stem.endswith("-2")  # the next free number, beside the taken name
    assert copy.read_bytes() == latest.read_bytes()
    assert copy.with_suffix(".html").read_bytes() == latest.with_suffix(".html").read_bytes()


def test_keep_never_overwrites_another_runs_dated_copy(tmp_path: Path) -> None:
    """Two runs of one second: the second's copy replaced the first's."""
    out = tmp_path / "out"
    out.mkdir()
    earlier = {f"{stem}{suffix}" for stem in dated_names("s") for suffix in (".json", ".html")}
    for name in earlier:
        (out / name).write_bytes(b"an earlier run's copy\n")
    code, latest = keep_run(tmp_path, out, keep=100_000)
    assert code == ExitCode.OK
    assert all((out / name).read_bytes() == b"an earlier run's copy\n" for name in earlier)
    [copy] = set(out.glob("*.json")) - {out / name for name in earlier}
    assert copy.read_bytes() == latest.read_bytes()


def test_two_copies_of_one_second_are_two_files(tmp_path: Path) -> None:
    out = tmp_path / "out"
    dated = out / "s-20261126T031500Z.json"
    copies = []
    for run in ("first", "second"):
        json_path, html_path = tmp_path / f"{run}.json", tmp_path / f"{run}.html"
        json_path.write_text(run)
        html_path.write_text(run)
        copies.append(keep_dated(json_path, html_path, dated=dated))
    assert [path.name for path in copies if path] == [dated.name, "s-20261126T031500Z-2.json"]
    for run, path in zip(("first", "second"), copies, strict=True):
        assert path is not None
        assert (path.read_text(), path.with_suffix(".html").read_text()) == (run, run)


def _odd_things(out: Path, victim: Path) -> dict[str, str]:
    """At old dated names, what no run made: each name, and what is there."""
    things = {
        "s-20200101T000000Z.json": "a folder",
        "s-20200101T000001Z.json": "a FIFO",
        "s-20200101T000002Z.json": "a link to a file",
        "s-20200101T000003Z.json": "a link to nowhere",
        "s-20200101T000004Z-\u0663.json": "a regular file, numbered in another script",
        "s-20200101T000005Z.html": "a folder, beside a report of ours",
    }
    (out / "s-20200101T000000Z.json").mkdir()
    os.mkfifo(out / "s-20200101T000001Z.json")
    (out / "s-20200101T000002Z.json").symlink_to(victim)
    (out / "s-20200101T000003Z.json").symlink_to(out.parent / "nowhere.json")
    (out / "s-20200101T000004Z-\u0663.json").write_text("{}")
    (out / "s-20200101T000005Z.json").write_text("{}")  # an old report of ours...
    (out / "s-20200101T000005Z.html").mkdir()  # ...whose HTML name a folder holds
    return things


def test_keep_prunes_only_regular_files_of_its_own(tmp_path: Path) -> None:
    """A folder at a dated report's name: a traceback after the run, exit 1, no verdict."""
    out, victim = tmp_path / "out", tmp_path / "victim.json"
    out.mkdir()
    victim.write_text("precious")
    odd = _odd_things(out, victim)
    code, _ = keep_run(tmp_path, out, keep=1)
    assert code == ExitCode.OK
    assert all(os.path.lexists(out / name) for name in odd), sorted(out.iterdir())
    assert victim.read_text() == "precious"
    assert not (out / "s-20200101T000005Z.json").exists()  # the old report of ours went
    regular = sorted(p.name for p in out.glob("*.json") if p.is_file() and not p.is_symlink())
    assert len(regular) == 2  # what no run of ours named so, and this run's copy
    assert regular[0] == "s-20200101T000004Z-\u0663.json"
    assert regular[1] > "s-2021"


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another user needs root")
def test_keep_never_prunes_a_file_another_user_owns(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    theirs = out / "s-20200101T000000Z.json"
    theirs.write_text("{}")
    os.chown(theirs, 65534, 65534)
    code, _ = keep_run(tmp_path, out, keep=1)
    assert code == ExitCode.OK
    assert theirs.exists()


# --- the GitHub Action's step ------------------------------------------------------------------


async def action_step(tmp_path: Path, **inputs: str) -> tuple[int, dict[str, str], str, str]:
    """The Action's step in its own process: exit code, outputs, job summary and stderr."""
    outputs, summary, stderr = (tmp_path / n for n in ("github_output", "summary", "err"))
    outputs.write_text("")
    summary.write_text("")
    env = {k: v for k, v in os.environ.items() if not k.startswith("INPUT_")}
    env |= {f"INPUT_{name.upper()}": value for name, value in inputs.items()}
    env |= {"GITHUB_OUTPUT": str(outputs), "GITHUB_STEP_SUMMARY": str(summary)}
    with stderr.open("wb") as err:
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "auditor.cli.action", cwd=tmp_path, env=env,
            stdout=asyncio.subprocess.DEVNULL, stderr=err,
        )  # fmt: skip
        code = await asyncio.wait_for(process.wait(), timeout=120)
    return code, read_outputs(outputs), summary.read_text(), stderr.read_text()


@pytest.mark.slow
@pytest.mark.parametrize("args", ['--per-host "4', "--header 'X-A: b", "--json \\"])
async def test_an_action_whose_args_cannot_be_split_is_a_usage_error(
    args: str, tmp_path: Path
) -> None:
    """An unbalanced quote: a traceback, and no exit_code for the steps after."""
    code, outputs, summary, err = await action_step(tmp_path, targets="s.xml", args=args)
    assert (code, outputs, summary) == (ExitCode.USAGE, {"exit_code": "2"}, "")
    assert len(err.splitlines()) == 1, err


@pytest.mark.slow
async def test_an_action_shows_only_what_this_run_wrote(tmp_path: Path) -> None:
    """A folder an earlier run left its reports in (a self-hosted runner, a cache): a run that
    failed showed the earlier PASS, its report paths and its summary."""
    write_sitemap(tmp_path / "s.xml")
    code, outputs, summary, _ = await action_step(tmp_path, targets="s.xml", args="--no-check")
    assert (code, outputs["verdict"][:5]) == (ExitCode.OK, "PASS:")
    assert {"json", "html", "markdown", "junit"} <= set(outputs)
    assert summary  # the earlier run's summary, on its own page
    code, outputs, summary, err = await action_step(
        tmp_path, targets="s.xml", args="--no-check --per-host 0"
    )
    assert (code, outputs, summary) == (ExitCode.USAGE, {"exit_code": "2", "verdict": ""}, "")
    assert len(err.splitlines()) == 1, err
    report = json.loads((tmp_path / "sitemap-audit" / "report.json").read_bytes())
    assert report["complete"]  # the earlier run's files are left, only never shown as this one's


# --- outputs named where no file is --------------------------------------------------------------

_OUTPUTS = ("--json", "--html", "--markdown", "--metrics", "--junit", "--state", "--history")


@pytest.mark.slow
@pytest.mark.parametrize("option", [*_OUTPUTS, "--fleet --json"])
async def test_an_output_named_at_a_fifo_is_a_usage_error(option: str, tmp_path: Path) -> None:
    """The rename replaced it: a FIFO here, and for a run as root a device (`/dev/null`)."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)

    def argv_for(base: str) -> list[str]:
        if option == "--fleet --json":
            (tmp_path / "sites.txt").write_text(f"{base}/sitemap.xml\n")
            fleet = ["--fleet", str(tmp_path / "sites.txt"), "--out", str(tmp_path / "out")]
            return [*fleet, "--json", str(fifo), "--quiet"]
        return quiet(tmp_path / "r.json", option, str(fifo), f"{base}/sitemap.xml")

    await refused(argv_for, tmp_path)
    assert stat.S_ISFIFO(fifo.lstat().st_mode)  # left as it was
