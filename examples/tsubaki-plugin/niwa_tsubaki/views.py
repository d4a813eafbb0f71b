"""determinize: a full state that fits what one seat saw (tsubaki.md §8)."""

from __future__ import annotations

from collections.abc import Mapping

from niwa.engine import JSON, Rng

from niwa_tsubaki import cards
from niwa_tsubaki.state import TsubakiState

#: Tries at a deal that respects every seen void before voids are ignored.
_TRIES = 20


def voids(obs: Mapping[str, JSON]) -> list[set[str]]:
    """Suits each seat has shown it lacks, by not following the suit led (§5)."""
    out: list[set[str]] = [set() for _ in range(obs["players"])]
    tricks = [t["cards"] for t in obs["tricks"]] + ([obs["trick"]] if obs["trick"] else [])
    for plays in tricks:
        led = cards.suit(plays[0][1])
        for s, c in plays[1:]:
            if cards.suit(c) != led:
                out[s].add(led)
    return out


def determinize(obs: Mapping[str, JSON], seat: int, rng: Rng) -> TsubakiState:
    seen = set(obs["hand"])
    seen.update(c for t in obs["tricks"] for _, c in t["cards"])
    seen.update(c for _, c in obs["trick"])
    if obs["trump"]:
        seen.add(obs["trump"])
    unknown = [c for c in cards.DECK if c not in seen]
    counts, lacking = obs["hand_counts"], voids(obs)
    hands = _deal(unknown, counts, lacking, seat, rng)
    hands[seat] = list(obs["hand"])
    dealt = {c for h in hands for c in h}
    opts = obs["options"]
    return TsubakiState({
        "players": obs["players"], "hand": opts["hand"], "hook": opts["hook"],
        "round": obs["round"], "dealer": obs["dealer"], "phase": obs["phase"],
        "hands": [cards.sort_hand(h) for h in hands],
        "deck": [c for c in unknown if c not in dealt], "trump": obs["trump"],
        "bids": obs["bids"], "tricks_won": obs["tricks_won"], "leader": obs["leader"],
        "trick": obs["trick"], "tricks": obs["tricks"], "scores": obs["scores"],
        "history": obs["history"],
    })


def _deal(
    unknown: list[str], counts: list[int], lacking: list[set[str]], seat: int, rng: Rng
) -> list[list[str]]:
    """Hands of the given sizes for the other seats from ``unknown``, each without the
    suits it is known to lack when a few shuffles find such a deal."""
    others = [s for s in range(len(counts)) if s != seat]
    for attempt in range(_TRIES + 1):
        pool = list(unknown)
        rng.shuffle(pool)
        hands: list[list[str]] = [[] for _ in counts]
        ok = True
        for s in others:
            fits = [c for c in pool if attempt == _TRIES or cards.suit(c) not in lacking[s]]
            if len(fits) < counts[s]:
                ok = False
                break
            hands[s] = fits[: counts[s]]
            taken = set(hands[s])
            pool = [c for c in pool if c not in taken]
        if ok:
            return hands
    raise AssertionError("unreachable: the last try ignores voids")  # pragma: no cover
