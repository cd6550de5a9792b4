"""The bare loop of the logs task: every line of the logs matched by a compiled regex, no more.

    python benchmarks/bare_log.py FILE [FILE ...]

The ceiling a Python log reader can reach: a file read line by line (gzip's by its magic
bytes, through the standard library's gzip module), each line matched against the combined
format's pattern (the auditor's own, auditor.wings.logs.log_formats), nothing kept. Prints
{"lines": N, "matched": M} as one JSON line.
"""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path

from auditor.wings.logs.log_formats import TEXT_PATTERNS, LogFormat


def main() -> None:
    match = TEXT_PATTERNS[LogFormat.COMBINED].line.match
    lines = matched = 0
    for name in sys.argv[1:]:
        path = Path(name)
        with path.open("rb") as raw:
            gzipped = raw.read(2) == b"\x1f\x8b"
        with gzip.open(path, "rb") if gzipped else path.open("rb") as file:
            for line in file:
                lines += 1
                if match(line, 0, len(line) - 1) is not None:
                    matched += 1
    print(json.dumps({"lines": lines, "matched": matched}))


if __name__ == "__main__":
    main()
