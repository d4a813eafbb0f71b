"""A store with a finished match whose replay is real (played by the referee with
built-in bots, in process), for the fork rules' tests."""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass

from niwa import engine
from niwa.ladder import worker
from niwa.ladder.store import ACTIVE, RATED, REJECTED, RETIRED, Bot, Owner, Store
from niwa.referee import replay
from niwa.referee.match import BotSpec, MatchSpec, play_match


@dataclass(frozen=True)
class Forkable:
    """alice's bot ``seated`` played seat 0 of ``match_id`` against bob's ``rival``;
    alice also has ``other`` (active), ``old`` (retired) and ``bad`` (rejected)."""

    alice: Owner
    bob: Owner
    seated: Bot
    other: Bot
    old: Bot
    bad: Bot
    rival: Bot
    match_id: int
    tokens: dict[str, str]  # owner name -> API token


def _bot(store: Store, owner: Owner, name: str, version: str, status: str) -> Bot:
    digest = hashlib.sha256(f"{name}@{version}".encode()).hexdigest()
    return store.bots.add_bot(name, version, "blossom", owner.id, "archive", digest, status)


def finished_match(
    store: Store, seats: list[int], seed: int = 5, duplicate_group: int | None = None,
    kind: str = RATED,
) -> int:  # fmt: skip
    """Queue, play (built-in random bots standing in) and record one blossom match."""
    match_id = store.matches.queue_match(
        "blossom", engine.load("blossom").info.version, seats, seed,
        duplicate_group=duplicate_group, kind=kind,
    )
    claimed = store.matches.claim_next()
    assert claimed is not None and claimed.id == match_id
    played = store.files.attempt_replay_path(match_id, 1)
    played.parent.mkdir(parents=True, exist_ok=True)
    spec = MatchSpec(
        game="blossom", bots=[BotSpec.parse("builtin:random")] * len(seats), seed=seed,
        sandbox=False, in_process=True, replay_path=played, replay_stderr=False,
    )  # fmt: skip
    outcome = play_match(spec)
    data = played.read_bytes()
    finished = worker.finished(outcome, seats, hashlib.sha256(data).hexdigest())
    assert store.matches.finish_match(match_id, finished, data, 1)
    os.replace(played, store.files.replay_path(match_id))
    return match_id


def forkable(store: Store) -> Forkable:
    alice, alice_token = store.owners.add_owner("alice")
    bob, bob_token = store.owners.add_owner("bob")
    seated = _bot(store, alice, "alpha", "1", ACTIVE)
    other = _bot(store, alice, "alpha", "2", ACTIVE)
    old = _bot(store, alice, "beta", "1", RETIRED)
    bad = _bot(store, alice, "gamma", "1", REJECTED)
    rival = _bot(store, bob, "rival", "1", ACTIVE)
    match_id = finished_match(store, [seated.id, rival.id])
    tokens = {"alice": alice_token, "bob": bob_token}
    return Forkable(alice, bob, seated, other, old, bad, rival, match_id, tokens)


def replay_steps(store: Store, match_id: int) -> int:
    return len(replay.read(store.files.replay_path(match_id)).steps)
