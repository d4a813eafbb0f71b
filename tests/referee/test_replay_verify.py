"""``niwa replay verify`` catches a forged field of a real replay, naming it.

The replay is a 3-seat blossom match of built-in bots played in process, where seat 0
answers out of range (ILLEGAL) until its second failure puts it out. Each test forges
one thing the way a forger would (re-hashing what follows where that is possible) and
checks that verify fails with a line naming the step or field.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from niwa import engine
from niwa.bots import builtin
from niwa.cli import main
from niwa.engine import canonical_json
from niwa.referee import replay
from niwa.referee.match import BotSpec, MatchSpec, play_match
from niwa.referee.replay.check import check
from niwa.referee.seeds import stream
from tests.referee.sandboxing import hostile_bot, run_against_randoms
from tests.referee.toy import GAME

Lines = list[dict[str, Any]]
SEED = 11


@pytest.fixture(scope="module", autouse=True)
def _oor_builtin() -> Iterator[None]:
    with pytest.MonkeyPatch.context() as mp:
        mp.setitem(builtin.BUILTIN, "oor", "tests.referee.inproc_bots:OutOfRange")
        yield


@pytest.fixture(scope="module")
def real(tmp_path_factory: pytest.TempPathFactory, _oor_builtin: None) -> Path:
    path = tmp_path_factory.mktemp("verify") / "real.jsonl"
    play_match(MatchSpec(
        game="blossom",
        bots=[BotSpec.parse(b) for b in ("builtin:oor", "builtin:random", "builtin:random")],
        seed=SEED,
        in_process=True,
        max_failures=2,
        replay_path=path,
    ))
    return path


def _lines(path: Path) -> Lines:
    return [json.loads(t) for t in path.read_text().splitlines()]


def _write(lines: Lines, path: Path) -> Path:
    path.write_text("".join(canonical_json(d) + "\n" for d in lines))
    return path


def _rehash(lines: Lines, chains: bool = True) -> None:
    """What a careful forger does: recompute every chain (unless told not to) and hash
    after the change."""
    h = lines[0]
    state = engine.load(h["game"]).new_game(h["players"], h["options"])
    chain = replay.chain_start(replay.Header.from_json(h))
    for d in lines[1:-1]:
        if chains:
            moves = [replay.Move(m["seat"], m["action"]) for m in d["moves"]]
            chain = d["chain"] = replay.chain_next(chain, d["kind"], d["index"], moves)
        try:
            state.apply({m["seat"]: m["action"] for m in d["moves"]})
        except engine.IllegalAction:
            return
        if "hash" in d:
            d["hash"] = engine.state_hash(state)


def _steps(lines: Lines, seat: int, status: str | None = None) -> list[dict[str, Any]]:
    return [d for d in lines[1:-1] if any(
        m["seat"] == seat and (status is None or m.get("status") == status) for m in d["moves"]
    )]


def _move(step: dict[str, Any], seat: int) -> dict[str, Any]:
    return next(m for m in step["moves"] if m["seat"] == seat)


def _before(real: Path, index: int) -> engine.State:
    """The state before step ``index`` of the untouched replay."""
    return next(b for s, b, _ in replay.states(replay.read(real)) if s.index == index)


def _verify(lines: Lines, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    path = _write(lines, tmp_path / "forged.jsonl")
    assert main(["replay", "verify", str(path)]) == 1
    out = capsys.readouterr().out
    assert all(": FAILED: " in line for line in out.splitlines())
    return out


def test_the_untouched_replay_verifies(real: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", "verify", str(real)]) == 0
    assert ": ok: " in capsys.readouterr().out
    report = check(replay.read(real))
    assert report.problems == [] and report.complete


def test_the_replay_has_a_failure_an_out_seat_and_max_failures(real: Path) -> None:
    r = replay.read(real)
    assert r.header.max_failures == 2 and r.result is not None
    assert r.result.seats[0].status == "out" and r.result.seats[0].reason == "ILLEGAL"
    assert [m.status for s in r.steps for m in s.moves if m.seat == 0][:3] == [
        "ILLEGAL", "ILLEGAL", "OUT"
    ]


Forgery = Callable[[Lines], None]


def _set_result(**change: Any) -> Forgery:
    return lambda lines: lines[-1].update(change)


def _set_seat(seat: int, **change: Any) -> Forgery:
    return lambda lines: lines[-1]["seats"][seat].update(change)


def _swap_places(lines: Lines) -> None:
    places = lines[-1]["places"]
    places[0], places[1] = places[1], places[0]


def _header(**change: Any) -> Forgery:
    return lambda lines: lines[0].update(change)


def _header_seat(seat: int, **change: Any) -> Forgery:
    return lambda lines: lines[0]["seats"][seat].update(change)


def _seat_1_back_in(lines: Lines) -> None:
    """Seat 0 never went out: its OUT moves become OK and the result says ok."""
    for step in _steps(lines, 0, "OUT"):
        _move(step, 0)["status"] = "OK"
    lines[-1]["seats"][0].update(status="ok", reason="", at=None, failures=0)


FORGERIES: dict[str, tuple[Forgery, str]] = {
    "places": (_swap_places, "result places: expected"),
    "seat status": (_set_seat(0, status="ok", reason="", at=None), "result seats[0].status"),
    "seat reason": (_set_seat(0, reason="CRASHED"), 'result seats[0].reason: expected "ILLEGAL"'),
    "seat out step": (_set_seat(0, at=0), "result seats[0].at"),
    "seat failures": (_set_seat(0, failures=1), "result seats[0].failures: expected 2"),
    "an ok seat put out": (
        _set_seat(1, status="out", reason="TIMEOUT", at=3, failures=2), "result seats[1].status"
    ),
    "scores": (_set_result(scores=[99.0, 0.0, 0.0]), "result scores: expected"),
    "game places": (_set_result(game_places=[0, 1, 1]), "result game_places: expected"),
    "decisions": (_set_result(decisions=1), "result decisions: expected"),
    "seed": (_header(seed=SEED + 1), "step 0 chance outcome: expected"),
    "game version": (_header(version="blossom@1"), "header version: expected blossom@2"),
    "game name": (_header(game="sakura"), "header version: expected sakura@3"),
    "options": (_header(options={}), "header options: expected"),
    "seat name": (_header_seat(1, name="greedy"), 'header seats[1].name: expected random'),
    "seat version": (_header_seat(2, version="9"), "header seats[2].version: expected 1"),
    "seat back in": (_seat_1_back_in, "status: expected OUT"),
}


@pytest.mark.parametrize("name", list(FORGERIES))
def test_a_forged_field_fails_verification_naming_it(
    name: str, real: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    forge, named = FORGERIES[name]
    lines = _lines(real)
    forge(lines)
    assert named in _verify(lines, tmp_path, capsys)


def test_a_forged_chance_outcome_fails_even_with_every_hash_redone(
    real: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = _lines(real)
    chance = [d for d in lines[1:-1] if d["kind"] == "chance"]
    step = next(d for d in reversed(chance) if d["index"] > 5)
    before = _before(real, step["index"])
    recorded = canonical_json(step["moves"][0]["action"])
    other = next(a for a, p in before.chance_outcomes() if p > 0 and canonical_json(a) != recorded)
    step["moves"][0]["action"] = other
    _rehash(lines)
    assert f"step {step['index']} chance outcome: expected" in _verify(lines, tmp_path, capsys)


def test_a_forged_default_move_fails_even_with_every_hash_redone(
    real: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = _lines(real)
    step = _steps(lines, 0, "OUT")[-1]
    recorded = canonical_json(_move(step, 0)["action"])
    legal = _before(real, step["index"]).legal_actions(0)
    _move(step, 0)["action"] = next(a for a in legal if canonical_json(a) != recorded)
    _rehash(lines)
    out = _verify(lines, tmp_path, capsys)
    assert f"step {step['index']} seat 0 default move (OUT): expected" in out


def test_a_good_move_relabelled_as_a_failure_fails(
    real: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A TIMEOUT claimed for seat 1 where its move is not the seeded default."""
    lines = _lines(real)
    for s, before, _ in replay.states(replay.read(real)):
        if any(m.seat == 1 for m in s.moves):  # seat 1 never failed: its first draw
            default = stream(SEED, "default", 1).choice(before.legal_actions(1))
            step = lines[s.index + 1]
            if canonical_json(_move(step, 1)["action"]) != canonical_json(default):
                break
    _move(step, 1)["status"] = "TIMEOUT"
    assert f"step {step['index']} seat 1 default move (TIMEOUT): expected" in _verify(
        lines, tmp_path, capsys
    )


