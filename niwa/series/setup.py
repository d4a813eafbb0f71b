"""Checks a series makes before its first game: the bots, the game, the sandbox."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass

from niwa.cli import UsageError
from niwa.commands.play import build_spec
from niwa.referee.match import BotSpec, MatchSpec, check_bots_play, check_sandbox, load_game
from niwa.referee.sandbox import SandboxUnavailable, bwrap
from niwa.series.names import bot_names


def check_seating(args: argparse.Namespace, seats: Sequence[str]) -> MatchSpec:
    """The match ``niwa play`` would build for this seating (same checks, same
    defaults), and every check ``run_match`` makes before it starts a bot, so that a
    bad bot or a missing sandbox is one usage error, not a failure in every worker."""
    one = argparse.Namespace(
        game=args.game, bot=list(seats), time=args.time, option=args.option, seed=0,
        in_process=False, max_failures=3, no_sandbox=args.no_sandbox, replay=None,
        log_dir=None, ponder=getattr(args, "ponder", False),
    )
    spec = build_spec(one)
    try:
        check_bots_play(load_game(spec.game).info.name, spec.bots)
    except ValueError as e:
        raise UsageError(str(e)) from None
    if spec.sandbox:
        try:
            bwrap()
            check_sandbox([b for b in spec.bots if not b.is_builtin])
        except (SandboxUnavailable, ValueError) as e:
            raise UsageError(str(e)) from None
    return spec


def parse_bots(texts: Sequence[str]) -> list[BotSpec]:
    """Each ``--bot`` parsed (a directory made absolute, its bot.toml read)."""
    out = []
    for text in texts:
        try:
            out.append(BotSpec.parse(text))
        except ValueError as e:  # an unknown built-in, or a bot.toml's own error
            raise UsageError(str(e)) from None
    return out


@dataclass(frozen=True)
class Entrants:
    """A series' bots: ``ids`` (the given bots) and ``field_ids`` are the names its
    tables and JSON use (:func:`labels` of the display names); ``spec`` maps each to
    the text a worker parses again, ``name`` to its display name (for replays)."""

    ids: list[str]
    field_ids: list[str]
    spec: dict[str, str]
    name: dict[str, str]


def entrants(bots: Sequence[str], field: Sequence[str] = ()) -> Entrants:
    """The ``--bot`` and ``--field`` texts as a series' entrants, named as their
    authors name them (:func:`niwa.series.names.bot_names`, over both lists at once:
    a field bot may share a ``name@version`` with a given one)."""
    specs = parse_bots([*bots, *field])
    names = bot_names(specs)
    ids = labels(names[: len(bots)])
    field_ids = labels(names[len(bots) :], suffix=" (field)")
    every = ids + field_ids
    return Entrants(
        ids, field_ids,
        spec=dict(zip(every, map(str, specs), strict=True)),
        name=dict(zip(every, names, strict=True)),
    )  # fmt: skip


def labels(texts: Sequence[str], suffix: str = "") -> list[str]:
    """A distinct name per bot (a repeated one gets #2, #3, ...)."""
    seen: dict[str, int] = {}
    out = []
    for text in texts:
        seen[text] = seen.get(text, 0) + 1
        out.append(text + suffix + (f"#{seen[text]}" if seen[text] > 1 else ""))
    return out
