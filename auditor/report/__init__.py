"""Reports: the streamed JSON report; the HTML report comes from the same records.

See docs/explanation/design.md#report.
"""
