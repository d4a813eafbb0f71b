"""Every seat's stderr tail kept for its owner for the admin's retention, on both
engines (:mod:`niwa.ladder.tails`): housekeeping removes the expired ones and says when, a
match from before every seat was kept says so, and only the owner and admins read them."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from niwa.ladder import tails
from niwa.ladder.reads import Denied, NeedsToken, Reads
from niwa.ladder.runner import Settings
from niwa.ladder.store import ACTIVE, Finished, Owner, SeatResult, Store
from tests.ladder.played_out import played_out
from tests.web.ladders import played_store

TAIL = ("thinking about move 12", "done")


@dataclass
class Played:
    match_id: int
    finished: float  # when it finished
    owners: dict[str, Owner]  # alice (seat 0's bot "a"), bob (seat 1's "b"), root (admin)


def finished_match(store: Store, every_seat: bool = True) -> Played:
    """A finished match of alice's bot and bob's, its seats' tails kept as a worker
    sends them (only the out seats', before every seat was kept)."""
    owners = {name: store.owners.add_owner(name, admin=name == "root")[0]
              for name in ("alice", "bob", "root")}  # fmt: skip
    a = store.bots.add_bot("a", "1", "blossom", owners["alice"].id, "archive", "ha", ACTIVE).id
    b = store.bots.add_bot("b", "1", "blossom", owners["bob"].id, "archive", "hb", ACTIVE).id
    match_id = store.matches.queue_match("blossom", "blossom@1", [a, b], seed=1)
    assert store.matches.claim_next() is not None
    results = (
        SeatResult(0, a, 0, 1.0, "ok", stderr_tail=TAIL),
        SeatResult(1, b, 1, 0.0, "ok", stderr_tail=TAIL if every_seat else ()),
    )
    assert store.matches.finish_match(match_id, Finished(results, 3, 0.1, "0" * 64, every_seat))
    return Played(match_id, store.matches.match(match_id).finished_at or 0.0, owners)


def test_a_finished_matchs_tails_are_kept_for_every_seat_until_the_retention_ends(
    any_store: Store,
) -> None:
    played = finished_match(any_store)
    kept = tails.state(any_store, played.match_id, played.finished)
    due = played.finished + tails.DEFAULT_DAYS * tails.DAY_S
    assert kept == tails.TailState(tails.KEPT, due)
    assert [r.stderr_tail for r in any_store.matches.results(played.match_id)] == [TAIL, TAIL]


def test_housekeeping_keeps_tails_younger_than_the_retention(any_store: Store) -> None:
    played = finished_match(any_store)
    tails.set_days(any_store, 3)
    assert tails.expire(any_store, now=played.finished + 2.9 * tails.DAY_S) == []
    assert [r.stderr_tail for r in any_store.matches.results(played.match_id)] == [TAIL, TAIL]


def test_housekeeping_removes_expired_tails_and_their_files_and_says_when(
    any_store: Store,
) -> None:
    played = finished_match(any_store)
    match_id, finished = played.match_id, played.finished
    files = any_store.files.log_dir(match_id)
    files.mkdir(parents=True)
    (files / f"{match_id}-seat0-a.stderr").write_text("\n".join(TAIL))
    tails.set_days(any_store, 3)
    now = finished + 3.1 * tails.DAY_S
    assert tails.expire(any_store, now=now) == [match_id]
    assert [r.stderr_tail for r in any_store.matches.results(match_id)] == [(), ()]
    assert not files.exists()
    assert tails.state(any_store, match_id, finished) == tails.TailState(tails.EXPIRED, now)


def test_housekeeping_removes_a_tail_that_an_old_ladder_kept_in_the_reason(
    any_store: Store,
) -> None:
    played = finished_match(any_store, every_seat=False)
    any_store.db.execute(
        "UPDATE results SET status = 'out', reason = ? WHERE match_id = ? AND seat = 1",
        (f"TIMEOUT: no answer | stderr: {' / '.join(TAIL)}", played.match_id),
    )
    assert any_store.matches.results(played.match_id)[1].stderr_tail == TAIL
    tails.expire(any_store, now=played.finished + 15 * tails.DAY_S)
    seat = any_store.matches.results(played.match_id)[1]
    assert seat.stderr_tail == () and (seat.reason, seat.detail) == ("TIMEOUT", "no answer")


def test_a_match_from_before_every_seat_was_kept_says_only_out_seats_were(
    any_store: Store,
) -> None:
    played = finished_match(any_store, every_seat=False)
    assert tails.state(any_store, played.match_id, played.finished).kept == tails.OUT_ONLY


def test_a_retention_under_a_day_is_refused_naming_the_option(any_store: Store) -> None:
    with pytest.raises(ValueError, match=r"--stderr-days 0: .* at least 1 day"):
        tails.set_days(any_store, 0)


@pytest.mark.parametrize("who", ["alice", "root"], ids=["owner", "admin"])
def test_the_owner_and_an_admin_read_a_seats_tail(any_store: Store, who: str) -> None:
    played = finished_match(any_store)
    logs = Reads(any_store, viewer=played.owners[who]).bot_logs(played.match_id, "a")
    assert logs.seats[0].stderr_tail == TAIL and logs.seats[0].kept == tails.KEPT


def test_another_owner_is_denied_a_seats_tail_naming_whose_it_is(any_store: Store) -> None:
    played = finished_match(any_store)
    with pytest.raises(Denied, match=r"for its owner \(alice\) and admins, not for bob"):
        Reads(any_store, viewer=played.owners["bob"]).bot_logs(played.match_id, "a")


def test_an_anonymous_caller_is_asked_for_a_token(any_store: Store) -> None:
    played = finished_match(any_store)
    with pytest.raises(NeedsToken, match="has no token: pass theirs"):
        Reads(any_store).bot_logs(played.match_id, "a")


def test_the_runners_housekeeping_removes_tails_past_the_retention(tmp_path: Path) -> None:
    db = played_store(tmp_path, matches=2)
    store = Store.open(str(db), tmp_path)
    try:
        old = min(m.id for m in store.matches.matches(state="done"))
        store.db.execute(
            "UPDATE matches SET finished_at = finished_at - ? WHERE id = ?",
            (30 * tails.DAY_S, old),
        )
        settings = Settings(str(db), tmp_path, workers=1, max_matches=1, seed=2,
                            games=("blossom",), log_level="warning")  # fmt: skip
        played_out(settings)
        finished = store.matches.match(old).finished_at or 0.0
        assert tails.state(store, old, finished).kept == tails.EXPIRED
        newest = max(m.id for m in store.matches.matches(state="done"))
        assert tails.state(store, newest, store.matches.match(newest).finished_at or 0.0).kept == (
            tails.KEPT
        )
    finally:
        store.close()
