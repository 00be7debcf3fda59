"""Hypothesis properties over random topologies and random, interleaved operation sequences.

After every committed transformation: every read replica is a write replica, and the ranges of
each placement cover the ring with a non-empty read group. At rest (no sequence in progress):
reads == writes == the placement computed from scratch from the token map.
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from impl.metadata import Accepted, Metadata, placement_from_scratch
from impl.metadata.fixes import execute as execute_with
from spec.nodes import NodeState

DCS = ["dc1", "dc2", "dc3"]
RACKS = ["r1", "r2", "r3"]
SPAN = 5000  # a narrow token span: neighbouring ranges and lock conflicts happen often


@st.composite
def topologies(draw: st.DrawFn) -> dict[str, Any]:
    n_dcs = draw(st.integers(1, 3))
    n_racks = draw(st.integers(1, 3))
    n_nodes = draw(st.integers(1, 12))
    vnodes = draw(st.integers(1, 16))
    rnd = draw(st.randoms(use_true_random=False))
    tokens = rnd.sample(range(-SPAN, SPAN + 1), n_nodes * vnodes)
    nodes = []
    for i in range(n_nodes):
        nodes.append(
            {
                "id": f"n{i}",
                "dc": DCS[draw(st.integers(0, n_dcs - 1))],
                "rack": RACKS[draw(st.integers(0, n_racks - 1))],
                "tokens": tokens[i * vnodes : (i + 1) * vnodes],
            }
        )
    keyspaces = [
        {"name": "simple", "replication": {"class": "SimpleStrategy", "replication_factor": draw(st.integers(1, 3))}},
        {
            "name": "nts",
            "replication": {
                "class": "NetworkTopologyStrategy",
                **{dc: draw(st.integers(1, 3)) for dc in DCS[:n_dcs]},
            },
        },
    ]
    return {"nodes": nodes, "keyspaces": keyspaces, "vnodes": vnodes, "dcs": n_dcs, "racks": n_racks}


def check_invariants(m: Metadata) -> None:
    for key, p in m.placements.items():
        assert p.reads_within_writes(), f"{key}: a read replica is not a write replica"
        assert set(m.token_map.tokens) <= set(p.bounds), f"{key}: a token is not a range bound"
        if m.token_map.tokens:
            for _, _, r, _ in p.ranges():
                assert r, f"{key}: a range has no read replica"
    if not m.sequences:
        for ks in m.keyspaces.values():
            fresh = placement_from_scratch(ks.replication, m.token_map)
            got = m.placements[ks.replication.key]
            assert got.bounds == fresh.bounds, f"{ks.name}: ranges differ from scratch at rest"
            assert got.reads == fresh.reads, f"{ks.name}: reads differ from scratch at rest"
            assert got.writes == fresh.reads, f"{ks.name}: writes differ from scratch at rest"


FINDING_FIXES = frozenset({"composition-guard", "replace-same-dc"})


def joined(m: Metadata) -> list[str]:
    return sorted(n for n, r in m.directory.items() if r.state is NodeState.JOINED)


@settings(max_examples=int(__import__("os").environ.get("IMPL_METADATA_EXAMPLES", "250")), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(topologies(), st.data())
def test_random_operations_keep_placements_sound(doc: dict[str, Any], data: st.DataObject) -> None:
    """With the fixes of the two findings that break these invariants on purpose (Cassandra's
    rules let NTS operations on disjoint locks compose off the natural placement, and a replace
    cross a DC's RF: docs/findings.md, pinned in tests/small_models), every random sequence of
    operations keeps the engine's placements sound."""
    m = Metadata.from_topology(doc)
    check_invariants(m)
    fresh = 0

    rejections: list[str] = []

    def apply(t: dict[str, Any]) -> bool:
        nonlocal m
        r = execute_with(m, t, FINDING_FIXES)
        if isinstance(r, Accepted):
            m = r.metadata
            event(f"committed {t['kind']}")
            if len(m.sequences) > 1:
                event(f"{len(m.sequences)} sequences at once")
            check_invariants(m)
            return True
        rejections.append(r.reason)
        event("rejected " + " ".join(w for w in r.reason.split()[1:4] if not w.lstrip("-").isdigit()))
        return False

    for _ in range(data.draw(st.integers(1, 30), label="ops")):
        choice = data.draw(
            st.sampled_from(
                ["join", "join", "leave", "remove", "move", "replace", "step", "step", "step", "cancel",
                 "keyspace", "unsafe_join", "assassinate"]
            )
        )
        if choice in ("join", "replace"):
            nid = f"x{fresh}"
            fresh += 1
            apply(
                {
                    "kind": "REGISTER",
                    "node": {
                        "id": nid,
                        "dc": DCS[data.draw(st.integers(0, doc["dcs"] - 1))],
                        "rack": RACKS[data.draw(st.integers(0, doc["racks"] - 1))],
                    },
                }
            )
            if choice == "join":
                toks = data.draw(st.lists(st.integers(-SPAN, SPAN), min_size=1, max_size=doc["vnodes"], unique=True))
                apply({"kind": "PREPARE_JOIN", "node": nid, "tokens": toks})
            elif joined(m):
                victim = data.draw(st.sampled_from(joined(m)))
                apply({"kind": "PREPARE_REPLACE", "node": nid, "replaced": victim})
        elif choice == "keyspace":
            rf = {dc: data.draw(st.integers(1, 3)) for dc in DCS[: doc["dcs"]]}
            name = data.draw(st.sampled_from(["nts", "extra"]))
            op = "ALTER_KEYSPACE" if name in m.keyspaces else "CREATE_KEYSPACE"
            replication = {"class": "NetworkTopologyStrategy", **rf}
            apply({"kind": "SCHEMA_CHANGE", "change": {"op": op, "keyspace": name, "replication": replication}})
        elif choice == "unsafe_join":
            nid = f"x{fresh}"
            fresh += 1
            apply({"kind": "REGISTER", "node": {"id": nid, "dc": "dc1", "rack": "r1"}})
            toks = data.draw(st.lists(st.integers(-SPAN, SPAN), min_size=1, max_size=doc["vnodes"], unique=True))
            apply({"kind": "UNSAFE_JOIN", "node": nid, "tokens": toks})
        elif choice == "assassinate" and joined(m):
            apply({"kind": "ASSASSINATE", "node": data.draw(st.sampled_from(joined(m)))})
        elif choice in ("leave", "remove") and joined(m):
            apply({"kind": "PREPARE_LEAVE", "node": data.draw(st.sampled_from(joined(m))), "remove": choice == "remove"})
        elif choice == "move" and joined(m):
            toks = data.draw(st.lists(st.integers(-SPAN, SPAN), min_size=1, max_size=doc["vnodes"], unique=True))
            apply({"kind": "PREPARE_MOVE", "node": data.draw(st.sampled_from(joined(m))), "tokens": toks})
        elif choice == "step" and m.sequences:
            seq = m.sequences[data.draw(st.sampled_from(sorted(m.sequences)))]
            op = "LEAVE" if seq.kind == "REMOVE" else seq.kind
            assert apply({"kind": f"{seq.next_step}_{op}", "node": seq.node}), rejections[-1]
        elif choice == "cancel" and m.sequences:
            node = data.draw(st.sampled_from(sorted(m.sequences)))
            assert apply({"kind": "CANCEL_SEQUENCE", "node": node}), rejections[-1]
    # finish everything still in progress, in a drawn order
    while m.sequences:
        seq = m.sequences[data.draw(st.sampled_from(sorted(m.sequences)))]
        op = "LEAVE" if seq.kind == "REMOVE" else seq.kind
        assert apply({"kind": f"{seq.next_step}_{op}", "node": seq.node}), rejections[-1]
    check_invariants(m)
    assert Metadata.from_json(m.to_json()).digest() == m.digest()
