"""MkDocs hooks: the generated parts of the pages, rendered at build time from their sources.

A page asks for one with a line `<!-- generated: NAME -->`; the codes come from the catalog
(auditor/codes.toml), the options from their table (auditor/options/table.py), the report's
fields from its JSON Schema, the metrics from the registry a run writes, the benchmark table
from the suite's JSON.
Nothing is copied into the Markdown, so nothing can drift. Pure but for reading those files.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page

from auditor.codes import Code
from auditor.config import FailOn
from auditor.fleet.dashboards import FleetRun, fleet_registry
from auditor.fleet.outputs import fleet_schema
from auditor.options.row import Group, Kind, Option, Place, said_value
from auditor.options.table import grouped
from auditor.report.csv_writer import FINDING_COLUMNS, FINDINGS_CSV, URL_COLUMNS, URLS_CSV
from auditor.report.metrics import RunMetrics, metrics_registry
from auditor.report.schema import report_schema
from auditor.report.section import Section
from auditor.results.summary import Summary
from auditor.wings.baseline.compare import BaselineHead
from auditor.wings.baseline.diff_section import DiffSection
from auditor.wings.crawl.coverage_section import CoverageSection
from auditor.wings.crawl.crawl_records import CoverageCounts, CrawlSummary
from auditor.wings.history.history_section import HistorySection
from auditor.wings.history.last_known import HistoryCounts, LastKnown
from auditor.wings.logs.log_section import ClaimLine, GooglebotCounts, Judgement, LogsSection

ROOT = Path(__file__).resolve().parent.parent
MARKER = re.compile(r"^<!-- generated: ([a-z-]+) -->$", re.MULTILINE)
INCLUDE = re.compile(r'^--8<-- "([\w.-]+\.md)"$', re.MULTILINE)  # a page made of a repository file
# A link to a file of the repository that is no page of the site (the benchmark journal).
REPOSITORY_LINK = re.compile(r"\[([^\]]+)\]\(((?:auditor|benchmarks|tests)/[^)\s]+)\)")
# The latest full run kept in the benchmark journal, read as data (nothing of benchmarks/ is
# imported): the suite's own table, and the JSON of every run.
JOURNAL = ROOT / "benchmarks" / "journal"
RESULTS_MD = JOURNAL / "RESULTS-full.md"
SUITE_JSON = JOURNAL / "suite-full.json"


def on_page_markdown(
    markdown: str,
    *,
    page: Page,
    config: MkDocsConfig,  # noqa: ARG001 - MkDocs passes every event's arguments by name
    files: Files,  # noqa: ARG001
) -> str:
    """Replace each marker line with its generated Markdown; an unknown name fails the build.

    A page that includes a file of the repository (CONTRIBUTING.md) has it included here, its
    links to the repository's own files (no page of the site) shown as their paths.
    """
    markdown = INCLUDE.sub(lambda match: _included(match.group(1)), markdown)

    def render(match: re.Match[str]) -> str:
        name = match.group(1)
        generator = GENERATORS.get(name)
        if generator is None:
            raise PluginError(f"{page.file.src_uri}: no generated part named {name!r}")
        return generator()

    return MARKER.sub(render, markdown)


def _included(name: str) -> str:
    """A repository file's text for a page: `[words](benchmarks/...)` -> words (`path`)."""
    text = (ROOT / name).read_text("utf-8")
    return REPOSITORY_LINK.sub(lambda link: f"{link.group(1)} (`{link.group(2)}`)", text)


def cell(text: str) -> str:
    """Text for a Markdown table cell: a `|` would end the cell, `<` could open a tag."""
    return text.replace("|", "\\|").replace("<", "&lt;").replace("\n", " ")


# --- finding codes ------------------------------------------------------------------------


def code_anchor(code: Code) -> str:
    """The anchor of a code's row in reference/codes.md: the code itself."""
    return code.value


def codes_reference() -> str:
    """Every code, family by family: severity, title, Search Console name, fix."""
    families: dict[str, list[Code]] = {}
    for code in Code:
        families.setdefault(code.value.split(".", 1)[0], []).append(code)
    parts = []
    for family, codes in families.items():
        rows = [
            f"### `{family}.*` {{#{family}}}\n",
            "| code | severity | what it means | Search Console | how to fix |",
            "|---|---|---|---|---|",
        ]
        for code in codes:
            info = code.info
            cells = (info.severity.value, info.title, info.search_console or "", info.fix)
            anchor = f"[`{code.value}`](#{code_anchor(code)}){{#{code_anchor(code)}}}"
            rows.append(f"| {anchor} | " + " | ".join(cell(text) for text in cells) + " |")
        parts.append("\n".join(rows))
    return "\n\n".join(parts) + "\n"


# --- command-line options -----------------------------------------------------------------

# argparse's own option, in the untitled group with the command's: not in the table.
HELP_ROW = ("-h, --help", "opt-help", "show the options and exit", "command only")


