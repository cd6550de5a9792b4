"""The gate sentence: the gate that fired and its level, or the gates in force; never a level
of `never` read as a severity."""

from __future__ import annotations

import itertools

import pytest

from auditor.codes import Severity
from auditor.config import FailOn
from auditor.results.gates import gate_sentence
from auditor.results.verdict import Outcome, RunCounts, decide


def _counts(errors: int = 0, warnings: int = 0) -> RunCounts:
    by_severity = {Severity.ERROR: errors, Severity.WARNING: warnings, Severity.NOTICE: 0}
    return RunCounts(
        by_severity=by_severity,
        documents=1,
        sitemaps=1,
        sitemaps_with_errors=int(bool(errors)),
        urls=10,
        urls_with_errors=errors,
    )


@pytest.mark.parametrize(
    ("fail_on", "fail_on_new"), list(itertools.product(FailOn, [None, *FailOn]))
)
@pytest.mark.parametrize(("errors", "regressions"), [(0, 0), (3, 0), (0, 2), (3, 2)])
def test_the_sentence_names_the_gate_that_fired_and_its_level(
    fail_on: FailOn, fail_on_new: FailOn | None, errors: int, regressions: int
) -> None:
    counted = regressions if fail_on_new not in (None, FailOn.NEVER) else None
    decision = decide(
        _counts(errors), fail_on=fail_on, complete=True, failed=False, regressions=counted
    )
    sentence = gate_sentence(decision, fail_on=fail_on, fail_on_new=fail_on_new)
    assert "never and above" not in sentence
    assert "severity never" not in sentence
    findings_fired = bool(errors) and fail_on is not FailOn.NEVER
    regressions_fired = bool(counted)
    assert decision.tripped is findings_fired
    if decision.verdict.outcome is Outcome.FAIL:
        assert sentence.startswith("Failed by ")
        assert (f"--fail-on {fail_on.value} " in sentence) is findings_fired
        assert (f"--fail-on-new {fail_on_new} " in sentence) is regressions_fired
    else:
        assert not findings_fired
        assert not regressions_fired
        assert f"(--fail-on {fail_on.value})" in sentence
        if fail_on_new is not None:
            assert f"(--fail-on-new {fail_on_new.value})" in sentence
        else:
            assert "--fail-on-new" not in sentence
