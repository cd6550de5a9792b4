"""The report's JSON Schema, shipped in the package (report.schema.json)."""

from __future__ import annotations

import json
from importlib import resources


def schema_text() -> str:
    """The schema file as it ships (`sitemap-audit --print-schema`)."""
    return resources.files("auditor.report").joinpath("report.schema.json").read_text("utf-8")


def report_schema() -> dict[str, object]:
    """The JSON Schema (Draft 2020-12) every report validates against."""
    schema: dict[str, object] = json.loads(schema_text())
    return schema
