"""An outage is its own outcome: a run is unreachable only when no target answered at all."""

from __future__ import annotations

import pytest

from auditor.codes import Code
from auditor.config import FailOn
from auditor.errors import ExitCode
from auditor.models import TargetRecord, finding
from auditor.results.reach import MAX_NAMED, outage, outage_text
from auditor.results.samples import Samples
from auditor.results.summary import Summary
from auditor.results.verdict import Outcome, judge


def target(name: str, *codes: Code, insecure: bool = False) -> TargetRecord:
    url = f"https://{name}/"
    found = tuple(
        finding(code, url=url, insecure=True) if insecure else finding(code, url=url)
        for code in codes
    )
    return TargetRecord(input=url, kind="site", url=url, findings=found)


UNREACHED = (Code.TARGET_DNS, Code.TARGET_CONNECT, Code.TARGET_TIMEOUT, Code.TARGET_TLS)


@pytest.mark.parametrize("code", [*UNREACHED, Code.TARGET_PROTOCOL])
def test_one_target_that_got_no_answer_is_an_outage(code: Code) -> None:
    causes = outage([target("a.example", code)])
    assert [cause.code for cause in causes] == [code]
    assert code.value in outage_text(causes)


def test_every_target_silent_is_an_outage_one_answering_is_not() -> None:
    down = [target("a.example", Code.TARGET_CONNECT), target("b.example", Code.TARGET_DNS)]
    assert [cause.code for cause in outage(down)] == [Code.TARGET_CONNECT, Code.TARGET_DNS]
    # One of several targets answered: no outage of the run; the other keeps its finding.
    assert outage([*down, target("c.example")]) == ()
    assert outage([*down, target("c.example", Code.DISCOVERY_NONE_FOUND)]) == ()


def test_a_site_that_answered_is_no_outage_whatever_it_answered() -> None:
    assert outage([target("a.example", Code.DISCOVERY_NONE_FOUND)]) == ()
    assert outage([target("a.example")]) == ()
    assert outage([]) == ()


def test_insecure_reads_a_site_whose_certificate_fails() -> None:
    """--insecure: target.tls is said, and the site was read: no outage."""
    assert outage([target("a.example", Code.TARGET_TLS, insecure=True)]) == ()


def test_the_verdict_names_the_first_targets_and_counts_the_rest() -> None:
    many = [target(f"s{n}.example", Code.TARGET_TIMEOUT) for n in range(MAX_NAMED + 2)]
    text = outage_text(outage(many))
    assert text.count("target.timeout") == MAX_NAMED
    assert text.endswith("and 2 more targets")


def test_an_outage_exits_3_whatever_fail_on_and_an_interruption_stays_incomplete() -> None:
    summary, samples = Summary(), Samples()
    summary.add_target(target("a.example", Code.TARGET_CONNECT))
    cause = outage_text(outage([target("a.example", Code.TARGET_CONNECT)]))
    for fail_on in FailOn:
        decision = judge(
            summary, samples, fail_on=fail_on, complete=True, failed=False, unreachable=cause
        )
        assert (decision.verdict.outcome, decision.exit_code) == (
            Outcome.UNREACHABLE,
            ExitCode.FAILED,
        )
        assert decision.verdict.line.startswith("UNREACHABLE: site unreachable: ")
    stopped = judge(
        summary, samples, fail_on=FailOn.ERROR, complete=False, failed=False, unreachable=cause
    )
    assert stopped.verdict.outcome is Outcome.INCOMPLETE
