"""The systemd units in deploy/systemd/: systemd's own checker finds nothing to say about
them, and the config files they start niwa with are read by niwa's own parsers."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from niwa import config
from niwa.cli import build_parser

UNITS = Path(__file__).parents[2] / "deploy" / "systemd"
#: Where the units expect niwa's virtual environment (docs/deploy.md, "As services").
INSTALLED = "/opt/niwa/bin/"


def units() -> list[Path]:
    return sorted(UNITS.glob("*.service"))


def exec_start(unit: Path) -> str:
    found = re.search(r"^ExecStart=(.*)$", unit.read_text(), re.MULTILINE)
    assert found, f"{unit.name} has no ExecStart"
    return found.group(1)


@pytest.mark.parametrize("unit", units(), ids=lambda u: u.name)
def test_systemd_analyze_verify_finds_nothing_to_say(unit: Path, tmp_path: Path) -> None:
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("systemd-analyze is not installed (Debian's systemd package has it)")
    # verify wants ExecStart's program to exist: this environment's own niwa and ray
    copy = tmp_path / unit.name
    copy.write_text(unit.read_text().replace(INSTALLED, str(Path(sys.executable).parent) + "/"))
    done = subprocess.run([analyze, "verify", "--man=no", str(copy)],
                          capture_output=True, text=True, timeout=120, check=False)  # fmt: skip
    # an unknown key or a bad value is only a warning: any output at all fails
    assert (done.returncode, done.stdout + done.stderr) == (0, "")


@pytest.mark.parametrize(
    "unit", [u for u in units() if " ladder " in exec_start(u)], ids=lambda u: u.name
)
def test_niwa_is_started_with_its_config_file_and_a_password_credential(unit: Path) -> None:
    command = exec_start(unit)
    assert command.startswith(INSTALLED + "niwa ladder ")
    assert re.search(r" --config /etc/niwa/\w+\.toml", command)
    assert " --password-file %d/db-password" in command
    assert "LoadCredential=db-password:/etc/niwa/db-password" in unit.read_text()


@pytest.mark.parametrize("command,example", [("serve", "runner.toml"), ("web", "web.toml")])
def test_the_example_config_files_have_only_keys_of_their_command(
    command: str, example: str
) -> None:
    parser = build_parser()
    leaf = config.leaf_parser(parser, parser.parse_args(["ladder", command]))
    values = config.load(UNITS / example, config.keys(leaf))
    assert values["db"].startswith("postgresql://") and "data" in values
