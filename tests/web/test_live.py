"""A running match watched live (niwa.web.live): a replay file read while it grows, the
spectator frames made of it, the streams' bounds, and that a watcher gets only what a
spectator may see until the match ends."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from niwa.engine import CHANCE
from niwa.referee import replay as replays
from niwa.web import events, live
from niwa.web.replay_view import apply
from tests.web.matches import GAMES, play
from tests.web.test_events import read

#: An unusual seed, so that its digits appearing in a payload would mean it leaked.
SEED = 918273645
#: What a watcher may learn of a move while its match runs.
LIVE_MOVE_KEYS = {"seat", "status", "text", "legal", "legal_count", "chosen", "wall_ms",
                  "cpu_ms", "clock_ms"}  # fmt: skip


@pytest.fixture(scope="module")
def replays_by_game(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("replays")
    return {game: play(game, folder, seed=SEED, seats=3) for game in GAMES}


def growing(source: Path, target: Path) -> Iterator[int]:
    """Write ``source``'s lines to ``target`` one at a time, as a referee would; yield the
    number written after each (the last line split in two writes, as a write can be)."""
    lines = source.read_bytes().splitlines(keepends=True)
    with target.open("wb", buffering=0) as f:
        for number, line in enumerate(lines, 1):
            if number == len(lines):
                f.write(line[:5])
                yield number - 1
                f.write(line[5:])
            else:
                f.write(line)
            yield number


def data(event: str) -> Any:
    return json.loads(event.split("data: ", 1)[1])


def watched_views(tail: live.Tail) -> list[Any]:
    """Every view a watcher rebuilds from the tail's events."""
    start = data(tail.events[0])
    view = apply(None, start["frames"][0]["ops"][0])
    views = [view]
    for event in tail.events[1:]:
        view = apply(view, data(event)["frame"]["ops"][0])
        views.append(view)
    return views


@pytest.mark.parametrize("game", GAMES)
def test_a_growing_replay_gives_the_spectator_view_of_every_step(
    game: str, replays_by_game: dict[str, Path], tmp_path: Path
) -> None:
    source = replays_by_game[game]
    target = tmp_path / "match.jsonl.1.part"
    tail = None
    for _ in growing(source, target):
        tail = tail or live.Tail(target)
        tail.poll()
    assert tail is not None and tail.ended and not tail.problem
    replay = replays.read(source)
    expected = [replays.new_game(replay, replay.game()).observe(None)]
    expected += [after.observe(None) for _, _, after in replays.states(replay)]
    assert watched_views(tail) == expected


@pytest.mark.parametrize("game", GAMES)
def test_a_watcher_gets_no_seat_view_seed_action_or_private_text_while_the_match_runs(
    game: str, replays_by_game: dict[str, Path], tmp_path: Path
) -> None:
    source = replays_by_game[game]
    replay = replays.read(source)
    target = tmp_path / "match.jsonl.1.part"
    tail = None
    for _ in growing(source, target):
        tail = tail or live.Tail(target)
        tail.poll()
        if tail.ended:
            break
        sent = "".join(tail.events)
        assert str(SEED) not in sent
        for event in tail.events[1:]:
            d = data(event)
            assert len(d["frame"]["ops"]) == 1  # the spectator's, no seat's
            for move in d["moves"]:
                assert set(move) <= LIVE_MOVE_KEYS
                assert move.get("legal", []) == [] and move.get("chosen", -1) == -1
    assert tail is not None
    start = data(tail.events[0])
    assert start["seed"] == live.SEED_HIDDEN and len(start["frames"][0]["ops"]) == 1
    # every action the match recorded is absent from what was sent as moves
    moves = [m for e in tail.events[1:] for m in data(e)["moves"]]
    recorded = [m for s in replay.steps for m in s.moves]
    assert len(moves) == len(recorded)
    assert all("action" not in m for m in moves)
    assert sum(m["seat"] == CHANCE for m in moves) == sum(m.seat == CHANCE for m in recorded)


