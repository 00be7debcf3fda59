"""Shared by the hostile-input tests: run `tcmcheck` in-process and valid base documents."""

from __future__ import annotations

import contextlib
import io
import json
import os
from pathlib import Path
from typing import Any

from campaign.cli import main

RING: dict[str, Any] = {
    "nodes": [{"id": "A", "dc": "dc1", "rack": "r1", "tokens": [100]},
              {"id": "B", "dc": "dc1", "rack": "r1", "tokens": [200]},
              {"id": "C", "dc": "dc1", "rack": "r1", "tokens": [300]}],
    "keyspaces": [{"name": "ks", "replication": {"class": "SimpleStrategy", "replication_factor": 2}}]}
JOIN_X: list[Any] = [{"op": "join", "node": {"id": "X", "dc": "dc1", "rack": "r1", "tokens": [150]}}]
OPS: list[Any] = [  # every op kind, valid on RING: the base the property test mutates
    {"op": "join", "node": {"id": "X", "dc": "dc1", "rack": "r1", "tokens": [150]}, "until": "START"},
    {"op": "resume", "node": "X"},
    {"op": "move", "node": "B", "tokens": [250]},
    {"op": "transformation", "transformation": {"kind": "SCHEMA_CHANGE", "change": {
        "op": "CREATE_TABLE", "keyspace": "ks", "table": "t", "columns": [["id", "int"]]}}},
    {"op": "transformation", "transformation": {"kind": "ALTER_TOPOLOGY", "changes": [
        {"node": "C", "dc": "dc1", "rack": "r2"}]}},
    {"op": "replace", "node": "C", "by": {"id": "D", "dc": "dc1", "rack": "r1"}},
    {"op": "leave", "node": "X", "until": "MID"},
    {"op": "cancel", "node": "X"},
]

HISTORY_JSONL = "".join(json.dumps(r) + "\n" for r in [
    {"process": 0, "type": "invoke", "f": "write", "key": "k", "value": 1, "time": 10},
    {"process": 0, "type": "ok", "f": "write", "key": "k", "value": 1, "time": 20},
    {"process": 1, "type": "invoke", "f": "read", "key": "k", "value": None, "time": 30},
    {"process": 1, "type": "ok", "f": "read", "key": "k", "value": 1, "time": 40},
])
HISTORY_JSONL_KV = "".join(json.dumps(r) + "\n" for r in [
    {"process": 0, "type": "invoke", "f": "put", "key": "k", "value": "a"},
    {"process": 0, "type": "ok", "f": "put", "key": "k", "value": "a"},
    {"process": 1, "type": "invoke", "f": "append", "key": "k", "value": "b"},
    {"process": 1, "type": "ok", "f": "append", "key": "k", "value": "b"},
    {"process": 2, "type": "invoke", "f": "cas", "key": "j", "value": [None, "c"]},
    {"process": 2, "type": "ok", "f": "cas", "key": "j", "value": [None, "c"]},
    {"process": 3, "type": "invoke", "f": "get", "key": "k", "value": None},
    {"process": 3, "type": "ok", "f": "get", "key": "k", "value": "ab"},
])
HISTORY_JSONL_LOG = "".join(json.dumps(r) + "\n" for r in [
    {"process": 0, "type": "invoke", "f": "commit", "value": {"entry_id": "n1:1"}},
    {"process": 0, "type": "ok", "f": "commit", "value": {"entry_id": "n1:1", "epoch": 1}},
    {"process": 1, "type": "invoke", "f": "commit", "value": {"entry_id": "n2:1"}},
    {"process": 1, "type": "fail", "f": "commit", "value": {"entry_id": "n2:1", "rejection": "no", "epoch": 1}},
    {"process": 2, "type": "invoke", "f": "read", "value": None},
    {"process": 2, "type": "ok", "f": "read", "value": 1},
])
HISTORY_EDN = ("[{:process 0, :type :invoke, :f :write, :value 1}\n"
               " {:process 0, :type :ok, :f :write, :value 1}\n"
               " {:process 1, :type :invoke, :f :cas, :value [1 2]}\n"
               " {:process 1, :type :ok, :f :cas, :value [1 2]}]\n")
HISTORY_ETCD = ("INFO  jepsen.util - 0 :invoke :write 1\n"
                "INFO  jepsen.util - 0 :ok :write 1\n"
                "INFO  jepsen.util - 1 :invoke :read nil\n"
                "INFO  jepsen.util - 1 :ok :read 1\n")
