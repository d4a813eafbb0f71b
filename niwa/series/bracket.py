"""A single-elimination bracket: seeding, byes, how a tie is decided, and its drawing.

Pure logic: the caller plays the games and feeds each tie its records.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from niwa.referee.seeds import derive_seed
from niwa.series import stats
from niwa.series.games import GameRecord
from niwa.series.headtohead import HeadToHead, a_score
from niwa.series.names import shown

#: Past this many first-round slots the terminal gets a list of ties per round, not a drawing.
DRAWN_SLOTS = 16
WIDTH = 80
SEED_NOTE = "s: level on points, the better seed went through"


def size(bots: int) -> int:
    """The bracket's first-round slots: the smallest power of two holding every bot."""
    out = 1
    while out < bots:
        out *= 2
    return out


def slot_seeds(slots: int) -> list[int]:
    """Which seed (1 = best) sits in each first-round slot, top to bottom: seed k meets
    seed slots+1-k in the first round, and seeds 1 and 2 can meet only in the final."""
    order = [1]
    while len(order) < slots:
        n = 2 * len(order) + 1
        order = [s for k in order for s in (k, n - k)]
    return order


def tie_seed(seed: int, round_: int, tie: int, deal: int) -> int:
    """The seed of one deal of one tie (31 bits, as ``niwa play`` prints)."""
    return derive_seed(seed, "knockout", round_, tie, deal) % 2**31


@dataclass
class Tie:
    """Two entrants of one round; ``a`` is the better seed. ``b`` None is a bye."""

    round: int  # 1 = the first round
    number: int  # top to bottom within the round
    a: str
    b: str | None
    seed_a: int
    seed_b: int | None
    games: int = 0
    points_a: float = 0.0
    points_b: float = 0.0
    winner: str | None = None
    decided_by: str = ""  # bye, games, sprt, cap, seed
    duel: HeadToHead | None = None
    counted: list[int] = field(default_factory=list)  # the game indexes that counted

    def add(self, record: GameRecord) -> None:
        """Count a game of this tie (games finishing after the decision are ignored)."""
        if self.winner is not None or self.b is None:
            return
        score = a_score(record.places(), record.job.ids, self.a, self.b)
        self.games += 1
        self.points_a += score
        self.points_b += 1.0 - score
        self.counted.append(record.job.index)
        if self.duel is not None:
            self.duel.add(record)
            if self.duel.verdict == "H1":
                self.finish(self.a, "sprt")
            elif self.duel.verdict == "H0":
                self.finish(self.b, "sprt")

    def finish(self, winner: str, how: str) -> None:
        self.winner, self.decided_by = winner, how

    def settle(self, cap: bool) -> None:
        """After every planned game: more points wins, equal points the better seed
        (with SPRT, ``cap``: the cap was reached undecided)."""
        if self.winner is not None or self.b is None:
            return
        if self.points_a != self.points_b:
            winner = self.a if self.points_a > self.points_b else self.b
            self.finish(winner, "cap" if cap else "games")
        else:
            self.finish(self.a, "seed")

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "round": self.round, "tie": self.number, "a": self.a, "b": self.b,
            "seed_a": self.seed_a, "seed_b": self.seed_b, "games": self.games,
            "points_a": self.points_a, "points_b": self.points_b, "winner": self.winner,
            "decided_by": self.decided_by or None,
        }  # fmt: skip
        if self.duel is not None and self.duel.sprt is not None:
            out["sprt"] = self.duel.to_json(finished=self.winner is not None)["sprt"]
        return out


