"""A served ladder (a real server on loopback, a real sandboxed bot, two sparring
partners) rates its matches by Plackett-Luce: the leaderboard names the model, shows
each seat effect with its interval and each player count's Elo, over the API and the
CLI (text and --json), and the ratings are the full Plackett-Luce fit of the stored
finishing orders."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from niwa.ladder import client, submission
from niwa.ladder import plackett_luce as pl
from niwa.ladder.report import signed
from niwa.ladder.store import ACTIVE, DONE, RATED, Store
from niwa.ladder.store.ratings import PLACKETT_LUCE
from niwa.proto.v1 import ladder_pb2 as pb
from tests.ladder.serving import start_ladder, stop, wait_for
from tests.ladder.test_store_totals import play
from tests.ladder.tiny_bots import QUICK, cli, owner_tokens, write_bot

MATCHES = 8


@dataclass
class Served:
    address: str
    db: Path
    board: pb.Leaderboard


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    root = tmp_path_factory.mktemp("served-ratings")
    db = root / "ladder.db"
    tokens = owner_tokens(db, admins=(), owners=("alice",))
    quick = write_bot(root, "quick", "0.2.0", QUICK)
    proc, address = start_ladder(
        db, root / "ladder.log", "--game", "blossom", "--time", "500ms+1s",
        "--sparring", "builtin:greedy,builtin:random", "--matches", str(MATCHES),
    )  # fmt: skip
    channel, stub = client.connect(address)
    try:
        code, out = cli("ladder", "submit", "--server", address, "--token", tokens["alice"],
                        str(quick))  # fmt: skip
        assert code == 0 and "accepted" in out, out

        def finished() -> pb.Leaderboard | None:
            board = stub.GetLeaderboard(pb.LeaderboardRequest(game="blossom")).boards[0]
            return board if board.matches >= MATCHES else None

        yield Served(address, db, wait_for(f"{MATCHES} rated matches", finished))
    finally:
        channel.close()
        stop(proc)


def stored_orders(db: Path) -> list[list[tuple[int, int, int]]]:
    """Every rated match in the store as (bot, seat, place) per seat."""
    store = Store.open(str(db), create=False)
    rows = store.db.execute(
        "SELECT r.match_id, r.bot_id, r.seat, r.place FROM results r "
        "JOIN matches m ON m.id = r.match_id WHERE m.kind = ? AND m.state = ? "
        "ORDER BY m.seq, r.seat",
        (RATED, DONE),
    )
    store.close()
    matches: dict[int, list[tuple[int, int, int]]] = {}
    for r in rows:
        matches.setdefault(int(r["match_id"]), []).append(
            (int(r["bot_id"]), int(r["seat"]), int(r["place"])))
    return list(matches.values())


def test_the_served_leaderboard_names_plackett_luce_and_shows_seat_effects(
    served: Served,
) -> None:
    board = served.board
    assert board.rating == PLACKETT_LUCE
    played = {len(match) for match in stored_orders(served.db)}
    assert {s.players for s in board.seat_effects} == played
    for effect in board.seat_effects:
        assert 1 <= effect.seat < effect.players
        assert 0 < effect.ci95 < math.inf
    rated = [row for row in board.rows if row.bot.games]
    assert {row.bot.name for row in rated} == {"quick", "greedy", "random"}
    for row in rated:
        assert {p.players for p in row.by_players} <= played and row.by_players


def test_the_leaderboard_is_the_plackett_luce_fit_of_the_stored_orders(served: Served) -> None:
    # A read of the store in a new process fits from zero: exactly the full fit.
    code, out = cli("ladder", "leaderboard", "blossom", "--db", str(served.db), "--json")
    assert code == 0, out
    (board,) = json.loads(out)["boards"]
    full = pl.fit(stored_orders(served.db))
    assert board["rating"] == PLACKETT_LUCE
    rows = {row["id"]: row for row in board["rows"] if row["elo"] is not None}
    assert rows.keys() == full.ratings.keys()
    for bot, estimate in full.ratings.items():
        assert rows[bot]["elo"] == pytest.approx(estimate.elo, abs=0.05)  # shown to 0.1
        assert rows[bot]["ci95"] == pytest.approx(estimate.ci95, abs=0.05)
    effects = {(s["players"], s["seat"]): s for s in board["seat_effects"]}
    assert effects.keys() == full.seats.keys()
    for key, estimate in full.seats.items():
        assert effects[key]["elo"] == pytest.approx(estimate.elo, abs=0.05)
        assert effects[key]["ci95"] == pytest.approx(estimate.ci95, abs=0.05)


def test_the_cli_names_each_seat_effect_against_seat_0_with_its_interval(
    served: Served,
) -> None:
    code, out = cli("ladder", "leaderboard", "blossom", "--server", served.address)
    assert code == 0, out
    assert out.splitlines()[0].endswith("rated matches (season season-1), Plackett-Luce")
    assert "seat effects (Elo against seat 0, 95 % interval):" in out
    effect = served.board.seat_effects[0]
    low, high = effect.elo - effect.ci95, effect.elo + effect.ci95
    # the text's own signs: an effect that rounds to 0 reads +0 (report.signed)
    assert (f"{effect.players} players: seat {effect.seat} vs seat 0: {signed(effect.elo)} Elo "
            f"[{signed(low)}, {signed(high)}]") in out  # fmt: skip


def test_serve_rating_pairwise_is_kept_in_the_store_for_later_starts(tmp_path: Path) -> None:
    db = tmp_path / "ladder.db"
    for extra in (["--rating", "pairwise"], []):  # the second start keeps the choice
        proc, address = start_ladder(db, tmp_path / "ladder.log", "--game", "blossom", *extra)
        channel, stub = client.connect(address)
        try:
            board = stub.GetLeaderboard(pb.LeaderboardRequest(game="blossom")).boards[0]
            assert board.rating == "pairwise" and not board.seat_effects
        finally:
            channel.close()
            stop(proc)
    store = Store.open(str(db), create=False)
    assert store.ratings.rating() == "pairwise"
    store.close()


def test_the_server_fits_the_boards_once_at_start_off_the_request_path(
    tmp_path: Path,
) -> None:
    db = tmp_path / "ladder.db"
    store = Store.open(str(db), tmp_path)
    bots = [submission.builtin_bot(store, name, "blossom", ACTIVE).id
            for name in ("greedy", "random")]  # fmt: skip
    for first in (0, 1, 0):
        play(store, bots, [first, 1 - first])
    store.close()
    log = tmp_path / "ladder.log"
    proc, _ = start_ladder(db, log, "--game", "sakura")  # blossom's board, nothing to play
    try:
        wait_for("the boards warmed at start", lambda: "leaderboards_warmed" in log.read_text())
    finally:
        stop(proc)
    warmed = next(json.loads(line) for line in log.read_text().splitlines()
                  if "leaderboards_warmed" in line)  # fmt: skip
    assert warmed["games"] == ["blossom"]
