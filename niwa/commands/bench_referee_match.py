"""One measuring process of ``niwa bench referee``'s headline: what the referee costs
per decision over whole in-process matches, each seat sent what a gRPC bot is sent.

``python -m niwa.commands.bench_referee_match MATCHES SEED GAME:PLAYERS ...`` plays, per
game, one warm-up match and then MATCHES matches of ``builtin:random`` in process with
a replay file, and prints one JSON document. Every seat's question is also turned into
the ``ActRequest`` a bot process would get and serialised (observation, its JSON, the
legal actions' JSON, the proto), since every gRPC bot pays for that and
``builtin:random`` in process never reads its observation. Per game, in seconds:

* ``whole_cpu``: CPU time of each ``play_match`` call (trio's start-up, the players,
  the replay file opened, written and closed, the seats started and finished);
* ``loop_cpu``: the part ``MatchOutcome.cpu_s`` covers (seats started to the result);
* ``requests_cpu``: of those, building the requests (timed apart: :func:`requests_cpu`);
* ``engine_cpu`` / ``engine_wall``: the engine alone replaying the same moves;
* ``bots_cpu``: the bots' own time inside ``act`` (from the replay);
* ``whole_wall``: the wall time of the calls.

A game's matches are played back to back, as a worker plays them, and the measuring
(their replays parsed again) comes after all of them, so its objects never make a
collection due inside a match; the collections the matches make due are in their times.

Only names that every checkout since 567a8b8 shares are used (``play_match``,
``make_player``, ``InProcessPlayer``, ``BotClient.act_request``), so ``--baseline``
runs this same file against another checkout's packages.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import trio

from niwa import engine
from niwa.commands.bench_engine_only import bots_cpu, engine_only
from niwa.referee import match, replay
from niwa.referee.logs import configure_cli_logging
from niwa.referee.match import BotSpec, MatchSpec, play_match
from niwa.referee.players import InProcessPlayer, Player, Question, make_question
from niwa.referee.transport import BotClient

_make_player = match.make_player


class WiredPlayer(InProcessPlayer):
    """An in-process bot whose seat also builds the request a bot process gets."""

    wire = BotClient("not-connected", 1 << 20)  # builds requests; never connects

    async def act(self, question: Question, timeout_s: float) -> Any:
        self.wire.act_request(question).SerializeToString()
        return await super().act(question, timeout_s)


def requests_cpu(path: Path) -> float:
    """CPU seconds the requests of the match recorded at ``path`` take to build: its
    moves played again, each question made as the match makes it, timed with the
    requests built and without (the fastest of three each). A CPU clock read around
    every request would cost more than a tenth of one."""
    r = replay.read(path)
    return (min(_replay(r, build=True) for _ in range(3))
            - min(_replay(r, build=False) for _ in range(3)))


def _replay(r: replay.Replay, build: bool) -> float:
    game = engine.load(r.header.game)
    options = game.info.validate(r.header.players, r.header.options)
    per_decision = r.header.time_control["per_decision_ms"]
    wire = WiredPlayer.wire
    t0 = time.thread_time()
    state = game.new_game(r.header.players, options)
    for step in r.steps:
        if step.kind == "decision":
            for m in step.moves:
                question = make_question(step.index, m.seat, state, m.clock_ms or 0,
                                         per_decision, 0)
                if build:
                    wire.act_request(question).SerializeToString()
        state.apply(step.joint())
    return time.thread_time() - t0


def _wired_player(
    spec: MatchSpec, bot: BotSpec, seat: int, match_id: str, nursery: trio.Nursery | None
) -> Player:
    player = _make_player(spec, bot, seat, match_id, nursery)
    if type(player) is InProcessPlayer:
        return WiredPlayer(player.bot, player.name, player.version)
    return player


def measure(game: str, players: int, matches: int, seed: int, tmp: Path) -> dict[str, Any]:
    row = dict.fromkeys(("whole_cpu", "whole_wall", "loop_cpu", "requests_cpu", "engine_cpu",
                         "engine_wall", "bots_cpu"), 0.0) | {"decisions": 0}
    bots = [BotSpec.parse("builtin:random")] * players
    played = []
    # The matches back to back, as a worker plays them; the bookkeeping (their replays
    # parsed again) after all of them: between them, the objects it leaves made a full
    # collection due inside a later match's times (17.5 ms, a third of a Blossom
    # match's CPU, measured) on whichever side the heap's history put it.
    for m in range(-1, matches):  # match -1 warms up (imports, first calls)
        path = tmp / f"{game}-{m}.jsonl"
        spec = MatchSpec(game=game, bots=bots, seed=seed + m, in_process=True, sandbox=False,
                         replay_path=path)
        wall0, cpu0 = time.perf_counter(), time.thread_time()
        outcome = play_match(spec)
        cpu, wall = time.thread_time() - cpu0, time.perf_counter() - wall0
        if m >= 0:
            played.append(path)
            row["whole_cpu"] += cpu
            row["whole_wall"] += wall
            row["loop_cpu"] += outcome.cpu_s
            row["decisions"] += outcome.decisions
    for path in played:
        row["requests_cpu"] += requests_cpu(path)
        row["bots_cpu"] += bots_cpu(path)
        row["engine_cpu"] += min(engine_only(path, time.thread_time) for _ in range(3))
        row["engine_wall"] += min(engine_only(path, time.perf_counter) for _ in range(3))
    return row


def main(argv: list[str]) -> None:
    matches, seed, cases = int(argv[0]), int(argv[1]), argv[2:]
    configure_cli_logging()  # warnings only, as the bench runs
    match.make_player = _wired_player
    doc: dict[str, Any] = {"load_average": os.getloadavg()[0], "games": {}}
    with tempfile.TemporaryDirectory(prefix="niwa-bench-referee-") as tmp:
        for case in cases:
            game, players = case.split(":")
            doc["games"][game] = measure(game, int(players), matches, seed, Path(tmp))
    json.dump(doc, sys.stdout)


if __name__ == "__main__":
    main(sys.argv[1:])
