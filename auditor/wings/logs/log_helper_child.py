"""A log helper (`--workers N` with big access logs): blocks of lines in, what is left out.

Started by the run's process only (auditor.wings.logs.log_helpers) with the logs' format as its
argument. It reads blocks of whole lines on stdin, each its 4-byte length then its bytes as they
are (no pickle: a block is a megabyte), and answers each with a frame (auditor.processes.frames)
of the block's plain lines emptied and their count (log_feed.clean_block); it ends when stdin
ends. It ignores SIGINT and SIGTERM: the parent decides how the run ends.
"""

from __future__ import annotations

import os
import signal
import sys

from auditor.processes.frames import LENGTH, frame
from auditor.wings.logs.log_feed import clean_block
from auditor.wings.logs.log_formats import TEXT_PATTERNS, LogFormat


def main() -> None:
    """Clean blocks until stdin ends."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    pattern = TEXT_PATTERNS[LogFormat(sys.argv[1])]
    blocks = os.fdopen(os.dup(0), "rb")
    answers = os.fdopen(os.dup(1), "wb", buffering=0)
    os.dup2(2, 1)  # a stray print must not corrupt the frames
    try:
        while True:
            head = blocks.read(LENGTH.size)
            if len(head) < LENGTH.size:
                return
            block = blocks.read(LENGTH.unpack(head)[0])
            answers.write(frame(clean_block(pattern, block)))
    except BrokenPipeError:  # the parent went away: nobody is left to read the answers
        return


if __name__ == "__main__":
    main()
