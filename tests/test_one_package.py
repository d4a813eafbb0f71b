"""niwa installs one top-level package: the wheel built from this checkout, installed
into a clean virtual environment, adds ``niwa`` and its metadata to site-packages and
nothing else (no ``engine``, ``web`` or ``bots`` beside a user's own modules)."""

from __future__ import annotations

import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

from tests.polling import PATIENCE_S

ROOT = Path(__file__).parents[1]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel of this checkout, built once for the module."""
    into = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(into), str(ROOT)],
        check=True, timeout=10 * PATIENCE_S,
    )  # fmt: skip
    (built,) = into.glob("niwa-*.whl")
    return built


def test_the_wheel_holds_only_the_niwa_package_with_its_data(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
    assert {n.split("/")[0] for n in names if ".dist-info/" not in n} == {"niwa"}
    assert "niwa/proto/v1/bot_pb2.py" in names  # the generated code
    data = ROOT / "niwa/engine/rulesets/bonsai/data"
    assert {f"niwa/engine/rulesets/bonsai/data/{p.name}" for p in data.iterdir()} <= set(names)


def test_installing_the_wheel_in_a_clean_venv_adds_only_niwa_to_site_packages(
    wheel: Path, tmp_path: Path
) -> None:
    env = tmp_path / "venv"
    venv.create(env, with_pip=True)
    python = env / "bin" / "python"
    site = Path(subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True, capture_output=True, text=True,
    ).stdout.strip())  # fmt: skip
    before = {p.name for p in site.iterdir()}
    subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", "--no-deps", str(wheel)],
        check=True, timeout=10 * PATIENCE_S,
    )  # fmt: skip
    added = {p.name for p in site.iterdir()} - before
    assert {a for a in added if not a.endswith(".dist-info")} == {"niwa"}
    assert any(a.startswith("niwa-") and a.endswith(".dist-info") for a in added)
