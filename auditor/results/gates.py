"""What the banners say of the run's gates: which one fired, or which are in force, in words.

A run fails on findings at or above `--fail-on`, and with a baseline on regressions counted at
`--fail-on-new` (docs/explanation/design.md#exit-codes). The HTML headline and the Markdown
summary say it with this sentence, never "severity never and above". Pure: no I/O.
"""

from __future__ import annotations

from auditor.config import FailOn
from auditor.results.verdict import Decision, Outcome


def gate_sentence(decision: Decision, *, fail_on: FailOn, fail_on_new: FailOn | None) -> str:
    """`Failed by --fail-on error: ...`, or the gates in force when the run did not fail.

    `fail_on_new`: None without a baseline (no regression is counted then).
    """
    if decision.verdict.outcome is Outcome.FAIL:
        fired = []
        if decision.tripped:
            fired.append(f"--fail-on {fail_on.value} ({_findings(fail_on)})")
        if decision.regressions and fail_on_new is not None:
            fired.append(f"--fail-on-new {fail_on_new.value} ({_regressions(fail_on_new)})")
        return "Failed by " + " and ".join(fired) + "."
    if fail_on is FailOn.NEVER:
        text = "No finding fails this run (--fail-on never)"
    else:
        text = f"Fails on {_findings(fail_on)} (--fail-on {fail_on.value})"
    if fail_on_new is None:
        return text + "."
    if fail_on_new is FailOn.NEVER:
        return text + "; no regression since the baseline fails it (--fail-on-new never)."
    joined = "and" if fail_on is not FailOn.NEVER else "but"
    return f"{text}, {joined} on {_regressions(fail_on_new)} (--fail-on-new {fail_on_new.value})."


def _findings(level: FailOn) -> str:
    """`a finding of severity warning or above`; notice is the lowest: any finding."""
    if level is FailOn.NOTICE:
        return "a finding of any severity"
    return f"a finding of severity {level.value}" + ("" if level is FailOn.ERROR else " or above")


def _regressions(level: FailOn) -> str:
    """What counts as a regression at `level` (docs/explanation/design.md#regressions)."""
    new = "any new finding" if level is FailOn.NOTICE else f"a new {level.value}"
    if level is FailOn.WARNING:
        new += " or error"
    return f"a regression since the baseline ({new}, or a URL that became not indexable)"
