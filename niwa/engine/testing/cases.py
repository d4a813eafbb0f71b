"""Which (player count, options) set-ups the conformance suite runs a game at."""

from __future__ import annotations

from dataclasses import dataclass, field

from niwa import engine
from niwa.engine import Game


@dataclass(frozen=True)
class Case:
    """One set-up of one game: a player count and the options that differ from the
    defaults (empty: all defaults)."""

    game: Game
    players: int
    options: dict[str, object] = field(default_factory=dict)

    @property
    def label(self) -> str:
        """A test id: ``blossom-3p`` or ``blossom-2p-mulligan=True``."""
        extra = "".join(f"-{k}={v}" for k, v in self.options.items())
        return f"{self.game.info.name}-{self.players}p{extra}"


def as_game(game: Game | str) -> Game:
    """A Game object as is, or the game registered under that name."""
    return engine.load(game) if isinstance(game, str) else game


def default_cases(game: Game) -> list[Case]:
    """Every player count with the default options."""
    info = game.info
    return [Case(game, n) for n in range(info.min_players, info.max_players + 1)]


def option_cases(game: Game) -> list[Case]:
    """Each non-default value of every bool or choice option, alone, at the smallest and
    the largest player count (int options are ranges: a game's own tests pick values)."""
    info = game.info
    out: list[Case] = []
    for option in info.options:
        if option.kind == "bool":
            values: list[object] = [not option.default]
        elif option.kind == "choice":
            values = [c for c in option.choices if c != option.default]
        else:
            continue
        for value in values:
            for players in sorted({info.min_players, info.max_players}):
                out.append(Case(game, players, {option.name: value}))
    return out
