"""`python -m auditor` is the `sitemap-audit` command; `entry` is its console script.

The signal handlers come first, before the heavy imports (the pipeline, aiohttp, rich: about
0.6 s): a Ctrl-C or SIGTERM then is an interrupted run, exit 3, never a death by the signal
(status -15, no report) or a traceback. The command installs its own once it runs.
"""

import os
import signal
import sys
from types import FrameType

# An interrupted run (docs/reference/exit-codes.md); Python's own would be 1 (the code for
# findings), or 130.
_INTERRUPTED = 3


def _interrupted(_signum: int, _frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def _by_signal(error: BaseException) -> bool:
    """Whether a KeyboardInterrupt (our SIGTERM's too) caused `error`."""
    cause = error.__cause__
    return isinstance(cause, KeyboardInterrupt) or (cause is not None and _by_signal(cause))


def entry() -> None:
    """Run the command, a Ctrl-C or SIGTERM before or between its own handlers being exit 3."""
    signal.signal(signal.SIGTERM, _interrupted)  # SIGINT: Python's own KeyboardInterrupt
    try:
        from auditor.cli.main import main  # noqa: PLC0415 - after the handlers, on purpose

        code = main()
    except (KeyboardInterrupt, RuntimeError) as exc:
        # CPython 3.11 wraps an exception raised in a descriptor's __set_name__ (a dataclass's
        # field, while a module loads) in a RuntimeError: the signal is its cause.
        if not isinstance(exc, KeyboardInterrupt) and not _by_signal(exc):
            raise
        print("sitemap-audit: interrupted", file=sys.stderr)  # noqa: T201 - the command
        # Not sys.exit: a KeyboardInterrupt raised inside exec() (dataclasses make methods
        # with it, while modules load) marks it unhandled in CPython 3.11, which then kills
        # itself with SIGINT on the way out (status -2), whatever exit code was asked for.
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(_INTERRUPTED)
    # A KeyboardInterrupt raised inside exec() and caught by the command (a Ctrl-C that
    # stopped the run) leaves CPython's "unhandled KeyboardInterrupt" flag set: under
    # `python -m` it would then end by SIGINT (status -2) whatever the code. Each exec() of a
    # string clears that flag first (Python/pythonrun.c, run_eval_code_obj).
    exec("")  # noqa: S102 - an empty string, run for that side effect alone
    sys.exit(code)


if __name__ == "__main__":
    entry()
