"""The one table of options: the parser, the key readers and the library are made from it."""

from __future__ import annotations

from enum import Enum
from pathlib import Path

import pytest

from auditor.api.keywords import config_of
from auditor.cli.parser import build_parser
from auditor.config import RANGES, option_name
from auditor.errors import UsageError
from auditor.flow.registry import WINGS
from auditor.options.core_rows import CORE
from auditor.options.row import FIELDS, Kind, Option, Place
from auditor.options.table import BY_DEST, OPTIONS, defaults, grouped
from auditor.options.values import option_values

TARGET = "https://example.com/"


def sample(option: Option) -> object:
    """A value the option takes, as a TOML file or a keyword would give it."""
    if option.positional or option.repeat:
        return [TARGET] if option.positional else ["x"]
    match option.kind:
        case Kind.FLAG:
            return True
        case Kind.COUNT:
            return 1
        case Kind.CHOICE:
            return option.choices[-1]
        case Kind.NUMBER | Kind.DURATION:
            number_range = option.number_range
            assert number_range is not None
            return number_range.most
        case _:
            return "some-file.txt" if option.kind is Kind.PATH else "text"


def test_names_are_unique_and_flags_are_the_ranges_names() -> None:
    assert len(BY_DEST) == len(OPTIONS)
    for option in OPTIONS:
        if option.number_range is not None:
            assert option_name(option.setting or option.dest) == option.flag


def test_the_parser_starts_from_the_tables_defaults() -> None:
    assert vars(build_parser().parse_args([])) == defaults()


def test_help_shows_every_option_in_its_group() -> None:
    text = build_parser().format_help()
    for group, options in grouped():
        section = text.split(f"\n{group.value}:\n", 1)[1] if group.value else text
        for option in options:
            shown = option.metavar if option.positional else option.flag
            assert shown is not None
            assert shown in section
    assert "[-q | -v]" in text  # one of the exclusive pair


@pytest.mark.parametrize("option", OPTIONS, ids=lambda option: option.name)
@pytest.mark.parametrize("place", list(Place))
def test_a_key_is_taken_exactly_where_the_table_says(option: Option, place: Place) -> None:
    key = option.dest if place is Place.LIBRARY else option.name  # a keyword; a TOML key
    table = {key: sample(option)}
    if place in option.places:
        assert option.dest in option_values(table, place=place, base=Path("/base"))
    else:
        with pytest.raises(UsageError, match=repr(key)):
            option_values(table, place=place)


def test_the_library_refuses_the_commands_own_options_by_name() -> None:
    for option in OPTIONS:
        if Place.LIBRARY not in option.places and Place.CONFIG in option.places:
            with pytest.raises(UsageError, match="option of the command"):
                config_of([TARGET], {option.dest: sample(option)})


def test_a_relative_path_in_a_file_is_the_files() -> None:
    values = option_values({"state": "s.json"}, place=Place.CONFIG, base=Path("/etc/audit"))
    assert values["state"] == Path("/etc/audit/s.json")


def test_every_field_of_the_configuration_has_its_row_but_the_librarys_own() -> None:
    """AuditConfig and the table agree: a field is an option's, or a library setting alone."""
    fields_of_rows = [option.field for option in OPTIONS if option.field is not None]
    assert len(fields_of_rows) == len(set(fields_of_rows))  # one row a field
    library_only = {key for key, number_range in RANGES.items() if not number_range.option}
    assert set(FIELDS) - set(fields_of_rows) == library_only


@pytest.mark.parametrize("option", [o for o in OPTIONS if o.field], ids=lambda option: option.name)
def test_a_rows_default_and_range_are_its_fields(option: Option) -> None:
    """One declaration: the row reads its field's default and range, never its own."""
    assert option.field is not None
    field = FIELDS[option.field]
    assert option.default is None  # declared on the field alone
    shown = field.default.value if isinstance(field.default, Enum) else field.default
    if not option.repeat:
        assert option.shown_default() == shown
    if option.number_range is not None:
        assert option.number_range is field.metadata["range"]
    elif option.kind in (Kind.NUMBER, Kind.DURATION):
        pytest.fail(f"{option.flag} has no range")


def test_each_wing_declares_its_own_rows() -> None:
    """A wing's options are rows of its own, of fields, none the core's or another wing's."""
    core = {option.dest for option in CORE}
    seen: set[str] = set()
    for wing in WINGS:
        dests = {row.dest for row in wing.rows}
        assert dests.isdisjoint(core | seen), wing.name
        assert all(row.field is not None for row in wing.rows), wing.name
        seen |= dests
    assert {option.dest for option in OPTIONS} == core | seen
