"""`python -m auditor` is the `sitemap-audit` command."""

import sys

# Ctrl-C before the command's own handlers are in place (while it starts up) is an interrupted
# run, exit 3; under `python -m`, Python itself would exit 1, the code for findings.
_INTERRUPTED = 3

if __name__ == "__main__":
    try:
        from auditor.cli.main import run

        run()
    except KeyboardInterrupt:
        print("sitemap-audit: interrupted", file=sys.stderr)  # noqa: T201 - the command
        sys.exit(_INTERRUPTED)
