"""The history file: ours or refused, never damaged, one run at a time, rows read defensively.

A file that is not a history of ours, or is damaged, or was written by a newer version, is
refused with a usage error (exit 2) before the run, and left exactly as it was.
"""

from __future__ import annotations

import asyncio
import hashlib
import sqlite3
from pathlib import Path

import pytest

from auditor.cli.main import main
from auditor.demo.server import serve
from auditor.errors import ExitCode, HistoryError, HistoryWriteError
from auditor.wings.history.verdict_store import APPLICATION_ID, FORMAT, HistoryStore
from tests.wings.history.site import HistorySite, audit_night, entries


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def history_of_ours(path: Path, rows: int = 3) -> Path:
    store = HistoryStore.open(path)
    store.see([(n, 1_700_000_000) for n in range(1, rows + 1)])
    store.close()
    return path


def foreign_sqlite(path: Path) -> Path:
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE notes (text)")
    db.execute("INSERT INTO notes VALUES ('precious')")
    db.commit()
    db.close()
    return path


def newer(path: Path) -> Path:
    history_of_ours(path)
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA user_version = {FORMAT + 1}")
    db.close()
    return path


def damaged(path: Path) -> Path:
    history_of_ours(path, rows=5000)
    data = bytearray(path.read_bytes())
    page = 4096
    middle = len(data) // page // 2 * page
    data[middle : middle + page] = b"\xab" * page  # a page of the urls' b-tree overwritten
    path.write_bytes(bytes(data))
    return path


def truncated(path: Path) -> Path:
    history_of_ours(path, rows=5000)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2 + 100])
    return path


MAKERS = {
    "text": lambda path: (path.write_text("not a database\n"), path)[1],
    "random bytes": lambda path: (path.write_bytes(bytes(range(256)) * 40), path)[1],
    "another program's sqlite": foreign_sqlite,
    "a newer version's history": newer,
    "a damaged history": damaged,
    "a truncated history": truncated,
}


@pytest.mark.parametrize("kind", sorted(MAKERS))
def test_a_file_that_is_not_a_usable_history_is_refused_and_left_alone(
    tmp_path: Path, kind: str
) -> None:
    path = MAKERS[kind](tmp_path / "h.sqlite")
    before = digest(path)
    with pytest.raises(HistoryError):
        HistoryStore.open(path)
    assert digest(path) == before
    # Refused, it can be opened by nobody's run: no lock is left behind.
    with pytest.raises(HistoryError):
        HistoryStore.open(path)


def test_the_command_refuses_a_foreign_history_before_writing_anything(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = foreign_sqlite(tmp_path / "notes.db")
    before = digest(path)
    report = tmp_path / "out" / "r.json"
    code = main(["--demo", "--history", str(path), "--json", str(report), "--no-progress"])
    assert code == ExitCode.USAGE
    assert digest(path) == before
    assert not report.exists()
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


def test_a_history_says_whose_it_is_in_its_header(tmp_path: Path) -> None:
    path = history_of_ours(tmp_path / "h.sqlite")
    header = path.read_bytes()[:100]
    assert int.from_bytes(header[68:72], "big") == APPLICATION_ID
    assert int.from_bytes(header[60:64], "big") == FORMAT


def test_one_run_at_a_time(tmp_path: Path) -> None:
    path = tmp_path / "h.sqlite"
    first = HistoryStore.open(path)
    try:
        with pytest.raises(HistoryError):
            HistoryStore.open(path)
    finally:
        first.close()
    HistoryStore.open(path).close()  # free again


def test_a_folder_that_cannot_be_made_is_a_usage_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(HistoryError):
        HistoryStore.open(blocker / "h.sqlite")


async def test_rows_of_the_wrong_shape_are_no_verdict_and_the_run_goes_on(
    tmp_path: Path,
) -> None:
    site = HistorySite(3)
    history = tmp_path / "h.sqlite"
    async with serve(site.routes) as served:
        await audit_night(tmp_path, served.base, 0, history=history)
        db = sqlite3.connect(history)
        db.execute(
            "UPDATE urls SET checked = 'yesterday' WHERE digest = (SELECT min(digest) FROM urls)"
        )
        db.execute(
            "UPDATE urls SET result = x'00ff', status = 404 "
            "WHERE digest = (SELECT max(digest) FROM urls)"
        )
        db.commit()
        db.close()
        site.take_requests()
        audited = await audit_night(tmp_path, served.base, 1, history=history, budget=0)
    # Neither row has a verdict to carry: each reads as never checked; the third is carried.
    said = audited.report["summary"]["history"]
    assert (said["carried"], said["never_checked"]) == (1, 2)
    assert sum(1 for entry in entries(audited).values() if entry.get("carried")) == 1


async def test_urls_no_sitemap_lists_any_more_leave_after_a_complete_run(tmp_path: Path) -> None:
    site = HistorySite(4)
    history = tmp_path / "h.sqlite"
    async with serve(site.routes) as served:
        await audit_night(tmp_path, served.base, 0, history=history)
        del site.pages["/p3"]
        await audit_night(tmp_path, served.base, 1, history=history, budget=0)
    assert await asyncio.to_thread(row_count, history) == 3


def row_count(history: Path) -> int:
    store = HistoryStore.open(history)
    try:
        return len(list(store.rows()))
    finally:
        store.close()


def test_a_write_that_fails_mid_run_is_a_history_write_error(tmp_path: Path) -> None:
    store = HistoryStore.open(tmp_path / "h.sqlite")
    start = store.begin("t", resume=False, now_s=1_700_000_000)
    store._db.close()  # the file gone from under the run, as a failed disk would
    with pytest.raises(HistoryWriteError):
        store.record([], run_id=start.run_id, requested=0, now_s=1_700_000_001)
    with pytest.raises(HistoryWriteError):
        store.see([(1, None)])
    store.close()
