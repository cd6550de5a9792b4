"""`--fleet FILE`: the fleet file's sites, each with its whole configuration, and the plan.

Two forms. Lines: one target per line, `#` starts a comment. TOML (a `.toml` file): a `[[site]]`
list, each with `target` (or `targets`), an optional `name`, and any long option of the command
as a key, checked exactly as `--config` checks it; a site's own options win over the command
line's (and `--config`'s). Blocking checks, before the fleet starts; UsageError (exit 2) naming
the file and line for anything that cannot run.
"""

from __future__ import annotations

import argparse
import logging
import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from auditor.cli.parser import given_options
from auditor.config import AuditConfig, FailOn
from auditor.errors import ConfigFileError, UsageError
from auditor.files import not_a_file, read_input
from auditor.fleet.dask_runner import ClusterSpec
from auditor.fleet.outputs import read_previous
from auditor.fleet.run import FleetPlan
from auditor.fleet.sites import FleetSite, folder_name
from auditor.limits import MAX_FLEET_FILE_BYTES
from auditor.options.build import config_from_values, targets_from
from auditor.options.row import Place, cores
from auditor.options.values import option_values
from auditor.report.section import printable
from auditor.urls import split_userinfo

SITE_HEADER = re.compile(r"^\s*\[\[\s*site\s*\]\]")
SITE_JUNIT = "junit.xml"  # each site's own JUnit file, in its folder, gathered by the fleet's


@dataclass(frozen=True, slots=True)
class FleetEntry:
    """One site as the fleet file writes it, not yet checked."""

    line: int
    targets: tuple[str, ...]
    name: str | None = None
    options: Mapping[str, object] | None = None  # TOML: the site's own option keys


def read_fleet_file(path: Path) -> list[FleetEntry]:
    """The file's sites, in order; ConfigFileError naming the line of anything malformed."""
    try:
        text = read_input(path, max_bytes=MAX_FLEET_FILE_BYTES).decode("utf-8")
    except OSError as exc:
        raise ConfigFileError(f"--fleet {path}: cannot read it ({exc.strerror})") from exc
    except UnicodeDecodeError as exc:
        raise ConfigFileError(f"--fleet {path}: not UTF-8 text ({exc.reason})") from exc
    entries = toml_entries(text, path) if path.suffix == ".toml" else line_entries(text, path)
    if not entries:
        raise ConfigFileError(f"--fleet {path}: no site in it")
    return entries


def line_entries(text: str, path: Path) -> list[FleetEntry]:
    """One target per line; blank lines and `#` comments (a whole line, or after a space)."""
    entries = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = re.split(r"(?:^|\s)#", raw, maxsplit=1)[0].strip()
        if not line:
            continue
        if len(line.split()) > 1:
            raise ConfigFileError(f"--fleet {path}: line {number}: one target per line")
        entries.append(FleetEntry(number, (line,)))
    return entries


def toml_entries(text: str, path: Path) -> list[FleetEntry]:
    """The `[[site]]` tables: `target` or `targets`, an optional `name`, option keys."""
    try:
        table = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigFileError(f"--fleet {path}: not valid TOML ({exc})") from exc
    unknown = sorted(set(table) - {"site"})
    if unknown:
        raise ConfigFileError(f"--fleet {path}: unknown key {unknown[0]!r} (a [[site]] list)")
    sites = table.get("site", [])
    if not isinstance(sites, list) or not all(isinstance(site, dict) for site in sites):
        raise ConfigFileError(f"--fleet {path}: 'site' must be a list of tables ([[site]])")
    headers = [n for n, line in enumerate(text.splitlines(), 1) if SITE_HEADER.match(line)]
    lines = headers if len(headers) == len(sites) else [1] * len(sites)
    return [_toml_entry(site, lines[i], path) for i, site in enumerate(sites)]


def _toml_entry(site: dict[str, object], line: int, path: Path) -> FleetEntry:
    where = f"--fleet {path}: line {line}"
    options = dict(site)
    name, one, many = options.pop("name", None), options.pop("target", None), None
    many = options.pop("targets", None)
    if name is not None and (not isinstance(name, str) or not name.strip()):
        raise ConfigFileError(f"{where}: key 'name' wants a non-empty string")
    if name is not None and not name.isprintable():  # an escape sequence, a line break
        raise ConfigFileError(f"{where}: key 'name' wants printable text, not {name!r}")
    if (one is None) == (many is None):
        raise ConfigFileError(f"{where}: give the site 'target' or 'targets' (one of them)")
    targets = [one] if many is None else many
    if not isinstance(targets, list) or not targets or not all(isinstance(t, str) for t in targets):
        raise ConfigFileError(f"{where}: 'target' wants a string, 'targets' a list of strings")
    return FleetEntry(line, tuple(targets), name.strip() if name else None, options)


def fleet_plan(args: argparse.Namespace, argv: Sequence[str] | None) -> FleetPlan:
    """The fleet's plan: its sites' configurations, its cluster, its outputs."""
    _check_fleet_args(args)
    source: Path = args.fleet
    entries = read_fleet_file(source)
    previous = read_previous(args.baseline) if args.baseline is not None else {}
    one_process = "workers" not in given_options(argv)
    names = _names(entries, source)
    sites = []
    for index, (entry, name) in enumerate(zip(entries, names, strict=True)):
        where = f"--fleet {source}: line {entry.line} ({name})"
        try:
            values = option_values(entry.options or {}, place=Place.SITE, base=source.parent)
            config = _site_config(args, values, entry, name, previous, one_process=one_process)
        except UsageError as exc:
            raise ConfigFileError(f"{where}: {exc}") from None
        sites.append(FleetSite(index, name, entry.line, config))
    _one_history_per_site(sites, source)
    cluster = ClusterSpec(
        scheduler=args.scheduler,
        workers=args.fleet_workers or cores(),
        concurrency=args.fleet_concurrency,
        dask_log_level=logging.WARNING if args.verbose else logging.CRITICAL,
    )
    return FleetPlan(
        source=source,
        sites=tuple(sites),
        cluster=cluster,
        out=args.out.absolute(),
        json=args.json.absolute() if args.json is not None else None,
        html=args.html.absolute() if args.html is not None else None,
        fail_on=FailOn(args.fail_on),
        metrics=args.metrics,
        junit=args.junit,
        baseline=args.baseline,
    )


