"""The house's limits: small modules, short functions, a name that says where a thing lives.

A module has one job and under 400 lines; a function 60 at most; no two modules share a file
name, and no two define the same public name, so that a name found in a traceback or a review
leads to one place. See CONTRIBUTING.md#how-the-code-is-written.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import pytest

PACKAGE = Path(__file__).parent.parent / "auditor"
MAX_MODULE_LINES = 400  # fewer than this
MAX_FUNCTION_LINES = 60  # at most this
# Entry points named as their callers expect: each process's and console script's `main`, the
# library's `run` (auditor.run) and the scripts' `run` (the hook's, the Action's).
ENTRY_POINTS = {"main", "run"}
MODULES = sorted(PACKAGE.rglob("*.py"))


def name_of(path: Path) -> str:
    return str(path.relative_to(PACKAGE.parent))


@pytest.mark.parametrize("path", MODULES, ids=name_of)
def test_a_module_is_small(path: Path) -> None:
    lines = len(path.read_text("utf-8").splitlines())
    assert lines < MAX_MODULE_LINES, f"{name_of(path)}: {lines} lines"


@pytest.mark.parametrize("path", MODULES, ids=name_of)
def test_a_function_is_short(path: Path) -> None:
    long = [
        f"{node.name}: {node.end_lineno - node.lineno + 1} lines"
        for node in ast.walk(ast.parse(path.read_text("utf-8")))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.end_lineno is not None
        and node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES
    ]
    assert long == [], name_of(path)


def test_no_two_modules_share_a_file_name() -> None:
    by_name: defaultdict[str, list[str]] = defaultdict(list)
    for path in MODULES:
        if path.name != "__init__.py":
            by_name[path.name].append(name_of(path))
    assert {name: found for name, found in by_name.items() if len(found) > 1} == {}


def test_no_two_modules_define_the_same_public_name() -> None:
    by_name: defaultdict[str, list[str]] = defaultdict(list)
    for path in MODULES:
        for node in ast.parse(path.read_text("utf-8")).body:
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                continue
            if not node.name.startswith("_") and node.name not in ENTRY_POINTS:
                by_name[node.name].append(name_of(path))
    assert {name: found for name, found in by_name.items() if len(found) > 1} == {}
