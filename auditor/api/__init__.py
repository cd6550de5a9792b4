"""The library: audit a site from Python, and read reports back as typed records.

docs/how-to/python.md:

    result = auditor.run("https://www.example.com/", per_host=4)
    print(result.verdict.line)
    for url in result.urls(): ...
"""

from __future__ import annotations

from auditor.api.dataframes import (
    CHANGE_FRAME_COLUMNS,
    FINDING_FRAME_COLUMNS,
    URL_FRAME_COLUMNS,
    categories,
)
from auditor.api.results import AuditRun, Report
from auditor.api.runs import audit_site, read_report, run
from auditor.report.decode import ReportedUrl, ReportSummary

__all__ = [
    "CHANGE_FRAME_COLUMNS",
    "FINDING_FRAME_COLUMNS",
    "URL_FRAME_COLUMNS",
    "AuditRun",
    "Report",
    "ReportSummary",
    "ReportedUrl",
    "audit_site",
    "categories",
    "read_report",
    "run",
]
