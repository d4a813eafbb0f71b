"""The rules of the ladder's fork offer (niwa.ladder.forks), on SQLite and PostgreSQL:
who may replay which seat of which match from which step, with which bot, how often."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from niwa.ladder import challenges, forks, report, schema
from niwa.ladder.inputs import NotFound
from niwa.ladder.reads import Denied, Reads
from niwa.ladder.store import CHALLENGE, FORKED, QUEUED, REJECTED, Store
from tests.ladder.forking import Forkable, finished_match, forkable, replay_steps
from tests.ladder.rewind import rewind


@pytest.fixture
def ready(any_store: Store) -> tuple[Store, Forkable]:
    return any_store, forkable(any_store)


def test_an_owner_forks_their_seat_with_another_version_as_an_unrated_queued_match(
    ready: tuple[Store, Forkable],
) -> None:
    store, f = ready
    forked = forks.queue(store, f.alice, f.match_id, 3, 0, f.other.id, random.Random(1))
    match = store.matches.match(forked)
    assert (match.kind, match.state) == (FORKED, QUEUED)
    assert match.seats == (f.other.id, f.rival.id)
    origin = store.forks.fork(forked)
    assert origin is not None
    assert (origin.origin_id, origin.step, origin.seat, origin.owner_id) == (
        f.match_id, 3, 0, f.alice.id
    )


def test_a_retired_version_may_play_the_fork(ready: tuple[Store, Forkable]) -> None:
    store, f = ready
    forked = forks.queue(store, f.alice, f.match_id, 0, 0, f.old.id)
    assert store.matches.match(forked).seats[0] == f.old.id


def test_a_rejected_bot_may_not(ready: tuple[Store, Forkable]) -> None:
    store, f = ready
    with pytest.raises(forks.CannotFork, match="gamma@1 is rejected"):
        forks.queue(store, f.alice, f.match_id, 0, 0, f.bad.id)


def test_the_bot_already_in_the_seat_is_refused(ready: tuple[Store, Forkable]) -> None:
    store, f = ready
    with pytest.raises(forks.CannotFork, match="choose another version"):
        forks.queue(store, f.alice, f.match_id, 0, 0, f.seated.id)


def test_someone_elses_seat_is_denied(ready: tuple[Store, Forkable]) -> None:
    store, f = ready
    with pytest.raises(Denied, match="rival@1, bob's bot"):
        forks.queue(store, f.alice, f.match_id, 0, 1, f.other.id)


def test_someone_elses_bot_is_denied(ready: tuple[Store, Forkable]) -> None:
    store, f = ready
    with pytest.raises(Denied, match="choose a bot of yours"):
        forks.queue(store, f.alice, f.match_id, 0, 0, f.rival.id)


def test_a_step_past_the_replay_is_refused_naming_the_range(
    ready: tuple[Store, Forkable],
) -> None:
    store, f = ready
    steps = replay_steps(store, f.match_id)
    with pytest.raises(forks.CannotFork, match=f"from step 0 to {steps - 1}"):
        forks.queue(store, f.alice, f.match_id, steps, 0, f.other.id)


def test_a_seat_past_the_table_is_refused(ready: tuple[Store, Forkable]) -> None:
    store, f = ready
    with pytest.raises(forks.CannotFork, match="has seats 0 to 1"):
        forks.queue(store, f.alice, f.match_id, 0, 2, f.other.id)


def test_an_unknown_match_is_not_found(ready: tuple[Store, Forkable]) -> None:
    store, f = ready
    with pytest.raises(NotFound):
        forks.queue(store, f.alice, 999, 0, 0, f.other.id)


def test_a_match_not_finished_is_refused(ready: tuple[Store, Forkable]) -> None:
    store, f = ready
    queued = store.matches.queue_match("blossom", "1", [f.seated.id, f.rival.id], 1)
    with pytest.raises(forks.CannotFork, match="only a finished match"):
        forks.queue(store, f.alice, queued, 0, 0, f.other.id)


def test_a_fork_is_not_forked_again(ready: tuple[Store, Forkable]) -> None:
    store, f = ready
    forked = forks.queue(store, f.alice, f.match_id, 2, 0, f.other.id)
    with pytest.raises(forks.CannotFork, match=f"replay match {f.match_id} from a step"):
        forks.queue(store, f.alice, forked, 0, 0, f.old.id)


def test_a_match_whose_duplicate_round_still_plays_is_refused(
    ready: tuple[Store, Forkable],
) -> None:
    store, f = ready
    group = store.matches.next_duplicate_group()
    played = finished_match(store, [f.seated.id, f.rival.id], seed=11, duplicate_group=group)
    store.matches.queue_match("blossom", "1", [f.rival.id, f.seated.id], 11,
                              duplicate_group=group)  # fmt: skip
    assert forks.offer(store, f.alice, store.matches.match(played)) is None
    with pytest.raises(forks.CannotFork, match="duplicate round is still being played"):
        forks.queue(store, f.alice, played, 0, 0, f.other.id)


def test_a_match_a_person_played_is_refused(ready: tuple[Store, Forkable]) -> None:
    store, f = ready
    person = challenges.human_row(store, "blossom", rated=False)
    played = finished_match(store, [f.seated.id, person.id], seed=13, kind=CHALLENGE)
    assert forks.offer(store, f.alice, store.matches.match(played)) is None
    with pytest.raises(forks.CannotFork, match="a person played in match"):
        forks.queue(store, f.alice, played, 0, 0, f.other.id)


def test_an_owner_has_at_most_three_forks_waiting(ready: tuple[Store, Forkable]) -> None:
    store, f = ready
    for step in range(forks.MAX_PENDING):
        forks.queue(store, f.alice, f.match_id, step, 0, f.other.id)
    with pytest.raises(forks.TooManyForks, match="3 forks queued or running"):
        forks.queue(store, f.alice, f.match_id, 0, 0, f.other.id)


def test_an_owner_asks_for_at_most_ten_forks_an_hour(ready: tuple[Store, Forkable]) -> None:
    store, f = ready
    for step in range(forks.PER_HOUR):
        forked = forks.queue(store, f.alice, f.match_id, step, 0, f.other.id)
        claimed = store.matches.claim_next()  # and ended: no longer waiting
        assert claimed is not None and claimed.id == forked
        store.matches.fail_match(forked, "ended for the test", retries=0)
    with pytest.raises(forks.TooManyForks, match="10 forks in the last hour"):
        forks.queue(store, f.alice, f.match_id, 0, 0, f.other.id)


def test_a_fork_is_listed_with_its_origin_step_and_seat(ready: tuple[Store, Forkable]) -> None:
    store, f = ready
    forked = forks.queue(store, f.alice, f.match_id, 5, 0, f.other.id)
    reads = Reads(store)
    views = [reads.match_view(store.matches.match(m)) for m in (forked, f.match_id)]
    assert [(v.fork_of, v.fork_at, v.fork_seat) for v in views] == [(f.match_id, 5, 0), (0, 0, 0)]
    listed = report.matches_json(views)["matches"]
    assert [m["fork"] for m in listed] == [{"of": f.match_id, "at": 5, "seat": 0}, None]
    assert f"fork of #{f.match_id} at step 5 (seat 0 replaced)" in report.matches(views)


def test_the_offer_names_the_owners_seats_and_other_kept_bots(
    ready: tuple[Store, Forkable],
) -> None:
    store, f = ready
    offer = forks.offer(store, f.alice, store.matches.match(f.match_id))
    assert offer is not None
    assert offer.seats == (0,)
    assert {b.id for b in offer.bots} == {f.other.id, f.old.id}


def test_no_offer_to_an_owner_without_a_seat(ready: tuple[Store, Forkable]) -> None:
    store, f = ready
    carol, _ = store.owners.add_owner("carol")
    assert forks.offer(store, carol, store.matches.match(f.match_id)) is None


def test_no_offer_in_a_match_without_another_kept_bot(ready: tuple[Store, Forkable]) -> None:
    store, f = ready
    both = finished_match(store, [f.seated.id, f.other.id], seed=9)
    store.bots.set_bot_status(f.old.id, REJECTED)
    assert forks.offer(store, f.alice, store.matches.match(both)) is None


#: The migration that adds the forks' table (the last one when it was written).
FORKS_SCHEMA = next(
    n for n, m in enumerate(schema.MIGRATIONS, 1) if any("match_forks" in s for s in m)
)


def test_a_store_from_before_forks_migrates_in_place_and_its_matches_fork(
    db_url: str, tmp_path: Path,
) -> None:
    made = Store.open(db_url, tmp_path)
    f = forkable(made)  # matches played, then the store as the niwa before forks left it
    rewind(made.db, FORKS_SCHEMA - 1)
    made.close()

    store = Store.open(db_url, tmp_path)
    assert schema.current_version(store.db) == schema.LATEST
    forked = forks.queue(store, f.alice, f.match_id, 1, 0, f.other.id)
    assert store.matches.match(forked).kind == FORKED
    fork = store.forks.fork(forked)
    assert fork is not None and fork.origin_id == f.match_id
    assert store.forks.fork(f.match_id) is None
    store.close()