def option_anchor(option: Option) -> str:
    """The anchor of an option's row in reference/options.md: `opt-` and its name."""
    return "opt-" + option.name


def option_help(option: Option) -> str:
    """The option's help as `--help` shows it, with a machine's default said in words."""
    text = option.said()
    if option.default_words is not None:  # "(the cores: %(default)s)" -> "(the cores)"
        text = re.sub(r":\s*%\(default\)s", "", text)
    return text % {"default": option.default_value(), "prog": "sitemap-audit"}


def _where(option: Option) -> str:
    """Where else the option may be given: a --config key, a library keyword, a fleet site's."""
    places = [place.value for place in Place if place in option.places]
    return ", ".join(places) or "command only"


def _value(option: Option) -> str:
    if option.kind in (Kind.FLAG, Kind.COUNT):
        return ""
    if option.choices:
        return " \\| ".join(f"`{choice}`" for choice in option.choices)
    return f"`{option.metavar or option.dest.upper()}`"


def _default(option: Option) -> str:
    if option.default_words is not None:
        return option.default_words
    default = option.shown_default()
    if default in (None, False, [], 0):
        return ""
    return f"`{said_value(default)}`"


def options_reference() -> str:
    """Every option of the table, in the groups of `--help`."""
    parts = []
    for group, options in grouped():
        title = group.value or "the command"
        rows = [
            f"### {title[0].upper() + title[1:]}\n",
            "| option | value | default | what it does | also as |",
            "|---|---|---|---|---|",
        ]
        for option in options:
            name = ", ".join([*([option.short] if option.short else []), option.flag])
            anchor = option_anchor(option)
            cells = (_value(option), _default(option), cell(option_help(option)), _where(option))
            rows.append(f"| [`{name}`](#{anchor}){{#{anchor}}} | " + " | ".join(cells) + " |")
        if group is Group.COMMAND:
            name, anchor, text, where = HELP_ROW
            rows.append(f"| [`{name}`](#{anchor}){{#{anchor}}} |  |  | {text} | {where} |")
        parts.append("\n".join(rows))
    return "\n\n".join(parts) + "\n"


# --- JSON schemas -------------------------------------------------------------------------


def _type_of(node: Mapping[str, Any], defs: Mapping[str, Any], prefix: str) -> str:
    """A field's type in words, a link for an object defined once."""
    ref = node.get("$ref")
    if ref is not None:
        name = ref.rsplit("/", 1)[1]
        target = defs[name]
        if target.get("type") == "object":
            return f"[{name}](#{prefix}-{name})"
        return _type_of(target, defs, prefix)
    if "const" in node:
        return f"`{json.dumps(node['const'])}`"
    if "enum" in node:
        return "one of " + ", ".join(f"`{json.dumps(value)}`" for value in node["enum"])
    kinds = node.get("type", "any")
    kinds = kinds if isinstance(kinds, list) else [kinds]
    words = []
    for kind in kinds:
        if kind == "array" and "items" in node:
            words.append("array of " + _type_of(node["items"], defs, prefix))
        elif kind == "object" and isinstance(node.get("additionalProperties"), dict):
            words.append("object of " + _type_of(node["additionalProperties"], defs, prefix))
        else:
            words.append(str(kind))
    return " or ".join(words)


def schema_rows(
    node: Mapping[str, Any], defs: Mapping[str, Any], prefix: str, path: str = ""
) -> Iterator[tuple[str, str, bool, str]]:
    """(field path, type, required, description) of every field, nested objects expanded."""
    required = set(node.get("required", ()))
    for name, field in node.get("properties", {}).items():
        here = f"{path}{name}"
        yield here, _type_of(field, defs, prefix), name in required, field.get("description", "")
        inner = field.get("items", field) if field.get("type") == "array" else field
        if "$ref" not in inner and "properties" in inner:
            nested = "[]." if inner is not field else "."
            yield from schema_rows(inner, defs, prefix, f"{here}{nested}")


def _fields_table(node: Mapping[str, Any], defs: Mapping[str, Any], prefix: str) -> str:
    rows = ["| field | type | required | meaning |", "|---|---|---|---|"]
    for path, kind, required, description in schema_rows(node, defs, prefix):
        rows.append(f"| `{path}` | {kind} | {'yes' if required else ''} | {cell(description)} |")
    return "\n".join(rows)


def schema_reference(schema: Mapping[str, Any], prefix: str) -> str:
    """The schema's fields, then each object it defines once, then the schema itself."""
    defs = schema.get("$defs", {})
    parts = [_fields_table(schema, defs, prefix)]
    for name, node in defs.items():
        if node.get("type") == "object":
            heading = f"### `{name}` {{#{prefix}-{name}}}\n"
            parts.append(heading + "\n" + _fields_table(node, defs, prefix))
    text = json.dumps(schema, indent=2, ensure_ascii=False)
    block = textwrap_indent(f"```json\n{text}\n```")
    parts.append(f'??? note "The whole schema ({schema.get("$id", "")})"\n\n{block}')
    return "\n\n".join(parts) + "\n"


