"""deploy/prometheus: the alerting rules read only metrics niwa exports, and (where
Debian's prometheus package put promtool) Prometheus itself checks them and runs their
unit tests (alerts_test.yml: each alert fires on its cause, none on a healthy ladder)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from prometheus_client import REGISTRY

import niwa.ladder.metrics  # noqa: F401  (registers niwa's metrics)

RULES = Path(__file__).parents[2] / "deploy" / "prometheus"
SUFFIXES = ("_total", "_bucket", "_count", "_sum")


def exported() -> set[str]:
    """Every sample name niwa's metrics can have."""
    names = set()
    for family in REGISTRY.collect():
        if family.name.startswith("niwa_"):
            names.add(family.name)
            names.update(family.name + suffix for suffix in SUFFIXES)
    return names


def rules() -> list[dict[str, object]]:
    loaded = yaml.safe_load((RULES / "alerts.yml").read_text())
    return [rule for group in loaded["groups"] for rule in group["rules"]]


def test_there_are_four_alerts_each_with_a_severity_and_a_summary() -> None:
    found = rules()
    assert len(found) == 4
    for rule in found:
        assert rule["labels"]["severity"] in {"page", "ticket"}, rule  # type: ignore[index]
        assert rule["annotations"]["summary"], rule  # type: ignore[index]


def test_every_alert_reads_only_metrics_niwa_exports() -> None:
    names = exported()
    for rule in rules():
        used = set(re.findall(r"\bniwa_[a-z_]+", str(rule["expr"])))
        assert used and used <= names, (rule["alert"], used - names)


def promtool(*args: str) -> str:
    tool = shutil.which("promtool")
    if tool is None:
        pytest.skip("promtool is not installed (apt-get install prometheus)")
    done = subprocess.run(
        [tool, *args], cwd=RULES, capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_promtool_accepts_the_rules_and_the_scrape_config() -> None:
    assert "SUCCESS: 4 rules found" in promtool("check", "rules", "alerts.yml")
    assert "SUCCESS" in promtool("check", "config", "prometheus.yml")


def test_each_alert_fires_on_its_cause_and_not_on_a_healthy_ladder() -> None:
    assert "SUCCESS" in promtool("test", "rules", "alerts_test.yml")
