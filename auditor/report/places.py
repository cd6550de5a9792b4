"""Where a document is, as a reader names it: a local file by its path, a URL by itself.

The Markdown summary and the JUnit file name local sitemaps by their path relative to the
workspace (a CI job's checkout), never by the runner's absolute `file:///...`; JUnit's
classnames hold no dot of a URL's. Pure: no I/O.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote, urlsplit

_DOTS = re.compile(r"[.\s]+")


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


def class_name(suite: str) -> str:
    """`sitemap-audit.<sitemap file name>`, dots made underscores: `sitemap-audit.sitemap_xml`.

    Jenkins and GitLab read a classname's dots as packages: a URL's would become a tree of
    `127`, `0`, `0`, `1:8080/sitemap` (the suite's name keeps the whole URL).
    """
    name = suite
    if _is_url(suite):
        parts = urlsplit(suite)
        name = parts.path.rstrip("/").rsplit("/", 1)[-1] or parts.hostname or "sitemap"
    return "sitemap-audit." + _DOTS.sub("_", name)


def case_file(url: str | None, *, workspace: Path | None) -> str | None:
    """A case's `file`: a local sitemap's path relative to the workspace, else the URL's path.

    A suite that names no document (the targets, the alternates) has none.
    """
    if url is None or not _is_url(url):
        return None
    if local_path(url) is not None:
        return shown_place(url, workspace=workspace)
    return urlsplit(url).path or "/"


def _is_url(text: str) -> bool:
    return text.lower().startswith(("http://", "https://", "file:"))