def textwrap_indent(text: str) -> str:
    """Indent every line by four spaces (the body of an admonition)."""
    return "\n".join("    " + line if line else line for line in text.split("\n"))


# --- metrics ------------------------------------------------------------------------------


def _one_of_each() -> Summary:
    """A summary with one value under every label, so that every gauge writes a sample."""
    summary = Summary()
    summary.sitemaps_by_kind["urlset"] = 1
    summary.by_status_class["2xx"] = 1
    summary.by_code[Code.LOC_INVALID] = 1
    return summary


def _logs_section() -> LogsSection:
    """An access logs section (`--access-log`) with a crawler's claims and listed URLs."""
    counts = GooglebotCounts(1, 1, 0, 0, 0, (("2xx", 1),), ((0, 1),), 1, 1, 1, 1, 0, 0, 0, ())
    claims = (ClaimLine("Googlebot", 1, 0, 0, 0),)
    return LogsSection(
        *((), 1, 1, 0, (), 1, 0, 1, 0, 1, Judgement(judged=True), claims, (), 0, 0, counts),
        *(0, 0, (), 0.0),
    )


def _sections() -> tuple[Section, ...]:
    """A section of each wing that writes gauges, one value under every label."""
    crawl = CrawlSummary(starts=("https://www.example.com/",), scope=(), read=1)
    known = LastKnown(now_s=1.0, oldest_s=0.0)
    return (
        CoverageSection(crawl, CoverageCounts(), found={}, examples={}),
        HistorySection(HistoryCounts(), known),
        DiffSection(BaselineHead("old.json", "2026-01-01T00:00:00Z"), FailOn.ERROR, regressions=0),
        _logs_section(),
    )


def metric_rows(registry: Any) -> list[tuple[str, list[str], str]]:
    """(name, label names, meaning) of each family of a registry that holds samples."""
    found = []
    for family in registry.collect():
        labels = list(dict.fromkeys(key for s in family.samples for key in s.labels))
        if family.samples:
            found.append((family.name, labels, family.documentation))
    return found


def metrics_reference() -> str:
    """The gauges a run writes (`--metrics`), and those a fleet adds."""
    run = RunMetrics(
        "https://www.example.com/",
        complete=True,
        exit_code=0,
        duration_s=1.0,
        finished_at_s=0.0,
        sections=_sections(),
    )
    single = metric_rows(metrics_registry(_one_of_each(), run, last_success_s=None))
    fleet = metric_rows(fleet_registry([], FleetRun(0, 1.0, 0.0), last_success={}))
    rows = ["| metric | labels | meaning |", "|---|---|---|"]
    for name, labels, meaning in single + [row for row in fleet if "_fleet_" in row[0]]:
        shown = ", ".join(f"`{label}`" for label in labels)
        rows.append(f"| `{name}` | {shown} | {cell(meaning)} |")
    return "\n".join(rows) + "\n"


def csv_columns() -> str:
    """The columns of the two `--csv` files, in their order."""
    rows = ["| file | columns |", "|---|---|"]
    for name, columns in ((URLS_CSV, URL_COLUMNS), (FINDINGS_CSV, FINDING_COLUMNS)):
        rows.append(f"| `{name}` | " + ", ".join(f"`{column}`" for column in columns) + " |")
    return "\n".join(rows) + "\n"


# --- benchmarks ---------------------------------------------------------------------------


def _suite() -> dict[str, Any]:
    suite: dict[str, Any] = json.loads(SUITE_JSON.read_text("utf-8"))
    return suite


def performance_table() -> str:
    """The latest full run's table, as the suite wrote it: the first table of its results."""
    lines = RESULTS_MD.read_text("utf-8").splitlines()
    start = next(number for number, line in enumerate(lines) if line.startswith("| task "))
    rows = itertools.takewhile(lambda line: line.startswith("|"), lines[start:])
    return "\n".join(rows) + "\n"


def performance_environment() -> str:
    """Where and when the latest full run ran, in one paragraph."""
    suite = _suite()
    env = suite["environment"]
    return (
        f"Run on {suite['when'][:10]}: {env['cores']} cores, Python {env['python']}, "
        f"{env['server']}; peers ultimate-sitemap-parser {env['usp']}, advertools "
        f"{env['advertools']}, lychee {env['lychee']}; {env['minutes']} minutes in all. "
        f"The auditor: `{env['auditor']}`.\n"
    )


GENERATORS: dict[str, Callable[[], str]] = {
    "codes": codes_reference,
    "options": options_reference,
    "report-schema": lambda: schema_reference(report_schema(), "report"),
    "fleet-schema": lambda: schema_reference(fleet_schema(), "fleet"),
    "metrics": metrics_reference,
    "csv-columns": csv_columns,
    "performance-table": performance_table,
    "performance-environment": performance_environment,
}
