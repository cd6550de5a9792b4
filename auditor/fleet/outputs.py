"""The fleet summary's files: where they go, written whole, read back for `--baseline`.

Blocking file work: the fleet runs in a thread of its own, outside any event loop.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import orjson

from auditor.errors import BaselineError, ReportError, ReportWriteError
from auditor.files import read_input, write_atomically
from auditor.fleet.fleet_summary import previous_reports
from auditor.limits import MAX_FLEET_SUMMARY_BYTES
from auditor.report.encode import Json
from auditor.report.schema import json_schema

FLEET_SCHEMA = ("auditor.fleet", "fleet.schema.json")  # shipped beside this module


def fleet_schema() -> dict[str, object]:
    """The JSON Schema (Draft 2020-12) every fleet summary validates against."""
    return json_schema(FLEET_SCHEMA)


def summary_paths(
    out: Path, *, json_path: Path | None, html_path: Path | None, now: datetime
) -> tuple[Path, Path]:
    """The summary's and the index's paths (absolute), their folders made.

    As given, else `<out>/fleet-<UTC>.json` and `.html`, never over an earlier summary.
    ReportError when a folder cannot be made.
    """
    if json_path is None:
        stem = f"fleet-{now.strftime('%Y%m%dT%H%M%SZ')}"
        json_path, number = out / f"{stem}.json", 1
        while json_path.exists():
            number += 1
            json_path = out / f"{stem}-{number}.json"
    if html_path is None:
        html_path = json_path.with_suffix(".html")
        if html_path == json_path:
            html_path = json_path.with_name(json_path.name + ".html")
    for folder in {out, json_path.parent, html_path.parent}:
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ReportError(f"cannot make the report folder {folder}: {exc.strerror}") from exc
    return json_path.absolute(), html_path.absolute()


def write_summary(path: Path, summary: Json) -> None:
    """The summary, replaced whole (a reader sees the old file or the new one)."""
    try:
        write_atomically(path, orjson.dumps(summary, option=orjson.OPT_INDENT_2) + b"\n")
    except OSError as exc:
        raise ReportWriteError(f"cannot write the fleet summary {path}: {exc.strerror}") from exc


def read_previous(path: Path) -> dict[str, Path]:
    """`--baseline`: each site's report in an earlier fleet summary, by site name.

    BaselineError (exit 2) when the file cannot be read or is no fleet summary.
    """
    try:
        data = json.loads(read_input(path, max_bytes=MAX_FLEET_SUMMARY_BYTES))
    except OSError as exc:
        raise BaselineError(f"--baseline {path}: cannot read it ({exc.strerror})") from exc
    except ValueError as exc:  # not JSON, or not UTF-8
        raise BaselineError(f"--baseline {path}: not a JSON fleet summary ({exc})") from exc
    return previous_reports(data, folder=path.absolute().parent, source=path)
