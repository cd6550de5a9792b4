"""The HTML report: one self-contained file from the view, published atomically.

jinja2 with autoescape renders it; its CSS and JavaScript are inline and allowed by hash in a
Content-Security-Policy that forbids every request, so the page loads nothing from anywhere and
a string that slipped through escaping could still not run.

See docs/explanation/design.md#html-report.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path

import jinja2
from markupsafe import Markup

from auditor.errors import ReportWriteError
from auditor.files import write_atomically
from auditor.report.html_view import ReportView

TEMPLATE = "report.html.j2"


@dataclass(frozen=True, slots=True)
class Assets:
    """The report's inline CSS and script, and the policy that allows just them."""

    css: Markup
    js: Markup
    csp: str


def html_environment(package: str) -> jinja2.Environment:
    """jinja2 for one package's `templates/` (the site report's, the fleet index's).

    A name `other.package:file` is that package's template: a wing's part of the report
    (auditor.report.section.HtmlPart).
    """
    environment = jinja2.Environment(
        loader=jinja2.ChoiceLoader(
            [jinja2.PackageLoader(package, "templates"), jinja2.FunctionLoader(_qualified)]
        ),
        autoescape=True,  # every string is escaped unless the template says otherwise
        undefined=jinja2.StrictUndefined,  # a misspelt field fails the tests, not the reader
        trim_blocks=True,
        lstrip_blocks=True,
    )
    environment.filters["num"] = lambda n: f"{n:,}"
    return environment


def _qualified(name: str) -> str | None:
    """The text of `package:file`, a file of the package's `templates/` (None: no such name)."""
    package, colon, file = name.partition(":")
    if not colon:
        return None
    return resources.files(package).joinpath("templates", file).read_text("utf-8")


@cache
def _environment(package: str) -> jinja2.Environment:
    return html_environment(package)


@cache
def report_assets() -> Assets:
    """The CSS and script every page of ours carries inline (the fleet index's too)."""
    folder = resources.files("auditor.report").joinpath("templates")
    css = folder.joinpath("report.css").read_text("utf-8")
    js = folder.joinpath("report.js").read_text("utf-8")
    csp = "; ".join(
        (
            "default-src 'none'",
            f"style-src {_hash(css)}",
            f"script-src {_hash(js)}",
            "img-src data:",
            "base-uri 'none'",
            "form-action 'none'",
        )
    )
    return Assets(Markup(css), Markup(js), csp)  # noqa: S704 - our own files, never input


def _hash(source: str) -> str:
    """CSP 3: an inline element is allowed when the hash of its exact text is listed."""
    digest = hashlib.sha256(source.encode()).digest()
    return f"'sha256-{base64.b64encode(digest).decode()}'"


def render_page(package: str, template: str, view: object) -> str:
    """One page of ours: `package`'s template, rendered from `view`, our CSS and script inline.

    The site report's (`render_html`), and the fleet's index (auditor.fleet.index_html).
    """
    assets = report_assets()
    page = _environment(package).get_template(template)
    return page.render(view=view, css=assets.css, js=assets.js, csp=assets.csp)


def render_html(view: ReportView) -> str:
    """The report as one HTML document."""
    return render_page("auditor.report", TEMPLATE, view)


def write_page(path: Path, page: str) -> None:
    """A rendered page, published atomically (blocking: in a thread, or out of any event loop).

    A lone surrogate (an undecodable file name) cannot be UTF-8: it is shown as "?".
    """
    write_atomically(path, page.encode("utf-8", "replace"))


async def write_html(path: Path, view: ReportView) -> None:
    """Render and publish the report at `path`; ReportWriteError when that fails.

    Bounded work (the view is), done in a thread: the event loop never waits on the disk.
    """
    try:
        await asyncio.to_thread(_render_and_replace, path, view)
    except OSError as exc:
        raise ReportWriteError(f"cannot write the HTML report {path}: {exc}") from exc


def _render_and_replace(path: Path, view: ReportView) -> None:
    write_page(path, render_html(view))
