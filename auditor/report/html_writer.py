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
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path

import jinja2
from markupsafe import Markup, escape

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
    environment.filters["breakable"] = breakable
    environment.filters["plural"] = plural
    return environment


def plural(count: int, noun: str) -> str:
    """`1 document`, `2,000 documents`."""
    return f"{count:,} {noun}{'' if count == 1 else 's'}"


def breakable(text: str) -> Markup:
    """A URL, escaped, in its parts: a line breaks between them, inside one only if it must.

    A `<wbr>` after each run of slashes and before the query marks where a line may break. A
    part a browser could break inside on its own (after a `-`, say) is a span the CSS keeps
    whole unless it is wider than its line: `/p/100` never shows as `/p/10` and `0`, nor
    `archive-index.xml` as `archive-` and `index.xml`.
    """
    parts = (part for part in _PARTS.split(text) if part)
    shown = (
        f"<span>{escape(part)}</span>" if _BREAKS_INSIDE.search(part) else str(escape(part))
        for part in parts
    )
    return Markup("<wbr>".join(shown))  # noqa: S704 - every part escaped above


# Where a URL's parts meet: after a run of slashes, before its query.
_PARTS = re.compile(r"(?<=/)(?!/)|(?=\?)")
# A part of letters, digits, dots and the scheme's colon offers a browser no place to break
# (UAX #14); any other character may (`-`, `=`, `_` beside them, a space, a non-ASCII letter).
_BREAKS_INSIDE = re.compile(r"[^A-Za-z0-9.:/]")


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
    assets = report_assets()
    template = _template()
    return template.render(view=view, css=assets.css, js=assets.js, csp=assets.csp)


def write_page(path: Path, page: str) -> None:
    """A rendered page, published atomically (blocking: in a thread, or out of any event loop).

    A lone surrogate (an undecodable file name) cannot be UTF-8: it is shown as "?".
    """
    write_atomically(path, page.encode("utf-8", "replace"))


# The report's template compiled ahead (jinja2 compiles a template to Python each time it is
# loaded: a tenth of a second, every run), kept beside it as Python source in a data file (it is
# generated, not one of our modules). Made by `compiled_template`; a test keeps it in step with
# the template, and a run reads the template itself when it is not (another jinja2).
COMPILED_PATH = Path(__file__).parent / "templates" / f"{TEMPLATE}.compiled"


@cache
def _template() -> jinja2.Template:
    environment = _environment("auditor.report")
    source = _template_source()
    try:
        compiled = COMPILED_PATH.read_text("utf-8")
    except OSError:  # pragma: no cover - shipped with the package
        compiled = ""
    stamp = _stamp(source)
    if compiled[: len(stamp) + 512].find(stamp) < 0:
        return environment.get_template(TEMPLATE)
    namespace: dict[str, object] = {
        "__name__": "auditor.report.compiled",
        "__file__": str(COMPILED_PATH),
    }
    exec(compile(compiled, str(COMPILED_PATH), "exec"), namespace)  # noqa: S102 - our own file
    return environment.template_class.from_module_dict(
        environment, namespace, environment.make_globals(None)
    )


def _stamp(source: bytes) -> str:
    """What the compiled file says it was made from: this jinja2, this template."""
    digest = hashlib.sha256(source).hexdigest()
    return f"JINJA2 = {jinja2.__version__!r}\nSOURCE_SHA256 = {digest!r}\n"


def _template_source() -> bytes:
    folder = resources.files("auditor.report").joinpath("templates")
    return folder.joinpath(TEMPLATE).read_bytes()


def compiled_template() -> str:
    """The report's template compiled to Python source, as `COMPILED_PATH` holds it.

    Written by `python -c "from auditor.report.html_writer import write_compiled_template as w;
    w()"` after the template changes (CONTRIBUTING.md, "The HTML report's template").
    """
    environment = _environment("auditor.report")
    source = _template_source()
    code = environment.compile(
        source.decode("utf-8"), TEMPLATE, TEMPLATE, raw=True, defer_init=True
    )
    head = (
        f"# The HTML report's template ({TEMPLATE}) compiled by jinja2: generated, never edited.\n"
        "# auditor.report.html_writer reads it; `compiled_template` writes it.\n\n" + _stamp(source)
    )
    return head + code + "\n"


def write_compiled_template() -> None:
    """Write `COMPILED_PATH` anew from the template (after it changed)."""
    COMPILED_PATH.write_text(compiled_template(), "utf-8")


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
