"""The package's layers: rooms along the data's way, a pure core, aiohttp at one edge.

Packages import one way, along the pipeline: a module may import the base modules and the
packages before its own, never one after it. The pure core does no I/O.

See CONTRIBUTING.md#how-the-code-is-written.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).parent.parent / "auditor"
# Modules every room may import: records, configuration, codes, URL rules, time, errors, limits.
BASE = {
    "auditor._version",
    "auditor.clock",
    "auditor.codes",
    "auditor.config",
    "auditor.errors",
    "auditor.files",
    "auditor.limits",
    "auditor.models",
    "auditor.urls",
}
# The rooms in the order the data goes through them; a room imports only earlier ones.
ORDER = (
    "auditor.net",
    "auditor.discovery",
    "auditor.sitemap",
    "auditor.checks",
    "auditor.http_stack",
    "auditor.processes",
    "auditor.results",
    "auditor.report",
    "auditor.options.row",
    "auditor.wings",
    "auditor.flow",
    "auditor.fleet",
    "auditor.demo",
    "auditor.options",
    "auditor.cli",
    "auditor.api",
)
# The front doors: the package's lazy library names and `python -m auditor` may name any room.
FRONT = {"auditor", "auditor.__main__"}
# The wings (docs/explanation/design.md#wings): each optional feature in a package of its own.
# The run knows them through their protocol alone; one module lists them.
WINGS = "auditor.wings"
WING_PROTOCOL = "auditor.wings.feature"
REGISTRY = "auditor.flow.registry"
# The library's front door offers a wing's own functions (`Report.changes_frame`: the baseline's
# comparison of two reports); it is no part of the run.
LIBRARY = "auditor.api"
PURE = {
    "auditor._version",
    "auditor.checks.answer_rules",
    "auditor.checks.indexability",
    "auditor.checks.canonical",
    "auditor.checks.lastmod_rules",
    "auditor.checks.page_head",
    "auditor.checks.page_rules",
    "auditor.checks.robots_rules",
    "auditor.checks.selection",
    "auditor.checks.soft_404",
    "auditor.checks.url_patterns",
    "auditor.clock",
    "auditor.codes",
    "auditor.config",
    "auditor.discovery.probes",
    "auditor.discovery.robots",
    "auditor.discovery.targets",
    "auditor.errors",
    "auditor.fleet.sites",
    "auditor.fleet.fleet_summary",
    "auditor.wings.history.history_rows",
    "auditor.wings.history.order",
    "auditor.limits",
    "auditor.models",
    "auditor.wings.baseline.compare",
    "auditor.wings.baseline.comparison_rows",
    "auditor.net.address_guard",
    "auditor.net.answer_head",
    "auditor.net.breaker",
    "auditor.net.causes",
    "auditor.net.decompress",
    "auditor.net.pacer",
    "auditor.net.redirects",
    "auditor.net.remap",
    "auditor.net.retry",
    "auditor.net.transport",
    "auditor.options.core_rows",
    "auditor.options.request_rows",
    "auditor.options.row",
    "auditor.report.charts",
    "auditor.report.decode",
    "auditor.report.encode",
    "auditor.report.extensions_view",
    "auditor.wings.history.history_view",
    "auditor.report.section",
    "auditor.wings.baseline.diff_view",
    "auditor.report.html_rows",
    "auditor.report.html_view",
    "auditor.report.failing",
    "auditor.report.markdown",
    "auditor.report.markdown_failing",
    "auditor.report.markdown_text",
    "auditor.report.places",
    "auditor.wings.baseline.acceptance",
    "auditor.results.dedup",
    "auditor.wings.history.last_known",
    "auditor.results.reach",
    "auditor.results.digest_table",
    "auditor.results.gates",
    "auditor.results.samples",
    "auditor.results.summary",
    "auditor.results.verdict",
    "auditor.sitemap.body_stream",
    "auditor.sitemap.dates",
    "auditor.sitemap.document_tally",
    "auditor.sitemap.extensions",
    "auditor.sitemap.extensions.hreflang",
    "auditor.sitemap.extensions.image",
    "auditor.sitemap.extensions.iso_codes",
    "auditor.sitemap.extensions.items",
    "auditor.sitemap.extensions.news",
    "auditor.sitemap.extensions.video",
    "auditor.sitemap.parse",
    "auditor.sitemap.parse.events",
    "auditor.sitemap.parse.extensions",
    "auditor.sitemap.parse.sniff",
    "auditor.sitemap.parse.text_reader",
    "auditor.sitemap.parse.utf8",
    "auditor.sitemap.parse.xml_reader",
    "auditor.sitemap.plain_urls",
    "auditor.sitemap.state_file",
    "auditor.sitemap.tree_rules",
    "auditor.sitemap.validate",
    "auditor.sitemap.validated_entries",
    "auditor.urls",
    "auditor.wings.baseline.diff_section",
    "auditor.wings.crawl.coverage_section",
    "auditor.wings.hreflang.link_queries",
    "auditor.wings.crawl.coverage_view",
    "auditor.wings.crawl.crawl_records",
    "auditor.wings.crawl.links",
    "auditor.wings.crawl.scope",
    "auditor.wings.history.history_section",
    "auditor.processes.shares",
    "auditor.wings.logs.crawler_names",
    "auditor.wings.logs.crawler_ranges",
    "auditor.wings.logs.log_feed",
    "auditor.wings.logs.log_formats",
    "auditor.wings.logs.log_join",
    "auditor.wings.logs.log_report",
    "auditor.wings.logs.log_section",
    "auditor.wings.logs.log_settings",
    "auditor.wings.logs.log_tally",
    "auditor.wings.logs.log_targets",
    "auditor.wings.logs.log_times",
    "auditor.wings.logs.log_view",
}
IO_MODULES = {
    *("asyncio", "aiohttp", "aiofiles", "socket", "ssl", "subprocess", "http", "urllib3", "pycurl"),
}
# aiohttp's transport: the client and its answers.
AIOHTTP_ALLOWED = {"auditor.net.client", "auditor.net.aiohttp_response", "auditor.demo.server"}
# libcurl's transport: the curl client, its easy handles, the multi in the event loop, a
# document's streamed answer, the header lines (the test's pinned names), an awaited request.
PYCURL_ALLOWED = {
    *("auditor.net.curl_client", "auditor.net.curl_handle", "auditor.net.curl_loop"),
    *("auditor.net.curl_response", "auditor.net.curl_lines", "auditor.net.curl_open"),
}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return found


MODULES = {module_name(path): imports(path) for path in sorted(PACKAGE.rglob("*.py"))}


def room(name: str) -> int:
    """-1 for a base module, else the position of its room in ORDER (the front doors last)."""
    if name in BASE:
        return -1
    if name in FRONT:
        return len(ORDER)
    for rank, prefix in enumerate(ORDER):
        if name == prefix or name.startswith(prefix + "."):
            return rank
    raise AssertionError(f"{name} is in no room: add it to BASE or ORDER")


def test_the_lists_name_real_modules() -> None:
    assert PURE - set(MODULES) == set()
    assert BASE - set(MODULES) == set()
    assert all(any(m == p or m.startswith(p + ".") for m in MODULES) for p in ORDER)


def test_at_most_twelve_modules_at_the_top() -> None:
    top = list(PACKAGE.glob("*.py"))
    assert len(top) <= 12, sorted(path.name for path in top)


@pytest.mark.parametrize("name", sorted(MODULES))
def test_imports_go_one_way(name: str) -> None:
    own = room(name)
    for imported in MODULES[name]:
        # The package's root is the library's front door: no room imports it (`__version__` is
        # the leaf auditor._version's).
        assert imported != "auditor", f"{name} imports the package's root"
        if imported.startswith("auditor."):
            target = room(imported)
            assert target <= own, f"{name} imports {imported}, a later room"
    if name.startswith("auditor.demo"):  # the demo site stands alone: the CLI and tests use it
        assert {i for i in MODULES[name] if i.startswith("auditor.")} <= {
            m for m in MODULES if m.startswith("auditor.demo")
        }


@pytest.mark.parametrize("name", sorted(PURE))
def test_pure_core_does_no_io(name: str) -> None:
    roots = {imported.split(".")[0] for imported in MODULES[name]}
    assert roots & IO_MODULES == set()
    # ...and depends on nothing but the pure core.
    own = {imported for imported in MODULES[name] if imported.startswith("auditor.")}
    assert own - PURE == set()


@pytest.mark.parametrize("name", sorted(MODULES))
def test_aiohttp_only_at_the_fetch_edge(name: str) -> None:
    uses_aiohttp = any(imported.split(".")[0] == "aiohttp" for imported in MODULES[name])
    assert not uses_aiohttp or name in AIOHTTP_ALLOWED


@pytest.mark.parametrize("name", sorted(MODULES))
def test_pycurl_only_in_the_curl_transport(name: str) -> None:
    uses_pycurl = any(imported.split(".")[0] == "pycurl" for imported in MODULES[name])
    assert not uses_pycurl or name in PYCURL_ALLOWED


@pytest.mark.parametrize("name", sorted(m for m in MODULES if m.startswith("auditor.api")))
def test_the_library_does_not_import_the_command_line(name: str) -> None:
    """The library's options come from the option table, not from the command's parser."""
    assert not {i for i in MODULES[name] if i == "auditor.cli" or i.startswith("auditor.cli.")}


def test_the_root_loads_no_room_eagerly() -> None:
    """`import auditor` stays light: `python -m auditor` reaches its Ctrl-C handler at once."""
    tree = ast.parse((PACKAGE / "__init__.py").read_text())
    eager = [
        node
        for node in tree.body
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("auditor")
    ]
    assert eager == []


def wing_of(name: str) -> str | None:
    """The wing a module belongs to (`auditor.wings.crawl`), or None."""
    parts = name.split(".")
    if name.startswith(WINGS + ".") and name != WING_PROTOCOL:
        return ".".join(parts[:3])
    return None


@pytest.mark.parametrize("name", sorted(MODULES))
def test_the_core_names_no_wing(name: str) -> None:
    """Only the registry names a wing; the rest of the house knows their protocol alone."""
    if wing_of(name) is not None or name == REGISTRY or name.startswith(LIBRARY + "."):
        return
    named = {imported for imported in MODULES[name] if wing_of(imported) is not None}
    assert named == set(), f"{name} names a wing: {sorted(named)}"


@pytest.mark.parametrize("name", sorted(m for m in MODULES if wing_of(m) is not None))
def test_a_wing_names_no_other_wing(name: str) -> None:
    """Wings stand side by side: each sees the core and the protocol, never another wing."""
    own = wing_of(name)
    others = {wing_of(i) for i in MODULES[name]} - {None, own}
    assert others == set(), f"{name} names another wing: {sorted(map(str, others))}"


def test_the_registry_lists_every_wing() -> None:
    """Every wing's package is in the one list, so none is built and never folded in."""
    registry = MODULES[REGISTRY]
    packages = {wing_of(m) for m in MODULES} - {None}
    assert packages == {wing_of(m) for m in registry} - {None}
