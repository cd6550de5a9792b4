"""Dated reports kept in `--out`, so that a nightly job keeps its history; `--keep N` of them.

A run writes `<out>/<host>-<UTC timestamp>.json` and `.html`. With `--json PATH` it also keeps
that dated pair in `--out` (a hard link where the file system allows, else a copy), so that a
job writing `latest.json` every night still has every night's report. A dated copy is always
made new: a name something holds already (another run's copy of the same second, a link
planted there, a folder) is never written through nor replaced; the copy takes the next
number (`-2`, `-3`, ...). `--keep N` then removes the oldest dated reports of the same host
beyond N, and nothing else: only regular files of exactly that shape, owned by this user, are
touched (never a link, a folder or a FIFO, whatever its name). Blocking: call it from a thread.
"""

from __future__ import annotations

import errno
import logging
import os
import re
import stat
from pathlib import Path

from auditor.files import copy_to_new

log = logging.getLogger(__name__)

# `<label>-20261126T031500Z.json`, `...-2.json` when two runs began in the same second.
_STAMP = r"-([0-9]{8}T[0-9]{6}Z)(?:-([1-9][0-9]{0,8}))?"
MAX_SAME_SECOND = 1_000  # dated names tried for one second's reports


def keep_dated(json: Path, html: Path | None, *, dated: Path) -> Path | None:
    """Keep the run's reports under `dated` (the auto name in --out) too, unless they are it.

    The JSON and the HTML copies share one stem, the first free one: `dated`, then `-2`, ...
    The JSON copy's path (None when `json` is already dated); OSError when none can be made.
    """
    if json.resolve() == dated.resolve():
        return None
    dated.parent.mkdir(parents=True, exist_ok=True)
    for number in range(1, MAX_SAME_SECOND + 1):
        stem = dated.stem if number == 1 else f"{dated.stem}-{number}"
        target = dated.with_name(f"{stem}.json")
        try:
            copy_to_new(json, target)
        except FileExistsError:
            continue
        if html is None:
            return target
        try:
            copy_to_new(html, target.with_suffix(".html"))
        except FileExistsError:  # that stem's HTML name is taken: the pair moves on
            target.unlink()  # the copy just made: this run's own
            continue
        return target
    raise FileExistsError(errno.EEXIST, f"{MAX_SAME_SECOND} dated names taken for {dated.name}")


def prune(out: Path, label: str, *, keep: int) -> list[Path]:
    """Remove the oldest dated reports of `label` in `out` beyond `keep`; the ones removed."""
    shape = re.compile(re.escape(label) + _STAMP + r"\.json")
    dated = [
        (match[1], int(match[2] or 1), path)
        for path in out.glob(f"{glob_escape(label)}-*.json")
        if (match := shape.fullmatch(path.name)) is not None and _own_file(path)
    ]
    reports = [path for _, _, path in sorted(dated)]
    removed = []
    for path in reports[: max(0, len(reports) - keep)]:
        for one in (path, path.with_suffix(".html")):
            if one is path or _own_file(one):
                _remove(one)
        removed.append(path)
    return removed


def _own_file(path: Path) -> bool:
    """Whether `path` is a regular file (not a link to one) of this user: one a run made."""
    try:
        found = path.lstat()
    except OSError:
        return False
    return stat.S_ISREG(found.st_mode) and found.st_uid == os.geteuid()


def _remove(path: Path) -> None:
    try:
        path.unlink(missing_ok=True)
    except OSError as exc:  # gone to another run's pruning, or the folder read-only
        log.warning("--keep: cannot remove %s (%s)", path, exc.strerror)


def glob_escape(text: str) -> str:
    """`text` with glob's special characters matched as themselves."""
    return re.sub(r"([*?\[])", r"[\1]", text)
