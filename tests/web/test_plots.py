"""The server-side SVG plots."""

from __future__ import annotations

from niwa.ladder.views import RatingPoint
from niwa.web import plots


def test_a_long_history_is_thinned_keeping_its_ends() -> None:
    points = [RatingPoint(seq, 1500.0 + seq) for seq in range(1, 1001)]
    kept = plots.thin(points, 50)
    assert len(kept) == 50 and kept[0] == points[0] and kept[-1] == points[-1]


def test_the_history_draws_a_line_per_bot_with_escaped_names() -> None:
    svg = plots.history({
        "<b>a</b>": [RatingPoint(1, 1500.0), RatingPoint(2, 1510.0)],
        "b": [RatingPoint(1, 1500.0), RatingPoint(2, 1490.0)],
    })  # fmt: skip
    assert svg.count("<polyline") == 2
    assert "<b>" not in svg and "&lt;b&gt;a&lt;/b&gt;" in svg


def test_the_interval_plot_leaves_out_bots_not_yet_rated() -> None:
    svg = plots.intervals([
        plots.Interval("a", 1520.0, 40.0), plots.Interval("new", 1500.0, float("inf")),
    ])  # fmt: skip
    assert svg.count('class="interval"') == 1 and "new" not in svg


def test_a_plot_without_data_says_so() -> None:
    assert "no rated matches yet" in plots.history({"a": []})
