"""What a seat sees (observe) and how a full state is rebuilt from it (determinize).

Hidden in Sakura (sakura.md §6 #2): the other seats' hands and the deck. Everything else
(the path, tokens, this round's revealed cards, the discard pile) is public. A joint move
reveals every simultaneous choice at once, so no state ever holds a choice that is made
but not yet revealed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from niwa.engine.api import JSON, Rng, envelope
from niwa.engine.rulesets.sakura.rules import VERSION, decks

if TYPE_CHECKING:
    from niwa.engine.rulesets.sakura.state import SakuraState


def observation(state: SakuraState, seat: int | None) -> dict[str, JSON]:
    g = state.garden
    cards = state.cards
    # The envelope every game's observation starts with: game, seat, players, phase,
    # to_move (docs/games/sakura.md); every key is snake_case.
    return envelope(VERSION, seat, state.players, state.phase, state.to_move()) | {
        "options": dict(state.options),
        "round": state.round,
        "board": g.board.to_json(),
        "court": state.court,
        "emperor": g.emperor,
        "painters": g.painters.copy(),
        "tokens": g.tokens.copy(),
        "supply": g.supply,
        "scored": g.scored.copy(),
        "hand": None if seat is None else [cards[c].to_json() for c in state.hands[seat]],
        "hand_sizes": [len(h) for h in state.hands],
        "deck_size": len(state.deck),
        "discard": [cards[c].to_json() for c in sorted(state.discard)],
        "played": [
            {"painter": p, "card": cards[c].to_json(), "status": status}
            for p, c, status in state.played
        ],
        "cursor": state.cursor,
        "step": state.step,
        "halt": state.halt,
        "draws": state.draws.copy(),
        "supplier": state.supplier,
        "scorings": [dict(s, awards=[a.copy() for a in s["awards"]]) for s in state.scorings],
    }


def determinized_fields(obs: Mapping[str, Any], seat: int, rng: Rng) -> dict[str, JSON]:
    """The snapshot fields (codec.FIELDS) of a full state that agrees with ``obs``: the
    cards ``seat`` cannot see (other hands and the deck) are dealt at random from the
    cards it cannot account for."""
    all_cards = decks()[obs["options"]["deckMix"]]
    own = [c["number"] for c in obs["hand"]]
    discard = [c["number"] for c in obs["discard"]]
    played = [[e["painter"], e["card"]["number"], e["status"]] for e in obs["played"]]
    in_flight = {n for _, n, status in played if status == "pending"}
    seen = set(own) | set(discard) | in_flight
    unseen = [n for n in sorted(all_cards) if n not in seen]
    rng.shuffle(unseen)
    hands: list[list[int]] = []
    for s, size in enumerate(obs["hand_sizes"]):
        if s == seat:
            hands.append(sorted(own))
        else:
            hands.append(sorted(unseen[:size]))
            unseen = unseen[size:]
    if len(unseen) != obs["deck_size"]:
        raise ValueError(
            f"observation accounts for {len(unseen)} deck cards, not {obs['deck_size']}"
        )
    return {
        "players": obs["players"],
        "options": dict(obs["options"]),
        "phase": obs["phase"],
        "round": obs["round"],
        "emperor": obs["emperor"],
        "painters": list(obs["painters"]),
        "tokens": list(obs["tokens"]),
        "supply": obs["supply"],
        "scored": list(obs["scored"]),
        "hands": hands,
        "deck": sorted(unseen),
        "discard": sorted(discard),
        "played": played,
        "cursor": obs["cursor"],
        "step": obs["step"],
        "halt": obs["halt"],
        "draws": list(obs["draws"]),
        "supplier": obs["supplier"],
        "scorings": [dict(s, awards=[list(a) for a in s["awards"]]) for s in obs["scorings"]],
    }
