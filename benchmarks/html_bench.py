"""The HTML report's cost at scale: feed N URL records to the sink's counters and samples, then
build and render the report; print the time of each step and the report's size.

    python benchmarks/html_bench.py [--urls 1000000] [--failing 0.1]

No network: the records are made here, a share of them with findings of the URL-check codes.
"""

from __future__ import annotations

import argparse
import time
from datetime import UTC, datetime

from auditor.codes import Code
from auditor.config import FailOn
from auditor.models import CheckResult, Redirect, UrlRecord, finding
from auditor.report.html_view import RunFacts, build_view
from auditor.report.html_writer import render_html
from auditor.results.samples import Samples
from auditor.results.summary import Summary
from auditor.results.verdict import judge

BATCH = 500  # records per sink batch, as the check stage hands them over


def records(count: int, failing: float) -> list[UrlRecord]:
    codes = [code for code in Code if code.value.startswith(("http.", "redirect.", "net."))]
    every = max(1, round(1 / failing)) if failing > 0 else count + 1
    hops = (Redirect("https://example.com/old", 301),)
    out = []
    for n in range(count):
        loc = f"https://example.com/products/item-{n}"
        if n % every:
            check = CheckResult(200, elapsed_ms=n % 900)
        else:
            code = codes[n // every % len(codes)]
            check = CheckResult(301, f"{loc}/new", 200, hops, n % 4000, findings=(finding(code),))
        out.append(UrlRecord(loc, (f"https://example.com/sitemap-{n // 50_000}.xml",), check=check))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--urls", type=int, default=1_000_000)
    parser.add_argument("--failing", type=float, default=0.1, help="share of URLs with a finding")
    args = parser.parse_args()
    made = records(args.urls, args.failing)
    summary, samples = Summary(), Samples()
    started = time.perf_counter()
    for start in range(0, len(made), BATCH):
        batch = made[start : start + BATCH]
        for record in batch:
            summary.add_url(record)
        samples.add_urls(batch)
    fed = time.perf_counter()
    highlights_only = Samples()
    for start in range(0, len(made), BATCH):
        highlights_only.add_urls(made[start : start + BATCH])
    sampled = time.perf_counter()
    facts = RunFacts(
        title="example.com",
        generated_at=datetime.now(UTC),
        tool="bench",
        complete=True,
        duration_s=60.0,
        config={},
        json_name="r.json",
    )
    verdict = judge(summary, samples, complete=True, failed=False, fail_on=FailOn.ERROR).verdict
    view = build_view(summary, samples, verdict=verdict, facts=facts, targets=())
    built = time.perf_counter()
    page = render_html(view)
    rendered = time.perf_counter()
    print(f"records                    {args.urls:>12,}  ({args.failing:.0%} with a finding)")
    print(f"summary + samples fed   {fed - started:>10.3f} s")
    print(f"samples alone           {sampled - fed:>10.3f} s  (the cost the HTML adds to the sink)")
    print(f"view built                 {built - sampled:>10.3f} s")
    print(f"HTML rendered              {rendered - built:>10.3f} s")
    print(f"HTML size                  {len(page.encode()):>12,} bytes")


if __name__ == "__main__":
    main()
