"""The report's JSON Schema, shipped in the package (report.schema.json)."""

from __future__ import annotations

import json
from importlib import resources


def report_schema() -> dict[str, object]:
    """The JSON Schema (Draft 2020-12) every report validates against."""
    text = resources.files("auditor.report").joinpath("report.schema.json").read_text("utf-8")
    schema: dict[str, object] = json.loads(text)
    return schema
