"""Checks a series makes before its first game: the bots, the game, the sandbox."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from niwa.cli import UsageError
from niwa.commands.play import build_spec
from referee.match import BotSpec, MatchSpec, check_bots_play, check_sandbox, load_game
from referee.sandbox import SandboxUnavailable, bwrap


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


def parse_bots(texts: Sequence[str]) -> list[str]:
    """Each ``--bot`` as the spec a worker parses again (a directory made absolute)."""
    out = []
    for text in texts:
        try:
            out.append(str(BotSpec.parse(text)))
        except ValueError as e:  # an unknown built-in, or a bot.toml's own error
            raise UsageError(str(e)) from None
    return out


def labels(texts: Sequence[str], suffix: str = "") -> list[str]:
    """A distinct name per bot as given (a repeated one gets #2, #3, ...)."""
    seen: dict[str, int] = {}
    out = []
    for text in texts:
        seen[text] = seen.get(text, 0) + 1
        out.append(text + suffix + (f"#{seen[text]}" if seen[text] > 1 else ""))
    return out
