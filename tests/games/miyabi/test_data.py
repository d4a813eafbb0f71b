"""The rules data shipped with the game: the tile set, provenance and the §0 defaults."""

from __future__ import annotations

import json
from importlib.resources import files

from niwa.engine.rulesets.miyabi import GAME
from niwa.engine.rulesets.miyabi.rules import NKINDS, SHAPES, TILE_SET, TYPES, kind_of

STATUSES = ("VERIFIED", "INFERRED", "PROPOSED", "DECIDED")


def data(name: str) -> dict[str, object]:
    loaded: dict[str, object] = json.loads(
        files("niwa.engine.rulesets.miyabi").joinpath("data", name).read_text("utf-8")
    )
    return loaded


def test_the_box_holds_96_tiles_32_singles_32_doubles_16_of_each_triple() -> None:
    by_shape = [sum(TILE_SET[kind_of(s, t)] for t in range(len(TYPES))) for s in range(4)]
    assert sum(TILE_SET) == 96 and len(TILE_SET) == NKINDS
    assert dict(zip(SHAPES, by_shape, strict=True)) == {
        "single": 32,
        "double": 32,
        "straight": 16,
        "corner": 16,
    }


def test_the_default_tile_set_gives_every_object_type_16_tiles() -> None:
    for t in range(len(TYPES)):
        assert sum(TILE_SET[kind_of(s, t)] for s in range(len(SHAPES))) == 16


def test_the_rows_run_maple_pagoda_fish_azalea_boxwood_stone_from_the_top() -> None:
    assert TYPES == ("maple", "pagoda", "fish", "azalea", "boxwood", "stone")


def test_every_data_file_names_its_source() -> None:
    for name in ("board.json", "tiles.json", "config.json"):
        provenance = data(name)["provenance"]
        assert isinstance(provenance, dict) and "miyabi.md" in provenance["source"]


def test_every_option_carries_a_status_tag_and_a_rules_section() -> None:
    for entry in data("config.json")["options"]:  # type: ignore[attr-defined]
        assert entry["status"].startswith(STATUSES), entry["name"]
        assert entry["section"].startswith("miyabi.md §"), entry["name"]


def test_the_option_defaults_are_the_rules_datas_section_0_table() -> None:
    defaults = {o.name: o.default for o in GAME.info.options}
    assert [defaults[f"bonusLayer5Points.{t}"] for t in TYPES] == [10, 9, 8, 7, 6, 5]
    assert [defaults[f"roundsByPlayers.{p}"] for p in (2, 3, 4)] == [6, 5, 4]
    assert (defaults["majorityPoints.first"], defaults["majorityPoints.second"]) == (10, 5)
    assert defaults["bonusLayerMode"] == "exact" and defaults["majorityMinObjects"] == 1
    assert defaults["allowRotation"] and defaults["voluntaryPass"]
    assert not defaults["coveredObjectsCount"]
    assert not defaults["colorfulGarden"] and not defaults["bigMeadow"]
    assert (defaults["objectCell.straight"], defaults["objectCell.corner"]) == ("end", "corner")


def test_the_default_tile_set_is_the_rules_datas_section_3_3_table() -> None:
    table = {  # single, double, straight, corner per type (miyabi.md §3.3, PROPOSED)
        "maple": [5, 5, 3, 3],
        "pagoda": [5, 5, 3, 3],
        "fish": [6, 5, 3, 2],
        "azalea": [6, 5, 2, 3],
        "boxwood": [5, 6, 3, 2],
        "stone": [5, 6, 2, 3],
    }
    for t, name in enumerate(TYPES):
        assert [TILE_SET[kind_of(s, t)] for s in range(len(SHAPES))] == table[name], name
