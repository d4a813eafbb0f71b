"""The bracket's logic: seeding, byes, how a tie is decided, the terminal drawing."""

from __future__ import annotations

from niwa.series import stats
from niwa.series.bracket import Bracket, Tie, size, slot_seeds
from niwa.series.games import GameJob, GameRecord, SeatRecord
from niwa.series.headtohead import HeadToHead


def game(index: int, deal: int, seats: tuple[str, str], winner: str | None) -> GameRecord:
    """A finished 2-player game: ``winner`` first, or a draw."""
    places = [0, 0] if winner is None else [0 if s == winner else 1 for s in seats]
    job = GameJob(index=index, game="blossom", bots=seats, ids=seats, seed=index,
                  time_control="1s", round=deal)
    return GameRecord(job, [SeatRecord(bot=b, spec=b, place=p, score=0.0, status="ok")
                            for b, p in zip(seats, places, strict=True)], 10, 0.1, "m")


def test_the_field_is_padded_to_the_next_power_of_two() -> None:
    assert [size(n) for n in (2, 3, 5, 8, 9)] == [2, 4, 8, 8, 16]


def test_seed_k_meets_seed_n_plus_1_minus_k_and_1_meets_2_only_in_the_final() -> None:
    assert slot_seeds(8) == [1, 8, 4, 5, 2, 7, 3, 6]
    order = slot_seeds(32)
    assert order.index(1) < 16 <= order.index(2)
    assert all(a + b == 33 for a, b in zip(order[::2], order[1::2], strict=True))


def test_the_top_seeds_get_the_byes() -> None:
    bracket = Bracket([f"b{k}" for k in range(1, 7)], None)  # 6 bots in 8 slots
    byes = [t.a for t in bracket.rounds[0] if t.b is None]
    assert sorted(byes) == ["b1", "b2"]
    assert all(t.winner == t.a and t.decided_by == "bye" for t in bracket.rounds[0] if t.b is None)


def test_a_tie_goes_to_the_bot_with_more_points() -> None:
    tie = Tie(1, 0, "a", "b", 1, 2)
    tie.add(game(0, 0, ("a", "b"), "b"))
    tie.add(game(1, 0, ("b", "a"), None))
    tie.settle(cap=False)
    assert (tie.winner, tie.decided_by, tie.points_a, tie.points_b) == ("b", "games", 0.5, 1.5)


def test_a_tie_level_on_points_goes_to_the_better_seed() -> None:
    tie = Tie(1, 0, "a", "b", 1, 2)
    tie.add(game(0, 0, ("a", "b"), "b"))
    tie.add(game(1, 0, ("b", "a"), "a"))
    tie.settle(cap=False)
    assert (tie.winner, tie.decided_by) == ("a", "seed")


def test_an_sprt_tie_is_decided_by_h0_for_the_lower_seed_and_ignores_later_games() -> None:
    sprt = stats.Sprt(elo0=-200, elo1=200, alpha=0.1, beta=0.1)
    tie = Tie(1, 0, "a", "b", 1, 2, duel=HeadToHead("a", "b", 2, sprt))
    deal = 0
    while tie.winner is None:
        tie.add(game(2 * deal, deal, ("a", "b"), "b"))
        tie.add(game(2 * deal + 1, deal, ("b", "a"), "b"))
        deal += 1
    assert (tie.winner, tie.decided_by) == ("b", "sprt")
    games = tie.games
    tie.add(game(99, 99, ("a", "b"), "a"))  # in flight when the test decided
    assert tie.games == games and 99 not in tie.counted


def test_the_next_round_opens_with_the_winners_once_every_tie_is_decided() -> None:
    bracket = Bracket(["b1", "b2", "b3", "b4"], None)
    first = bracket.rounds[0]
    assert [(t.a, t.b) for t in first] == [("b1", "b4"), ("b2", "b3")]
    first[0].finish("b4", "games")
    assert not bracket.advance()
    first[1].finish("b2", "games")
    assert bracket.advance()
    assert [(t.a, t.b) for t in bracket.rounds[1]] == [("b2", "b4")]
    bracket.rounds[1][0].finish("b4", "games")
    assert not bracket.advance() and bracket.champion == "b4"


def test_the_drawing_of_8_bots_with_long_names_fits_80_columns() -> None:
    bots = [f"a-very-long-bot-name-number-{k}@1.0.0" for k in range(8)]
    bracket = Bracket(bots, None)
    for tie in bracket.rounds[0]:
        tie.finish(tie.a, "games")
    bracket.advance()
    drawn = bracket.lines()
    assert len(drawn) == 15 and max(map(len, drawn)) <= 80
    assert drawn[0].startswith("1 a-very-") and "0@1.0.0" in drawn[0] and "@1.0.0 0-0" in drawn[1]


def test_32_bots_are_listed_round_by_round_within_80_columns() -> None:
    bots = [f"a-very-long-bot-name-number-{k}@1.0.0" for k in range(32)]
    listed = Bracket(bots, None).lines()
    assert listed[0] == "round 1:" and len(listed) == 17
    assert max(map(len, listed)) <= 80
