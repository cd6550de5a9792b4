"""The end-of-run summary: a rich table on a terminal, plain lines otherwise, same verdict."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

from auditor.cli.terminal import plain_lines, rich_summary
from auditor.codes import Code
from auditor.demo.documents import url, urlset
from tests.helpers import run_audit
from tests.sitemap.test_parse_extensions import document

HOSTILE = "https://example.com/[bold red]markup[/bold red]\x1b[2J"


async def test_the_table_shows_counts_codes_examples_paths_and_the_verdict(
    tmp_path: Path,
) -> None:
    sitemap = tmp_path / "s.xml"
    sitemap.write_text(urlset([url("https://example.com/a"), url("ftp://example.com/b")]))
    audited = await run_audit(tmp_path, str(sitemap))
    console = Console(record=True, force_terminal=True, width=160)
    console.print(rich_summary(audited.result, no_check=True))
    shown = console.export_text().splitlines()
    assert shown[-1] == audited.result.verdict.line
    assert shown[-1].startswith("FAIL: ")
    at = next(n for n, line in enumerate(shown) if "loc.invalid" in line)
    assert "e.g. ftp://example.com/b" in shown[at + 1]
    assert "fix: " in shown[at + 2]
    assert f"JSON report: {audited.result.json_path}" in shown
    assert f"HTML report: {audited.result.html_path}" in shown


async def test_network_text_is_never_markup_nor_a_terminal_control(tmp_path: Path) -> None:
    sitemap = tmp_path / "s.txt"  # a text sitemap carries any byte; XML 1.0 no control
    sitemap.write_text(HOSTILE + "\n")
    audited = await run_audit(tmp_path, str(sitemap))
    console = Console(record=True, force_terminal=True, width=200)
    console.print(rich_summary(audited.result, no_check=True))
    shown = console.export_text()
    assert "[bold red]markup" in shown  # printed as text, not taken as a style
    for lines in (shown, "\n".join(plain_lines(audited.result, no_check=True))):
        assert "\x1b" not in lines


async def test_plain_lines_cap_the_codes_and_end_with_the_verdict(tmp_path: Path) -> None:
    sitemap = tmp_path / "s.xml"
    sitemap.write_text(urlset([url("https://example.com/a")]))
    audited = await run_audit(tmp_path, str(sitemap))
    lines = plain_lines(audited.result, no_check=True)
    assert lines[-1] == audited.result.verdict.line == "PASS: 1 sitemap and 1 URL, no findings"
    assert lines[-3:-1] == [
        f"JSON report: {audited.result.json_path}",
        f"HTML report: {audited.result.html_path}",
    ]


async def test_the_extensions_are_counted_when_the_sitemaps_use_them(tmp_path: Path) -> None:
    page = "https://example.com/en"
    links = (
        f'<xhtml:link rel="alternate" hreflang="en" href="{page}"/>'
        '<xhtml:link rel="alternate" hreflang="de" href="https://example.com/de"/>'
    )
    images = "<image:image><image:loc>https://example.com/a.png</image:loc></image:image>" * 2
    sitemap = tmp_path / "s.xml"
    sitemap.write_bytes(document(f"<url><loc>{page}</loc>{links}{images}</url>"))
    audited = await run_audit(tmp_path, str(sitemap))
    wanted = "extensions: hreflang on 1 URL (2 links), 1 alternate no sitemap lists, 2 images"
    assert plain_lines(audited.result, no_check=True)[1] == wanted
    console = Console(record=True, force_terminal=True, width=160)
    console.print(rich_summary(audited.result, no_check=True))
    assert wanted in console.export_text().splitlines()
    # Without any, no line.
    plain = tmp_path / "plain.xml"
    plain.write_text(urlset([url(page)]))
    bare = await run_audit(tmp_path, str(plain), json=tmp_path / "plain.json")
    assert not any(
        line.startswith("extensions:") for line in plain_lines(bare.result, no_check=True)
    )


async def test_every_code_when_they_fit_a_screen_else_the_worst_and_where_the_rest_are(
    tmp_path: Path,
) -> None:
    bad = "<lastmod>soon</lastmod><changefreq>often</changefreq><priority>9</priority>"
    sitemap = tmp_path / "s.xml"
    sitemap.write_text(
        urlset(
            [
                url("https://example.com/a", extra=bad),
                url("https://example.com/a"),
                url("ftp://example.com/b"),
                url("https://example.com/c d"),
                url("https://example.com/e", extra="<video>x</video>"),
            ]
        )
    )
    audited = await run_audit(tmp_path, str(sitemap))
    codes = [code for code, n in audited.result.summary.by_code.items() if n]
    assert len(codes) >= 7
    tall = plain_lines(audited.result, no_check=True, height=200)
    assert not any(line.startswith("... and") for line in tall)
    assert sum(1 for line in tall if line.strip().startswith("fix: ")) == len(codes)
    short = plain_lines(audited.result, no_check=True, height=20)
    severities = {"error", "warning", "notice"}
    shown = [line.split()[1] for line in short if line.split()[0] in severities]
    assert len(shown) == 5  # at least five, however small the screen
    [rest] = [line for line in short if line.startswith("... and")]
    assert rest.startswith(f"... and {len(codes) - 5} more codes (")
    assert rest.endswith(str(audited.result.html_path))
    ranks = [Code(code).severity.rank for code in shown]
    assert ranks == sorted(ranks, reverse=True)  # the worst first
