"""The file edge: a disk's failure where the run writes is a ReportWriteError, one line and exit 3;
a scratch database that cannot be made leaves nothing behind.

sqlite says "database or disk is full" (SQLITE_FULL) when a file cannot grow: a page limit
(`PRAGMA max_page_count`) makes it say so here, without filling a disk.
"""

from __future__ import annotations

import errno
import sqlite3
from pathlib import Path

import pytest

from auditor.errors import ExitCode, ReportWriteError
from auditor.files import scratch_database, written


def test_a_full_database_is_a_report_write_error(tmp_path: Path) -> None:
    path, db = scratch_database(tmp_path, prefix=".t-", cache_kib=64, schema="CREATE TABLE t (x);")
    try:
        db.execute(f"PRAGMA max_page_count = {db.execute('PRAGMA page_count').fetchone()[0]}")
        with pytest.raises(ReportWriteError) as raised, written("the test's file"):
            db.executemany("INSERT INTO t VALUES (?)", [("x" * 1000,)] * 100)
    finally:
        db.close()
        path.unlink()
    assert raised.value.exit_code == ExitCode.FAILED
    assert isinstance(raised.value.__cause__, sqlite3.OperationalError)


def test_a_file_too_large_is_a_report_write_error() -> None:
    with pytest.raises(ReportWriteError) as raised, written("the test's file"):
        raise OSError(errno.EFBIG, "File too large")
    assert str(raised.value).endswith("File too large")


def test_a_misused_database_is_a_bug_not_the_disk(tmp_path: Path) -> None:
    path, db = scratch_database(tmp_path, prefix=".t-", cache_kib=64)
    db.close()
    path.unlink()
    with pytest.raises(sqlite3.ProgrammingError), written("the test's file"):
        db.execute("SELECT 1")


def test_a_scratch_database_that_cannot_be_made_leaves_nothing(tmp_path: Path) -> None:
    with pytest.raises(sqlite3.OperationalError):
        scratch_database(tmp_path, prefix=".t-", cache_kib=64, schema="CREATE TABLE (broken;")
    assert list(tmp_path.iterdir()) == []
