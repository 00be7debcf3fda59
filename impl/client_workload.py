"""Client workload: generated reads and writes, each sent to one node that coordinates it.

Every choice (time, node, key, read or write, consistency level) comes from the run's RNG, in a
fixed order, when the run is scheduled. Written values are unique integers (1, 2, ...), so a
read's value names the write it observed — what the linearizability checker (kv model) needs.
"""

from __future__ import annotations

import random

from attrs import frozen

from impl.scenario import ClientWorkload


@frozen(kw_only=True)
class ClientOp:
    at: int
    node: str
    f: str  # "read" | "write"
    keyspace: str
    key: str
    value: int | None
    cl: str


def generate(w: ClientWorkload, rng: random.Random, node_ids: list[str],
             first_value: int) -> list[ClientOp]:
    nodes = list(w.nodes) or node_ids
    out = []
    value = first_value
    for _ in range(w.count):
        at = w.start + rng.randrange(max(w.spread, 1))
        node = nodes[rng.randrange(len(nodes))]
        key = f"{w.key_prefix}{rng.randrange(w.keys)}"
        if rng.random() < w.writes:
            cl = w.write_cl[rng.randrange(len(w.write_cl))]
            out.append(ClientOp(at=at, node=node, f="write", keyspace=w.keyspace, key=key,
                                value=value, cl=cl))
            value += 1
        else:
            cl = w.read_cl[rng.randrange(len(w.read_cl))]
            out.append(ClientOp(at=at, node=node, f="read", keyspace=w.keyspace, key=key,
                                value=None, cl=cl))
    return out
