"""The command line's parser, made from the option table, and the run it asks for.

argparse does the parsing, `--help` and the errors; every flag, its type, default and group
come from auditor.options.table. UsageError (exit 2) for anything that cannot run.

See docs/reference/options.md.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from auditor.cli.numbers import InRange
from auditor.config import AuditConfig, Target, TargetKind
from auditor.errors import ConfigFileError, UsageError
from auditor.options.build import config_from_values, targets_from
from auditor.options.row import Kind, Option, Place, parse_duration
from auditor.options.table import grouped
from auditor.options.values import option_values, read_config_file

PROG = "sitemap-audit"
QUIET_ALL = 2  # -qq: nothing printed at all, the exit code speaks
_DEMO_PLACEHOLDER = Target("--demo", TargetKind.SITE, "http://127.0.0.1/")


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def build_parser(*, defaults: bool = True) -> argparse.ArgumentParser:
    """Every option of the table, in the groups `--help` shows (docs/reference/options.md).

    `defaults=False`: a parser whose namespace holds only the options given.
    """
    parser = _Parser(prog=PROG, description="Audit the sitemaps of a site.")
    for group, options in grouped():
        titled = parser.add_argument_group(group.value) if group.value else parser
        exclusive: dict[str, Any] = {}
        for option in options:
            where = titled
            if option.exclusive is not None:
                if option.exclusive not in exclusive:
                    exclusive[option.exclusive] = titled.add_mutually_exclusive_group()
                where = exclusive[option.exclusive]
            kwargs = _argument(option)
            if not defaults:
                kwargs["default"] = argparse.SUPPRESS
            names = [option.dest] if option.positional else [option.flag]
            where.add_argument(*([option.short] if option.short else []), *names, **kwargs)
    return parser


def _argument(option: Option) -> dict[str, Any]:
    """Argparse's keywords for one option."""
    kwargs: dict[str, Any] = {"help": option.said(), "default": option.default_value()}
    if option.metavar is not None:
        kwargs["metavar"] = option.metavar
    if option.positional:
        kwargs["nargs"] = "*"
    elif option.kind is Kind.FLAG:
        kwargs["action"] = "store_true"
    elif option.kind is Kind.COUNT:
        kwargs["action"] = "count"
    elif option.repeat:
        kwargs["action"] = "append"
    if option.kind is Kind.PATH:
        kwargs["type"] = Path
    elif option.kind is Kind.NUMBER:
        kwargs["type"] = InRange(option.setting or option.dest)
    elif option.kind is Kind.DURATION:
        kwargs["type"] = InRange(option.setting or option.dest, parse=parse_duration)
    if option.choices:
        kwargs["choices"] = option.choices
    if option.optional_value is not None:
        kwargs.update(nargs="?", const=option.optional_value)
    return kwargs


def parse_with_config(argv: Sequence[str] | None) -> argparse.Namespace:
    """Parse `argv`; with `--config`, the file's values first and the command line over them."""
    parser = build_parser()
    first = parser.parse_args(argv)
    if first.config is None:
        return first
    try:
        table = read_config_file(first.config)
        values = option_values(table, place=Place.CONFIG, base=first.config.parent)
    except ConfigFileError as exc:
        raise ConfigFileError(f"--config {first.config}: {exc}") from None
    # argparse keeps a namespace's existing attributes as defaults: command-line flags overwrite
    # them. Repeatable options start empty so that given ones replace the file's list.
    start = argparse.Namespace(**{k: v for k, v in values.items() if not isinstance(v, list)})
    merged = parser.parse_args(argv, start)
    for dest, value in values.items():
        if isinstance(value, list) and not getattr(first, dest):
            setattr(merged, dest, value)
    for one, other in (("quiet", "verbose"), ("verbose", "quiet")):
        if getattr(first, one):  # the command line's choice of the exclusive pair wins
            setattr(merged, other, False)
    return merged


def given_options(argv: Sequence[str] | None) -> set[str]:
    """The dests the command line and its --config set, defaults left out."""
    given = set(vars(build_parser(defaults=False).parse_args(argv)))
    config = build_parser().parse_args(argv).config
    if config is not None:
        given |= {key.replace("-", "_") for key in read_config_file(config)}
    return given


def parse_command(argv: Sequence[str] | None) -> tuple[argparse.Namespace, AuditConfig | None]:
    """The command line as options and a configuration; UsageError when it cannot run.

    No configuration for `--print-schema` and `--version` (they run nothing), nor for `--fleet`
    (each site's configuration is made by auditor.cli.fleet_file).
    """
    args = parse_with_config(argv)
    if args.print_schema or args.version or args.fleet is not None:
        return args, None
    for name in ("scheduler", "fleet_workers", "fleet_concurrency"):
        if getattr(args, name) is not None:
            raise UsageError(f"--{name.replace('_', '-')} goes with --fleet FILE")
    if args.demo and args.targets:
        raise UsageError("--demo audits the demo site only; give no TARGET with it")
    if not args.demo and not args.targets:
        raise UsageError("give at least one TARGET, or --demo")
    # The demo site's URL is only known once its server runs: a placeholder until then.
    targets = (_DEMO_PLACEHOLDER,) if args.demo else targets_from(args.targets)
    if args.serve is not None:
        _check_serve(args.serve, targets, demo=args.demo)
    return args, config_from_values(vars(args), targets)


def _check_serve(folder: Path, targets: tuple[Target, ...], *, demo: bool) -> None:
    """UsageError unless `--serve` has a folder to serve and a site's URL to map onto it."""
    if demo:
        raise UsageError("--serve audits a built folder, --demo the demo site: give one of them")
    if not folder.is_dir():
        raise UsageError(f"--serve {folder}: not a folder (give the built site's, as public/)")
    if all(target.path is not None for target in targets):
        raise UsageError(
            "--serve requests the site's URLs from the folder: give the site's URL as TARGET "
            "(https://docs.example.com/, as the sitemap names it), not a file"
        )