def _check_fleet_args(args: argparse.Namespace) -> None:
    """UsageError for fleet-level options that cannot work with --fleet."""
    if args.targets or args.demo:
        raise UsageError("--fleet takes its sites from FILE: give no TARGET nor --demo with it")
    if args.json == Path("-"):
        raise UsageError("--json - with --fleet: the fleet summary needs a file (or --out)")
    for name in ("csv", "markdown", "keep"):
        if getattr(args, name) is not None:
            raise UsageError(f"--{name} is for a single site: with --fleet, each site's report")
    if args.scheduler is not None and args.fleet_workers is not None:
        raise UsageError("--fleet-workers sizes the embedded LocalCluster, not a --scheduler's")
    for name in ("json", "html", "metrics", "junit"):
        path = getattr(args, name)
        kind = None if path is None else not_a_file(path)  # a device would be replaced
        if kind is not None:
            raise UsageError(f"--{name} {path} is {kind}; give a file path")
    for name in ("state", "history"):
        folder = getattr(args, name)
        if folder is not None and folder.exists() and not folder.is_dir():
            raise UsageError(f"--{name} {folder}: with --fleet, a folder (one {name} per site)")


def _one_history_per_site(sites: Sequence[FleetSite], source: Path) -> None:
    """ConfigFileError when two sites would share a history file (each run holds it whole)."""
    taken: dict[Path, FleetSite] = {}
    for site in sites:
        path = site.config.history
        if path is None:
            continue
        first = taken.setdefault(path, site)
        if first is not site:
            raise ConfigFileError(
                f"--fleet {source}: line {site.line} ({site.name}): its history {path} is "
                f"{first.name}'s (line {first.line}); each site needs its own"
            )


def _names(entries: Sequence[FleetEntry], source: Path) -> list[str]:
    """Each site's name: its own, else its first target's host (or file name), numbered.

    ConfigFileError when two names would share a folder.
    """
    taken: dict[str, int] = {}
    for entry in entries:
        if entry.name is not None:
            key = folder_name(entry.name).lower()
            if key in taken:
                raise ConfigFileError(
                    f"--fleet {source}: line {entry.line}: the name {entry.name!r} is taken "
                    f"(line {taken[key]}); each site needs a name of its own"
                )
            taken[key] = entry.line
    names = []
    last: dict[str, int] = {}  # the last number given to a label: n sites of one host, not n²
    for entry in entries:
        if entry.name is not None:
            names.append(entry.name)
            continue
        label = _label(entry.targets[0])
        number = last.get(label, 1)
        name = label if number == 1 else f"{label}-{number}"
        while folder_name(name).lower() in taken:
            number += 1
            name = f"{label}-{number}"
        last[label] = number
        taken[folder_name(name).lower()] = entry.line
        names.append(name)
    return names


def _label(target: str) -> str:
    """A name for a site from its first target: the host (and port), or the file's stem.

    Never its userinfo (a password would name the site's folder), never a control character
    (an escape sequence in a file's name would reach the terminal and the JUnit file).
    """
    if "://" in target:
        bare, _ = split_userinfo(target)
        label = bare.split("://", 1)[1].split("/", 1)[0] or "site"
    elif "/" in target or Path(target).suffix in {".xml", ".gz", ".txt"}:
        label = Path(target).stem or "site"
    else:
        label = target  # a bare host: its https site
    return printable(label)


def _site_config(
    args: argparse.Namespace,
    values: Mapping[str, object],
    entry: FleetEntry,
    name: str,
    previous: Mapping[str, Path],
    *,
    one_process: bool,
) -> AuditConfig:
    """The site's configuration: the command line's options, the site's own over them.

    Its reports go to a folder of its own under --out (absolute: a worker elsewhere must find
    it); in a worker of the fleet, a site is audited in that worker's process (`--workers 1`)
    unless --workers or the site says otherwise.
    """
    site = {**vars(args), **values}
    if one_process and "workers" not in values:
        site["workers"] = 1
    folder = (args.out / folder_name(name)).absolute()
    site.update(out=folder, json=None, html=None, csv=None, metrics=None)
    site["junit"] = folder / SITE_JUNIT if args.junit is not None else None
    # The fleet gathers every site's cases into one file: the failing ones, not every URL's.
    site["junit_failures_only"] = True
    state = (args.state / f"{folder_name(name)}.state").absolute() if args.state else None
    if "history" not in values:  # the fleet's folder: a history per site
        kept = args.history
        site["history"] = (kept / f"{folder_name(name)}.history").absolute() if kept else None
    elif site["history"] is not None:
        site["history"] = site["history"].absolute()
    before = previous.get(name)
    site.update(state=state, baseline=before if before is not None and before.is_file() else None)
    if site["ca_file"] is not None:
        site["ca_file"] = site["ca_file"].absolute()
    targets = targets_from([_target(t, args.fleet) for t in entry.targets])
    return config_from_values(site, targets)


def _target(text: str, source: Path) -> str:
    """A target as written; a relative file path is taken from the fleet file's folder."""
    if "://" in text or Path(text).is_absolute():
        return text
    beside = source.parent / text
    return str(beside) if beside.is_file() else text
