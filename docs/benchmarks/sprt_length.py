"""How many games an SPRT takes, for docs/series.md ("How many games").

    python docs/benchmarks/sprt_length.py --elo1 50 --series 200 [--cap-games 1000]

Plays simulated series with niwa's own test (``niwa.series.stats``: the pentanomial
LLR after every pair, elo0 = 0, alpha = beta = 0.05) and prints, for A truly 0,
elo1 / 2, elo1 and 2 x elo1 Elo stronger (or each ``--at``), the games each series
took (mean, median, 90th and 95th percentile) and how often it ended H1, H0 or ran out
of games. A pair is
two independent games without ties, each won by A with the score its Elo gives: the
most variance a game can have, so real bots (whose two games of a deal share its luck)
usually need fewer.
"""

from __future__ import annotations

import argparse
import random
import statistics

from niwa.series import stats


def series(
    rng: random.Random, true_elo: float, sprt: stats.Sprt, cap_pairs: int
) -> tuple[str, int]:
    """One series: its verdict and the games it took."""
    s = stats.expected_score(true_elo)
    counts = [0] * len(stats.PENTANOMIAL)
    for pairs in range(1, cap_pairs + 1):
        counts[(rng.random() < s) * 2 + (rng.random() < s) * 2] += 1
        verdict = sprt.verdict(stats.llr(counts, stats.PENTANOMIAL, sprt.elo0, sprt.elo1))
        if verdict != "continue":
            return verdict, 2 * pairs
    return "inconclusive", 2 * cap_pairs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--elo1", type=float, default=50.0)
    parser.add_argument("--series", type=int, default=200, help="simulated series per case")
    parser.add_argument("--cap-games", type=int, default=10**9, help="the series' --games")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--at", type=float, action="append",
        help="A's true Elo edge (repeatable; default 0, elo1/2, elo1, 2 x elo1)",
    )
    args = parser.parse_args()

    sprt = stats.Sprt(0.0, args.elo1)
    rng = random.Random(args.seed)
    for elo in args.at or [share * args.elo1 for share in (0.0, 0.5, 1.0, 2.0)]:
        runs = [series(rng, elo, sprt, args.cap_games // 2) for _ in range(args.series)]
        games = sorted(n for _, n in runs)
        ends = {v: sum(w == v for w, _ in runs) / len(runs) for v in ("H1", "H0", "inconclusive")}
        print(
            f"elo1 {args.elo1:g}, A {elo:g} Elo stronger: games mean"
            f" {statistics.mean(games):.0f}, median {games[len(games) // 2]},"
            f" 90 % {games[int(0.9 * len(games))]}, 95 % {games[int(0.95 * len(games))]};"
            f" H1 {ends['H1']:.1%}, H0 {ends['H0']:.1%}, inconclusive {ends['inconclusive']:.1%}",
            flush=True,
        )


if __name__ == "__main__":
    main()
