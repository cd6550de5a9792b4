"""The run's configuration shared out between its processes (`--workers`). Pure: no I/O.

Checker processes each take a share of the run's limits (auditor.processes.check_pool); parse
helpers are started only where no checker needs the cores (auditor.processes.parse_pool).
"""

from __future__ import annotations

from dataclasses import replace

from auditor.config import AuditConfig


def checker_configs(config: AuditConfig) -> list[AuditConfig]:
    """One configuration per checker process: the run's limits shared out between them.

    Together the processes honour --concurrency, --per-host and --rate (any host's URLs go to
    every process). Never more processes than the smallest limit: each needs one request per
    host at least.
    """
    count = min(config.workers, config.concurrency, config.per_host)
    rate = config.rate / count if config.rate is not None else None
    shards = []
    for index in range(count):
        concurrency = _share(config.concurrency, count, index)
        per_host = min(_share(config.per_host, count, index), concurrency)
        shards.append(
            replace(config, concurrency=concurrency, per_host=per_host, rate=rate, workers=1)
        )
    return shards


def parse_helpers(config: AuditConfig) -> int:
    """Parse helper processes: only with --no-check, where no checker process needs the cores.

    With checks, the checker processes keep the cores busy, and parsing is a small part of a
    URL's cost (about 20 of 280 µs, measured); a helper would add memory and take no time off.
    As many helpers as workers, like checkers: this process handles every helper's entries
    (about a third of a URL's CPU) and parses only a share of the documents itself, so with one
    helper fewer a core sat idle whenever this process was busy (hreflang benchmark: 28-41 s
    a run with one helper on two cores, 30-31.5 s with two).
    """
    return config.workers if config.no_check and config.workers > 1 else 0


def _share(total: int, parts: int, index: int) -> int:
    """Part `index` of `total` split in `parts` as evenly as whole numbers allow."""
    return total // parts + (index < total % parts)
