"""``niwa replay fork``: Sakura matches of built-in bots forked at a step, the forks
played by sandboxed bot processes through the referee."""

from __future__ import annotations

import hashlib
import json
import math
import random
import statistics
from pathlib import Path

import pytest

from niwa.cli import main
from niwa.engine import CHANCE, canonical_json
from niwa.referee import replay
from niwa.referee.fork import RecordedChance
from niwa.series.stats import PENTANOMIAL, llr

AT = 12


def recorded(path: Path, bots: tuple[str, str], seed: int) -> Path:
    argv = ["play", "sakura", "--bot", bots[0], "--bot", bots[1], "--seed", str(seed),
            "--in-process", "--quiet", "--replay", str(path)]
    assert main(argv) == 0
    return path


def chance_outcomes(r: replay.Replay, start: int) -> list[str]:
    return [canonical_json(s.moves[0].action) for s in r.steps[start:]
            if s.moves[0].seat == CHANCE]


def json_lines(text: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


@pytest.fixture(scope="module")
def original(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return recorded(tmp_path_factory.mktemp("fork") / "m.jsonl",
                    ("builtin:random", "builtin:random"), 3)


@pytest.fixture(scope="module")
def forked(original: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("forks")
    argv = ["replay", "fork", str(original), "--at", str(AT), "--seat", "0",
            "--bot", "builtin:greedy", "--seed", "7", "--out", str(out)]
    assert main(argv) == 0
    return out / f"m-at{AT}-1.jsonl"


def test_a_forks_steps_before_n_are_the_originals(original: Path, forked: Path) -> None:
    a, b = replay.read(original), replay.read(forked)
    assert [s.joint() for s in b.steps[:AT]] == [s.joint() for s in a.steps[:AT]]


def test_a_forks_chance_after_n_is_the_recorded_chance_where_legal(
    original: Path, forked: Path
) -> None:
    queue = chance_outcomes(replay.read(original), AT)
    kept = 0
    for step, before, _ in replay.states(replay.read(forked)):
        if step.index < AT or step.moves[0].seat != CHANCE:
            continue
        legal = {canonical_json(a) for a, p in before.chance_outcomes() if p > 0}
        usable = [text for text in queue if text in legal]
        if usable:  # the first recorded outcome not used yet that is legal here
            assert canonical_json(step.moves[0].action) == usable[0]
            queue.remove(usable[0])
            kept += 1
    assert kept > 0


def test_a_forks_header_records_its_origin_and_seed(original: Path, forked: Path) -> None:
    h = replay.read(forked).header
    assert h.fork is not None
    assert (h.fork.replay_sha256, h.fork.at) == (
        hashlib.sha256(original.read_bytes()).hexdigest(), AT)
    assert h.fork.seed == replay.read(original).header.seed
    assert [s.bot for s in h.seats] == ["builtin:greedy", "builtin:random"]
    assert [s.isolation for s in h.seats] == ["sandbox", "sandbox"]


def test_a_fork_verifies(forked: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", "verify", str(forked)]) == 0
    assert f"a fork at step {AT}" in capsys.readouterr().out


def test_show_names_the_replay_a_fork_came_from(
    original: Path, forked: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["replay", "show", str(forked)]) == 0
    digest = hashlib.sha256(original.read_bytes()).hexdigest()
    assert f"steps 0 to {AT - 1} are those of the replay with SHA-256 {digest}" in (
        capsys.readouterr().out)


def test_recorded_chance_draws_from_the_seed_when_no_recorded_outcome_is_legal(
    original: Path,
) -> None:
    r = replay.read(original)
    state = next(before for step, before, _ in replay.states(r)
                 if step.moves[0].seat == CHANCE)
    draw = RecordedChance([{"not": "a card"}], random.Random(5))
    assert draw(state.clone()) == state.sample_chance(random.Random(5))
    assert (draw.kept, draw.drawn) == (0, 1)


def test_a_fork_past_the_last_step_is_refused(
    original: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    last = len(replay.read(original).steps)
    assert main(["replay", "fork", str(original), "--at", str(last), "--seat", "0"]) == 2
    assert f"no step {last} to fork at" in capsys.readouterr().err


def test_a_fork_of_an_unknown_seat_is_refused(
    original: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["replay", "fork", str(original), "--at", "3", "--seat", "2"]) == 2
    assert "no seat 2: the replay has seats 0 to 1" in capsys.readouterr().err


def test_a_fork_of_a_fork_is_refused_naming_the_original(
    forked: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["replay", "fork", str(forked), "--at", "3", "--seat", "0"]) == 2
    assert "is itself a fork" in capsys.readouterr().err


def test_a_bot_for_that_names_no_seat_is_refused(
    original: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["replay", "fork", str(original), "--at", "3", "--bot-for", "gardner=builtin:random"]
    assert main(argv) == 2
    assert "no seat of the replays is gardner" in capsys.readouterr().err


def relabelled(src: Path, dst: Path, seat: int, bot: str) -> Path:
    """``src`` with seat ``seat``'s bot named ``bot`` (as a ladder names a submission)."""
    lines = src.read_text().splitlines()
    header = json.loads(lines[0])
    header["seats"][seat]["bot"] = bot
    lines[0] = canonical_json(header)
    dst.write_text("\n".join(lines) + "\n")
    return dst


def test_a_seat_with_no_bot_that_runs_here_is_refused_naming_the_fix(
    original: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ladder = relabelled(original, tmp_path / "l.jsonl", 1, "gardener@0.2.0")
    argv = ["replay", "fork", str(ladder), "--at", "3", "--seat", "0", "--bot",
            "builtin:greedy", "--out", str(tmp_path)]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "seat 1 (gardener@0.2.0) needs a bot that runs here" in err
    assert "--bot-for 1=DIR" in err


def test_a_fork_over_a_folder_reports_the_paired_result_computed_by_hand(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "losses"
    folder.mkdir()
    # random sits in seat 0, 1, 0; the third file names its other seat as a ladder
    # would (given with --bot-for); a fourth file was cut off before its result.
    recorded(folder / "a.jsonl", ("builtin:random", "builtin:greedy"), 11)
    recorded(folder / "b.jsonl", ("builtin:greedy", "builtin:random"), 12)
    relabelled(recorded(tmp_path / "c.jsonl", ("builtin:random", "builtin:greedy"), 13),
               folder / "c.jsonl", 1, "gardener@0.2.0")
    cut = recorded(tmp_path / "d.jsonl", ("builtin:random", "builtin:greedy"), 14)
    (folder / "d.jsonl").write_text("\n".join(cut.read_text().splitlines()[:-1]) + "\n")
    out = tmp_path / "forks"
    argv = ["replay", "fork", "--from", str(folder), "--at", "6", "--as", "builtin:random",
            "--bot", "builtin:greedy", "--bot-for", "gardener@0.2.0=builtin:greedy",
            "--seed", "21", "--out", str(out), "--json", "--sprt", "elo0=0", "elo1=100"]
    assert main(argv) == 0
    captured = capsys.readouterr()
    lines = json_lines(captured.out)
    assert [line["kind"] for line in lines] == ["refused", "fork", "fork", "fork", "summary"]
    assert "no result line" in str(lines[0]["reason"])
    assert "[3/3]" in captured.err

    def share(path: Path, seat: int) -> float:
        places = replay.read(path).result.places  # type: ignore[union-attr]
        return 1.0 if places[seat] < places[1 - seat] else 0.5 if (
            places[seat] == places[1 - seat]) else 0.0

    seats = {"a": 0, "b": 1, "c": 0}
    differences = [share(out / f"{n}-at6-1.jsonl", s) - share(folder / f"{n}.jsonl", s)
                   for n, s in seats.items()]
    assert [line["seat"] for line in lines[1:4]] == [0, 1, 0]
    assert [line["difference"] for line in lines[1:4]] == differences
    mean = sum(differences) / 3
    half = 4.303 * statistics.stdev(differences) / math.sqrt(3)  # t(2) at 97.5 %
    counts = [0.0] * 5
    for d in differences:  # the pair score (1 + d) / 2 on the pentanomial ladder
        counts[PENTANOMIAL.index((1 + d) / 2)] += 1
    summary = lines[4]
    assert summary["replays"] == 3 and summary["refused"] == 1
    assert summary["mean_difference"] == pytest.approx(mean)
    assert summary["low"] == pytest.approx(max(-1.0, mean - half))
    assert summary["high"] == pytest.approx(min(1.0, mean + half))
    sprt = summary["sprt"]
    assert isinstance(sprt, dict)
    assert sprt["llr"] == pytest.approx(llr(counts, PENTANOMIAL, 0.0, 100.0))
