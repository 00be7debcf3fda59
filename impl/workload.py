"""Generated commit requests: racing schema changes and registrations.

Names come from small pools (`ks0..`, `t0..`, `ty0..`, node ids `new0..`), so concurrent
requests collide: a CREATE of an existing name, an ALTER or DROP of a missing one, a table
using a type that another request drops — and the CMS must reject the losers. Every choice
comes from the run's RNG.
"""

from __future__ import annotations

import random
from typing import Any

from impl.entry import canonical_json
from impl.scenario import Submission, Workload

_TYPES = ("int", "text", "bigint", "uuid", "boolean")


def schema_transformation(rng: random.Random, names: int, dc: str) -> dict[str, Any]:
    ks = f"ks{rng.randrange(names)}"
    table = f"t{rng.randrange(names)}"
    typ = f"ty{rng.randrange(names)}"
    col = f"c{rng.randrange(names)}"
    r = rng.random()
    change: dict[str, Any]
    if r < 0.05:
        return {"kind": "REGISTER", "node": {"id": f"new{rng.randrange(names * 4)}", "dc": dc,
                                             "rack": "r1"}}
    if r < 0.20:
        change = {"op": "CREATE_KEYSPACE", "keyspace": ks,
                  "replication": {"class": "SimpleStrategy", "replication_factor": 1}}
    elif r < 0.25:
        change = {"op": "ALTER_KEYSPACE", "keyspace": ks,
                  "replication": {"class": "SimpleStrategy",
                                  "replication_factor": rng.randint(1, 2)}}
    elif r < 0.30:
        change = {"op": "DROP_KEYSPACE", "keyspace": ks}
    elif r < 0.50:
        cols: list[list[str]] = [["id", "int"], [col, rng.choice(_TYPES)]]
        if rng.random() < 0.4:
            cols.append(["u", f"frozen<{typ}>"])
        change = {"op": "CREATE_TABLE", "keyspace": ks, "table": table, "columns": cols}
    elif r < 0.62:
        change = {"op": "ALTER_TABLE", "keyspace": ks, "table": table,
                  "add": [[f"x{rng.randrange(names)}", rng.choice(_TYPES)]], "drop": []}
    elif r < 0.72:
        change = {"op": "DROP_TABLE", "keyspace": ks, "table": table}
    elif r < 0.88:
        change = {"op": "CREATE_TYPE", "keyspace": ks, "type": typ,
                  "fields": [["f", rng.choice(_TYPES)]]}
    else:
        change = {"op": "DROP_TYPE", "keyspace": ks, "type": typ}
    return {"kind": "SCHEMA_CHANGE", "change": change}


def generate(w: Workload, rng: random.Random, node_ids: list[str],
             dcs: dict[str, str]) -> list[Submission]:
    if w.kind != "schema":
        raise ValueError(f"unknown workload kind {w.kind!r}")
    nodes = list(w.nodes) or node_ids
    out = []
    for _ in range(w.count):
        node = nodes[rng.randrange(len(nodes))]
        at = w.start + rng.randrange(max(w.spread, 1))
        tr = schema_transformation(rng, w.names, dcs.get(node, "dc1"))
        out.append(Submission(node=node, at=at, transformation=canonical_json(tr)))
    return out