def test_a_forged_state_hash_fails_naming_its_step(
    real: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = _lines(real)
    assert "hash" in lines[64]  # step 63: a checkpoint
    lines[64]["hash"] = "0" * 16
    assert "step 63: state hash" in _verify(lines, tmp_path, capsys)


def test_a_removed_checkpoint_hash_fails_naming_its_step(
    real: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = _lines(real)
    del lines[64]["hash"]
    assert "step 63: no state hash" in _verify(lines, tmp_path, capsys)


def test_a_removed_final_hash_fails_naming_the_last_step(
    real: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = _lines(real)
    last = lines[-2]
    del last["hash"]
    assert f"step {last['index']}: no state hash" in _verify(lines, tmp_path, capsys)


def _forge_an_ok_move(real: Path, lines: Lines) -> dict[str, Any]:
    """Seat 1's sixth good move replaced by another legal action; the step forged."""
    step = _steps(lines, 1, "OK")[5]
    before = _before(real, step["index"])
    move = _move(step, 1)
    move["action"] = next(a for a in before.legal_actions(1) if a != move["action"])
    return step


def test_a_forged_action_fails_at_its_chain_when_only_the_hashes_are_redone(
    real: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = _lines(real)
    step = _forge_an_ok_move(real, lines)
    _rehash(lines, chains=False)
    assert f"step {step['index']}: chain " in _verify(lines, tmp_path, capsys)


def test_a_forged_action_fails_even_with_every_chain_and_hash_redone(
    real: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = _lines(real)
    _forge_an_ok_move(real, lines)
    _rehash(lines)
    out = _verify(lines, tmp_path, capsys)
    assert "chain" not in out and "state hash" not in out  # the forger redid them all
    assert "the recorded move is illegal" in out or "result" in out


def test_a_note_on_a_default_move_fails(
    real: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = _lines(real)
    step = _steps(lines, 0, "ILLEGAL")[0]
    _move(step, 0)["note"] = "I meant that"
    assert f"step {step['index']} seat 0 note" in _verify(lines, tmp_path, capsys)


def test_a_note_longer_than_bots_may_write_fails(
    real: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = _lines(real)
    step = _steps(lines, 1, "OK")[0]
    _move(step, 1)["note"] = "x" * 201
    assert f"step {step['index']} seat 1 note: expected at most 200" in _verify(
        lines, tmp_path, capsys
    )


def test_a_clock_above_the_time_control_fails(
    real: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = _lines(real)
    step = _steps(lines, 2, "OK")[1]
    _move(step, 2)["clock_ms"] = 10**7
    assert f"step {step['index']} seat 2 clock_ms: expected 0 to" in _verify(
        lines, tmp_path, capsys
    )


def test_every_difference_is_one_line(
    real: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = _lines(real)
    _swap_places(lines)
    lines[-1]["decisions"] = 1
    lines[0]["seats"][1]["name"] = "renamed"  # (a newline in it is refused at read)
    out = _verify(lines, tmp_path, capsys)
    assert len(out.splitlines()) == 3


def test_an_out_seat_relabelled_ok_throughout_fails(
    real: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every failure and OUT of seat 0 turned OK, the result redone to match: its moves
    from its first failure on are still exactly the seed's default moves."""
    lines = _lines(real)
    first = _steps(lines, 0, "ILLEGAL")[0]["index"]
    for step in _steps(lines, 0):
        move = _move(step, 0)
        if move["status"] != "OK":
            move.update(status="OK", wall_ms=1.0, cpu_ms=1.0, clock_ms=31000)
            move.pop("detail", None)
    result = lines[-1]
    result["seats"][0].update(status="ok", reason="", at=None, failures=0, detail="")
    result["places"] = result["game_places"]
    out = _verify(lines, tmp_path, capsys)
    assert out.splitlines() == [
        next(line for line in out.splitlines() if f"step {first} seat 0 status" in line)
    ]


@pytest.mark.parametrize("behaviour", ["sleep", "crash", "hang-up", "exit-early"])
def test_replays_of_real_sandboxed_failures_verify(behaviour: str, tmp_path: Path) -> None:
    """TIMEOUT, CRASHED, DISCONNECTED and a start-up crash, as the referee records them
    for a real sandboxed bot: the checker's rule is the referee's."""
    tmp_path.chmod(0o755)
    outcome, r = run_against_randoms(hostile_bot(tmp_path, behaviour), tmp_path)
    assert outcome.seats[0].status == "out"
    assert check(r, GAME).problems == []


def test_debug_text_on_a_good_move_is_not_rated(
    real: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = _lines(real)
    _move(_steps(lines, 1, "OK")[0], 1)["debug"] = "any text: never re-simulated"
    path = _write(lines, tmp_path / "with-debug.jsonl")
    assert main(["replay", "verify", str(path)]) == 0
    assert ": ok: " in capsys.readouterr().out


def test_debug_text_on_a_default_move_fails_verification(
    real: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = _lines(real)
    step = _steps(lines, 0, "ILLEGAL")[0]
    _move(step, 0)["debug"] = "forged"
    out = _verify(lines, tmp_path, capsys)
    assert f"step {step['index']} seat 0 debug: expected none on a default move" in out


def test_debug_text_over_2_kib_fails_verification(
    real: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = _lines(real)
    step = _steps(lines, 1, "OK")[0]
    _move(step, 1)["debug"] = "d" * 3000
    out = _verify(lines, tmp_path, capsys)
    assert f"step {step['index']} seat 1 debug: expected at most 2048 bytes, found 3000" in out
