"""`tcmcheck fuzz --focus/--faults/--levels`: a campaign aimed at operations, faults and levels.

The issue: "A campaign cannot be aimed. 'Run five minutes on replace operations' is impossible
... replace is the rarest operation the generator makes." Acceptance: with `--focus replace`
most operations started are replaces; the focus is recorded, carried into failure files and
replay commands, deterministic, refused on `--resume` when it differs, shown by the report.
"""

from __future__ import annotations

import json
import shlex
from collections import Counter
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from campaign.cli import main
from campaign.formats.scenario import parse_scenario
from campaign.kinds import generate_case
from campaign.kinds import refine as refine_kind
from campaign.kinds import sim as sim_kind
from campaign.run.focus import Focus
from campaign.store import TIMING_COLUMNS
from impl.cluster import run_scenario

REPLACE = Focus.parse("replace")


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(list(args))
    out, err = capsys.readouterr()
    return status, out, err


def started(kind: str, seeds: range, focus: Focus) -> Counter[str]:
    """The operations the generated cases start (the report's coverage `operations`)."""
    module = sim_kind if kind == "sim" else refine_kind
    total: Counter[str] = Counter()
    for seed in seeds:
        total.update(module.coverage(generate_case(kind, seed, focus))["operations"])
    return total


@pytest.mark.parametrize("kind", ["sim", "refine"])
def test_a_focus_on_replace_makes_the_generators_start_only_replaces(kind: str) -> None:
    plain, aimed = started(kind, range(40), Focus()), started(kind, range(40), REPLACE)
    assert plain["replace"] < sum(plain.values()) / 3  # the rare operation it was
    assert aimed["replace"] >= 30 and set(aimed) == {"replace"}


def test_focused_replaces_run_to_completion_in_the_simulator() -> None:
    """Their targets die and are convicted first, and a second removal waits for the first:
    the nodes do run the replaces, rather than refuse them or block each other."""
    ended: Counter[str] = Counter()
    asked = 0
    for seed in range(12):
        case = generate_case("sim", seed, REPLACE)
        asked += sum(1 for o in case.get("operations", []) if o["op"] == "replace")
        result = run_scenario(parse_scenario(case), seed)
        ended.update(f"{op} {outcome.split(':')[0]}" for op, outcome in ((o.op, o.outcome) for o in result.operations))
    assert asked >= 12
    assert ended["replace completed"] >= asked * 0.6
    assert ended["replace refused"] == 0


def test_a_focus_on_cancel_cancels_most_operations_and_one_without_it_none() -> None:
    cancelling = started("sim", range(30), Focus.parse("join,cancel"))
    assert cancelling["cancel"] >= cancelling["join"] * 0.5
    assert "cancel" not in started("sim", range(30), Focus.parse("join"))
    assert "cancel" not in started("refine", range(30), Focus.parse("join"))


def test_a_fault_focus_keeps_the_faults_named_and_drops_the_others() -> None:
    for seed in range(20):
        faults = generate_case("sim", seed, Focus.parse(faults="partition"))["faults"]
        assert len(faults["partitions"]) == 1
        assert (faults["loss"], faults["duplicate"], faults["reorder"]) == (0, 0, 0)
        case = generate_case("sim", seed, Focus.parse(faults="none"))
        dying = {o["target"] for o in case.get("operations", []) if "target" in o}
        # only the operations' targets die (part of the operation, not a fault)
        assert {c["node"] for c in case["faults"]["crashes"]} <= dying
        assert not case["faults"]["partitions"] and case["faults"]["loss"] == 0


def test_a_level_focus_draws_only_pairs_naming_those_levels() -> None:
    for seed in range(30):
        case = generate_case("sim", seed, Focus.parse(levels="EACH_QUORUM"))
        assert "submissions" not in case  # scripted steps run no clients
        for c in case["clients"]:
            assert "EACH_QUORUM" in c["read_cl"] + c["write_cl"]
        any_writes = generate_case("sim", seed, Focus.parse(levels="ANY"))["clients"]
        assert any(c["write_cl"] == ["ANY"] for c in any_writes)


