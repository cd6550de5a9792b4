"""The package as it would be published: an sdist and a wheel that `twine check` accepts, the
version said in one place, and every file the auditor reads at run time inside the wheel."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import auditor

ROOT = Path(__file__).parent.parent
# Read at run time beside the modules: the catalog, the schemas, the templates, the demo's TLS.
PACKAGE_DATA = (
    "auditor/codes.toml",
    "auditor/py.typed",
    "auditor/report/report.schema.json",
    "auditor/report/templates/report.html.j2",
    "auditor/report/templates/report.css",
    "auditor/report/templates/report.js",
    "auditor/fleet/fleet.schema.json",
    "auditor/fleet/templates/fleet.html.j2",
    "auditor/demo/tls/ca.pem",
)


@pytest.mark.slow
def test_the_sdist_and_the_wheel_build_and_pass_twine_check(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    subprocess.run(
        [sys.executable, "-m", "build", "--sdist", "--wheel", "--outdir", str(dist), str(ROOT)],
        check=True,
        capture_output=True,
    )
    [wheel] = dist.glob("*.whl")
    [sdist] = dist.glob("*.tar.gz")
    assert wheel.name.startswith(f"sitemap_auditor-{auditor.__version__}-py3-none-any")
    assert sdist.name == f"sitemap_auditor-{auditor.__version__}.tar.gz"
    checked = subprocess.run(
        [sys.executable, "-m", "twine", "check", "--strict", str(wheel), str(sdist)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    names = set(zipfile.ZipFile(wheel).namelist())
    assert set(PACKAGE_DATA) <= names, set(PACKAGE_DATA) - names
    entry_points = next(name for name in names if name.endswith("entry_points.txt"))
    text = zipfile.ZipFile(wheel).read(entry_points).decode()
    for script in ("sitemap-audit", "sitemap-audit-hook", "sitemap-audit-action"):
        assert f"{script} = " in text
    assert not any(name.startswith(("tests/", "benchmarks/", "docs/")) for name in names)
