"""sitemap-auditor: discover, validate and check every sitemap of a site.

Library use: `await audit(AuditConfig(targets=(parse_target("https://example.com/", ...),)))`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    from auditor.config import AuditConfig, Target
    from auditor.discovery.targets import parse_target
    from auditor.pipeline import AuditResult, audit

__all__ = ["AuditConfig", "AuditResult", "Target", "__version__", "audit", "parse_target"]

# Imported on first use (PEP 562): the package itself stays light, so that `python -m auditor`
# reaches its entry point, which turns a Ctrl-C during the heavy imports into exit 3.
_LAZY = {
    "AuditConfig": "auditor.config",
    "AuditResult": "auditor.pipeline",
    "audit": "auditor.pipeline",
    "Target": "auditor.config",
    "parse_target": "auditor.discovery.targets",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'auditor' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
