"""Generic checks of the engine contract, run against any :class:`engine.Game`.

Each check plays random games (chance sampled from a seeded ``random.Random`` instance,
never the global one) and fails with an AssertionError that says which step broke which
promise. The checks are plain functions: :func:`niwa.engine.testing.conformance_tests` turns
them into pytest tests.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any, Protocol

from niwa import engine
from niwa.engine import CHANCE, Game, IllegalAction, State

#: Game options for a check (None: the game's defaults).
Options = dict[str, object] | None


def random_joint(state: State, rng: random.Random) -> dict[int, object]:
    """A joint move for whoever is to move: a chance sample or random legal actions."""
    seats = state.to_move()
    if seats == (CHANCE,):
        return {CHANCE: engine.sample_chance(state, rng)}
    joint: dict[int, object] = {}
    for seat in seats:
        actions = state.legal_actions(seat)
        assert actions, f"seat {seat} is to move but has no legal action"
        joint[seat] = rng.choice(actions)
    return joint


def playout(
    game: Game,
    players: int,
    seed: int,
    max_steps: int = 20_000,
    options: Options = None,
) -> Iterator[tuple[State, dict[int, object]]]:
    """Yield (state before, joint move) for one random game, then stop when it is over."""
    rng = random.Random(seed)
    state = game.new_game(players, options or {})
    for _ in range(max_steps):
        if state.is_over():
            return
        joint = random_joint(state, rng)
        yield state, joint
        state.apply(joint)
    raise AssertionError(f"{game.info.name} {players}p seed {seed}: no end in {max_steps} steps")


def every_state(game: Game, players: int, seed: int, options: Options = None) -> Iterator[State]:
    """Every state of the :func:`playout` with this seed, the finished one included."""
    last: State | None = None
    for state, _ in playout(game, players, seed, options=options):
        last = state
        yield state
    # playout applies each joint to the state it yielded, so ``last`` is now the end
    yield last if last is not None else game.new_game(players, options or {})


def final_state(game: Game, players: int, seed: int, options: Options = None) -> tuple[State, int]:
    rng = random.Random(seed)
    state = game.new_game(players, options or {})
    steps = 0
    while not state.is_over():
        state.apply(random_joint(state, rng))
        steps += 1
        assert steps < 20_000, f"{game.info.name} {players}p seed {seed}: no end"
    return state, steps


def check_terminates_with_consistent_result(
    game: Game, players: int, seed: int, options: Options = None
) -> None:
    state, _ = final_state(game, players, seed, options)
    assert state.to_move() == ()
    res = state.result()
    assert len(res.scores) == players and len(res.places) == players
    for i in range(players):
        # a competition ranking (0, 0, 2); a rival that is no seat (sakura's court
        # painter with courtCanWin) may push seats further down, never up
        better = sum(1 for j in range(players) if res.places[j] < res.places[i])
        assert res.places[i] >= better, f"places {res.places} are not a competition ranking"
        for j in range(players):
            if res.scores[i] > res.scores[j]:
                assert res.places[i] <= res.places[j], f"scores {res.scores} vs {res.places}"
    json.dumps(res.to_json())


def check_deterministic(game: Game, players: int, seed: int, options: Options = None) -> None:
    a = [
        (engine.state_hash(s), json.dumps(j, sort_keys=True))
        for s, j in playout(game, players, seed, options=options)
    ]
    b = [
        (engine.state_hash(s), json.dumps(j, sort_keys=True))
        for s, j in playout(game, players, seed, options=options)
    ]
    assert a == b, "the same seed and moves gave different games"
    sa, _ = final_state(game, players, seed, options)
    sb, _ = final_state(game, players, seed, options)
    assert sa.to_json() == sb.to_json() and sa.result() == sb.result()


def _views(state: State, players: int) -> list[object]:
    return [state.observe(s) for s in [None, *range(players)]]


def check_round_trip_every_step(
    game: Game, players: int, seed: int, options: Options = None
) -> None:
    for step, (state, _) in enumerate(playout(game, players, seed, options=options)):
        snap = state.to_json()
        text = json.dumps(snap)
        back = game.from_json(json.loads(text))
        assert back.to_json() == snap, f"step {step}: to_json/from_json does not round-trip"
        assert state.snapshot_text() == engine.canonical_json(snap), (
            f"step {step}: snapshot_text() is not the canonical JSON of to_json()"
        )
        assert back.to_move() == state.to_move(), f"step {step}: to_move differs after round trip"
        assert _views(back, players) == _views(state, players), f"step {step}: views differ"
        for seat in state.to_move():
            if seat != CHANCE:
                assert back.legal_actions(seat) == state.legal_actions(seat)
        assert back.chance_outcomes() == state.chance_outcomes()


def _all_joints(state: State, rng: random.Random) -> list[dict[int, object]]:
    """Every legal action of every pending seat, the other seats random."""
    seats = state.to_move()
    if seats == (CHANCE,):
        return [{CHANCE: a} for a, _ in state.chance_outcomes()]
    joints = []
    base = random_joint(state, rng)
    for seat in seats:
        for action in state.legal_actions(seat):
            joints.append({**base, seat: action})
    return joints


def check_legal_actions_apply(game: Game, players: int, seed: int, options: Options = None) -> None:
    rng = random.Random(seed + 1)
    for step, (state, _) in enumerate(playout(game, players, seed, options=options)):
        for seat in state.to_move():
            if seat == CHANCE:
                outcomes = state.chance_outcomes()
                total = sum(p for _, p in outcomes)
                assert outcomes and abs(total - 1) < 1e-9, f"step {step}: chance sums to {total}"
                assert all(p > 0 for _, p in outcomes), f"step {step}: an outcome has p <= 0"
            else:
                actions = state.legal_actions(seat)
                texts = [engine.canonical_json(a) for a in actions]
                assert len(set(texts)) == len(texts), f"step {step}: duplicate legal actions"
        for joint in _all_joints(state, rng):
            copy = state.clone()
            try:
                copy.apply(joint)
            except IllegalAction as e:  # pragma: no cover - reported as failure
                raise AssertionError(f"step {step}: legal {joint} was refused: {e}") from e


def check_illegal_actions_refused(
    game: Game, players: int, seed: int, options: Options = None
) -> None:
    rng = random.Random(seed + 2)
    for step, (state, _) in enumerate(playout(game, players, seed, options=options)):
        before = state.to_json()
        seats = state.to_move()
        good = random_joint(state, rng)
        bad_moves: list[dict[int, object]] = [
            {**good, seats[0]: {"no such action": True}},
            {**good, seats[0]: "not-an-action"},
            {},
        ]
        outsider = next((s for s in range(players) if s not in seats), None)
        if outsider is not None:
            bad_moves.append({**good, outsider: good.get(seats[0])})
        if len(seats) > 1:
            bad_moves.append({seats[0]: good[seats[0]]})  # a simultaneous move needs everyone
        for bad in bad_moves:
            try:
                state.apply(bad)
            except IllegalAction as e:
                assert e.rule, f"step {step}: IllegalAction without a rule"
            else:
                raise AssertionError(f"step {step}: illegal {bad} was accepted")
            assert state.to_json() == before, f"step {step}: a refused move changed the state"


def check_clone_independent(game: Game, players: int, seed: int, options: Options = None) -> None:
    rng = random.Random(seed + 3)
    kept: State | None = None  # a copy of the previous step's state, and that state's JSON
    kept_json: dict[str, Any] = {}
    for step, (state, _) in enumerate(playout(game, players, seed, options=options)):
        if kept is not None:  # the original moved on since (an engine may share parts)
            assert kept.to_json() == kept_json, f"step {step}: a move changed an earlier copy"
        before = state.to_json()
        copy = state.clone()
        assert copy.to_json() == before
        copy.apply(random_joint(copy, rng))
        assert state.to_json() == before, f"step {step}: applying to a clone changed the original"
        kept, kept_json = state.clone(), before


def check_observations_are_json(
    game: Game, players: int, seed: int, options: Options = None
) -> None:
    for step, (state, _) in enumerate(playout(game, players, seed, options=options)):
        for view in _views(state, players):
            assert isinstance(view, dict), f"step {step}: an observation is not a dict"
            assert json.loads(json.dumps(view)) == view, f"step {step}: observation not JSON"
        for seat in state.to_move():
            actions = state.legal_actions(seat) if seat != CHANCE else []
            assert json.loads(json.dumps(actions)) == actions


def check_no_leak(
    game: Game,
    players: int,
    seed: int,
    options: Options = None,
    every: int = 1,
    samples: int = 2,
) -> None:
    """``observe(seat)`` does not depend on anything ``determinize`` resamples.

    What it runs: at every ``every``-th state of one seeded random playout, the finished
    state included, and for every seat, ``samples`` states are rebuilt with
    ``game.determinize(observe(seat), seat, rng)``. Each must give back exactly that
    observation, the same spectator view, the same ``to_move`` and (if the seat is to
    move) the same legal actions; every tenth sampled step, one rebuilt state must also
    play on to an end.

    What that proves: for the states this playout reaches, changing the parts that
    ``determinize`` draws at random (another seat's hand, the deck, ...) never changes
    what ``seat`` is shown, and ``determinize`` is consistent with ``observe``.

    What it does not prove: (1) that ``determinize`` resamples everything the seat should
    not see: a hidden card that the observation carries and ``determinize`` copies back
    passes; (2) anything about ``render``, ``describe`` or error messages; (3) anything
    about states no playout reached. :func:`check_hidden_views_agree` covers ``render``
    and the case of (1) where nothing at all is resampled."""
    rng = random.Random(seed + 4)
    for step, state in enumerate(every_state(game, players, seed, options)):
        if step % every:
            continue
        public = state.observe(None)
        for seat in range(players):
            obs = state.observe(seat)
            for _ in range(samples):
                alt = game.determinize(json.loads(json.dumps(obs)), seat, rng)
                assert alt.observe(seat) == obs, (
                    f"step {step}: seat {seat}'s observation changes with what it cannot see"
                    f" (a leak, or determinize is inconsistent)"
                )
                assert alt.observe(None) == public, f"step {step}: public view changed"
                assert alt.to_move() == state.to_move(), f"step {step}: to_move differs"
                if seat in state.to_move():
                    assert alt.legal_actions(seat) == state.legal_actions(seat)
        if step % (every * 10) == 0:
            alt = game.determinize(state.observe(0), 0, rng)
            steps = 0
            while not alt.is_over():
                alt.apply(random_joint(alt, rng))
                steps += 1
                assert steps < 20_000, f"step {step}: a determinized state never ends"


def check_hidden_views_agree(game: Game, players: int, seed: int, options: Options = None) -> None:
    """Worlds that differ only in what a seat cannot see look the same to that seat.

    What it runs: at every state of one seeded random playout, the finished state
    included, and for every seat, two worlds are drawn with
    ``determinize(observe(seat), seat, rng)`` from two different rngs. The true state
    and both worlds must give that seat the same ``observe(seat)``, the same
    ``render(seat)`` text and (if it is to move) the same legal actions, and give the
    spectator the same ``observe(None)`` and ``render(None)``. For a game whose info says
    ``hidden_information``, the two worlds must differ somewhere in the playout: if they
    never do, ``determinize`` copies everything from the observation, so the observation
    already holds what the seat should not see (or the flag is wrong).

    Beyond :func:`check_no_leak` it covers the ``render`` texts, checks the legal actions
    in every sampled world, and fails a hidden-information game whose samples never vary
    (``determinize`` copying everything back, which check_no_leak cannot see). Like it,
    it cannot see one leaked part that ``determinize`` copies back while other parts vary.

    Why the worlds are not played on with the same actions and compared later: a later
    action may reveal a hidden card on purpose (a draw, the end-game count), so later
    views may differ without any leak. Fresh worlds are drawn at every step instead."""
    rngs = (random.Random(seed + 5), random.Random(seed + 6))
    hidden = game.info.hidden_information
    varied = False
    step = -1
    for step, state in enumerate(every_state(game, players, seed, options)):
        public = (state.observe(None), state.render(None))
        for seat in range(players):
            obs = state.observe(seat)
            worlds = [game.determinize(json.loads(json.dumps(obs)), seat, r) for r in rngs]
            if hidden and not varied:
                varied = engine.state_hash(worlds[0]) != engine.state_hash(worlds[1])
            for name, world in zip(("first", "second"), worlds, strict=True):
                where = f"step {step}, seat {seat}, {name} sampled world"
                assert world.observe(seat) == obs, (
                    f"{where}: observe({seat}) differs from the true state's: it shows"
                    " something the seat cannot see"
                )
                assert world.render(seat) == state.render(seat), (
                    f"{where}: render({seat}) differs from the true state's: it shows"
                    " something the seat cannot see"
                )
                assert (world.observe(None), world.render(None)) == public, (
                    f"{where}: the spectator view differs: it shows something hidden"
                )
                if seat in state.to_move():
                    assert world.legal_actions(seat) == state.legal_actions(seat), (
                        f"{where}: the legal actions of seat {seat} depend on what it cannot see"
                    )
    assert varied or not hidden, (
        f"{game.info.name} {players}p: in all {step + 1} steps, determinize gave the same"
        " state for both rngs: nothing was hidden from anyone, so either the observations"
        " carry the hidden parts (a leak) or info.hidden_information should be False"
    )


def check_feature_encoder(game: Game, players: int, seed: int, options: Options = None) -> None:
    """The game's ``feature_encoder`` (if it has one) gives every seat, at every state of
    a seeded playout, ``size`` finite floats; the same floats for the true state and for
    two worlds ``determinize`` draws from the seat's observation (so the encoding holds
    nothing the seat cannot see); and the same floats twice (it keeps no state). Its
    ``write_state`` fast path, if any, writes the same floats from the state. Its named
    ``groups``, if any, are non-empty spans inside the row. A game without the hook
    uses the generic hashed encoding, which needs no check here."""
    import numpy as np  # the engine itself needs no numpy; only this check does

    encoder = game.feature_encoder(players)
    if encoder is None:
        return
    for name, spans in encoder.groups.items():
        assert spans, f"encoder {encoder.version}: feature group {name!r} has no span"
        for start, stop in spans:
            assert 0 <= start < stop <= encoder.size, (
                f"encoder {encoder.version}: feature group {name!r} has the span"
                f" ({start}, {stop}), not inside its {encoder.size} features"
            )
    rngs = (random.Random(seed + 7), random.Random(seed + 8))

    def encoded(view: dict[str, Any]) -> Any:
        row = np.zeros(encoder.size, np.float32)
        encoder.write(view, row)
        return row

    for step, state in enumerate(every_state(game, players, seed, options)):
        for seat in range(players):
            obs = state.observe(seat)
            row = encoded(obs)
            where = f"step {step}, seat {seat}, encoder {encoder.version}"
            assert np.isfinite(row).all(), f"{where}: a feature is not a finite number"
            assert np.array_equal(encoded(obs), row), (
                f"{where}: the same view encodes differently the second time"
            )
            if encoder.write_state is not None:
                fast = np.zeros(encoder.size, np.float32)
                encoder.write_state(state, seat, fast)
                assert np.array_equal(fast, row), (
                    f"{where}: write_state differs from write(observe(seat)) at features"
                    f" {np.flatnonzero(fast != row)[:10].tolist()}"
                )
            for r in rngs:
                world = game.determinize(json.loads(json.dumps(obs)), seat, r)
                assert np.array_equal(encoded(world.observe(seat)), row), (
                    f"{where}: a world that differs only in what the seat cannot see"
                    " encodes differently"
                )


def check_observation_envelope(
    game: Game, players: int, seed: int, options: Options = None
) -> None:
    """Every game's observations start with the same fields (docs/protocol.md), and every
    key of an observation or an action is snake_case, at every step to the end."""
    for step, state in enumerate(every_state(game, players, seed, options)):
        for seat in [None, *range(players)]:
            obs = state.observe(seat)
            head = {k: obs.get(k) for k in ("game", "seat", "players", "to_move")}
            want = {
                "game": game.info.version,
                "seat": seat,
                "players": players,
                "to_move": list(state.to_move()),
            }
            assert head == want, f"step {step}: envelope {head} != {want}"
            assert isinstance(obs.get("phase"), str), f"step {step}: no phase"
            bad = _camel_keys(obs)
            assert not bad, f"step {step}: observation keys not snake_case: {sorted(bad)[:5]}"
        for seat in state.to_move():
            if seat != CHANCE:
                bad = _camel_keys(state.legal_actions(seat))
                assert not bad, f"step {step}: action keys not snake_case: {sorted(bad)[:5]}"


def check_observe_json_is_canonical(
    game: Game, players: int, seed: int, options: Options = None
) -> None:
    """``observe_json(seat)`` is the canonical JSON of ``observe(seat)`` for every seat
    and the spectator, at every step to the end (a game may spell it directly)."""
    for step, state in enumerate(every_state(game, players, seed, options)):
        for seat in [None, *range(players)]:
            text, want = state.observe_json(seat), engine.canonical_json(state.observe(seat))
            assert text == want, f"step {step}, seat {seat}: observe_json {text[:300]!r} " \
                                 f"!= canonical JSON {want[:300]!r}"


def _camel_keys(value: object, under_options: bool = False) -> set[str]:
    """Keys with capitals, outside an "options" object (option names follow the rules data)."""
    found: set[str] = set()
    if isinstance(value, dict):
        for key, sub in value.items():
            if not under_options and isinstance(key, str) and key != key.lower():
                found.add(key)
            found |= _camel_keys(sub, under_options or key == "options")
    elif isinstance(value, list):
        for sub in value:
            found |= _camel_keys(sub, under_options)
    return found


class Check(Protocol):
    def __call__(self, game: Game, players: int, seed: int, options: Options = None) -> None: ...


#: Every check by name; each takes (game, players, seed, options).
ALL_CHECKS: dict[str, Check] = {
    "terminates_with_consistent_result": check_terminates_with_consistent_result,
    "deterministic": check_deterministic,
    "round_trip_every_step": check_round_trip_every_step,
    "legal_actions_apply": check_legal_actions_apply,
    "illegal_actions_refused": check_illegal_actions_refused,
    "clone_independent": check_clone_independent,
    "observations_are_json": check_observations_are_json,
    "no_leak": check_no_leak,
    "hidden_views_agree": check_hidden_views_agree,
    "observation_envelope": check_observation_envelope,
    "observe_json_is_canonical": check_observe_json_is_canonical,
    "feature_encoder": check_feature_encoder,
}
