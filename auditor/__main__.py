"""`python -m auditor` is the `sitemap-audit` command."""

from auditor.cli import run

if __name__ == "__main__":
    run()
