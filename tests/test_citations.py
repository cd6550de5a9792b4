"""The repository stands alone: what its files cite is in it, or on the public web.

No file refers to a document outside the repository, no Python file cites an issue number (a
comment says what and why instead), and every `docs/...md#anchor` a file cites exists.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from markdown.extensions.toc import slugify

from docs.hooks import GENERATORS, MARKER

ROOT = Path(__file__).parent.parent
# Built from pieces, so that this file neither cites what it forbids nor shows up in a search for
# such citations.
_PROTO = "PROTO" + "COL"
_OUTSIDE = "|".join(
    (
        r"\.\./" + "shared",
        "/work/" + "shared",
        rf"\b(?:DESIGN|{_PROTO}|STYLE|LAYOUT)" + r"\.md\b",
        "DESIGN" + r" §",
        rf"\b{_PROTO}\b",  # a word of its own: Code.NET_..., pycurl's ...S are names, not cites
    )
)
OUTSIDE = re.compile(_OUTSIDE)
ISSUE = re.compile(r"\bissues?\s*#?\d+", re.IGNORECASE)
CITED_PAGE = re.compile(
    r"\b((?:docs/[\w/.-]+|CONTRIBUTING|SECURITY|README)\.md)(?:#([\w.-]*[\w-]))?"
)
TEXT_SUFFIXES = {".py", ".md", ".toml", ".j2", ".json", ".yaml", ".yml", ".sh", ".txt", ".cfg"}
HEADING = re.compile(r"^#{1,6} +(.+?)(?: +\{#([^}\s]+)\})?\s*$", re.MULTILINE)
EXPLICIT_ID = re.compile(r"\{#([^}\s]+)\}")


def tracked_files() -> list[Path]:
    """The repository's text files, as git knows them (untracked ones too, but not ignored)."""
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    files = [ROOT / name for name in listed]
    return [path for path in files if path.suffix in TEXT_SUFFIXES or path.name == "run"]


def test_no_file_cites_a_document_outside_the_repository() -> None:
    me = Path(__file__).resolve()
    found = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in tracked_files()
        if path.resolve() != me and path.is_file()
        for number, line in enumerate(path.read_text("utf-8").splitlines(), 1)
        if OUTSIDE.search(line)
    ]
    assert found == []


def test_no_python_file_cites_an_issue_number() -> None:
    me = Path(__file__).resolve()
    found = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in tracked_files()
        if path.suffix == ".py" and path.resolve() != me and path.is_file()
        for number, line in enumerate(path.read_text("utf-8").splitlines(), 1)
        if ISSUE.search(line)
    ]
    assert found == []


def test_the_patterns_catch_what_they_are_for() -> None:
    """The checks above can fail: each pattern finds the citation it forbids."""
    for text in ("see ../" + "shared/x", "(DESIGN" + " §4)", _PROTO + ".md, Indexability"):
        assert OUTSIDE.search(text), text
    for text in (f"Code.NET_{_PROTO}", f"pycurl.{_PROTO}S", f"pickle.HIGHEST_{_PROTO}"):
        assert not OUTSIDE.search(text), text
    issue = "iss" + "ue"
    for text in (
        f"({issue} 20)",
        f"{issue.title()} 15: one decision",
        f"{issue} #7",
        f"{issue}s 7",
    ):
        assert ISSUE.search(text), text
    for text in ("RFC 9110 §15.4", "&#114;obots", "tissue 3"):
        assert not ISSUE.search(text), text


def anchors_of(page: Path) -> set[str]:
    """The anchors a page has once built: headings (explicit or slugs), attribute ids, and
    those of its generated parts."""
    text = page.read_text("utf-8")
    text = MARKER.sub(lambda match: GENERATORS[match.group(1)](), text)
    found = set(EXPLICIT_ID.findall(text))
    for title, explicit in HEADING.findall(text):
        found.add(explicit or slugify(re.sub(r"[`*]", "", title), "-"))
    return found


def test_every_cited_page_and_anchor_exists() -> None:
    anchors: dict[Path, set[str]] = {}
    missing = []
    me = Path(__file__).resolve()
    for path in tracked_files():
        # Pages link each other with relative links, which `mkdocs build --strict` checks.
        if not path.is_file() or path.suffix == ".md" or path.resolve() == me:
            continue
        for number, line in enumerate(path.read_text("utf-8").splitlines(), 1):
            for page_name, anchor in CITED_PAGE.findall(line):
                page = ROOT / page_name
                where = f"{path.relative_to(ROOT)}:{number}: {page_name}#{anchor}"
                if not page.is_file():
                    missing.append(where)
                    continue
                if anchor and anchor not in anchors.setdefault(page, anchors_of(page)):
                    missing.append(where)
    assert missing == []


def test_a_missing_anchor_is_seen(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "# Title\n\n## A section {#kept}\n\n## Plain words\n\n<!-- generated: codes -->\n"
    )
    found = anchors_of(page)
    assert {"title", "kept", "plain-words", "loc.too_long", "http"} <= found
    assert "a-section" not in found
