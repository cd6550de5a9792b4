"""The wings a run folds over, in the order it folds them: the one list of them.

Each wing is an optional feature in a package of its own (auditor.wings); the run knows them
only through their protocol (auditor.wings.feature), and no module but this one names one
(tests/test_layering.py). The order is the fold's: where two wings route the same stream, the
one listed first is the nearer to the sink.
"""

from __future__ import annotations

from auditor.wings.baseline.baseline_wing import FEATURE as BASELINE
from auditor.wings.crawl.crawl_wing import FEATURE as CRAWL
from auditor.wings.feature import Feature
from auditor.wings.history.history_wing import FEATURE as HISTORY
from auditor.wings.hreflang.hreflang_wing import FEATURE as HREFLANG
from auditor.wings.logs.logs_wing import FEATURE as LOGS

# The logs after the history: they keep tables of their own in its file (Opening.shelf).
WINGS: tuple[Feature, ...] = (CRAWL, HREFLANG, BASELINE, HISTORY, LOGS)