@pytest.mark.parametrize("game", GAMES)
def test_worlds_that_differ_in_hidden_cards_send_a_watcher_the_same_frames(
    game: str, replays_by_game: dict[str, Path], tmp_path: Path
) -> None:
    """The conformance leak check's idea applied to what a watcher gets: at every step,
    a world redrawn from one seat's view (another seat's hand, the deck: what that seat
    cannot see, drawn again) gives the very view the watcher was sent."""
    source = replays_by_game[game]
    target = tmp_path / "match.jsonl.1.part"
    target.write_bytes(source.read_bytes())
    tail = live.Tail(target)
    tail.poll()
    watched = watched_views(tail)
    replay = replays.read(source)
    engine_game = replay.game()
    rng = random.Random(SEED)
    for index, (_, _, after) in enumerate(replays.states(replay), 1):
        for seat in range(replay.header.players):
            seen = json.loads(json.dumps(after.observe(seat)))
            world = engine_game.determinize(seen, seat, rng)
            assert world.observe(None) == watched[index], f"step {index}, seat {seat}'s world"


def test_the_delay_holds_back_that_many_frames_until_the_match_ends(
    replays_by_game: dict[str, Path], tmp_path: Path
) -> None:
    target = tmp_path / "match.jsonl.1.part"
    tail = None
    seen = []
    for _ in growing(replays_by_game["blossom"], target):
        tail = tail or live.Tail(target, delay=3)
        tail.poll()
        seen.append((len(tail.events), tail.visible(), tail.ended))
    assert all(visible == max(0, made - 3) for made, visible, ended in seen if not ended)
    assert seen[-1][0] == seen[-1][1] and seen[-1][2]


def test_a_damaged_line_stops_the_tail_with_a_reason(tmp_path: Path) -> None:
    target = tmp_path / "match.jsonl.1.part"
    target.write_bytes(b'{"kind":"header"}\n')
    tail = live.Tail(target)
    tail.poll()
    assert tail.problem.startswith("the replay being written cannot be read: ")
    assert "unavailable" in live.unavailable(tail.problem)


async def watch_all(hub: live.Hub, path: Path, watchers: int) -> list[list[str]]:
    """``watchers`` watchers of ``path`` until the end; what each received."""
    got: list[list[str]] = [[] for _ in range(watchers)]
    tails = set()

    async def one(i: int) -> None:
        async for text in hub.watch(path):
            got[i].append(text)
            tails.add(id(hub.tails.get(path)))

    async with anyio.create_task_group() as tg:
        for i in range(watchers):
            tg.start_soon(one, i)
    assert len(tails) == 1  # one tail, shared
    return got


def test_watchers_of_one_match_share_one_tail_closed_after_the_last(
    replays_by_game: dict[str, Path], tmp_path: Path
) -> None:
    target = tmp_path / "match.jsonl.1.part"
    target.write_bytes(replays_by_game["sakura"].read_bytes())
    hub = live.Hub()
    got = anyio.run(watch_all, hub, target, 5)
    assert hub.tails == {}
    texts = ["".join(g) for g in got]
    assert len(set(texts)) == 1
    assert texts[0].count("event: frame\n") == len(replays.read(target).steps)
    assert texts[0].endswith(live.sse("end", {"frames": texts[0].count("event: ") - 1}))


def test_a_reconnecting_watcher_gets_the_frames_after_its_last(
    replays_by_game: dict[str, Path], tmp_path: Path
) -> None:
    target = tmp_path / "match.jsonl.1.part"
    target.write_bytes(replays_by_game["bonsai"].read_bytes())

    async def after(n: int) -> str:
        return "".join([t async for t in live.Hub().watch(target, n)])

    text = anyio.run(after, 5)
    assert "event: start" not in text
    assert text.split("id: ", 1)[1].startswith("6\n")


def test_a_live_stream_over_the_limit_is_refused_with_what_to_do(
    replays_by_game: dict[str, Path], tmp_path: Path
) -> None:
    target = tmp_path / "match.jsonl.1.part"
    target.write_bytes(replays_by_game["blossom"].read_bytes())
    streams, hub = events.Streams(1), live.Hub()
    first = streams.serve(hub.watch(target), "watch it later")
    refused = streams.serve(hub.watch(target), "watch it later")
    assert refused.status_code == 503
    assert bytes(refused.body).decode() == "1 live streams are open already: watch it later"
    chunks = anyio.run(read, first, 2)
    assert chunks[1].startswith("id: 0\nevent: start\n")
    assert streams.open == 0
