"""``niwa tournament --format knockout`` and ``--progress``/``--resume`` end to end, on
tiny bot directories run in the bubblewrap sandbox."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from niwa.cli import main
from niwa.ladder.store import ACTIVE, Store
from tests.ladder.test_leaderboard_mean import play
from tests.ladder.tiny_bots import write_bot
from tests.polling import wait_for

#: A bot that takes the legal action ``(decision * STRIDE) % count``: each stride plays
#: differently, and every game is the same again on the same seed. It thinks 0.02 s a
#: move, so that a knockout's other ties take seconds after its first: a test that stops
#: the run when a tie has finished polls well within that, however busy the machine
#: (a run that had ended before the signal came exited 0).
STRIDED = """
import time

from niwa.bots.sdk import serve


class Strided:
    name = "NAME"
    version = "1.0"

    def start(self, game):
        pass

    def act(self, turn):
        time.sleep(0.02)
        return (turn.decision * STRIDE) % len(turn.legal_actions)


if __name__ == "__main__":
    serve(Strided())
"""

FAST = ["--time", "1s+5s", "--concurrency", "2", "--seed", "11"]


def bots(root: Path, count: int) -> list[str]:
    """``--bot DIR`` for ``count`` sandboxed bots, strided 1, 2, ..."""
    root.mkdir()
    out = []
    for k in range(count):
        code = STRIDED.replace("NAME", f"k{k}").replace("STRIDE", str(k + 1))
        out += ["--bot", str(write_bot(root, f"k{k}", "1.0", code))]
    return out


def lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def games_per_tie(path: Path) -> Counter[tuple[object, object]]:
    """The games of each (round, tie) in a progress file, leaving out a last line cut
    in the middle."""
    whole = path.read_text()
    whole = whole[: whole.rfind("\n") + 1]
    return Counter((g["knockout_round"], g["tie"]) for g in map(json.loads, whole.splitlines())
                   if g["type"] == "game")


def tie_complete(path: Path) -> bool:
    """Whether one tie of two games has both in the progress file."""
    return path.exists() and 2 in games_per_tie(path).values()


def interrupted(tmp_path: Path, how: signal.Signals) -> tuple[list[str], Path, int, str]:
    """A knockout of 8 bots run as its own process group, sent ``how`` once a tie has
    finished (as a terminal's Ctrl-C or ``kill -9`` reaches the run and its workers):
    its arguments, progress file, exit status and stderr."""
    entrants = bots(tmp_path / "bots", 8)
    progress, err = tmp_path / "ko.jsonl", tmp_path / "stderr"
    argv = ["tournament", "blossom", "--format", "knockout", *entrants, "--games", "2", *FAST]
    with err.open("w") as stderr:
        child = subprocess.Popen(
            [sys.executable, "-m", "niwa.cli", *argv, "--progress", str(progress)],
            stdout=subprocess.DEVNULL, stderr=stderr, start_new_session=True,
        )
        try:
            wait_for("a finished tie in the progress file", lambda: tie_complete(progress))
        finally:
            os.killpg(child.pid, how)
            code = child.wait()
    return argv, progress, code, err.read_text()


def resume_plays_each_tie_once(tmp_path: Path, argv: list[str], progress: Path) -> None:
    kept = progress.read_text()
    kept = kept[: kept.rfind("\n") + 1]
    out = tmp_path / "out.jsonl"
    assert main([*argv, "--resume", str(progress), "--json", str(out)]) == 0
    played = games_per_tie(progress)
    # 4 + 2 + 1 ties of two games; every game index once
    assert sorted(played) == [(1, 0), (1, 1), (1, 2), (1, 3), (2, 0), (2, 1), (3, 0)]
    assert set(played.values()) == {2}
    indexes = [g["index"] for g in lines(progress) if g["type"] == "game"]
    assert len(indexes) == len(set(indexes)) == 14
    assert progress.read_text().startswith(kept)  # what was kept was not played again
    *_, final = lines(out)
    assert final["type"] == "bracket" and final["champion"] is not None


def test_a_knockout_of_8_killed_and_resumed_plays_each_tie_exactly_once(tmp_path: Path) -> None:
    argv, progress, code, _ = interrupted(tmp_path, signal.SIGKILL)
    assert code == -signal.SIGKILL
    assert sum(games_per_tie(progress).values()) >= 2
    resume_plays_each_tie_once(tmp_path, argv, progress)


def test_a_knockout_stopped_by_ctrl_c_says_how_to_resume_and_resumes(tmp_path: Path) -> None:
    argv, progress, code, err = interrupted(tmp_path, signal.SIGINT)
    assert code == 130
    assert f"the same command with --resume {progress}" in err
    resume_plays_each_tie_once(tmp_path, argv, progress)


def test_a_resume_with_other_arguments_is_refused_naming_the_difference(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    entrants = bots(tmp_path / "bots", 2)
    progress = tmp_path / "p.jsonl"
    argv = ["tournament", "blossom", *entrants, *FAST]
    assert main([*argv, "--format", "knockout", "--games", "2", "--progress", str(progress)]) == 0
    capsys.readouterr()
    assert main([*argv, "--format", "round-robin", "--resume", str(progress)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].endswith('has format "knockout", not "round-robin": resume it with the '
                            "same arguments, or start a new --progress file")


def test_a_resume_of_a_finished_round_robin_plays_nothing_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    entrants = bots(tmp_path / "bots", 3)
    progress = tmp_path / "p.jsonl"
    argv = ["tournament", "blossom", *entrants, *FAST[:-2]]  # no --seed: the file keeps it
    assert main([*argv, "--progress", str(progress)]) == 0
    kept = progress.read_text()
    assert isinstance(lines(progress)[0]["seed"], int)
    out = tmp_path / "out.jsonl"
    assert main([*argv, "--resume", str(progress), "--json", str(out)]) == 0
    assert progress.read_text() == kept
    games = [g for g in lines(out) if g["type"] == "game"]
    assert len(games) == 6  # the standings still count every game
    assert "6 games already played" in capsys.readouterr().out


def test_five_bots_give_the_three_top_seeds_a_bye(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out.jsonl"
    argv = ["tournament", "blossom", "--format", "knockout", *bots(tmp_path / "bots", 5),
            "--games", "2", *FAST, "--json", str(out), "--html", str(tmp_path / "b.html")]
    assert main(argv) == 0
    first = lines(out)[-1]["rounds"][0]  # type: ignore[index]
    assert "champion: <b>" in (tmp_path / "b.html").read_text()
    assert [(t["seed_a"], t["seed_b"], t["decided_by"]) for t in first] == [
        (1, None, "bye"), (4, 5, first[1]["decided_by"]), (2, None, "bye"), (3, None, "bye")]
    printed = capsys.readouterr().out
    assert "1 k0@1.0" in printed and "champion: " in printed
    drawn = [line for line in printed.splitlines() if set(line) & set("┐┘│├")]
    assert len(drawn) == 15 and max(map(len, drawn)) <= 80


def test_an_sprt_tie_stops_once_the_test_decides(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    argv = ["tournament", "blossom", "--format", "knockout", *bots(tmp_path / "bots", 2),
            "--games", "40", "--sprt", "elo0=-400", "elo1=400", "alpha=0.2", "beta=0.2",
            *FAST, "--json", str(out)]
    assert main(argv) == 0
    (tie,) = lines(out)[-1]["rounds"][0]  # type: ignore[index,misc]
    assert tie["decided_by"] == "sprt"
    assert tie["games"] < 40
    assert tie["sprt"]["verdict"] in ("H0", "H1")
    assert tie["winner"] == (tie["a"] if tie["sprt"]["verdict"] == "H1" else tie["b"])


def test_a_knockout_of_games_for_more_seats_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["tournament", "sakura", "--format", "knockout", "--bot", "builtin:random",
            "--bot", "builtin:greedy", "--players", "3"]
    assert main(argv) == 2
    assert "a knockout tie is two bots head to head" in capsys.readouterr().err


def test_seed_from_a_ladder_orders_the_rated_bots_by_rating_then_the_others(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    entrants = bots(tmp_path / "bots", 3)  # k0, k1, k2
    db = tmp_path / "ladder.db"
    store = Store.open(str(db))
    owner, _ = store.owners.add_owner("alice")
    k0, k1, k2 = (store.bots.add_bot(f"k{k}", "1.0", "blossom", owner.id, "archive", None,
                                     ACTIVE).id for k in range(3))
    for winner, loser in [(k2, k1), (k2, k0), (k1, k0), (k2, k1), (k1, k0), (k0, k2)]:
        play(store, winner, loser)
    store.close()
    out = tmp_path / "out.jsonl"
    argv = ["tournament", "blossom", "--format", "knockout", "--bot", "builtin:greedy",
            *entrants, "--games", "2", *FAST, "--seed-from", str(db), "--json", str(out)]
    assert main(argv) == 0
    assert lines(out)[-1]["seeds"] == ["k2@1.0", "k1@1.0", "k0@1.0", "builtin:greedy"]
    printed = capsys.readouterr().out
    assert "4 builtin:greedy (not rated there)" in printed


def test_a_swiss_resumed_from_a_cut_file_plays_the_games_of_a_straight_run(
    tmp_path: Path,
) -> None:
    argv = ["tournament", "blossom", "--format", "swiss", "--rounds", "3",
            *bots(tmp_path / "bots", 3), *FAST]
    straight, cut = tmp_path / "straight.jsonl", tmp_path / "cut.jsonl"
    assert main([*argv, "--progress", str(straight)]) == 0
    header, first, *_ = straight.read_text().splitlines(keepends=True)
    cut.write_text(header + first + '{"type": "game", "ind')  # killed while writing
    assert main([*argv, "--resume", str(cut)]) == 0

    def played(path: Path) -> list[tuple[object, ...]]:
        return sorted((g["index"], g["seed"], tuple(s["bot"] for s in g["seats"]),  # type: ignore[attr-defined]
                       tuple(s["place"] for s in g["seats"]))  # type: ignore[attr-defined]
                      for g in lines(path) if g["type"] == "game")

    assert len(played(straight)) == 6
    assert played(cut) == played(straight)