class Bracket:
    """The ties round by round. ``bots`` are in seeding order (the best first)."""

    def __init__(self, bots: Sequence[str], sprt: stats.Sprt | None) -> None:
        if len(bots) < 2:
            raise ValueError("a knockout needs at least two bots")
        self.bots = list(bots)
        self.sprt = sprt
        self.slots = size(len(bots))
        self.seed_of = {b: k + 1 for k, b in enumerate(bots)}
        self.rounds: list[list[Tie]] = []
        entrants: list[str | None] = [
            bots[k - 1] if k <= len(bots) else None for k in slot_seeds(self.slots)]
        self._open(entrants)

    @property
    def total_rounds(self) -> int:
        return self.slots.bit_length() - 1

    def _open(self, entrants: Sequence[str | None]) -> None:
        """The next round's ties from its entrants, top to bottom; a lone one has a bye."""
        ties = []
        for i in range(0, len(entrants), 2):
            pair = [e for e in entrants[i:i + 2] if e is not None]
            pair.sort(key=lambda b: self.seed_of[b])
            a, b = pair[0], pair[1] if len(pair) > 1 else None
            duel = None if b is None else HeadToHead(a, b, 2, self.sprt)
            tie = Tie(len(self.rounds) + 1, i // 2, a, b, self.seed_of[a],
                      None if b is None else self.seed_of[b], duel=duel)
            if b is None:
                tie.finish(a, "bye")
            ties.append(tie)
        self.rounds.append(ties)

    def advance(self) -> bool:
        """Open the next round once every tie of the last one has a winner; False when
        the final is decided (or the round is not)."""
        last = self.rounds[-1]
        if len(last) == 1 or any(t.winner is None for t in last):
            return False
        self._open([t.winner for t in last])
        return True

    @property
    def champion(self) -> str | None:
        last = self.rounds[-1]
        return last[0].winner if len(last) == 1 else None

    def to_json(self) -> dict[str, Any]:
        return {"type": "bracket", "slots": self.slots, "seeds": self.bots,
                "rounds": [[t.to_json() for t in r] for r in self.rounds],
                "champion": self.champion}

    def lines(self, width: int = WIDTH) -> list[str]:
        """The bracket for a terminal: drawn up to :data:`DRAWN_SLOTS` slots, within
        ``width`` columns; a list of ties per round past that."""
        if self.slots > DRAWN_SLOTS:
            return self._listed()
        columns = self.total_rounds + 1
        cell = width // columns
        rows = [[" "] * (cell * columns) for _ in range(2 * self.slots - 1)]

        def put(row: int, col: int, text: str) -> None:
            text = text[: cell - 2]
            rows[row][col * cell: col * cell + len(text)] = list(text)

        first = self.rounds[0]
        for tie in first:
            for k, (bot, seed) in enumerate(((tie.a, tie.seed_a), (tie.b, tie.seed_b))):
                label = "-" if bot is None else f"{seed} {shown(bot, cell - 5)}"
                put(4 * tie.number + 2 * k, 0, label)
        for r in range(self.total_rounds):
            step = 2 ** r
            ties = self.rounds[r] if r < len(self.rounds) else []
            for t in range(self.slots // (2 * step)):
                top, bottom = step * (4 * t + 1) - 1, step * (4 * t + 3) - 1
                mid = (top + bottom) // 2
                edge = (r + 1) * cell - 2
                for y in range(top, bottom + 1):
                    rows[y][edge] = "┐" if y == top else "┘" if y == bottom else (
                        "├" if y == mid else "│")
                rows[mid][edge + 1] = "─"
                won = ties[t] if t < len(ties) else None
                if won is not None and won.winner is not None:
                    score = _score(won)
                    put(mid, r + 1, f"{shown(won.winner, cell - 4 - len(score))} {score}")
        out = ["".join(r).rstrip() for r in rows]
        if any(t.decided_by == "seed" for ties in self.rounds for t in ties):
            out.append(SEED_NOTE)
        return out

    def _listed(self) -> list[str]:
        out = []
        for ties in self.rounds:
            out.append(f"round {ties[0].round}:")
            for t in ties:
                b = "bye" if t.b is None else f"{t.seed_b} {shown(t.b, 30)}"
                won = "" if t.winner is None else f"  -> {shown(t.winner, 30)} {_score(t)}"
                out.append(f"  {t.seed_a} {shown(t.a, 30)} v {b}{won}")
        if any(t.decided_by == "seed" for ties in self.rounds for t in ties):
            out.append(SEED_NOTE)
        return out


def _score(tie: Tie) -> str:
    if tie.b is None:
        return "bye"
    win, lose = sorted((tie.points_a, tie.points_b), reverse=True)
    return f"{win:g}-{lose:g}" + ("s" if tie.decided_by == "seed" else "")
