"""`--version` names the command's version, Python's, the engine and the libraries installed."""

from __future__ import annotations

import platform

import pytest

from auditor import __version__
from auditor.cli.main import main
from auditor.cli.version import LIBRARIES, default_engine, library_versions
from auditor.errors import ExitCode


def test_version_names_python_the_engine_and_the_libraries(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["--version"]) == ExitCode.OK
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(f"sitemap-audit {__version__} (Python {platform.python_version()}")
    installed = library_versions()
    assert {"aiohttp", "defusedxml", "orjson"} <= set(installed)
    for name, version in installed.items():
        assert f"; {name} {version}" in lines[0]
    for name in set(LIBRARIES) - set(installed):  # pycurl, when it is not installed
        assert f"; {name} " not in lines[0]
    assert lines[0].endswith(f"; engine: {default_engine(installed)})")
    assert default_engine(installed) == ("curl" if "pycurl" in installed else "aiohttp")


def test_libraries_that_are_not_installed_are_left_out() -> None:
    assert library_versions(["aiohttp", "no-such-library-here"]).keys() == {"aiohttp"}


def test_the_default_engine_is_libcurl_where_pycurl_is_installed() -> None:
    assert (default_engine(["aiohttp", "pycurl"]), default_engine(["aiohttp"])) == (
        "curl",
        "aiohttp",
    )
