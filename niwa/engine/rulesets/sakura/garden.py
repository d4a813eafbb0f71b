"""The Emperor's garden: where the pieces stand and how they move (sakura.md §4, §6).

Positions are path indexes: 0 is the gate (shared by any number of painters), 1..L are
one-painter spaces, and every painter stays strictly behind the Emperor (§6 #15).
Painter indexes are seats, plus the court painter (index 2) in a two-player game.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

from niwa.engine.rulesets.sakura.rules import Board, board_for, config

GATE = 0


@dataclass
class Garden:
    board: Board
    emperor: int
    painters: list[int]
    tokens: list[int]
    supply: int
    scored: list[bool]
    bump_loss: int = 1
    bump_back: int = 3

    def copy(self) -> Garden:
        return Garden(
            self.board,
            self.emperor,
            self.painters.copy(),
            self.tokens.copy(),
            self.supply,
            self.scored.copy(),
            self.bump_loss,
            self.bump_back,
        )

    # -- who is where -------------------------------------------------------------------

    def closest(self) -> int | None:
        """The painter furthest forward on the path; none if all are on the gate (§6 #8)."""
        painters = self.painters
        best = painters.index(max(painters))  # the first of the furthest forward, as max()
        return best if painters[best] > GATE else None

    def furthest(self) -> int | None:
        """The rearmost painter; none if two or more share the gate (§6 #9)."""
        at_gate = [i for i, q in enumerate(self.painters) if q == GATE]
        if len(at_gate) >= 2:
            return None
        if at_gate:
            return at_gate[0]
        return self.painters.index(min(self.painters))  # the first of the rearmost

    def ahead_of(self, p: int) -> list[int]:
        """Painters strictly ahead of ``p``; gate painters are never ahead (§6 #10, #11)."""
        here = self.painters[p]
        return [i for i, q in enumerate(self.painters) if q > here]

    def ranking(self) -> list[int]:
        """Painters in scoring order (:func:`ranking`)."""
        return ranking(self.painters)

    # -- painter movement ----------------------------------------------------------------

    # The moves below test "another painter stands there" as ``q in painters``: only the
    # gate (never taken, §4.1) holds two painters, and a space strictly ahead of or
    # behind the mover cannot be the mover's own.

    def forward(self, p: int, steps: int) -> bool:
        """Move painter ``p`` forward ``steps`` empty spaces (§6 #3, #4); True on a bump."""
        painters, emperor = self.painters, self.emperor
        q = painters[p]
        for _ in range(steps):
            q += 1
            while q < emperor and q in painters:
                q += 1
            if q >= emperor:
                self.disgrace(p, emperor)
                return True
        painters[p] = q
        return False

    def back(self, p: int, steps: int) -> None:
        """Move painter ``p`` back ``steps`` empty spaces, stopping on the gate (§6 #12)."""
        painters = self.painters
        q = painters[p]
        for _ in range(steps):
            q -= 1
            while q > GATE and q in painters:
                q -= 1
            if q <= GATE:
                q = GATE
                break
        painters[p] = q

    def disgrace(self, p: int, space: int) -> None:
        """A bump (§6 #6, #7): stand on ``space``, lose a token if any, back 3 empty spaces.
        Lost tokens return to the supply (§5, DECIDED)."""
        loss = min(self.bump_loss, self.tokens[p])
        self.tokens[p] -= loss
        self.supply += loss
        self.painters[p] = space
        self.back(p, self.bump_back)

    def jump_ahead(self, p: int) -> None:
        """Land on the first empty space beyond the next painter ahead (§6 #10)."""
        here = self.painters[p]
        ahead = [q for q in self.painters if q > here]  # their spaces (ahead_of: indexes)
        if not ahead:
            return
        q = min(ahead) + 1
        while q < self.emperor and q in self.painters:
            q += 1
        if q >= self.emperor:
            self.disgrace(p, self.emperor)
        else:
            self.painters[p] = q

    def count_ahead(self, p: int) -> None:
        """Forward one empty space per painter ahead (§6 #11)."""
        n = len(self.ahead_of(p))
        if n:
            self.forward(p, n)

    # -- the Emperor ----------------------------------------------------------------------

    def emperor_forward(self, steps: int) -> int | None:
        """Move the Emperor forward; he halts on the first unscored sakura he reaches
        (§6 #14) and that sakura's index is returned."""
        sakura, scored = self.board.sakura, self.scored
        for _ in range(steps):
            self.emperor += 1
            if self.emperor in sakura:
                k = sakura.index(self.emperor)  # sakura spaces are distinct
                if not scored[k]:
                    return k
        return None

    def emperor_back(self) -> None:
        """One space back, never onto the gate (§6 #12); a painter there is disgraced (#7)."""
        if self.emperor <= 1:
            return
        self.emperor -= 1
        for i, q in enumerate(self.painters):
            if q == self.emperor:
                self.disgrace(i, self.emperor)
                return

    # -- scoring ----------------------------------------------------------------------------

    def score(self, rewards: tuple[int, ...]) -> list[tuple[int, int]]:
        """Pay the ranked painters from the supply and regroup the line behind the first
        (§7). Returns (painter, tokens) per ranked painter."""
        ranked = self.ranking()
        paid = []
        for painter, reward in zip(ranked, rewards, strict=False):
            amount = min(reward, self.supply)
            self.tokens[painter] += amount
            self.supply -= amount
            paid.append((painter, amount))
        for before, painter in pairwise(ranked):
            self.painters[painter] = max(GATE, self.painters[before] - 1)
        return paid


def ranking(painters: Sequence[int]) -> list[int]:
    """Painters (their positions, by index) in scoring order, closest first; a lone gate
    painter comes last and painters sharing the gate are unranked (§7, DECIDED)."""
    # Nearest first, the gate last: no two painters share a space off the gate, so only
    # gate painters tie, and a stable sort leaves them in seat order.
    order = sorted(range(len(painters)), key=painters.__getitem__, reverse=True)
    at_gate = painters.count(GATE)
    return order if at_gate <= 1 else order[: len(order) - at_gate]


def set_up(players: int) -> Garden:
    """Set-up (sakura.md §6 #1): Emperor on the torii, painters on the gate, 5 tokens
    each; the supply is the neutral tokens plus the unused colours (§5)."""
    cfg = config()
    board = board_for(players)
    painters = players + 1 if players == 2 else players  # the court painter (§9)
    return Garden(
        board=board,
        emperor=board.torii,
        painters=[GATE] * painters,
        tokens=[cfg.starting_tokens] * painters,
        supply=cfg.neutral_tokens + cfg.starting_tokens * (cfg.colours - painters),
        scored=[False] * len(board.sakura),
        bump_loss=cfg.bump_loss,
        bump_back=cfg.bump_back,
    )
