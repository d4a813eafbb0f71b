"""Sakura snapshots: ``to_json``/``from_json`` through the engine's snapshot envelope.

The envelope (niwa.engine.snapshot) stamps every snapshot with the rules version and the
SHA-256 of the board, card and config files; ``state`` holds the fields below. Card
piles are lists of order numbers, sorted (the deck is unordered).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final

from niwa.engine.api import JSON, OptionError
from niwa.engine.rulesets.sakura import rules
from niwa.engine.rulesets.sakura.garden import set_up
from niwa.engine.snapshot import SnapshotFormat, data_digest

if TYPE_CHECKING:
    from niwa.engine.rulesets.sakura.state import SakuraState

FORMAT: Final = SnapshotFormat(
    "sakura", rules.VERSION, data_digest("niwa.engine.rulesets.sakura", rules.DATA_FILES)
)

FIELDS: Final = frozenset(
    {
        "players",
        "options",
        "phase",
        "round",
        "emperor",
        "painters",
        "tokens",
        "supply",
        "scored",
        "hands",
        "deck",
        "discard",
        "played",
        "cursor",
        "step",
        "halt",
        "draws",
        "supplier",
        "scorings",
    }
)


def encode(s: SakuraState) -> dict[str, JSON]:
    """The snapshot fields of ``s`` (the envelope's ``state``)."""
    g = s.garden
    return {
        "players": s.players,
        "options": dict(s.options),
        "phase": s.phase,
        "round": s.round,
        "emperor": g.emperor,
        "painters": g.painters.copy(),
        "tokens": g.tokens.copy(),
        "supply": g.supply,
        "scored": g.scored.copy(),
        "hands": [sorted(h) for h in s.hands],
        "deck": sorted(s.deck),
        "discard": sorted(s.discard),
        "played": [e.copy() for e in s.played],
        "cursor": s.cursor,
        "step": s.step,
        "halt": s.halt,
        "draws": s.draws.copy(),
        "supplier": s.supplier,
        "scorings": [dict(r, awards=[a.copy() for a in r["awards"]]) for r in s.scorings],
    }


def options_of(given: Mapping[str, Any]) -> dict[str, Any]:
    """A snapshot's options, each checked against the game's option schema."""
    schema = {o.name: o for o in rules.config().options}
    unknown = sorted(set(given) - set(schema))
    if unknown:
        raise OptionError(f"sakura has no option {unknown[0]!r} (its options: {', '.join(schema)})")
    return {name: o.check(given[name]) for name, o in schema.items()}


def decode(d: Mapping[str, JSON], cls: type[SakuraState]) -> SakuraState:
    """A state of class ``cls`` from the snapshot fields ``d`` (see :func:`encode`)."""
    s = cls.__new__(cls)
    s._legal = {}
    s._outcomes = None
    s._view = None
    s.players = int(d["players"])
    s.options = options_of(d["options"])
    s.cards = rules.decks()[s.options["deckMix"]]
    s.garden = set_up(s.players)
    s.garden.emperor = d["emperor"]
    s.garden.painters = list(d["painters"])
    s.garden.tokens = list(d["tokens"])
    s.garden.supply = d["supply"]
    s.garden.scored = list(d["scored"])
    s.hands = [sorted(h) for h in d["hands"]]  # the state relies on sorted piles
    s.deck = sorted(d["deck"])
    s.discard = list(d["discard"])
    s.phase = d["phase"]
    s.round = d["round"]
    s.played = [list(e) for e in d["played"]]
    s.cursor = d["cursor"]
    s.step = d["step"]
    s.halt = d["halt"]
    s.draws = list(d["draws"])
    s.supplier = d["supplier"]
    s.scorings = [dict(r, awards=[list(a) for a in r["awards"]]) for r in d["scorings"]]
    return s
