"""`--version`: the command's version, Python's, the engine's and the libraries' it runs on."""

from __future__ import annotations

import platform
from collections.abc import Iterable
from importlib import metadata

from auditor._version import __version__

PROG = "sitemap-audit"
# Named when installed; read from their metadata, never imported (pycurl may be absent).
LIBRARIES = ("aiohttp", "pycurl", "defusedxml", "orjson", "protego", "rich", "uvloop")


def library_versions(names: Iterable[str] = LIBRARIES) -> dict[str, str]:
    """The installed version of each library of `names` that is installed."""
    found: dict[str, str] = {}
    for name in names:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return found


def default_engine(installed: Iterable[str]) -> str:
    """The engine of the URL checks without `--engine`: libcurl's when pycurl is installed."""
    return "curl" if "pycurl" in installed else "aiohttp"


def version_text() -> str:
    """`sitemap-audit 0.1.0 (Python 3.11.7; aiohttp 3.11.0; ...; engine: curl)`."""
    installed = library_versions()
    libraries = "".join(f"; {name} {version}" for name, version in installed.items())
    engine = default_engine(installed)
    return f"{PROG} {__version__} (Python {platform.python_version()}{libraries}; engine: {engine})"
