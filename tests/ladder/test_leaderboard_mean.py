"""The leaderboard's mean is over the bots it shows: superseded versions are left out
of the fit, so a weak old version cannot lift everyone shown above 1500."""

from __future__ import annotations

from niwa.ladder import elo, mle
from niwa.ladder.reads import Reads, shown_placings
from niwa.ladder.store import ACTIVE, SUPERSEDED, Finished, SeatResult, Store


def play(store: Store, winner: int, loser: int) -> None:
    store.matches.queue_match("blossom", "blossom@1", [winner, loser], seed=1)
    match = store.matches.claim_next()
    assert match is not None
    results = (SeatResult(0, winner, 0, 1.0, "ok"), SeatResult(1, loser, 1, 0.0, "ok"))
    assert store.matches.finish_match(match.id, Finished(results, 10, 0.1, "0" * 64))


def test_a_bot_below_the_others_win_rate_is_not_shown_above_the_mean(store: Store) -> None:
    owner, _ = store.owners.add_owner("alice")
    a, b, c, old = (
        store.bots.add_bot(name, "1", "blossom", owner.id, "archive", None, ACTIVE).id
        for name in ("ash", "birch", "cedar", "dogwood")
    )
    for i in range(438):  # cedar: 80 wins in 438 games against ash and birch
        other = a if i % 2 else b
        play(store, *((c, other) if i < 80 else (other, c)))
    for i in range(100):  # ash and birch: level
        play(store, *((a, b) if i % 2 else (b, a)))
    for i in range(60):  # dogwood@1 lost every game, then was replaced by dogwood@2
        play(store, (a, b)[i % 2], old)
    store.bots.add_bot("dogwood", "2", "blossom", owner.id, "archive", None, ACTIVE)
    assert store.bots.bot(old).status == SUPERSEDED
    assert (store.bots.bot(c).games, store.bots.bot(c).wins) == (438, 80)

    board = Reads(store).leaderboards("blossom")[0]
    rated = {row.bot.name: row.elo for row in board.rows if row.bot.games}
    assert set(rated) == {"ash", "birch", "cedar"}  # the old version is not shown
    assert abs(sum(rated.values()) / len(rated) - elo.BASE) < 1e-6
    assert rated["cedar"] < elo.BASE
    # Fitting the old version too would have put cedar above the mean of all bots.
    everyone = mle.batch_elo(store.ratings.rated_placings("blossom"))
    assert everyone[c].elo > elo.BASE


def test_a_match_keeps_only_the_seats_of_the_bots_shown() -> None:
    placings = [[(1, 0), (2, 1), (3, 2)], [(1, 0), (3, 1)]]
    assert shown_placings(placings, {1, 2}) == [[(1, 0), (2, 1)]]
