"""Sparring partners: built-in bots rated in every game beside the submitted ones.

Built-in bots normally stay in ``reserve`` (they only fill validation matches), so a
game with one submitted bot has nobody to play. ``niwa ladder serve --sparring
builtin:greedy,builtin:mcts`` makes those built-ins active, rated bots in every game of
the ladder; the choice is kept in the store, so later starts keep it, and ``--sparring
none`` puts them back in reserve. Partners are there for the submitted bots: every
match they play has a submitted, active bot at the table (:mod:`niwa.ladder.scheduler`), so a
game nobody entered plays nothing. The demo's built-ins are not partners (it never
chooses sparring) and play each other.
"""

from __future__ import annotations

from collections.abc import Sequence

from niwa.errors import LadderError
from niwa.ladder import submission
from niwa.ladder.store import ACTIVE, HUMAN_SOURCE, RESERVE, SYSTEM_OWNER, Store
from niwa.referee.match import BotSpec

#: Where the choice is kept (the store's settings table, like the quotas).
SETTING = "sparring"
PREFIX = "builtin:"
NONE = "none"
#: What the ladder says to do when a game cannot make a match.
FIX = "add --sparring builtin:greedy or submit another bot"
#: What the runner logs (once) of a game where only sparring partners are active.
IDLE = {
    "reason": "sparring partners play only submitted bots, and none is active in this game",
    "fix": "submit a bot to this game (niwa ladder submit)",
}


class SparringError(LadderError, ValueError):
    """A sparring list that names something other than a built-in bot."""


def parse(text: str) -> tuple[str, ...]:
    """``builtin:greedy,builtin:mcts`` as a tuple of those specs; ``none`` (or "") is
    the empty tuple. Raises SparringError (one line, naming the fix)."""
    if text.strip().lower() in ("", NONE):
        return ()
    specs: list[str] = []
    for part in text.split(","):
        spec = part.strip()
        if not spec.startswith(PREFIX):
            raise SparringError(
                f"sparring partner {spec[:80]!r}: only built-in bots spar, e.g. "
                "builtin:greedy (submitted bots join with niwa ladder submit)"
            )
        try:
            BotSpec.parse(spec)
        except ValueError as e:
            raise SparringError(f"sparring partner {spec[:80]!r}: {e}") from None
        if spec not in specs:
            specs.append(spec)
    return tuple(specs)


def needed(min_players: int) -> int:
    """The fewest bots a match of a game needs (the ladder never plays solo)."""
    return max(min_players, 2)


def waiting(active: int, need: int, entrants: int | None = None) -> str:
    """What ``niwa ladder bots`` says of a game that cannot make a match ("" if it can).
    ``entrants``: its active submitted bots, while sparring partners are active (they
    play only with those); None otherwise."""
    if entrants == 0:
        return f"waiting: {IDLE['reason']}; {IDLE['fix']}"
    if active >= need:
        return ""
    return f"waiting: {active} active bots, a match needs {need}; {FIX}"


def kept(store: Store) -> tuple[str, ...] | None:
    """The sparring partners kept in the store; None if never chosen."""
    value = store.settings.setting(SETTING)
    return None if value is None else parse(value)


def apply(store: Store, games: Sequence[str], chosen: tuple[str, ...] | None) -> list[str]:
    """Keep ``chosen`` (None: keep what is stored) and make exactly those built-ins the
    active ones in every game of ``games``; return the partners' specs. A store where
    sparring was never chosen (the demo's) is left as it is."""
    if chosen is not None:
        store.settings.set_setting(SETTING, ",".join(chosen) or NONE)
    specs = kept(store)
    if specs is None:
        return []
    for game in games:
        partners = {
            submission.builtin_bot(store, spec.removeprefix(PREFIX), game, ACTIVE).id
            for spec in specs
        }
        for bot in store.bots.bots(game, [ACTIVE]):
            if bot.owner == SYSTEM_OWNER and bot.id not in partners and bot.source != HUMAN_SOURCE:
                store.bots.set_bot_status(bot.id, RESERVE, "not a sparring partner")
    return list(specs)