def test_the_focus_is_recorded_carried_into_failure_files_and_replayed(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """campaign.json, the rows, each failure file and each replay command carry the focus; the
    failure file alone replays, and `replay --kind --seed --focus` regenerates its very case."""
    monkeypatch.chdir(tmp_path)
    args = ("fuzz", "--runs", "4", "--kinds", "sim", "--workers", "1", "--focus", "replace",
            "--mutant", "reject-create-table", "--out", "a")
    status, out, err = run(capsys, *args)
    assert status == 1, err
    assert "focus: --focus replace; operations started: replace" in out
    manifest = json.loads((tmp_path / "a" / "campaign.json").read_text())
    assert manifest["params"]["focus"] == {"operations": ["replace"]}
    rows = pq.read_table(tmp_path / "a" / "runs.parquet").to_pylist()
    assert {r["focus"] for r in rows} == {"--focus replace"}
    failing = [r for r in rows if not r["valid"]]
    assert failing
    for r in failing:
        assert r["replay"].endswith(" --focus replace")
        doc = json.loads((tmp_path / "a" / r["failure_file"]).read_text())
        assert doc["focus"] == {"operations": ["replace"]}
        assert doc["case"] == generate_case("sim", r["seed"], REPLACE) != generate_case("sim", r["seed"])
        by_file = run(capsys, "replay", str(tmp_path / "a" / r["failure_file"]))
        by_seed = run(capsys, *shlex.split(r["replay"])[1:])
        assert by_file[0] == by_seed[0] == 1
        assert json.loads(by_file[1]) == json.loads(by_seed[1])
        assert json.loads(by_file[1])["focus"] == {"operations": ["replace"]}


def _rows(path: Path) -> list[dict[str, Any]]:
    return pq.read_table(path).drop(list(TIMING_COLUMNS)).to_pylist()


def test_the_same_focused_command_gives_the_same_rows_and_resume_keeps_the_focus(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    aim = ("--focus", "replace,remove", "--faults", "crash,loss", "--levels", "QUORUM")
    first = run(capsys, "fuzz", "--runs", "6", "--workers", "2", *aim, "--out", str(tmp_path / "a"))
    second = run(capsys, "fuzz", "--runs", "6", "--workers", "1", *aim, "--out", str(tmp_path / "b"))
    assert first[0] == second[0] and first[1].replace("/a/", "/b/") == second[1]
    assert _rows(tmp_path / "a" / "runs.parquet") == _rows(tmp_path / "b" / "runs.parquet")
    # --resume with another focus, or none, is refused before any run; the same one goes on
    for other in (("--focus", "replace"), ()):
        status, out, err = run(capsys, "fuzz", "--runs", "8", *other, "--out", str(tmp_path / "a"), "--resume")
        assert (status, out) == (2, "") and "focus" in err and len(err.strip().splitlines()) == 1
    status, out, _ = run(capsys, "fuzz", "--runs", "8", "--workers", "1", *aim, "--out", str(tmp_path / "a"),
                         "--resume")
    assert "6 of them from before --resume" in out
    report = run(capsys, "report", str(tmp_path / "a"))[1]
    assert "focus: --focus replace,remove --faults crash,loss --levels QUORUM (8 runs)" in report
    assert "operations started: " in report and "join" not in report.split("operations started: ")[1].split("\n")[0]
    summary = json.loads(run(capsys, "report", str(tmp_path / "a"), "--json")[1])
    assert summary["focus"] == {"--focus replace,remove --faults crash,loss --levels QUORUM": 8}
    assert set(summary["coverage"]["operations"]["sim"]) <= {"replace", "remove"}


@pytest.mark.parametrize("args", [
    ["--focus", "rebuild"], ["--focus", "replace,replace"], ["--focus", ""], ["--faults", "none,loss"],
    ["--faults", "earthquake"], ["--levels", "SERIAL"], ["--focus", "assassinate"],
    ["--kinds", "stateful", "--focus", "join"], ["--kinds", "refine", "--levels", "ONE"],
])
def test_a_bad_focus_exits_2_with_one_line_before_any_run(args: list[str], tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "fuzz", "--runs", "2", "--out", str(tmp_path / "o"), *args)
    assert (status, out) == (2, "")
    assert len(err.strip().splitlines()) == 1 and err.startswith("tcmcheck: error: --")
    assert not (tmp_path / "o").exists()
