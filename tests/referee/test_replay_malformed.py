"""Malformed replay files: one clear line on stderr and exit code 2, never a traceback,
for ``niwa replay verify|show|ask``; and a seeded fuzz test over mutations of a real
replay in which nothing but :class:`ReplayError` leaves the reader or the checker."""

from __future__ import annotations

import json
import random
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from niwa.cli import main
from niwa.engine import canonical_json
from niwa.referee import replay
from niwa.referee.replay import MAX_DEPTH, MAX_LINE_BYTES, MAX_PLAYERS, ReplayError
from niwa.referee.replay.check import check

COMMANDS = (
    ["verify"],
    ["show"],
    ["ask", "--at", "3", "--bot", "builtin:random", "--no-sandbox"],
)


@pytest.fixture(scope="module")
def real(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("malformed") / "real.jsonl"
    argv = ["play", "blossom", "--bot", "builtin:random", "--bot", "builtin:random",
            "--seed", "3", "--in-process", "--quiet", "--replay", str(path)]
    assert main(argv) == 0
    return path


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def _assert_one_line_error(path: Path, capsys: pytest.CaptureFixture[str], *needles: str) -> None:
    for command in COMMANDS:
        code, out, err = _run(["replay", command[0], str(path), *command[1:]], capsys)
        assert code == 2, (command, out, err)
        assert out == ""
        assert err.count("\n") == 1 and err.startswith("niwa replay: error: "), err
        for needle in needles:
            assert needle in err


def _lines(path: Path) -> list[str]:
    return path.read_text().splitlines()


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n")
    return path


def test_binary_garbage(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "garbage.jsonl"
    path.write_bytes(random.Random(1).randbytes(5000))
    _assert_one_line_error(path, capsys, "garbage.jsonl")


def test_invalid_utf8_names_its_line(
    real: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = real.read_bytes().split(b"\n")
    data[2] = data[2][:20] + b"\xff\xfe" + data[2][20:]
    path = tmp_path / "utf8.jsonl"
    path.write_bytes(b"\n".join(data))
    _assert_one_line_error(path, capsys, "utf8.jsonl:3: not UTF-8")


@pytest.mark.parametrize("line", [0, 2])
def test_a_line_nested_100000_deep(
    line: int, real: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = _lines(real)
    lines[line] = '{"kind":"chance","x":' + "[" * 100_000 + "]" * 100_000 + "}"
    path = _write(tmp_path / "deep.jsonl", lines)
    _assert_one_line_error(path, capsys, f"nested deeper than {MAX_DEPTH}")


def test_nesting_inside_strings_does_not_count(real: Path, tmp_path: Path) -> None:
    lines = _lines(real)
    d = json.loads(lines[-1])
    d["seats"][0]["stderr_tail"] = ["[[[[{{{{" * 50 + '\\"' + "]]" * 10]
    lines[-1] = canonical_json(d)
    assert replay.read(_write(tmp_path / "strings.jsonl", lines)).result is not None


def test_a_10_mb_line_is_refused_without_reading_it_whole(
    real: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = _lines(real)
    lines.insert(3, '{"kind":"decision","note":"' + "x" * (10 << 20) + '"}')
    path = _write(tmp_path / "long.jsonl", lines)
    tracemalloc.start()
    try:
        with pytest.raises(ReplayError, match=f"longer than {MAX_LINE_BYTES} bytes"):
            replay.read(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 * MAX_LINE_BYTES
    _assert_one_line_error(path, capsys, "long.jsonl:4")


@pytest.mark.parametrize("players", [10**9, -1, 0, MAX_PLAYERS + 1])
def test_absurd_player_counts(
    players: int, real: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = _lines(real)
    h = json.loads(lines[0])
    h["players"] = players
    lines[0] = canonical_json(h)
    path = _write(tmp_path / "players.jsonl", lines)
    _assert_one_line_error(path, capsys, f"{players} players")


def test_more_seats_than_players(
    real: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = _lines(real)
    h = json.loads(lines[0])
    h["seats"].append(dict(h["seats"][0], seat=2))
    lines[0] = canonical_json(h)
    _assert_one_line_error(_write(tmp_path / "s.jsonl", lines), capsys, "3 seats listed for 2")


def test_a_seat_status_that_is_not_ok_or_out_is_one_line_naming_both(
    real: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = _lines(real)
    result = json.loads(lines[-1])
    result["seats"][0]["status"] = "gone"
    lines[-1] = canonical_json(result)
    _assert_one_line_error(_write(tmp_path / "g.jsonl", lines), capsys, "must be one of ok, out")


def test_an_unknown_schema_version(
    real: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = _lines(real)
    lines[0] = lines[0].replace("niwa-replay/2", "niwa-replay/9")
    path = _write(tmp_path / "schema.jsonl", lines)
    _assert_one_line_error(
        path, capsys, "niwa-replay/9", "reads niwa-replay/1 and niwa-replay/2 only"
    )


def test_a_missing_step_line(
    real: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = _lines(real)
    del lines[5]
    _assert_one_line_error(_write(tmp_path / "m.jsonl", lines), capsys, "step index 5, expected 4")


@pytest.mark.parametrize("extra", ["result", "header", "step"])
def test_an_extra_line(
    extra: str, real: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = _lines(real)
    if extra == "result":
        lines.append(lines[-1])
    elif extra == "header":
        lines.insert(2, lines[0])
    else:
        lines.insert(3, lines[3])
    _assert_one_line_error(_write(tmp_path / "x.jsonl", lines), capsys, "x.jsonl:")


def test_an_empty_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_bytes(b"")
    _assert_one_line_error(path, capsys, "empty replay file")


# -- wrong types in every field ----------------------------------------------------

NULLABLE = {"at", "wall_ms", "cpu_ms", "clock_ms"}
WRONG: list[Any] = [None, "text", 1.5, True, [], {}, 7]


def _leaves(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
    """Every field of a replay line (not inside JSON-valued actions and options)."""
    if isinstance(value, dict) and path[-1:] not in (("action",), ("options",)):
        for k, v in value.items():
            yield from _leaves(v, (*path, k))
    elif isinstance(value, list) and value and path[-1:] != ("action",):
        yield from _leaves(value[0], (*path, 0))
    if path:
        yield path, value


def _wrong_for(key: Any, original: Any) -> list[Any]:
    def same(v: Any) -> bool:
        if isinstance(original, float) and type(v) is int:
            return True  # an integer is a fine number
        return type(v) is type(original)

    if key in NULLABLE:  # an integer or null: only the other types are wrong
        return [v for v in WRONG if v is not None and type(v) not in (int, float)]
    return [v for v in WRONG if not same(v)]


def _typed_cases(real: Path) -> list[tuple[int, tuple[Any, ...], Any]]:
    lines = _lines(real)
    first_decision = next(i for i, t in enumerate(lines) if '"kind":"decision"' in t)
    cases = []
    for number in (0, 1, first_decision, len(lines) - 1):
        for path, original in _leaves(json.loads(lines[number])):
            if "options" in path or "action" in path or path == ("kind",):
                continue
            cases += [(number, path, v) for v in _wrong_for(path[-1], original)]
    return cases


def test_a_wrong_type_in_any_field_is_one_line_naming_it(
    real: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases = _typed_cases(real)
    assert len(cases) > 150
    lines = _lines(real)
    for n, (number, path, value) in enumerate(cases):
        d = json.loads(lines[number])
        target = d
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
        forged = list(lines)
        forged[number] = canonical_json(d)
        bad = _write(tmp_path / "typed.jsonl", forged)
        with pytest.raises(ReplayError) as e:
            replay.read(bad)
        assert "\n" not in str(e.value)
        if n % 3:
            continue  # the command line for a third of them (each reads the file)
        code, out, err = _run(["replay", "verify", str(bad)], capsys)
        assert (code, out, err.count("\n")) == (2, "", 1), (path, value, err)
        assert f"typed.jsonl:{number + 1}:" in err or "schema" in err, (path, value, err)


# -- fuzzing -----------------------------------------------------------------------

NASTY: list[Any] = [
    None, -1, 0, 10**30, 1.5, "", "\x1b[2J\u202e", "\ud800", [], {}, [[[[[]]]]],
    {"kind": "header"}, True, 2**63,
]


def _json_swap(rng: random.Random, lines: list[str]) -> list[str]:
    """Put a nasty value (or another line's value) at a random field of a random line."""
    i = rng.randrange(len(lines))
    try:
        d = json.loads(lines[i])
    except ValueError:
        return lines
    leaves = list(_leaves(d))
    if not leaves:
        return lines
    path, _ = rng.choice(leaves)
    if rng.random() < 0.5:
        other = json.loads(lines[rng.randrange(len(lines))])
        value = rng.choice(list(_leaves(other)) or [((), None)])[1]
    else:
        value = rng.choice(NASTY)
    target: Any = d
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    out = list(lines)
    out[i] = json.dumps(d)
    return out


STATUSES = ["OK", "OUT", "TIMEOUT", "ILLEGAL", "CRASHED", "DISCONNECTED", "ok", "out"]


def _plausible(rng: random.Random, lines: list[str]) -> list[str]:
    """A change that keeps every type: a number moved by one, another status, another
    line's action, two entries of a list swapped."""
    i = rng.randrange(len(lines))
    d = json.loads(lines[i])
    path, value = rng.choice(list(_leaves(d)))
    target: Any = d
    for key in path[:-1]:
        target = target[key]
    if isinstance(value, bool):
        value = not value
    elif isinstance(value, int | float):
        value += rng.choice([-1, 1])
    elif isinstance(value, str) and path[-1] in ("status", "reason"):
        value = rng.choice(STATUSES)
    elif isinstance(value, str):
        value += "x"
    elif isinstance(value, list) and len(value) > 1:
        value = value[::-1]
    elif path[-1] == "action":
        other = [json.loads(t) for t in lines if '"action"' in t]
        value = rng.choice(other)["moves"][0]["action"]
    target[path[-1]] = value
    out = list(lines)
    out[i] = canonical_json(d)
    return out


def _mutate(rng: random.Random, data: bytes) -> bytes:
    kind = rng.randrange(10)
    if kind == 0:  # byte flips
        b = bytearray(data)
        for _ in range(rng.randint(1, 8)):
            b[rng.randrange(len(b))] = rng.randrange(256)
        return bytes(b)
    if kind == 1:  # truncation
        return data[: rng.randrange(len(data))]
    lines = data.decode().splitlines()
    if kind == 2:  # line swap
        i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
    elif kind == 3:  # a line dropped or repeated
        i = rng.randrange(len(lines))
        lines.insert(i, lines[i]) if rng.random() < 0.5 else lines.pop(i)
    elif kind >= 6:
        lines = _plausible(rng, lines)
    else:
        for _ in range(rng.randint(1, 3)):
            lines = _json_swap(rng, lines)
    return ("\n".join(lines) + "\n").encode("utf-8", "surrogatepass")


def test_no_mutation_of_a_real_replay_raises_anything_but_replay_error(
    real: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rng = random.Random(20261124)
    data = real.read_bytes()
    path = tmp_path / "fuzz.jsonl"
    outcomes = {"unreadable": 0, "fails": 0, "verifies": 0}
    for n in range(300):
        path.write_bytes(_mutate(rng, data))
        try:
            r = replay.read(path)
        except ReplayError as e:
            assert "\n" not in str(e)
            outcomes["unreadable"] += 1
            continue
        try:
            report = check(r)
            for _ in replay.states(r):
                pass
        except ReplayError as e:
            assert "\n" not in str(e)
        else:
            assert all("\n" not in p for p in report.problems)
            outcomes["fails" if report.problems else "verifies"] += 1
        if n % 10 == 0:  # and through the CLI: show and verify never trace back
            for command in ("verify", "show"):
                code, _, err = _run(["replay", command, str(path)], capsys)
                assert code in (0, 1, 2)
                assert code != 2 or err.count("\n") == 1, err
    assert outcomes["unreadable"] > 100 and outcomes["fails"] > 20, outcomes
