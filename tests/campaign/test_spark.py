"""The Spark engine gives the same rows and the same report as the local one (marker `spark`:
an embedded local[2] session, about 10-20 s to start; CI runs `pytest -m spark`)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from campaign import fuzz as F
from campaign.cli import main
from campaign.store import TIMING_COLUMNS


def verdicts(path: Path) -> list[dict[str, object]]:
    return pq.read_table(path).drop(list(TIMING_COLUMNS)).to_pylist()


@pytest.mark.spark
def test_spark_and_local_engines_write_the_same_rows_and_reports(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    common = ["--runs", "24", "--seed", "3", "--workers", "2"]
    local_status = main(["fuzz", "--engine", "local", *common, "--out", str(a)])
    local_out = capsys.readouterr().out
    spark_status = main(["fuzz", "--engine", "spark", *common, "--out", str(b)])
    spark_out, spark_err = capsys.readouterr()
    assert local_status == spark_status
    assert verdicts(a / "runs.parquet") == verdicts(b / "runs.parquet")
    assert local_out.replace(str(a), "X") == spark_out.replace(str(b), "X")
    assert "Spark started in" in spark_err
    assert main(["report", str(a), "--json"]) == 0
    local_report = json.loads(capsys.readouterr().out)
    assert main(["report", str(a), "--json", "--engine", "spark"]) == 0
    assert json.loads(capsys.readouterr().out) == local_report


@pytest.mark.spark
def test_the_embedded_session_binds_to_loopback_without_ui_and_uses_this_python() -> None:
    from campaign import spark_session as spark

    s = spark.session(parallelism=2)
    conf = s.sparkContext.getConf()
    assert conf.get("spark.driver.bindAddress") == "127.0.0.1"
    assert conf.get("spark.ui.enabled") == "false"
    assert s.sparkContext.uiWebUrl is None
    assert os.environ["PYSPARK_PYTHON"] == sys.executable
    assert spark.session() is s  # one session per process
    # z3 objects are built inside the task, on the executor's Python
    found = s.sparkContext.parallelize([1], 1).map(lambda _: __import__("z3").Int("x").sexpr()).collect()
    assert found == ["x"]


def test_without_java_the_spark_engine_says_how_to_get_it(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("JAVA_HOME", raising=False)
    monkeypatch.delenv("PYSPARK_GATEWAY_PORT", raising=False)
    status = main(["fuzz", "--engine", "spark", "--runs", "2", "--out", str(tmp_path / "o")])
    out, err = capsys.readouterr()
    assert (status, out) == (2, "")
    assert err == ("tcmcheck: error: --engine spark needs Java 17 and none was found: install it "
                   "(apt-get install openjdk-17-jre-headless) or set JAVA_HOME\n")
    assert not (tmp_path / "o").exists()


def kv_history(keys: int, stale_key: int | None) -> str:
    """Writes then a read per key from 3 processes; on `stale_key` the read returns an
    overwritten value (not linearizable)."""
    rows: list[dict[str, object]] = []
    t = 0
    for k in range(keys):
        key = f"k{k}"
        for p, v in ((0, 1), (1, 2)):
            rows += [{"process": p, "type": "invoke", "f": "write", "key": key, "value": v, "time": t},
                     {"process": p, "type": "ok", "f": "write", "key": key, "value": v, "time": t + 1}]
            t += 2
        got = 1 if k == stale_key else 2
        rows += [{"process": 2, "type": "invoke", "f": "read", "key": key, "value": None, "time": t},
                 {"process": 2, "type": "ok", "f": "read", "key": key, "value": got, "time": t + 1}]
        t += 2
    return "".join(json.dumps(r) + "\n" for r in rows)


@pytest.mark.spark
@pytest.mark.parametrize("stale_key", [None, 7])
def test_check_history_on_spark_reports_like_the_local_checker(
        stale_key: int | None, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "h.jsonl"
    path.write_text(kv_history(12, stale_key))
    local_status = main(["check-history", str(path), "--model", "kv", "--json"])
    local = json.loads(capsys.readouterr().out)
    spark_status = main(["check-history", str(path), "--model", "kv", "--json", "--engine", "spark"])
    spark = json.loads(capsys.readouterr().out)
    assert spark_status == local_status == (0 if stale_key is None else 1)
    if stale_key is None:
        assert spark == local
    else:
        # the local search stops at the failing key (the others stay unfinished); Spark
        # searches every key to the end: the evidence about the failing key is the same
        for field in ("valid", "cause", "key", "failing_op", "previous_ok", "window", "operations"):
            assert spark[field] == local[field]
        assert spark["key"] == "k7"
        assert [p["valid"] for p in spark["partitions"]].count(False) == 1
    main(["check-history", str(path), "--model", "kv", "--engine", "spark"])
    text = capsys.readouterr().out
    main(["check-history", str(path), "--model", "kv"])
    assert capsys.readouterr().out.splitlines()[0] == text.splitlines()[0]


@pytest.mark.spark
def test_a_spark_worker_that_dies_costs_only_its_run(monkeypatch: pytest.MonkeyPatch) -> None:
    from campaign.engines import spark

    # a task body that kills its Python worker on run 1; made outside any importable module so
    # that Spark ships it by value to the executors
    ns: dict[str, object] = {"__name__": "tcmcheck_test_shipped"}
    exec("def killer(tasks, run_timeout):\n"
         "    import os, signal\n"
         "    from campaign.engines.spark import _run_chunk as real\n"
         "    for t in tasks:\n"
         "        if t[0] == 1:\n"
         "            os.kill(os.getpid(), signal.SIGKILL)\n"
         "        yield from real(iter([t]), run_timeout)\n", ns)
    monkeypatch.setattr(spark, "_run_chunk", ns["killer"])
    records = F.campaign(4, 0, kinds=("refine",), engine="spark", workers=2)
    assert [r.run for r in records] == [0, 1, 2, 3]
    assert records[1].outcome.cause is not None and records[1].outcome.cause.text.startswith("worker died: ")
    assert all(r.outcome.cause is None or r.outcome.cause.family != "error" for r in records if r.run != 1)
