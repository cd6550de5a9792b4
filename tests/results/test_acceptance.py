"""`--accept-file`: the lines it takes, the ones it refuses (naming the line), what it accepts."""

from __future__ import annotations

from pathlib import Path

import pytest

from auditor.cli.main import main
from auditor.codes import Code
from auditor.config import FailOn
from auditor.errors import ConfigError, ExitCode
from auditor.models import CheckResult, FoundBy, SitemapRecord, UrlRecord, finding
from auditor.results.samples import Samples
from auditor.results.summary import Summary
from auditor.results.verdict import Outcome, judge
from auditor.wings.baseline.acceptance import parse_accept_rules

GOOD = """
# known issues of the shop
http.not_found
https://shop\\.example/legacy/
redirect.* https://shop\\.example/go/
"""


def test_a_code_a_pattern_or_both() -> None:
    rules = parse_accept_rules(GOOD, source="known.txt")
    assert len(rules.rules) == 3
    assert rules.accepts(Code.HTTP_NOT_FOUND, "https://anywhere.example/x")
    assert rules.accepts(Code.HTTP_NOT_FOUND, None)  # a code alone: wherever it is
    assert rules.accepts(Code.URL_NOINDEX, "https://shop.example/legacy/a")
    assert rules.accepts(Code.REDIRECT_CHAIN, "https://shop.example/go/b")
    assert rules.accepts(Code.REDIRECT_PERMANENT, "https://shop.example/go/")
    # What no line names stays a finding that counts.
    assert not rules.accepts(Code.REDIRECT_CHAIN, "https://shop.example/other")
    assert not rules.accepts(Code.HTTP_SERVER_ERROR, "https://shop.example/go/b")
    assert not rules.accepts(Code.URL_NOINDEX, None)


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("http.not_fuond\n", 1),  # a typo in a code is no URL pattern
        ("\n\nlastmod.* (unclosed\n", 3),  # a bad pattern
        ("nosuch.* https://x/\n", 1),  # no such family
        ("https://x/ http.not_found\n", 1),  # the code comes first
        ("http.not_found a b\n", 1),
    ],
)
def test_a_bad_line_is_an_error_naming_it(text: str, line: int) -> None:
    with pytest.raises(ConfigError, match=f"known.txt, line {line}:"):
        parse_accept_rules(text, source="known.txt")


def test_accepted_errors_neither_fail_the_run_nor_vanish() -> None:
    rules = parse_accept_rules("http.not_found /gone$\n", source="f")
    sitemap = SitemapRecord("https://e.com/s.xml", None, None, 0, FoundBy.TARGET, 200)
    check = CheckResult(404, findings=(finding(Code.HTTP_NOT_FOUND, url="https://e.com/gone"),))
    record = UrlRecord("https://e.com/gone", (sitemap.url,), check=check)
    rules.mark_url(record)
    assert record.check is not None
    assert [item.accepted for item in record.check.findings] == [True]
    summary, samples = Summary(), Samples()
    summary.add_url(record)
    samples.add_urls([record])
    assert summary.by_code == {Code.HTTP_NOT_FOUND: 1}  # still counted, and reported
    decision = judge(summary, samples, fail_on=FailOn.ERROR, complete=True, failed=False)
    assert decision.verdict.outcome is Outcome.PASS
    assert decision.verdict.text.endswith("; 1 accepted (--accept-file)")


def test_the_command_refuses_a_bad_file_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sitemap = tmp_path / "s.xml"
    sitemap.write_text(
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        "<url><loc>https://example.com/a</loc></url></urlset>"
    )
    accept = tmp_path / "known.txt"
    accept.write_text("# fine\nhttp.not_found\nlastmod.nosuch\n")
    report = tmp_path / "r.json"
    argv = ["--no-check", "--accept-file", str(accept), "--json", str(report), str(sitemap)]
    assert main(argv) == ExitCode.USAGE
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1
    assert f"{accept}, line 3" in err
    assert not report.exists()
