"""`--metrics`: a Prometheus textfile, read back with prometheus_client's own parser."""

from __future__ import annotations

from pathlib import Path

from prometheus_client import generate_latest
from prometheus_client.parser import text_string_to_metric_families
from prometheus_client.samples import Sample

from auditor.demo.documents import Page, url, urlset, xml_page
from auditor.demo.server import serve
from auditor.report.metrics import RunMetrics, last_success, metrics_registry
from auditor.results.summary import Summary
from tests.helpers import run_audit
from tests.wings.baseline.nightly_site import NightlySite


def samples(path: Path) -> dict[str, list[Sample]]:
    """Samples by name; parsing fails the test on anything that is not the text format."""
    out: dict[str, list[Sample]] = {}
    for family in text_string_to_metric_families(path.read_text()):
        assert family.name.startswith("sitemap_audit_")
        for sample in family.samples:
            out.setdefault(sample.name, []).append(sample)
    return out


def value(found: dict[str, list[Sample]], name: str, **labels: str) -> float:
    matching = [s.value for s in found[name] if labels.items() <= s.labels.items()]
    assert len(matching) == 1, (name, labels, found.get(name))
    return matching[0]


async def test_metrics_file_of_a_checked_site(tmp_path: Path) -> None:
    def routes(base: str) -> dict[str, Page]:
        locs = [f"{base}/ok", f"{base}/gone", f"{base}/ok2"]
        return {
            "/sitemap.xml": xml_page(urlset([url(loc) for loc in locs])),
            "/ok": Page(200, b"ok"),
            "/ok2": Page(200, b"ok"),
        }

    metrics = tmp_path / "audit.prom"
    async with serve(routes) as served:
        audited = await run_audit(
            tmp_path, f"{served.base}/sitemap.xml", no_check=False, metrics=metrics
        )
    target = f"{served.base}/sitemap.xml"
    found = samples(metrics)
    assert audited.result.exit_code == 1
    assert value(found, "sitemap_audit_urls", target=target) == 3
    assert value(found, "sitemap_audit_urls_checked", target=target) == 3
    assert value(found, "sitemap_audit_urls_by_status_class", status_class="2xx") == 2
    assert value(found, "sitemap_audit_urls_by_status_class", status_class="4xx") == 1
    assert value(found, "sitemap_audit_findings", code="http.not_found", severity="error") == 1
    assert value(found, "sitemap_audit_findings_by_severity", severity="error") == 1
    assert value(found, "sitemap_audit_findings_by_severity", severity="notice") == 0
    assert value(found, "sitemap_audit_sitemaps", kind="urlset") == 1
    assert value(found, "sitemap_audit_complete") == 1
    assert value(found, "sitemap_audit_exit_code") == 1
    assert value(found, "sitemap_audit_bytes_read") > 0
    assert value(found, "sitemap_audit_last_success_timestamp_seconds") > 0
    assert "sitemap_audit_duration_seconds" in found
    assert list(tmp_path.glob("*.tmp")) == []  # the temp file was renamed over


def test_an_interrupted_run_keeps_the_last_success_time() -> None:
    done = RunMetrics("t", complete=True, exit_code=0, duration_s=1.0, finished_at_s=1000.0)
    first = generate_latest(metrics_registry(Summary(), done, last_success_s=None)).decode()
    assert last_success(first, "t") == 1000.0
    stopped = RunMetrics("t", complete=False, exit_code=3, duration_s=1.0, finished_at_s=2000.0)
    second = generate_latest(metrics_registry(Summary(), stopped, last_success_s=1000.0))
    assert last_success(second.decode(), "t") == 1000.0
    assert last_success(first, "other") is None
    assert last_success("garbage {{{", "t") is None


async def test_a_code_that_cleared_drops_to_zero(tmp_path: Path) -> None:
    """A dashboard's series of a fixed problem goes to 0; it does not just stop."""
    site = NightlySite(["/ok", "/gone"])
    site.set(["/gone"], status=404)
    metrics = tmp_path / "audit.prom"
    async with serve(site.routes) as served:
        target = f"{served.base}/sitemap.xml"
        await run_audit(tmp_path, target, no_check=False, metrics=metrics)
        first = samples(metrics)
        assert value(first, "sitemap_audit_findings", code="http.not_found") == 1
        site.listed = ["/ok"]
        await run_audit(tmp_path, target, no_check=False, metrics=metrics)
    second = samples(metrics)
    assert value(second, "sitemap_audit_findings", code="http.not_found") == 0
