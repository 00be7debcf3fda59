"""Small builders shared by the impl/metadata tests."""

from __future__ import annotations

from typing import Any

from impl.metadata import Accepted, Metadata, Rejected, execute, placement_from_scratch


def topology(
    nodes: list[tuple[str, int | list[int]]] | list[dict[str, Any]],
    keyspaces: dict[str, dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """A TOPOLOGY.json document; `nodes` as (id, token(s)) in dc1/r1, or full node dicts."""
    out_nodes = []
    for n in nodes:
        if isinstance(n, dict):
            out_nodes.append(n)
        else:
            nid, tokens = n
            toks = tokens if isinstance(tokens, list) else [tokens]
            out_nodes.append({"id": nid, "dc": "dc1", "rack": "r1", "tokens": toks})
    ks = keyspaces or {"ks": {"class": "SimpleStrategy", "replication_factor": 2}}
    return {
        "nodes": out_nodes,
        "keyspaces": [{"name": k, "replication": r} for k, r in ks.items()],
    }


def ok(m: Metadata, t: dict[str, Any]) -> Metadata:
    r = execute(m, t)
    assert isinstance(r, Accepted), f"{t} rejected: {getattr(r, 'reason', r)}"
    assert r.metadata.epoch == m.epoch + 1
    return r.metadata


def rejected(m: Metadata, t: dict[str, Any]) -> str:
    r = execute(m, t)
    assert isinstance(r, Rejected), f"{t} unexpectedly accepted"
    return r.reason


def run(m: Metadata, ts: list[dict[str, Any]]) -> Metadata:
    for t in ts:
        m = ok(m, t)
    return m


def register(node: str, dc: str = "dc1", rack: str = "r1") -> dict[str, Any]:
    return {"kind": "REGISTER", "node": {"id": node, "dc": dc, "rack": rack}}


def steps(op: str, node: str) -> list[dict[str, Any]]:
    return [{"kind": f"{s}_{op}", "node": node} for s in ("START", "MID", "FINISH")]


def join(node: str, tokens: list[int], dc: str = "dc1", rack: str = "r1") -> list[dict[str, Any]]:
    return [
        register(node, dc, rack),
        {"kind": "PREPARE_JOIN", "node": node, "tokens": tokens},
        *steps("JOIN", node),
    ]


Groups = dict[tuple[int, int], tuple[frozenset[str], frozenset[str]]]


def groups(m: Metadata, keyspace: str = "ks") -> Groups:
    """(left, right) -> (reads, writes) of a keyspace."""
    pj = m.placements_json()[keyspace]
    out: Groups = {}
    for r, w in zip(pj["reads"], pj["writes"], strict=True):
        assert r["range"] == w["range"]
        out[(r["range"][0], r["range"][1])] = (frozenset(r["replicas"]), frozenset(w["replicas"]))
    return out


def rw(reads: str, writes: str) -> tuple[frozenset[str], frozenset[str]]:
    """rw("AB", "ABX") -> ({A,B}, {A,B,X}) for one-letter node ids."""
    return frozenset(reads), frozenset(writes)


def at_rest_matches_scratch(m: Metadata) -> bool:
    """No sequence in progress: every placement equals one computed from the token map."""
    for ks in m.keyspaces.values():
        fresh = placement_from_scratch(ks.replication, m.token_map)
        if not fresh.same_as(m.placements[ks.replication.key]):
            return False
    return True
