"""sitemap-auditor: discover, validate and check every sitemap of a site.

Library use: `auditor.run("https://example.com/", per_host=4)` (blocking, also in a notebook),
`await auditor.audit_site(...)`, `auditor.read_report("audit.json")` (docs/how-to/python.md); the
engine's own entry point is `await audit(AuditConfig(...))`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from auditor._version import __version__
    from auditor.api import AuditRun, Report, ReportedUrl, audit_site, read_report, run
    from auditor.config import AuditConfig, Target
    from auditor.discovery.targets import parse_target
    from auditor.flow.audit import AuditResult, audit

__all__ = [
    "AuditConfig",
    "AuditResult",
    "AuditRun",
    "Report",
    "ReportedUrl",
    "Target",
    "__version__",
    "audit",
    "audit_site",
    "parse_target",
    "read_report",
    "run",
]

# Imported on first use (PEP 562): the package itself stays light, so that `python -m auditor`
# reaches its entry point, which turns a Ctrl-C during the heavy imports into exit 3.
_LAZY = {
    "__version__": "auditor._version",
    "AuditConfig": "auditor.config",
    "AuditResult": "auditor.flow.audit",
    "audit": "auditor.flow.audit",
    "Target": "auditor.config",
    "parse_target": "auditor.discovery.targets",
    "audit_site": "auditor.api",
    "run": "auditor.api",
    "read_report": "auditor.api",
    "AuditRun": "auditor.api",
    "Report": "auditor.api",
    "ReportedUrl": "auditor.api",
}


def __dir__() -> list[str]:
    """The public names only: what a notebook's tab completion offers."""
    return sorted(__all__)


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'auditor' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