HISTORY_KV = ('{:process 0, :type :invoke, :f :put, :key "k", :value "a"}\n'
              '{:process 0, :type :ok, :f :put, :key "k", :value "a"}\n'
              '{:process 1, :type :invoke, :f :get, :key "k", :value nil}\n'
              '{:process 1, :type :ok, :f :get, :key "k", :value "a"}\n')

SCENARIO: dict[str, Any] = {
    "description": "three nodes, two schema changes",
    "topology": {"nodes": [{"id": "n1", "dc": "dc1", "rack": "r1", "tokens": [-100]},
                           {"id": "n2", "dc": "dc1", "rack": "r2", "tokens": [0]},
                           {"id": "n3", "dc": "dc1", "rack": "r3", "tokens": [100]}],
                 "keyspaces": [{"name": "ks", "replication": {"class": "SimpleStrategy",
                                                              "replication_factor": 2}}]},
    "cms": {"policy": "auto"},
    "submissions": [
        {"node": "n2", "at_ms": 10, "transformation": {"kind": "SCHEMA_CHANGE", "change": {
            "op": "CREATE_TABLE", "keyspace": "ks", "table": "t", "columns": [["id", "int"]]}}},
        {"node": "n3", "at_ms": 20, "transformation": {"kind": "REGISTER", "node": {
            "id": "n4", "dc": "dc1", "rack": "r1"}}}],
    "workloads": [{"kind": "schema", "count": 3, "start_ms": 0, "spread_ms": 100, "names": 2}],
    "faults": {"loss": 0.05, "latency": {"dist": "uniform", "min_ms": 1, "max_ms": 5},
               "crashes": [{"node": "n3", "at_ms": 30, "restart_ms": 60}]},
    "settings": {"snapshot_interval": 5, "end_time_ms": 3000},
}

SCENARIO_MORE: dict[str, Any] = {  # the other scenario fields: partitions, CMS changes, a gossip-era start
    "topology": SCENARIO["topology"],
    "cms": {"members": ["n1", "n2"]},
    "faults": {"duplicate": 0.1, "reorder": 0.2, "reorder_extra_ms": 5,
               "latency": {"dist": "exponential", "mean_ms": 2, "min_ms": 1},
               "partitions": [{"groups": [["n1"], ["n2", "n3"]], "start_ms": 5, "heal_ms": 50},
                              {"isolate": ["n3"], "start_ms": 60, "heal_ms": 90}]},
    "cms_changes": [{"at_ms": 100, "members": ["n1", "n2", "n3"]}],
    "initialize": {"initiator": "n1", "at_ms": 1, "ignore": [], "versions": {"n2": "5.0.2"},
                   "states": {"n3": "JOINED"}, "views": {"n2": SCENARIO["topology"]}},
    "settings": {"end_time_ms": 2000, "paxos_timeout_ms": 50, "max_submit_attempts": 3},
}

REFINE_FAILURE: dict[str, Any] = {
    "tcmcheck_failure": 1, "kind": "refine", "seed": 7, "mutant": "reject-create-table",
    "case": {"topology": RING, "transformations": [
        {"kind": "SCHEMA_CHANGE", "change": {"op": "CREATE_TABLE", "keyspace": "ks", "table": "t",
                                             "columns": [["id", "int"]]}},
        {"kind": "REGISTER", "node": {"id": "X", "dc": "dc1", "rack": "r1"}}]},
    "verdict": {"valid": False, "cause": "step 0 (SCHEMA_CHANGE at epoch 0): spec accepts, impl rejects"},
}


def invoke(args: list[str], cwd: Path | None = None) -> tuple[int, str, str]:
    """`tcmcheck ARGS` in this process: (exit status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    old = os.getcwd()
    try:
        if cwd is not None:
            os.chdir(cwd)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(args)
    finally:
        os.chdir(old)
    return code, out.getvalue(), err.getvalue()


def files_under(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


def assert_bad_input(result: tuple[int, str, str], *needles: str) -> str:
    """Exit 2, exactly one line on stderr starting "tcmcheck: error:", holding every needle."""
    code, _, err = result
    assert code == 2, (code, err)
    assert err.startswith("tcmcheck: error: ") and err.count("\n") == 1, err
    assert "Traceback" not in err
    for needle in needles:
        assert needle in err, (needle, err)
    return err
