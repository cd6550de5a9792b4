"""The package's layers (STYLE.md): a pure core without I/O, and aiohttp at one edge only."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).parent.parent / "auditor"
PURE = {
    "auditor.addresses",
    "auditor.breaker",
    "auditor.clock",
    "auditor.codes",
    "auditor.config",
    "auditor.decompress",
    "auditor.diff",
    "auditor.digests",
    "auditor.entries",
    "auditor.highlights",
    "auditor.models",
    "auditor.pacing",
    "auditor.page",
    "auditor.parse",
    "auditor.redirects",
    "auditor.report.charts",
    "auditor.report.encode",
    "auditor.report.html_view",
    "auditor.retry",
    "auditor.robots",
    "auditor.selection",
    "auditor.state",
    "auditor.stream",
    "auditor.summary",
    "auditor.tally",
    "auditor.targets",
    "auditor.tree",
    "auditor.urls",
    "auditor.validate",
    "auditor.verdict",
}
IO_MODULES = {"asyncio", "aiohttp", "aiofiles", "socket", "ssl", "subprocess", "http", "urllib3"}
AIOHTTP_ALLOWED = {"auditor.fetch", "auditor.demo.server"}


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


def test_the_pure_list_names_real_modules() -> None:
    assert PURE - set(MODULES) == set()


@pytest.mark.parametrize("name", sorted(PURE))
def test_pure_core_does_no_io(name: str) -> None:
    roots = {imported.split(".")[0] for imported in MODULES[name]}
    assert roots & IO_MODULES == set()
    # ...and depends on nothing but the pure core.
    own = {imported for imported in MODULES[name] if imported.startswith("auditor.")}
    assert own - PURE - {"auditor._version"} == set()


@pytest.mark.parametrize("name", sorted(MODULES))
def test_aiohttp_only_at_the_fetch_edge(name: str) -> None:
    uses_aiohttp = any(imported.split(".")[0] == "aiohttp" for imported in MODULES[name])
    assert not uses_aiohttp or name in AIOHTTP_ALLOWED
