"""Where a document is, as a reader names it: a local file by its path, a URL by itself.

The Markdown summary and the JUnit file name local sitemaps by their path relative to the
workspace (a CI job's checkout), never by the runner's absolute `file:///...`. Pure: no I/O.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote, urlsplit


def shown_place(url: str, *, workspace: Path | None) -> str:
    """Where a document is, as a reader names it: a local file as a path, else its URL.

    A file under `workspace` (a CI job's checkout) by its relative path, never the runner's
    absolute `file:///...`; a file elsewhere by its absolute path.
    """
    path = local_path(url)
    if path is None:
        return url
    if workspace is not None and path.is_relative_to(workspace):
        return path.relative_to(workspace).as_posix()
    return path.as_posix()


def local_path(url: str) -> Path | None:
    """The path of a `file:` URL (a local sitemap's), or None for any other URL."""
    if not url.lower().startswith("file:"):
        return None
    return Path(unquote(urlsplit(url).path))
