"""``niwa ladder balance`` on a store where the built-ins played real Blossom matches:
the text names each figure of each player count, the backfill reports what it counted,
and a wrong call is refused naming the fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from niwa.cli import main
from niwa.ladder.store import Store
from tests.ladder.tiny_bots import cli
from tests.web.ladders import played_store

GAME = "blossom"


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return played_store(tmp_path_factory.mktemp("balance-cli"), GAME, 3)


def test_the_text_shows_every_figure_of_the_games_table_size(db: Path) -> None:
    code, out = cli("ladder", "balance", GAME, "--db", str(db))
    assert code == 0, out
    assert "2 players (0 strong, 3 rated matches)" in out
    for words in ("lead changes per match", "ranking changed in the last round",
                  "score margin", "seat 0 win share", "seat 1 mean place"):  # fmt: skip
        assert words in out


def test_a_game_without_matches_says_so(db: Path) -> None:
    code, out = cli("ladder", "balance", "sakura", "--db", str(db))
    assert code == 0
    assert "no rated matches of sakura with balance figures yet" in out


def test_the_backfill_counts_the_waiting_matches_and_reports_progress(
    db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = Store.open(str(db), create=False)
    try:
        with store.db.transaction() as tx:
            tx.execute("DELETE FROM balance_totals")
            tx.execute("DELETE FROM balance_matches")
            tx.execute("INSERT INTO balance_backlog (match_id) SELECT id FROM matches"
                       " WHERE kind = 'rated' AND state = 'done'")  # fmt: skip
    finally:
        store.close()
    assert main(["ladder", "balance", "--backfill", "--db", str(db)]) == 0
    out, err = capsys.readouterr()
    assert "3 matches counted, 0 skipped (no usable replay), 0 still waiting" in out
    assert "balance backfill: 3/3 matches (3 counted, 0 skipped)" in err
    code, text = cli("ladder", "balance", GAME, "--db", str(db))
    assert code == 0 and "2 players (0 strong, 3 rated matches)" in text


@pytest.mark.parametrize(
    ("args", "fix"),
    [
        ((), "name the game: niwa ladder balance GAME (or --backfill)"),
        ((GAME, "--backfill"), "--backfill takes no GAME"),
        ((GAME, "--limit", "3"), "--limit is for --backfill only"),
        (("chess",), "unknown game 'chess'"),
    ],
)
def test_a_wrong_call_is_refused_naming_the_fix(
    db: Path, capsys: pytest.CaptureFixture[str], args: tuple[str, ...], fix: str
) -> None:
    assert main(["ladder", "balance", *args, "--db", str(db)]) == 2
    assert fix in capsys.readouterr().err
