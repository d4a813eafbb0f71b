"""What a seat sees (``observe``) and the states consistent with it (``determinize``).

Nothing in Bonsai is secret from a player with a perfect memory: every card a player
holds was taken face up from the board, and the deck is an unordered multiset whose
contents follow from the cards seen so far (DECIDED, see docs/games/bonsai.md). So an
observation is the shared envelope, the full snapshot state and a few derived fields
(scores, capacities, deck size, solo progress), and determinize only reads it back.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from niwa.engine.api import JSON, envelope
from niwa.engine.rulesets.bonsai import codec
from niwa.engine.rulesets.bonsai.rules import EMPEROR_TARGET, SNAPSHOT, SOLO_LEVELS, VERSION

if TYPE_CHECKING:
    from niwa.engine.rulesets.bonsai.state import BonsaiState

#: Observation fields that are not part of the snapshot state (the envelope's ``game``
#: stands for the snapshot's rules version).
DERIVED = ("game", "seat", "to_move", "scores", "capacity", "deck_size", "solo")


def observe(s: BonsaiState, seat: int | None) -> dict[str, JSON]:
    """The envelope every niwa game starts with (game, seat, players, phase, to_move),
    then the snapshot state (all public, see the module docstring) and derived fields."""
    view = envelope(VERSION, seat, s.players, s.phase, s.to_move())
    view.update(codec.state_fields(s))
    view["scores"] = s.scores()
    view["capacity"] = [me.capacity() for me in s.seats]
    view["deck_size"] = s.deck_size()
    view["solo"] = _solo(s) if s.solo else None
    return view


def _solo(s: BonsaiState) -> dict[str, JSON]:
    """The solo scenario, its target and how far the player is (bonsai.md §8)."""
    return {
        "scenario": s.options["soloScenario"],
        "level": None if s.emperor else s.options["soloLevel"],
        "target": EMPEROR_TARGET if s.emperor else SOLO_LEVELS[s.options["soloLevel"]],
        "goals_claimed": len(s.seats[0].claimed),
        "won": s.solo_won(),
    }


def determinize(observation: Mapping[str, Any], blank: codec.Blank) -> BonsaiState:
    """The state ``observation`` shows (nothing is hidden, see above): its snapshot
    fields, stamped as a snapshot of the installed rules once its ``game`` says so."""
    if observation.get("game") != VERSION:
        raise ValueError(f"not a {VERSION} observation (game {observation.get('game')!r})")
    fields = {k: v for k, v in observation.items() if k not in DERIVED}
    return codec.from_json(SNAPSHOT.wrap(fields), blank)
