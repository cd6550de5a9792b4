"""The GitHub Action's step, run as a runner runs it: inputs in INPUT_*, outputs and the job
summary written to the files GITHUB_OUTPUT and GITHUB_STEP_SUMMARY name; no GitHub at all."""

from __future__ import annotations

import asyncio
import os
import re
import sys
from pathlib import Path

import defusedxml.ElementTree as SafeET
import pytest
import yaml

from auditor.cli.action import artifacts_url
from auditor.demo.documents import Page, url, urlset, xml_page
from auditor.demo.server import serve
from auditor.errors import ExitCode

ROOT = Path(__file__).parent.parent.parent


def read_outputs(path: Path) -> dict[str, str]:
    """GITHUB_OUTPUT's `name<<DELIMITER` blocks, as the runner reads them."""
    values: dict[str, str] = {}
    lines = iter(path.read_text().splitlines())
    for line in lines:
        name, _, delimiter = line.partition("<<")
        values[name] = "\n".join(iter(lambda: next(lines), delimiter))
    return values


RUNNER = {  # what a runner sets for every step (docs.github.com, "Variables reference")
    "GITHUB_SERVER_URL": "https://github.com",
    "GITHUB_REPOSITORY": "octo/docs",
    "GITHUB_RUN_ID": "1234567",
}


async def step(
    tmp_path: Path, runner: dict[str, str] | None = None, **inputs: str
) -> tuple[int, dict[str, str], str]:
    """The Action's step in a fresh process: its exit code, outputs and job summary."""
    outputs, summary = tmp_path / "github_output", tmp_path / "step_summary"
    outputs.write_text("")
    summary.write_text("# earlier steps' summary\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("INPUT_")}
    env |= {f"INPUT_{name.upper()}": value for name, value in inputs.items()}
    env |= {"GITHUB_OUTPUT": str(outputs), "GITHUB_STEP_SUMMARY": str(summary)}
    env |= runner or {}
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "auditor.cli.action", cwd=tmp_path, env=env,
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL,
    )  # fmt: skip
    code = await process.wait()
    return code, read_outputs(outputs), summary.read_text()


def routes(base: str) -> dict[str, Page]:
    listed = [url(f"{base}/ok"), url(f"{base}/gone")]
    return {"/sitemap.xml": xml_page(urlset(listed)), "/ok": Page(200, b"ok")}


@pytest.mark.slow
async def test_a_failing_audit_fails_the_step_with_its_outputs_and_summary(
    tmp_path: Path,
) -> None:
    async with serve(routes) as served:
        code, outputs, summary = await step(
            tmp_path,
            RUNNER,
            targets=f"{served.base}/sitemap.xml",
            args="--allow-private --timeout 2",
            artifact="sitemap-audit",
        )
    assert code == ExitCode.FINDINGS
    assert outputs["exit_code"] == "1"
    assert outputs["verdict"].startswith("FAIL: ")
    for name in ("json", "html", "markdown", "junit"):
        assert (tmp_path / outputs[name]).is_file(), name
    assert summary.startswith("# earlier steps' summary\n## ")  # appended, not replaced
    assert "`http.not_found`" in summary
    assert f"- `{served.base}/gone` — 404" in summary  # the broken URL itself, with its status
    assert "(<https://github.com/octo/docs/actions/runs/1234567#artifacts>)" in summary
    root = SafeET.parse(tmp_path / outputs["junit"]).getroot()
    assert root is not None
    assert root.get("failures") == "1"


@pytest.mark.slow
async def test_fail_false_reports_and_passes_the_step(tmp_path: Path) -> None:
    async with serve(routes) as served:
        code, outputs, summary = await step(
            tmp_path,
            targets=f"{served.base}/sitemap.xml",
            args="--allow-private --timeout 2",
            fail="false",
            job_summary="false",
        )
    assert (code, outputs["exit_code"]) == (ExitCode.OK, "1")
    assert summary == "# earlier steps' summary\n"


async def test_a_usage_error_fails_the_step_whatever_fail_says(tmp_path: Path) -> None:
    code, outputs, _ = await step(tmp_path, targets="", fail="false")
    assert (code, outputs["exit_code"]) == (ExitCode.USAGE, "2")
    code, outputs, _ = await step(
        tmp_path, targets="https://example.com/", args="--per-host 0", fail="false"
    )
    assert (code, outputs["exit_code"]) == (ExitCode.USAGE, "2")


def test_the_action_passes_each_input_to_the_step() -> None:
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    assert action["runs"]["using"] == "composite"
    [audit] = [step for step in action["runs"]["steps"] if step.get("id") == "audit"]
    assert audit["run"] == "sitemap-audit-action"
    for name in action["inputs"]:
        if name == "python-version":
            continue
        variable = "INPUT_" + name.upper().replace("-", "_")
        assert audit["env"][variable] == "${{ inputs.%s }}" % name  # noqa: UP031 - a template
    for name, output in action["outputs"].items():
        assert output["value"] == "${{ steps.audit.outputs.%s }}" % name  # noqa: UP031
    assert re.search(r"pip install .*sitemap_auditor-\*\.whl", str(action["runs"]["steps"]))


@pytest.mark.parametrize(
    ("env", "link"),
    [
        (
            {**RUNNER, "INPUT_ARTIFACT": "reports"},
            "https://github.com/octo/docs/actions/runs/1234567#artifacts",
        ),
        ({**RUNNER, "INPUT_ARTIFACT": ""}, None),  # nothing uploaded: nothing to link to
        ({"INPUT_ARTIFACT": "reports"}, None),  # not on a runner
    ],
)
def test_the_summary_links_to_the_artifacts_only_when_the_action_uploads_them(
    env: dict[str, str], link: str | None
) -> None:
    assert artifacts_url(env) == link


def test_the_action_uploads_its_output_folder_whatever_the_audit_said() -> None:
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    [upload] = [s for s in action["runs"]["steps"] if "upload-artifact" in s.get("uses", "")]
    assert upload["if"] == "always() && inputs.artifact != ''"
    assert upload["with"]["name"] == "${{ inputs.artifact }}"
    assert upload["with"]["path"] == "${{ inputs.output }}/"
