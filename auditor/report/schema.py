"""The JSON Schemas we ship: the report's, and by the same functions the fleet summary's.

report.schema.json here; fleet.schema.json in auditor.fleet.
"""

from __future__ import annotations

import json
from importlib import resources

REPORT = ("auditor.report", "report.schema.json")


def schema_text(shipped: tuple[str, str] = REPORT) -> str:
    """A schema file as it ships (`sitemap-audit --print-schema`): (package, file name)."""
    package, name = shipped
    return resources.files(package).joinpath(name).read_text("utf-8")


def json_schema(shipped: tuple[str, str] = REPORT) -> dict[str, object]:
    """A shipped JSON Schema (Draft 2020-12), parsed."""
    schema: dict[str, object] = json.loads(schema_text(shipped))
    return schema


def report_schema() -> dict[str, object]:
    """The JSON Schema every report validates against."""
    return json_schema(REPORT)
