"""The systemd units in deploy/systemd/ and the container recipe in deploy/container/:
systemd's own checker finds nothing to say about the units, the compose file is the
documented layout, and the config files both start niwa with are read by niwa's own
parsers. (Building the image needs a registry or a base image: see docs/deploy.md.)"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from niwa import config
from niwa.cli import build_parser

DEPLOY = Path(__file__).parents[2] / "deploy"
UNITS = DEPLOY / "systemd"
CONTAINER = DEPLOY / "container"
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


def settings(command: str, path: Path) -> dict[str, object]:
    """The config file ``path`` as ``niwa ladder COMMAND --config`` reads it."""
    parser = build_parser()
    leaf = config.leaf_parser(parser, parser.parse_args(["ladder", command]))
    return config.load(path, config.keys(leaf))


@pytest.mark.parametrize(
    "command,example",
    [("serve", UNITS / "runner.toml"), ("web", UNITS / "web.toml"),
     ("serve", CONTAINER / "runner.toml"), ("web", CONTAINER / "web.toml")],
    ids=lambda x: str(x).split("deploy/")[-1],
)  # fmt: skip
def test_the_example_config_files_have_only_keys_of_their_command(
    command: str, example: Path
) -> None:
    values = settings(command, example)
    assert str(values["db"]).startswith("postgresql://") and "data" in values


def compose() -> dict[str, dict[str, object]]:
    services: dict[str, dict[str, object]] = yaml.safe_load(
        (CONTAINER / "compose.yaml").read_text()
    )["services"]
    return services


def test_compose_has_the_documented_layout() -> None:
    services = compose()
    assert set(services) == {"db", "runner", "standby", "web"}
    assert [services[s]["command"][:2] for s in ("runner", "standby", "web")] == [
        ["ladder", "serve"], ["ladder", "serve"], ["ladder", "web"]
    ]  # fmt: skip
    assert services["runner"]["privileged"] and services["standby"]["privileged"]


@pytest.mark.parametrize("service", ["runner", "standby", "web"])
def test_each_niwa_service_reads_its_mounted_config_and_password_secret(service: str) -> None:
    found = compose()[service]
    command = found["command"]
    assert isinstance(command, list)
    toml = command[command.index("--config") + 1]
    volumes = found["volumes"]
    assert isinstance(volumes, list)
    mounts = {m.split(":")[1]: m.split(":")[0] for m in volumes}
    settings(command[1], CONTAINER / mounts[toml])  # a key of another command would fail
    assert command[command.index("--password-file") + 1] == "/run/secrets/db-password"
    assert found["secrets"] == ["db-password"]


def test_the_containerfile_copies_what_exists_and_runs_niwa() -> None:
    text = (CONTAINER / "Containerfile").read_text()
    assert re.search(r"^COPY \. /src$", text, re.MULTILINE)  # built from the top folder
    assert 'ENTRYPOINT ["/opt/niwa/bin/niwa"]' in text
    assert "bubblewrap" in text and "[postgres]" in text
