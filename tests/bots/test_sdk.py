"""The bot SDK: replies, manifests, reproducible randomness, and serving over gRPC."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import trio

from niwa.bots.builtin import UnknownBuiltin, create
from niwa.bots.manifest import ManifestError, load
from niwa.bots.sdk import (
    DEBUG_LIMIT,
    ERROR_LIMIT,
    GameStart,
    Reply,
    Turn,
    as_reply,
    cut_debug,
    exception_line,
)
from niwa.bots.server import _Servicer
from niwa.proto.v1 import bot_pb2
from niwa.referee.players import Question
from niwa.referee.transport import BotClient


def turn(decision: int, seed: int = 1) -> Turn:
    return Turn(decision, 0, {}, list(range(50)), 1000, seed)


def test_a_bare_int_answer_is_an_index() -> None:
    assert as_reply(3) == Reply(index=3)


def test_a_reply_carries_an_index_or_an_action_not_both() -> None:
    with pytest.raises(ValueError, match="exactly one"):
        Reply(index=1, action="x")
    with pytest.raises(ValueError, match="exactly one"):
        Reply()


def test_an_answer_of_another_type_is_refused() -> None:
    with pytest.raises(TypeError, match="index or a Reply"):
        as_reply("first")  # type: ignore[arg-type]


def test_a_bool_answer_is_refused_though_python_counts_it_an_int() -> None:
    with pytest.raises(TypeError, match="index or a Reply"):
        as_reply(True)


def test_a_large_or_negative_index_is_still_an_index() -> None:
    assert as_reply(5000) == Reply(index=5000)
    assert as_reply(-1) == Reply(index=-1)


class _Explains:
    def act(self, turn: Turn) -> Reply:
        return Reply(index=1, note="second", debug=f"scores: a=0.4 b=0.6 at {turn.decision}")


def test_a_reply_s_debug_text_goes_into_the_act_reply() -> None:
    request = bot_pb2.ActRequest(decision=4, seat=0, observation_json="{}",
                                 legal_actions_json=['"a"', '"b"'])
    reply = _Servicer(_Explains()).Act(request)
    assert (reply.index, reply.note, reply.debug) == (1, "second", "scores: a=0.4 b=0.6 at 4")


def test_debug_text_within_the_limit_is_kept_whole() -> None:
    text = "line 1\nline 2 é" + "x" * (DEBUG_LIMIT - 20)
    assert len(text.encode()) <= DEBUG_LIMIT
    assert cut_debug(text) == text


def test_longer_debug_text_is_cut_to_the_limit_with_a_marker() -> None:
    cut = cut_debug("é" * 100_000)  # two bytes each: the cut must not split one
    assert len(cut.encode()) <= DEBUG_LIMIT
    assert cut.startswith("é" * 900)
    assert cut.endswith(f" [debug cut at {DEBUG_LIMIT} bytes: 200000 sent]")


def test_an_exception_is_sent_as_its_type_and_message() -> None:
    assert exception_line(ValueError("bad index")) == "ValueError: bad index"
    assert exception_line(KeyError()) == "KeyError"


def test_an_exception_s_line_is_one_line_within_the_limit() -> None:
    line = exception_line(RuntimeError("first\nsecond " + "x" * 10_000))
    assert line.startswith("RuntimeError: first second xxx") and "\n" not in line
    assert len(line) == ERROR_LIMIT and line.endswith("…")


def test_turn_randomness_repeats_for_the_same_question() -> None:
    assert turn(7).rng().random() == turn(7).rng().random()


def test_turn_randomness_differs_between_decisions_and_seeds() -> None:
    assert turn(7).rng().random() != turn(8).rng().random()
    assert turn(7, seed=1).rng().random() != turn(7, seed=2).rng().random()


def test_the_random_builtin_answers_a_legal_index() -> None:
    assert 0 <= create("random").act(turn(3)) < 50


def test_an_unknown_builtin_lists_the_known_ones() -> None:
    with pytest.raises(UnknownBuiltin, match=r"built-in bots: .*random"):
        create("nobody")


def test_a_manifest_names_its_command(tmp_path: Path) -> None:
    (tmp_path / "bot.toml").write_text(
        'name = "b"\nversion = "1"\ngames = ["blossom"]\ncommand = ["python3", "bot.py"]\n'
    )
    m = load(tmp_path)
    assert m.command == ("python3", "bot.py") and m.plays("blossom") and not m.plays("bonsai")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (None, "bot.toml is missing"),
        ("name = ", "not valid TOML"),
        ('name = "a b"\nversion="1"\ngames=["*"]\ncommand=["x"]', "'name' must be"),
        ('name = "a"\nversion="1"\ngames=[]\ncommand=["x"]', "'games' must list"),
        ('name = "a"\nversion="1"\ngames=["*"]\ncommand="x"', "'command' must be the argv"),
    ],
)
def test_a_bad_manifest_says_what_to_fix(tmp_path: Path, text: str | None, message: str) -> None:
    if text is not None:
        (tmp_path / "bot.toml").write_text(text)
    with pytest.raises(ManifestError, match=message):
        load(tmp_path)


def test_serving_without_the_socket_variable_explains_who_starts_bots() -> None:
    env = {k: v for k, v in os.environ.items() if k != "NIWA_SOCKET"}
    done = subprocess.run([sys.executable, "-m", "niwa.bots.builtin", "random"], env=env,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 1
    assert "NIWA_SOCKET is not set" in done.stderr


def test_a_served_bot_prints_ready_and_answers_act_over_its_socket(tmp_path: Path) -> None:
    socket = str(tmp_path / "bot.sock")
    bot = subprocess.Popen([sys.executable, "-m", "niwa.bots.builtin", "random"],
                           env={**os.environ, "NIWA_SOCKET": socket},
                           stdout=subprocess.PIPE, text=True)
    try:
        assert bot.stdout is not None and bot.stdout.readline().strip() == "READY"

        async def talk() -> tuple[tuple[str, str], Reply]:
            client = BotClient(socket, 1 << 20)
            start = GameStart("toy", "toy@1", 0, 2, {}, 1000, 0, 5)
            identity = await client.start(start, 5)
            reply = await client.act(Question(3, 0, {"x": 1}, ["a", "b", "c"], 1000), 5)
            client.close()
            return identity, reply

        identity, reply = trio.run(talk)
        assert identity == ("random", "1")
        assert reply.index == create("random").act(Turn(3, 0, {}, ["a", "b", "c"], 1000, 5))
    finally:
        bot.terminate()
        bot.wait()


class _Keeps:
    """Keeps the turn it was asked."""

    def __init__(self) -> None:
        self.turns: list[Turn] = []

    def act(self, turn: Turn) -> int:
        self.turns.append(turn)
        return 0


def test_a_served_bot_gets_the_very_question_the_referee_built(tmp_path: Path) -> None:
    question = Question(7, 1, {"hand": [1, 2]}, [{"t": "a"}, "b"], 1500, seed=99,
                        per_decision_ms=1000, bank_ms=500)
    client = BotClient(str(tmp_path / "unused.sock"), 1 << 20)
    try:
        request = client.act_request(question)
    finally:
        client.close()
    bot = _Keeps()
    servicer = _Servicer(bot)
    start = bot_pb2.StartRequest(game="toy", version="toy@1", seat=1, players=2, seed=99)
    servicer.Start(start)
    servicer.Act(request)
    assert bot.turns == [question]


@pytest.mark.parametrize(
    "legal", [[], ["a,b", "]["], [[1, [2, {"k": ",]"}]], None, 3.5, {"x": []}]]
)
def test_legal_actions_reach_the_bot_as_the_referee_listed_them(legal: list[object]) -> None:
    client = BotClient("/nonexistent", 1 << 20)
    try:
        request = client.act_request(Question(0, 0, {}, legal, 1000, seed=1))
    finally:
        client.close()
    bot = _Keeps()
    _Servicer(bot).Act(request)
    assert bot.turns[0].legal_actions == legal


def test_an_observation_given_as_a_function_is_built_once_when_first_read() -> None:
    built: list[int] = []

    def observe() -> dict[str, int]:
        built.append(1)
        return {"x": 1}

    lazy = Turn(3, 0, None, ["a"], 1000, observe=observe)
    assert built == []
    assert lazy.observation == {"x": 1} and lazy.observation == {"x": 1}
    assert built == [1]
    assert lazy == Turn(3, 0, {"x": 1}, ["a"], 1000)


def test_an_observation_unread_when_the_turn_was_answered_is_never_built() -> None:
    lazy = Turn(3, 0, None, ["a"], 1000, observe=lambda: {"x": 1})
    lazy.seal()
    with pytest.raises(RuntimeError, match="read after the bot answered"):
        lazy.observation  # noqa: B018


def test_the_random_builtin_promises_not_to_keep_turns() -> None:
    assert create("random").keeps_turns is False  # type: ignore[attr-defined]


def test_a_served_bot_that_never_reads_its_observation_never_parses_it() -> None:
    # Not JSON: parsing it would raise, so an answer shows it was left alone.
    request = bot_pb2.ActRequest(decision=0, seat=0, observation_json="{not parsed",
                                 legal_actions_json=['"a"', '"b"'])
    reply = _Servicer(create("random")).Act(request)
    assert reply.WhichOneof("choice") == "index"
