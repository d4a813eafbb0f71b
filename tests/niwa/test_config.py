"""``--config FILE``: the keys of a long-running ``niwa ladder`` command's TOML file are
its flags' names, read from its parser; the command line wins over the file."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from niwa import config
from niwa.cli import build_parser, main
from tests.ladder.serving import printed_address, stop
from tests.polling import wait_for


def parsed(
    argv: list[str], extend: Callable[[argparse.ArgumentParser], object] = lambda p: None
) -> argparse.Namespace:
    """``argv`` parsed as ``niwa`` would, the config file applied; nothing run.
    ``extend`` may first add flags to the command's parser, as another module would."""
    parser = build_parser()
    extend(config.leaf_parser(parser, parser.parse_args(argv[:2])))
    args = parser.parse_args(argv)
    config.apply(parser, argv, args)
    return args


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "ladder.toml"
    path.write_text(text)
    return path


def test_a_key_sets_its_flag(tmp_path: Path) -> None:
    path = write(tmp_path, 'listen = "0.0.0.0:50051"\nworkers = 3\nlease = 5\n')
    args = parsed(["ladder", "serve", "--config", str(path)])
    assert (args.listen, args.workers, args.lease) == ("0.0.0.0:50051", 3, 5.0)


def test_a_flag_on_the_command_line_wins_over_the_file(tmp_path: Path) -> None:
    path = write(tmp_path, "workers = 3\nconcurrency = 6\n")
    args = parsed(["ladder", "serve", "--config", str(path), "--workers", "1"])
    assert (args.workers, args.concurrency) == (1, 6)


def test_a_flag_given_as_its_default_value_still_wins(tmp_path: Path) -> None:
    path = write(tmp_path, 'log_level = "debug"\n')
    args = parsed(["ladder", "serve", "--log-level", "info", "--config", str(path)])
    assert args.log_level == "info"


def test_keys_left_out_keep_the_flags_defaults(tmp_path: Path) -> None:
    path = write(tmp_path, "workers = 3\n")
    args = parsed(["ladder", "serve", "--config", str(path)])
    assert (args.listen, args.time, args.duplicate) == ("127.0.0.1:50051", "1s+30s", False)


def test_paths_become_paths_and_switches_take_booleans(tmp_path: Path) -> None:
    path = write(tmp_path, 'tls_cert = "/etc/niwa/cert.pem"\nduplicate = true\n')
    args = parsed(["ladder", "serve", "--config", str(path)])
    assert args.tls_cert == Path("/etc/niwa/cert.pem") and args.duplicate is True


def test_a_repeatable_flag_takes_an_array_and_the_command_line_replaces_it(
    tmp_path: Path,
) -> None:
    path = write(tmp_path, 'game = ["blossom", "sakura"]\n')
    assert parsed(["ladder", "serve", "--config", str(path)]).game == ["blossom", "sakura"]
    args = parsed(["ladder", "serve", "--config", str(path), "--game", "bonsai"])
    assert args.game == ["bonsai"]


def test_the_web_command_takes_its_own_flags(tmp_path: Path) -> None:
    path = write(tmp_path, 'db = "postgresql://ladder@db/ladder"\npassword_file = "pw"\n')
    args = parsed(["ladder", "web", "--config", str(path)])
    assert (args.db, args.password_file) == ("postgresql://ladder@db/ladder", Path("pw"))


def test_a_flag_added_to_a_command_has_a_key_with_no_other_code(tmp_path: Path) -> None:
    path = write(tmp_path, "drain_seconds = 90\n")
    args = parsed(
        ["ladder", "serve", "--config", str(path)],
        lambda serve: serve.add_argument("--drain-seconds", type=int, default=30),
    )
    assert args.drain_seconds == 90


def test_a_flag_in_an_argument_group_is_a_key_of_the_groups_table(tmp_path: Path) -> None:
    path = write(tmp_path, '[health_checks]\nhealth_listen = "127.0.0.1:9100"\n')
    args = parsed(
        ["ladder", "serve", "--config", str(path)],
        lambda serve: serve.add_argument_group("health checks").add_argument("--health-listen"),
    )
    assert args.health_listen == "127.0.0.1:9100"


def test_an_unknown_key_names_the_key_the_file_and_the_line(tmp_path: Path) -> None:
    path = write(tmp_path, 'db = "x.db"\n\nworkerz = 3\n')
    with pytest.raises(config.ConfigError) as caught:
        parsed(["ladder", "serve", "--config", str(path)])
    assert str(caught.value).startswith(f"{path}, line 3: unknown key 'workerz'")
    assert "workers" in str(caught.value)  # the valid keys are listed


def test_a_key_spelt_like_its_flag_is_told_to_use_underscores(tmp_path: Path) -> None:
    path = write(tmp_path, "max-streams = 3\n")
    with pytest.raises(config.ConfigError, match="did you mean max_streams"):
        parsed(["ladder", "serve", "--config", str(path)])


def test_a_value_of_the_wrong_type_names_the_expected_type(tmp_path: Path) -> None:
    path = write(tmp_path, 'workers = "two"\n')
    with pytest.raises(config.ConfigError) as caught:
        parsed(["ladder", "serve", "--config", str(path)])
    assert str(caught.value) == (
        f"{path}, line 1: key 'workers': expected a whole number, got a string ('two')"
    )


def test_a_value_outside_the_flags_choices_lists_them(tmp_path: Path) -> None:
    path = write(tmp_path, 'log_level = "loud"\n')
    with pytest.raises(config.ConfigError, match="'loud' is not one of 'debug', 'info'"):
        parsed(["ladder", "serve", "--config", str(path)])


def test_a_file_that_is_not_toml_names_the_file_and_the_line(tmp_path: Path) -> None:
    path = write(tmp_path, 'db = "x.db"\nworkers = \n')
    with pytest.raises(config.ConfigError, match=rf"^{path}: not valid TOML: .*line 2"):
        parsed(["ladder", "serve", "--config", str(path)])


def test_a_missing_config_file_is_a_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["ladder", "web", "--config", str(tmp_path / "absent.toml")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "cannot read the config file" in err and "No such file" in err


def test_version_is_the_installed_distributions(capsys: pytest.CaptureFixture[str]) -> None:
    from importlib.metadata import version

    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0
    assert capsys.readouterr().out == f"niwa {version('niwa')}\n"


def test_a_served_ladder_runs_with_the_files_settings(tmp_path: Path) -> None:
    db = tmp_path / "ladder.db"
    path = write(tmp_path, f'db = "{db}"\nlisten = "127.0.0.1:0"\nnode = "from-the-file"\n')
    log = tmp_path / "serve.log"
    proc = subprocess.Popen(
        [sys.executable, "-m", "niwa", "ladder", "serve", "--config", str(path)],
        stdout=subprocess.PIPE, stderr=log.open("w"), text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )  # fmt: skip
    try:
        printed_address(proc, r"serving on (\S+)", log)
        wait_for("the serving event", lambda: '"event": "serving"' in log.read_text())
    finally:
        stop(proc)
    assert db.is_file()
    assert '"node": "from-the-file"' in log.read_text()
