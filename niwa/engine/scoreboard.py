"""The end-of-game breakdown a game's ``scoreboard.breakdown`` hook returns (api.Breakdown):
the rows of the score per seat, the tie-break rule, and one sentence per tie saying how
the rule decided it, for the viewer's table at the last step."""

from __future__ import annotations

from collections.abc import Sequence

from niwa.engine.api import JSON, Result


def ordinal(place: int) -> str:
    """0 -> "1st", 1 -> "2nd", ... (places count from 0)."""
    n = place + 1
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _seats(seats: Sequence[int]) -> str:
    names = [f"seat {s}" for s in seats]
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def tie_sentences(
    result: Result, measure: tuple[str, Sequence[JSON]] | None = None
) -> list[str]:
    """For each group of seats with equal scores: how their places came out, with the
    tie-break's ``measure`` (label, a value per seat) when the game has one."""
    groups: dict[float, list[int]] = {}
    for seat, score in enumerate(result.scores):
        groups.setdefault(score, []).append(seat)
    out = []
    for score, seats in sorted(groups.items(), reverse=True):
        if len(seats) < 2:
            continue
        head = f"{_seats(seats).capitalize()} tied on {_number(score)} points"
        places = {result.places[s] for s in seats}
        if measure is None:
            out.append(f"{head} and share the {ordinal(min(places))} place.")
            continue
        label, values = measure
        shown = ", ".join(f"seat {s} {values[s]}" for s in seats)
        if len(places) == 1:
            out.append(f"{head}; {label}: {shown}, still equal, so they share the "
                       f"{ordinal(min(places))} place.")  # fmt: skip
            continue
        ranked = sorted(seats, key=lambda s: (result.places[s], s))
        outcome = ", ".join(f"seat {s} {ordinal(result.places[s])}" for s in ranked)
        out.append(f"{head}; {label}: {shown}, so {outcome}.")
    return out


def table(
    rows: Sequence[tuple[str, Sequence[JSON]]],
    result: Result,
    tie_rule: str,
    measure: tuple[str, Sequence[JSON]] | None = None,
) -> dict[str, JSON]:
    """The breakdown as JSON: ``rows`` (label, a value per seat), then the places, the
    rule and the sentences of :func:`tie_sentences`."""
    body: list[JSON] = [{"label": label, "values": list(values)} for label, values in rows]
    body.append({"label": "place", "values": [ordinal(p) for p in result.places]})
    return {"rows": body, "tie_rule": tie_rule, "tie_break": list(tie_sentences(result, measure))}
