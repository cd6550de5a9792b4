"""auditor.wings.logs.log_files: files, folders, globs, gzip streams, what is no log."""

from __future__ import annotations

import gzip
import threading
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import pytest

from auditor.wings.logs import log_files
from auditor.wings.logs.crawler_names import Bot
from auditor.wings.logs.crawler_ranges import CrawlerRanges
from auditor.wings.logs.log_feed import FileStats, LogRun
from auditor.wings.logs.log_files import (
    AccessLogError,
    StopReading,
    expand_sources,
    read_logs,
)
from auditor.wings.logs.log_formats import LogFormat
from tests.wings.logs.conftest import START, new_run
from tests.wings.logs.log_lines import (
    BINGBOT_IP,
    BINGBOT_UA,
    BROWSER_UA,
    FORMATS,
    GOOGLEBOT_IP,
    GOOGLEBOT_IP6,
    SPOOFER_IP,
    Hit,
    combined,
    write_log,
)

DAY = timedelta(days=1)


def lines(count: int, name: str = "combined", path: str = "/p") -> list[str]:
    return [FORMATS[name](Hit(GOOGLEBOT_IP, START + DAY, f"{path}{n}")) for n in range(count)]


def read(
    ranges: CrawlerRanges, *paths: Path, given: LogFormat = LogFormat.AUTO
) -> tuple[LogRun, list[FileStats]]:
    run = new_run(ranges)
    stats: list[FileStats] = []
    keys: list[tuple[int, str]] = []
    read_logs(
        expand_sources(paths),
        run,
        given=given,
        stop=threading.Event(),
        spool=keys.extend,
        stats=stats,
    )
    return run, stats


def test_a_folder_a_glob_and_a_file_each_once(ranges: CrawlerRanges, tmp_path: Path) -> None:
    folder = tmp_path / "logs"
    folder.mkdir()
    write_log(folder / "access.log", lines(3))
    write_log(folder / "access.log.1", lines(4, path="/q"))
    write_log(folder / "access.log.2.gz", lines(5, path="/r"), gzipped=True)
    write_log(folder / ".hidden", ["junk"])
    (folder / "sub").mkdir()
    run, stats = read(ranges, folder, folder / "access.log", Path(str(folder / "access.log.*")))
    assert [Path(s.source).name for s in stats] == ["access.log", "access.log.1", "access.log.2.gz"]
    assert run.counts.lines == 12
    assert run.counts.claims[Bot.GOOGLEBOT].verified == 12


def test_gzip_is_read_by_its_magic_bytes_whatever_its_name(
    ranges: CrawlerRanges, tmp_path: Path
) -> None:
    write_log(tmp_path / "access.log", lines(50), gzipped=True)
    write_log(tmp_path / "plain.gz", lines(7))  # a plain file with a .gz name
    _, stats = read(ranges, tmp_path / "access.log", tmp_path / "plain.gz")
    assert [(s.lines, s.bad, s.truncated) for s in stats] == [(50, 0, False), (7, 0, False)]


def test_concatenated_gzip_members_are_one_file(ranges: CrawlerRanges, tmp_path: Path) -> None:
    data = b"".join(
        gzip.compress("".join(f"{line}\n" for line in lines(4)).encode()) for _ in range(3)
    )
    (tmp_path / "a.gz").write_bytes(data)
    run, stats = read(ranges, tmp_path / "a.gz")
    assert (stats[0].lines, stats[0].truncated, run.counts.lines) == (12, False, 12)


