"""The ``layout`` fixture: the documented layout, stood up once per test module (it
takes a while), and the places of its logs under any check of it that fails."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.deploy.layout import Layout, standing

pytest.importorskip("ray", reason="the layout's runners play on Ray: pip install 'niwa[ray]'")


@pytest.fixture(scope="module")
def layout(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Layout]:
    if not Path("/usr/bin/bwrap").exists():
        pytest.skip("the layout's bots run sandboxed: apt-get install bubblewrap")
    with standing(tmp_path_factory.mktemp("layout")) as made:
        yield made


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Iterator[None]:
    outcome = yield
    report: pytest.TestReport = outcome.get_result()  # type: ignore[attr-defined]
    made = getattr(item, "funcargs", {}).get("layout")
    if report.failed and isinstance(made, Layout):
        report.sections.append(("the layout's logs", made.where()))
