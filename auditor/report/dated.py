"""Dated reports kept in `--out`, so that a nightly job keeps its history; `--keep N` of them.

A run writes `<out>/<host>-<UTC timestamp>.json` and `.html`. With `--json PATH` it also keeps
that dated pair in `--out` (a hard link where the file system allows, else a copy), so that a
job writing `latest.json` every night still has every night's report. `--keep N` then removes
the oldest dated reports of the same host beyond N, and nothing else: only names of exactly that
shape are touched. Blocking: call it from a thread.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

# `<label>-20261126T031500Z.json`, `...-2.json` when two runs began in the same second.
_STAMP = r"-(\d{8}T\d{6}Z)(?:-(\d+))?"


def keep_dated(json: Path, html: Path | None, *, dated: Path) -> None:
    """Keep the run's reports under `dated` (the auto name in --out) too, unless they are it."""
    for source, target in ((json, dated), (html, dated.with_suffix(".html"))):
        if source is None or source.resolve() == target.resolve() or not source.exists():
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.link(source, target)
        except OSError:  # another file system, or links refused: a copy
            shutil.copyfile(source, target)


def prune(out: Path, label: str, *, keep: int) -> list[Path]:
    """Remove the oldest dated reports of `label` in `out` beyond `keep`; the ones removed."""
    shape = re.compile(re.escape(label) + _STAMP + r"\.json")
    dated = [
        (match[1], int(match[2] or 1), path)
        for path in out.glob(f"{glob_escape(label)}-*.json")
        if (match := shape.fullmatch(path.name)) is not None
    ]
    reports = [path for _, _, path in sorted(dated)]
    removed = []
    for path in reports[: max(0, len(reports) - keep)]:
        for one in (path, path.with_suffix(".html")):
            one.unlink(missing_ok=True)
        removed.append(path)
    return removed


def glob_escape(text: str) -> str:
    """`text` with glob's special characters matched as themselves."""
    return re.sub(r"([*?\[])", r"[\1]", text)
