"""The leaderboard's mean places and failure counts: summed once, then kept up to date."""

from __future__ import annotations

from pathlib import Path

from niwa.ladder.reads import Reads
from niwa.web.server import open_read_only
from niwa.web.tallies import BotTally, Tallies
from tests.web.ladders import played_store


def tallies(reads: Reads, tally: Tallies) -> dict[int, BotTally]:
    return {bot.id: tally.get(bot.id) for bot in reads.store.bots.bots()}


def test_matches_finished_after_the_first_count_are_added_as_a_fresh_count_has_them(
    tmp_path: Path,
) -> None:
    db = played_store(tmp_path, matches=2)
    store = open_read_only(str(db))
    try:
        reads = Reads(store)
        kept = Tallies()
        assert kept.catch_up(reads) == 2
        played_store(tmp_path, matches=2)  # the ladder plays on
        assert kept.catch_up(reads) == 4
        fresh = Tallies()
        fresh.catch_up(reads)
        assert tallies(reads, kept) == tallies(reads, fresh)
        assert sum(t.rated for t in tallies(reads, fresh).values()) == 8  # 4 two-seat matches
    finally:
        store.close()


def test_the_mean_place_counts_from_one() -> None:
    assert BotTally(rated=4, place_sum=2).mean_place == 1.5
    assert BotTally().mean_place is None
