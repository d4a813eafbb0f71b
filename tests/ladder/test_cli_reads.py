"""``niwa ladder leaderboard|matches|bots`` on a store: --json, bots by name, waiting
games, unknown games, help on every option; and the runner's one waiting event."""

from __future__ import annotations

import argparse
import io
import json
from pathlib import Path

import pytest

from niwa.cli import build_parser, main
from niwa.ladder import logs, server, sparring, submission
from niwa.ladder.runner import Runner, Settings
from niwa.ladder.store import ACTIVE, RESERVE, Finished, SeatResult, Store
from niwa.referee.replay import Header


@pytest.fixture
def played(tmp_path: Path) -> Path:
    """A store with two versions of one bot and a built-in; one match, where the
    built-in went out at step 7."""
    db = tmp_path / "ladder.db"
    store = Store.open(str(db))
    try:
        owner, _ = store.owners.add_owner("alice")
        v1 = store.bots.add_bot("fern", "0.1.0", "blossom", owner.id, "archive", None, ACTIVE)
        v2 = store.bots.add_bot("fern", "0.2.0", "blossom", owner.id, "archive", None, ACTIVE)
        greedy = submission.builtin_bot(store, "greedy", "blossom", ACTIVE)
        for fern in (v1, v2):
            store.matches.queue_match("blossom", "blossom@1", [fern.id, greedy.id], seed=1)
            match = store.matches.claim_next()
            assert match is not None
            results = (
                SeatResult(0, fern.id, 0, 3.0, "ok"),
                SeatResult(1, greedy.id, 1, 1.0, "out", "TIMEOUT", 7, "no answer within 500 ms",
                           ("a line",)),
            )  # fmt: skip
            store.matches.finish_match(match.id, Finished(results, 12, 0.2, "0" * 64))
    finally:
        store.close()
    return db


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_leaderboard_json_lists_each_row_with_its_rating(
    played: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "ladder", "leaderboard", "blossom", "--db", str(played), "--json")
    data = json.loads(out)
    assert code == 0 and data["schema"] == "niwa-ladder-cli/2"
    (board,) = data["boards"]
    rows = {row["bot"]: row for row in board["rows"]}
    assert set(rows) == {"fern@0.2.0", "greedy@1"} and board["matches"] == 2
    assert rows["greedy@1"]["builtin"] is True and rows["fern@0.2.0"]["builtin"] is False
    assert all(isinstance(row["elo"], float) and row["rank"] >= 1 for row in rows.values())


def test_matches_json_gives_an_out_seats_failure_step_and_detail(
    played: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "ladder", "matches", "--db", str(played), "--json")
    matches = json.loads(out)["matches"]
    assert code == 0 and [m["id"] for m in matches] == [2, 1]
    out_seat = matches[0]["results"][1]
    assert out_seat == {
        "seat": 1, "bot_id": 3, "bot": "greedy@1", "place": 2, "score": 1.0, "status": "out",
        "failure": "TIMEOUT", "out_step": 7, "detail": "no answer within 500 ms",
        "stderr_tail": ["a line"],
    }  # fmt: skip


