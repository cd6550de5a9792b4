"""sitemap-auditor: discover, validate and check every sitemap of a site.

Library use: `await audit(AuditConfig(targets=(parse_target("https://example.com/", ...),)))`.
"""

from auditor._version import __version__
from auditor.config import AuditConfig
from auditor.pipeline import AuditResult, audit
from auditor.targets import Target, parse_target

__all__ = ["AuditConfig", "AuditResult", "Target", "__version__", "audit", "parse_target"]