def test_a_truncated_gzip_is_read_up_to_its_end(ranges: CrawlerRanges, tmp_path: Path) -> None:
    whole = gzip.compress("".join(f"{line}\n" for line in lines(2000)).encode())
    (tmp_path / "cut.gz").write_bytes(whole[: len(whole) // 2])
    run, stats = read(ranges, tmp_path / "cut.gz")
    assert stats[0].truncated
    assert 0 < stats[0].lines < 2000
    assert run.counts.bad <= 1  # the line it broke off in, if any
    assert run.counts.claims[Bot.GOOGLEBOT].verified >= stats[0].lines - 1


def test_a_gzip_that_breaks_off_midway_keeps_what_was_read(
    ranges: CrawlerRanges, tmp_path: Path
) -> None:
    text = "".join(f"{line} {n * 7919 % 100_003}\n" for n, line in enumerate(lines(20_000)))
    whole = bytearray(gzip.compress(text.encode()))
    at = len(whole) * 3 // 4
    whole[at : at + 64] = b"\xff" * 64  # corrupt past its first pieces
    (tmp_path / "bad.gz").write_bytes(bytes(whole))
    _, stats = read(ranges, tmp_path / "bad.gz")
    assert stats[0].truncated
    assert 0 < stats[0].lines < 20_000


def test_an_empty_file_is_read_as_nothing(ranges: CrawlerRanges, tmp_path: Path) -> None:
    (tmp_path / "empty.log").write_bytes(b"")
    (tmp_path / "empty.gz").write_bytes(gzip.compress(b""))
    run, stats = read(ranges, tmp_path / "empty.log", tmp_path / "empty.gz")
    assert [s.lines for s in stats] == [0, 0]
    assert run.counts.lines == 0


@pytest.mark.parametrize(
    "content",
    [
        b"<!DOCTYPE html><html><body>Not a log</body></html>\n",
        b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 40,
        b"date,url,status\n2026-01-01,/a,200\n",
        gzip.compress(b"just some text\nin a gzip file\n"),
    ],
)
def test_a_file_that_is_no_log_is_a_usage_error_naming_it(
    ranges: CrawlerRanges, tmp_path: Path, content: bytes
) -> None:
    good = write_log(tmp_path / "good.log", lines(3))
    bad = tmp_path / "photo.jpg"
    bad.write_bytes(content)
    with pytest.raises(AccessLogError, match=r"photo\.jpg"):
        read(ranges, good, bad)


def test_a_log_of_another_format_than_asked_is_a_usage_error(
    ranges: CrawlerRanges, tmp_path: Path
) -> None:
    path = write_log(tmp_path / "app.log", lines(3, name="json"))
    with pytest.raises(AccessLogError, match="not a combined log"):
        read(ranges, path, given=LogFormat.COMBINED)
    run, _ = read(ranges, path, given=LogFormat.JSON)
    assert run.counts.claims[Bot.GOOGLEBOT].verified == 3


@pytest.mark.parametrize("name", ["missing.log", "nothing-*.log", "empty-folder"])
def test_a_path_that_names_no_file_is_a_usage_error(tmp_path: Path, name: str) -> None:
    (tmp_path / "empty-folder").mkdir()
    with pytest.raises(AccessLogError, match="--access-log"):
        expand_sources([tmp_path / name])


def test_a_stop_ends_the_reading_between_two_blocks(ranges: CrawlerRanges, tmp_path: Path) -> None:
    path = write_log(tmp_path / "access.log", lines(10))
    stop = threading.Event()
    stop.set()
    with pytest.raises(StopReading):
        read_logs(
            expand_sources([path]),
            new_run(ranges),
            given=LogFormat.AUTO,
            stop=stop,
            spool=lambda keys: None,
            stats=[],
        )


def _mixed(count: int) -> list[str]:
    """Googlebot (IPv4 and IPv6), a spoofer, Bingbot, a browser, and some bad lines, mixed."""
    kinds = [
        Hit(GOOGLEBOT_IP, START, "/p"),
        Hit(GOOGLEBOT_IP6, START, "/q", status=503),
        Hit(SPOOFER_IP, START, "/s"),
        Hit(BINGBOT_IP, START, "/b", agent=BINGBOT_UA),
        Hit(SPOOFER_IP, START, "/u", agent=BROWSER_UA),
    ]
    found = []
    for n in range(count):
        if n % 97 == 0:
            found.append(f"not a log line {n}")
            continue
        kind = kinds[n % len(kinds)]
        found.append(
            combined(replace(kind, path=f"{kind.path}{n % 50}", when=START + n * DAY / 10))
        )
    return found


@pytest.mark.parametrize("gzipped", [False, True])
def test_helper_processes_give_the_tally_one_process_gives(
    ranges: CrawlerRanges, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, gzipped: bool
) -> None:
    path = write_log(tmp_path / "access.log", _mixed(3000), gzipped=gzipped)
    monkeypatch.setattr(log_files, "CHUNK_BYTES", 4096)  # many blocks, several in flight
    monkeypatch.setattr(log_files, "HELPED_BYTES", 0)  # any file is worth helpers

    def tally(helpers: int) -> tuple[object, ...]:
        run = new_run(ranges)
        stats: list[FileStats] = []
        keys: list[tuple[int, str]] = []
        read_logs(
            expand_sources([path]),
            run,
            given=LogFormat.AUTO,
            stop=threading.Event(),
            spool=keys.extend,
            stats=stats,
            helpers=helpers,
        )
        rows = sorted(
            (digest, run.hits.hits[i], run.hits.last[i], run.hits.errors[i], run.hits.bing[i])
            for digest, i in run.hits.rows()
        )
        return run.counts, stats, sorted(keys), rows

    alone = tally(0)
    assert alone[0].lines == 3000  # type: ignore[attr-defined]
    assert tally(2) == alone