def test_matches_json_gives_the_seed_as_a_string_with_every_digit(
    played: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    seed = 2851317608226293593  # past 2**53: a double (JavaScript's number) rounds it
    store = Store.open(str(played))
    try:
        store.matches.queue_match("blossom", "blossom@1", [2, 3], seed=seed)
    finally:
        store.close()
    code, out, _ = run(capsys, "ladder", "matches", "--db", str(played), "--json")
    seeds = [m["seed"] for m in json.loads(out)["matches"]]
    assert code == 0 and seeds == [str(seed), "1", "1"]


def test_bots_json_lists_bots_and_each_games_state(
    played: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "ladder", "bots", "--all", "--game", "blossom", "--db",
                       str(played), "--json")  # fmt: skip
    data = json.loads(out)
    assert code == 0
    assert {(b["bot"], b["status"]) for b in data["bots"]} == {
        ("fern@0.1.0", "superseded"), ("fern@0.2.0", "active"), ("greedy@1", "active"),
    }
    assert data["games"] == [{"game": "blossom", "active": 2, "needed": 2, "waiting": None}]


@pytest.mark.parametrize(
    "read",
    [["leaderboard", "blossom", "--json"], ["bots", "--all", "--json"],
     ["matches", "--json"], ["logs", "1", "--bot", "fern"]],
    ids=lambda read: read[0],
)  # fmt: skip
def test_a_served_ladder_prints_what_its_store_prints(
    played: Path, read: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """Over gRPC (the client's views) and from the store (the reads' views): one output."""
    store = Store.open(str(played))
    try:
        _, token = store.owners.add_owner("root", admin=True)
    finally:
        store.close()
    running, port = server.start(str(played), None, "127.0.0.1:0")
    try:
        served = run(capsys, "ladder", *read, "--server", f"127.0.0.1:{port}", "--token", token)
    finally:
        running.stop(None).wait()
    local = run(capsys, "ladder", *read, "--db", str(played))
    assert served == local and served[0] == 0 and "fern" in served[1]


@pytest.mark.parametrize(("bot", "ids"), [("fern", [2, 1]), ("fern@0.1.0", [1]), ("2", [2])])
def test_matches_takes_a_bot_by_name_name_at_version_or_id(
    played: Path, capsys: pytest.CaptureFixture[str], bot: str, ids: list[int]
) -> None:
    code, out, _ = run(capsys, "ladder", "matches", "--bot", bot, "--db", str(played), "--json")
    assert code == 0 and [m["id"] for m in json.loads(out)["matches"]] == ids


def test_matches_prints_under_an_out_seat_its_failure_step_and_detail(
    played: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "ladder", "matches", "--db", str(played))
    assert code == 0
    assert "seat 1 greedy@1 OUT TIMEOUT at step 7: no answer within 500 ms" in out


@pytest.mark.parametrize("command", [["leaderboard", "NOSUCHGAME"], ["matches", "--game", "x"]])
def test_an_unknown_game_is_one_line_and_exit_2(
    played: Path, capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    code, out, err = run(capsys, "ladder", *command, "--db", str(played))
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "unknown game" in err and "registered games: blossom" in err


def test_a_game_short_of_bots_says_it_is_waiting_and_how_to_fix_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "ladder.db"
    store = Store.open(str(db))
    owner, _ = store.owners.add_owner("alice")
    store.bots.add_bot("fern", "1", "blossom", owner.id, "archive", None, ACTIVE)
    store.close()
    code, out, _ = run(capsys, "ladder", "bots", "--game", "blossom", "--db", str(db))
    assert code == 0
    assert out.splitlines()[-1] == (
        "blossom: waiting: 1 active bots, a match needs 2; add --sparring builtin:greedy "
        "or submit another bot"
    )


def test_a_game_short_of_bots_logs_one_waiting_event_not_one_per_poll(store: Store) -> None:
    owner, _ = store.owners.add_owner("alice")
    store.bots.add_bot("fern", "1", "blossom", owner.id, "archive", None, ACTIVE)
    stream = io.StringIO()
    logs.configure("info", json=True, stream=stream)
    runner = Runner(Settings(db_url="unused", games=("blossom",), seed=1))
    for _ in range(5):
        assert runner._schedule_one(store) == 0
    events = [json.loads(line) for line in stream.getvalue().splitlines()]
    waiting = [e for e in events if e["event"] == "game_waiting"]
    assert len(waiting) == 1
    assert {k: waiting[0][k] for k in ("game", "active", "needed", "fix")} == {
        "game": "blossom", "active": 1, "needed": 2,
        "fix": "add --sparring builtin:greedy or submit another bot",
    }  # fmt: skip


def test_sparring_partners_are_kept_in_the_store_and_none_puts_them_in_reserve(
    store: Store,
) -> None:
    assert sparring.apply(store, ["blossom"], ("builtin:greedy",)) == ["builtin:greedy"]
    greedy = submission.builtin_bot(store, "greedy", "blossom")
    assert greedy.status == ACTIVE
    assert sparring.apply(store, ["blossom"], None) == ["builtin:greedy"]  # as kept
    assert sparring.apply(store, ["blossom"], sparring.parse("none")) == []
    assert store.bots.bot(greedy.id).status == RESERVE


def test_only_built_in_bots_can_spar(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(sparring.SparringError, match="only built-in bots spar"):
        sparring.parse("builtin:greedy,./my-bot")


def test_every_ladder_option_has_help() -> None:
    ladder = next(
        a for a in build_parser()._subparsers._group_actions[0].choices.values()  # type: ignore[union-attr]
        if a.prog.endswith("ladder")
    )
    missing = []

    def walk(parser: argparse.ArgumentParser) -> None:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for sub in action.choices.values():
                    walk(sub)
            elif not isinstance(action, argparse._HelpAction) and not action.help:
                missing.append(f"{parser.prog} {action.dest}")

    walk(ladder)
    assert missing == []


def test_a_replay_header_from_before_per_seat_sandbox_still_reads() -> None:
    old = {
        "game": "blossom", "version": "blossom@1", "players": 2, "options": {},
        "seats": [{"seat": 0, "bot": "builtin:random", "name": "random", "version": "1"},
                  {"seat": 1, "bot": "/srv/bots/ab12", "name": "fern", "version": "1"}],
        "seed": 1, "time_control": {"per_decision_ms": 1000, "bank_ms": 0}, "sandbox": False,
    }  # fmt: skip
    header = Header.from_json(old)
    assert [s.isolation for s in header.seats] == ["", ""]


@pytest.mark.parametrize(
    ("command", "cause"),
    [
        (["matches", "--bot", "²"], "bot '²': an id is a whole number in ASCII digits 0-9"),
        (["matches", "--bot", "99999999999999999999"], "no bot '99999999999999999999'"),
        (["matches", "--before", "٣"], "--before must be a whole number from 0 to"),
        (["replay", "99999999999999999999"], "match must be a whole number from 0 to"),
    ],
)
def test_an_odd_id_or_number_is_one_line_and_exit_2(
    played: Path, capsys: pytest.CaptureFixture[str], command: list[str], cause: str
) -> None:
    try:
        code = main(["ladder", *command, "--db", str(played)])
    except SystemExit as e:  # argparse refuses its own arguments so
        code = int(e.code or 0)
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert cause in err
