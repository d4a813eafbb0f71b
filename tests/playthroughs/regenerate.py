"""Rewrite the golden playthroughs of some games (all by default) at their current rules
version, and delete those games' goldens of other versions.

    python -m tests.playthroughs.regenerate [GAME ...]

Run it after a deliberate rules change, once the game's rules version is bumped.
"""

from __future__ import annotations

import argparse
import sys

from niwa import engine
from niwa.engine.testing import playthrough
from tests.playthroughs.golden import DIR, path_for


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "games", nargs="*", metavar="GAME", help="registered game names (default: every game)"
    )
    args = parser.parse_args(argv)
    unknown = sorted(set(args.games) - set(engine.games()))
    if unknown:
        print(
            f"unknown game {unknown[0]!r}; registered: {', '.join(engine.games())}", file=sys.stderr
        )
        return 2
    DIR.mkdir(parents=True, exist_ok=True)
    for name in args.games or engine.games():
        game = engine.load(name)
        keep = set()
        for players in range(game.info.min_players, game.info.max_players + 1):
            path = path_for(game, players)
            path.write_text(playthrough.to_text(playthrough.shortest(game, players)))
            keep.add(path)
            print(f"wrote {path}")
        for old in sorted(DIR.glob(f"{name}@*.jsonl")):
            if old not in keep:
                old.unlink()
                print(f"removed {old} (another rules version)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
