"""Installing: `pip install -e .` is what `tcmcheck` needs to run, nothing more; the Spark engine
and the test tools are extras, and `--engine spark` without pyspark says how to install it.

The issue: "`pip install -e .` brings pyspark (491 MB) and pytest as runtime dependencies".
"""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

import pytest

from campaign.cli import main

ROOT = Path(__file__).resolve().parents[2]


def _names(requirements: list[str]) -> set[str]:
    return {r.split("[")[0].split(">")[0].split("=")[0].split("<")[0].strip().lower() for r in requirements}


def test_a_plain_install_brings_neither_spark_nor_the_test_tools() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    runtime = _names(project["dependencies"])
    assert not runtime & {"pyspark", "pytest", "pytest-xdist", "pytest-benchmark", "ruff", "mypy", "tox"}
    extras = project["optional-dependencies"]
    assert _names(extras["spark"]) == {"pyspark"}
    # CI (.ci/run) installs .[dev] and runs the spark tests: dev must bring pyspark too
    assert {"tcmcheck", "pytest", "pytest-xdist", "ruff", "mypy"} <= _names(extras["dev"])
    assert any(r.startswith("tcmcheck[spark]") for r in extras["dev"])
    assert "pytest-benchmark" not in _names(extras["dev"])  # declared and never used


@pytest.fixture
def no_pyspark(monkeypatch: pytest.MonkeyPatch) -> None:
    """As if pyspark were not installed (`import pyspark` raises ImportError)."""
    for name in [m for m in sys.modules if m == "pyspark" or m.startswith("pyspark.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "pyspark", None)


@pytest.mark.parametrize("command", [
    ["fuzz", "--engine", "spark", "--runs", "2"],
    ["fuzz", "--master", "local[1]", "--runs", "2"],
    ["report", "--engine", "spark"],
    ["check-history", "--engine", "spark"],
])
def test_engine_spark_without_pyspark_says_how_to_install_it_before_any_work(
        command: list[str], no_pyspark: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    if command[0] == "fuzz":
        command = [*command, "--out", str(out)]
    elif command[0] == "report":
        command = [*command, str(tmp_path / "no-such-campaign")]
    else:
        command = [*command, str(tmp_path / "no-such-history.jsonl")]
    assert main(command) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert "needs pyspark" in err and "pip install -e '.[spark]'" in err
    assert not out.exists()  # nothing written: the campaign folder is not even created
