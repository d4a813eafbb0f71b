"""``--config FILE``: a TOML file whose keys are a command's flags.

Built from the argparse parser itself, so a flag added to a command has a key with no
code here: the key is the flag's ``dest`` (``--max-streams-per-address`` is
``max_streams_per_address``), a flag in an argument group of its own is a key in the
table named after the group's title. A flag given on the command line wins over the file.
"""

from __future__ import annotations

import argparse
import re
import tomllib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from niwa.errors import CommandError

#: Actions that are never keys: they are not settings.
_NOT_KEYS = ("help", "version", "config")


class ConfigError(CommandError):
    """The file cannot be used; the message names the file, the key, the line and the fix."""


def add_option(parser: argparse.ArgumentParser) -> None:
    """Give a command ``--config FILE``; its other flags become the file's keys."""
    parser.add_argument(
        "--config", type=Path, metavar="FILE",
        help="read the flags from this TOML file (keys: the flags' names with _ for -, "
        "e.g. max_streams = 64); flags given here win over the file",
    )  # fmt: skip


def leaf_parser(
    parser: argparse.ArgumentParser, args: argparse.Namespace
) -> argparse.ArgumentParser:
    """The sub-command parser that parsed ``args`` (``niwa ladder serve`` -> serve's)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            chosen = getattr(args, action.dest, None)
            if chosen in action.choices:
                return leaf_parser(action.choices[chosen], args)
    return parser


def apply(parser: argparse.ArgumentParser, argv: Sequence[str], args: argparse.Namespace) -> None:
    """Fill ``args`` from ``args.config`` where the command line did not give a flag."""
    path: Path | None = getattr(args, "config", None)
    if path is None:
        return
    leaf = leaf_parser(parser, args)
    values = load(path, keys(leaf))
    given = _given(parser, leaf, argv)
    for dest, value in values.items():
        if dest not in given:
            setattr(args, dest, value)


def keys(parser: argparse.ArgumentParser) -> dict[tuple[str, str], argparse.Action]:
    """(table, key) -> the flag it sets; table "" is the file's top level."""
    tables = {id(a): _table(g.title) for g in parser._action_groups[2:] for a in g._group_actions}
    return {
        (tables.get(id(a), ""), a.dest): a
        for a in parser._actions
        if a.option_strings
        and a.dest not in _NOT_KEYS
        and not isinstance(a, argparse._SubParsersAction)
    }


def _table(title: str | None) -> str:
    return re.sub(r"[^a-z0-9]+", "_", (title or "").lower()).strip("_")


def load(path: Path, known: dict[tuple[str, str], argparse.Action]) -> dict[str, Any]:
    """The file's settings as argparse would have parsed them, by ``dest``."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise ConfigError(f"cannot read the config file {path}: {e.strerror}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"the config file {path} is not UTF-8 text") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: not valid TOML: {e}") from None
    tables = {t for t, _ in known if t}
    values: dict[str, Any] = {}
    for key, value in data.items():
        if key in tables and isinstance(value, dict):
            for inner, item in value.items():
                values.update(_setting(path, text, known, key, inner, item))
        else:
            values.update(_setting(path, text, known, "", key, value))
    return values


def _setting(path: Path, text: str, known: dict[tuple[str, str], argparse.Action],
             table: str, key: str, value: Any) -> dict[str, Any]:  # fmt: skip
    where = f"{path}{_line(text, table, key)}"
    name = f"{table}.{key}" if table else key
    action = known.get((table, key))
    if action is None:
        hint = ""
        if (table, key.replace("-", "_")) in known:
            hint = f" (did you mean {key.replace('-', '_')}? keys use _ where flags use -)"
        valid = ", ".join(sorted(f"{t}.{k}" if t else k for t, k in known))
        raise ConfigError(f"{where}: unknown key {name!r}{hint}; the keys are: {valid}")
    try:
        return {action.dest: _convert(action, value)}
    except (TypeError, ValueError, argparse.ArgumentTypeError) as e:
        raise ConfigError(f"{where}: key {name!r}: {e}") from None


def _convert(action: argparse.Action, value: Any) -> Any:
    """``value`` checked and converted as argparse would the flag's text."""
    flag = action.option_strings[-1]
    if action.nargs == 0:  # store_true and the like
        if not isinstance(value, bool):
            raise TypeError(f"expected true or false (like {flag}), got {_kind(value)}")
        return value if action.const is True else (action.const if value else action.default)
    if isinstance(action, argparse._AppendAction):
        items = value if isinstance(value, list) else [value]
        return [_one(action, item) for item in items]
    return _one(action, value)


def _one(action: argparse.Action, value: Any) -> Any:
    kind = action.type
    if kind is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"expected a whole number, got {_kind(value)}")
        result: Any = value
    elif kind is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise TypeError(f"expected a number, got {_kind(value)}")
        result = float(value)
    elif isinstance(value, (str, int)) and not isinstance(value, bool) and callable(kind):
        result = kind(str(value))  # the flag's own parser (Path, a range check...)
    elif isinstance(value, str) and kind is None:
        result = value
    else:
        raise TypeError(f"expected a string, got {_kind(value)}")
    if action.choices is not None and result not in action.choices:
        raise ValueError(f"{result!r} is not one of {', '.join(map(repr, action.choices))}")
    return result


def _kind(value: Any) -> str:
    names = {bool: "a boolean", int: "a whole number", float: "a number", str: "a string",
             list: "an array", dict: "a table"}  # fmt: skip
    return f"{names.get(type(value), type(value).__name__)} ({value!r})"


def _line(text: str, table: str, key: str) -> str:
    """``, line N``: the line that sets ``key`` (under ``[table]``), if it can be found."""
    current = ""
    pattern = re.compile(rf"""\s*["']?{re.escape(key)}["']?\s*=""")
    for number, line in enumerate(text.splitlines(), 1):
        header = re.match(r"\s*\[\s*([^\]]+?)\s*\]", line)
        if header:
            current = header.group(1).strip("\"'")
        elif current == table and pattern.match(line):
            return f", line {number}"
    return ""


def _given(parser: argparse.ArgumentParser, leaf: argparse.ArgumentParser,
           argv: Sequence[str]) -> set[str]:  # fmt: skip
    """The dests the command line set: argv parsed again with no defaults at all."""
    saved = [(a, a.default) for a in leaf._actions]
    saved_defaults = dict(leaf._defaults)
    try:
        for action in leaf._actions:
            action.default = argparse.SUPPRESS
        leaf._defaults.clear()
        again = parser.parse_args(argv)
    finally:
        for action, default in saved:
            action.default = default
        leaf._defaults.update(saved_defaults)
    return set(vars(again))
