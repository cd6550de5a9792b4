"""The baseline's part of the Markdown summary names a local sitemap by its path in the workspace.

A CI job's checkout is the workspace: a reader sees `public/sitemap.xml`, never the runner's
absolute `file:///...`; a sitemap on the web keeps its URL.
"""

from __future__ import annotations

from pathlib import Path

from auditor.config import FailOn
from auditor.report.section import Regression
from auditor.wings.baseline.compare import BaselineHead
from auditor.wings.baseline.diff_section import DiffSection

HEAD = BaselineHead("old.json", "2026-01-01T00:00:00Z")


def _subjects(markdown: str) -> list[str]:
    """The regressions' lines' subjects, as written (in their code spans)."""
    return [line.split("`")[1] for line in markdown.splitlines() if line.startswith("- `")]


def test_a_local_sitemap_that_regressed_is_named_by_its_path_in_the_workspace(
    tmp_path: Path,
) -> None:
    local = (tmp_path / "public" / "sitemap.xml").as_uri()
    remote = "https://example.com/sitemap.xml"
    examples = (
        Regression("sitemap", local, ("sitemap.http_error",), None),
        Regression("sitemap", remote, ("sitemap.http_error",), None),
    )
    diff = DiffSection(
        HEAD, FailOn.ERROR, regressions=2, regression_examples=examples, workspace=tmp_path
    )
    assert _subjects(diff.markdown()) == ["public/sitemap.xml", remote]
    elsewhere = DiffSection(
        HEAD,
        FailOn.ERROR,
        regressions=2,
        regression_examples=examples,
        workspace=tmp_path / "other",
    )
    assert _subjects(elsewhere.markdown()) == [str(tmp_path / "public" / "sitemap.xml"), remote]
