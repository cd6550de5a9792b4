"""The run's configuration shared out between its processes (`--workers`). Pure: no I/O.

URL checks run in the audit's own thread (auditor.checks.engine); parse helpers are started
only where no check needs the cores (auditor.processes.parse_pool).
"""

from __future__ import annotations

from auditor.config import AuditConfig


def parse_helpers(config: AuditConfig) -> int:
    """Parse helper processes: only with --no-check, where no check needs the cores.

    With checks, parsing is a small part of a URL's cost (about 20 of 280 µs, measured); a
    helper would add memory and take no time off. As many helpers as workers: this process
    handles every helper's entries (about a third of a URL's CPU) and parses only a share of
    the documents itself, so with one helper fewer a core sat idle whenever this process was
    busy (hreflang benchmark: 28-41 s a run with one helper on two cores, 30-31.5 s with two).
    """
    return config.workers if config.no_check and config.workers > 1 else 0
