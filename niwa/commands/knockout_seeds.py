"""A knockout's seeding from a ladder store's leaderboard (``--seed-from DB``), read only."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from niwa.cli import UsageError
from niwa.commands.ladder_ops import existing_store
from niwa.ladder.reads import Reads
from niwa.ladder.store import StoreError
from niwa.ladder.store.base import SYSTEM_OWNER
from niwa.ladder.views import Leaderboard
from niwa.referee.match import BotSpec


@dataclass(frozen=True)
class Seeding:
    """``order``: the entrants' positions in the ``--bot`` list, the best seed first;
    ``elo``: the ladder rating of each one found rated."""

    order: list[int]
    elo: dict[int, float]


def ladder_key(spec: BotSpec) -> tuple[str, str]:
    """How the ladder knows a bot: a built-in by its source, a directory by its
    bot.toml's ``name@version``."""
    if spec.is_builtin:
        return ("builtin", str(spec))
    manifest = spec.manifest()
    return ("dir", f"{manifest.name}@{manifest.version}")


def from_board(board: Leaderboard, specs: Sequence[BotSpec]) -> Seeding:
    """The rated bots in the leaderboard's order, then the others as given. A bot is
    the highest-ranked rated row of its key (several owners may share a name)."""
    elo: dict[int, float] = {}
    rated: list[int] = []
    for row in board.rows:
        if not math.isfinite(row.ci95):
            continue  # not rated yet
        bot = row.bot
        key = (("builtin", bot.source) if bot.owner == SYSTEM_OWNER
               and bot.source.startswith("builtin:") else ("dir", f"{bot.name}@{bot.version}"))
        for i, spec in enumerate(specs):
            if i not in elo and ladder_key(spec) == key:
                elo[i] = row.elo
                rated.append(i)
    return Seeding(rated + [i for i in range(len(specs)) if i not in elo], elo)


def read_seeding(url: str, game: str, specs: Sequence[BotSpec]) -> Seeding:
    """The seeding from the store at ``url`` (not created, not migrated, not written)."""
    with existing_store(url) as store:
        try:
            boards = Reads(store, trusted=True).leaderboards(game)
        except StoreError as e:
            raise UsageError(f"--seed-from {url}: {e}") from None
    if not boards:
        raise UsageError(f"--seed-from {url}: the ladder has no {game} bots to seed from")
    return from_board(boards[0], specs)
