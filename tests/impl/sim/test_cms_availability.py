"""CMS availability and far-behind catch-up.

CEP: "Appending to the log requires consensus between a quorum of CMS members" and
"[snapshots] will allow ... nodes which are lagging far behind (perhaps through prolonged
downtime or partition) to catch up more quickly by reducing the amount of replay required."
"""

from __future__ import annotations

import json

from impl.cluster import Cluster, run_scenario
from impl.engine import MetadataEngine, cms_members
from impl.scenario import Crash, Partition
from impl.settings import Settings
from impl.sim.clock import ms_to_ns

from .helpers import completions, replay, scenario, schema, submit

# The params of the base keyspace: a keyspace created with params in use does not affect placements,
# so AlterSchema accepts it even while the CMS reconfiguration the cluster starts with holds its lock.
SHARED = {"class": "SimpleStrategy", "replication_factor": 3}


def keyspaces(prefix: str, count: int, start_ms: float, every_ms: float, nodes: list[str]):  # type: ignore[no-untyped-def]
    return tuple(submit(nodes[i % len(nodes)], start_ms + i * every_ms,
                        schema("CREATE_KEYSPACE", keyspace=f"{prefix}{i}", replication=SHARED))
                 for i in range(count))


def test_a_five_member_cms_commits_with_two_down_stalls_with_three_and_resumes() -> None:
    non_cms = ["n06", "n07"]
    subs = (keyspaces("a", 10, 1000, 50, non_cms)      # all up
            + keyspaces("b", 10, 3000, 50, non_cms)    # n04, n05 down
            + keyspaces("c", 5, 5000, 50, non_cms)     # n03, n04, n05 down
            + keyspaces("d", 5, 6000, 50, non_cms))    # still three down
    sc = scenario(7, cms_size=5, submissions=subs,
                  crashes=(Crash(node="n04", at=ms_to_ns(2000), restart=ms_to_ns(9000)),
                           Crash(node="n05", at=ms_to_ns(2000), restart=ms_to_ns(9000)),
                           Crash(node="n03", at=ms_to_ns(4000), restart=ms_to_ns(9500))),
                  settings=Settings(submit_timeout_ns=ms_to_ns(60_000), max_submit_attempts=2,
                                    end_time_ns=ms_to_ns(300_000)))
    c = Cluster(sc, 1)
    c.run_until(ms_to_ns(1900))
    assert cms_members(c.nodes["n01"].log.metadata) == ("n01", "n02", "n03", "n04", "n05")
    c.run_until(ms_to_ns(3900))
    epoch_two_down = c.nodes["n01"].log.applied
    c.run_until(ms_to_ns(8900))
    stalled = {n: node.log.applied for n, node in c.nodes.items() if node is not None}
    # with a majority down nothing commits, and every live node still has its metadata
    assert set(stalled.values()) == {epoch_two_down}
    for node in c.nodes.values():
        if node is not None:
            assert node.log.metadata.read_replicas("base", 0)
    r = c.run()
    outcomes = completions(r)
    ok_time = {eid: c.completed for eid, c in outcomes.items() if c.outcome == "ok"}
    epochs = {c.transformation["change"]["keyspace"]: c.epoch
              for c in r.commits if c.outcome == "ok" and c.kind == "SCHEMA_CHANGE"}
    assert all(f"b{i}" in epochs for i in range(10)), "commits continue with two members down"
    assert all(f"c{i}" in epochs and f"d{i}" in epochs for i in range(5)), "and resume after"
    assert all(t < ms_to_ns(4000) or t > ms_to_ns(9000) for t in ok_time.values())
    assert r.quiescent and len({n.log_hash for n in r.nodes}) == 1


def test_a_node_partitioned_away_for_500_epochs_catches_up_through_a_snapshot() -> None:
    subs = keyspaces("k", 520, 1000, 10, ["n01", "n02", "n03", "n04", "n05", "n06"])
    sc = scenario(7, cms_size=3, submissions=subs,
                  partitions=(Partition(groups=(("n07",),), start=ms_to_ns(500),
                                        heal=ms_to_ns(20_000)),),
                  settings=Settings(snapshot_interval=100, end_time_ns=ms_to_ns(300_000)))
    c = Cluster(sc, 4)
    c.run_until(ms_to_ns(19_999))
    behind = c.nodes["n01"].log.applied - c.nodes["n07"].log.applied
    assert behind >= 500
    r = c.run()
    n07 = r.node("n07")
    assert r.counter("snapshot_catchups") >= 1
    assert n07.first_epoch > 1  # it holds the tail after the snapshot, not the whole log
    assert n07.applied_epoch == r.final_epoch
    assert len({n.log_hash for n in r.nodes}) == 1
    assert not r.conflicts


def test_every_snapshot_equals_the_replay_of_the_log_up_to_its_epoch() -> None:
    subs = keyspaces("s", 250, 500, 5, ["n01", "n04"])
    sc = scenario(5, cms_size=3, submissions=subs,
                  settings=Settings(snapshot_interval=50, end_time_ns=ms_to_ns(300_000)))
    c = Cluster(sc, 9)
    r = c.run()
    log = list(r.node("n01").entries)
    states = replay(sc.topology, log)
    engine = MetadataEngine()
    checked = 0
    for disk in c.disks.values():
        for snap in disk.snapshots:
            assert engine.from_json(snap.metadata).digest() == states[snap.epoch].digest()
            checked += 1
    assert checked >= 5 * 5


def test_cms_membership_changes_by_hand_through_the_log() -> None:
    from impl.scenario import CmsChange

    sc = scenario(6, cms_size=3, cms_changes=(
        CmsChange(at=ms_to_ns(2000), members=("n02", "n04", "n05", "n06", "n03")),
        CmsChange(at=ms_to_ns(5000), members=("n04",))))
    c = Cluster(sc, 3)
    c.run_until(ms_to_ns(1900))
    assert cms_members(c.nodes["n06"].log.metadata) == ("n01", "n02", "n03")
    c.run_until(ms_to_ns(4900))
    assert cms_members(c.nodes["n06"].log.metadata) == ("n02", "n03", "n04", "n05", "n06")
    r = c.run()
    kinds = [e.kind for e in r.node("n04").entries]
    assert kinds[0] == "PREPARE_CMS_RECONFIGURATION"
    assert cms_members(c.nodes["n01"].log.metadata) == ("n04",)
    # read and write sets never differ by more than one member at any epoch
    for m in replay(sc.topology, list(r.node("n04").entries)):
        assert len(set(m.cms_write_members()) ^ set(m.cms_members())) <= 1


def test_the_sizing_policy_follows_the_cep() -> None:
    from impl.cms.reconfiguration import policy_size

    assert [policy_size(n) for n in (1, 2, 3, 5, 6, 100)] == [1, 1, 3, 3, 5, 5]
    assert policy_size(101) == 10
    r = run_scenario(scenario(20), 1)
    last = replay(scenario(20).topology, list(r.node("n01").entries))[-1]
    assert len(cms_members(last)) == 5


def test_the_cms_does_not_follow_the_cluster_down_by_itself() -> None:
    """The CEP says the CMS "will scale itself up and down"; Cassandra (trunk 6bbe85ef) places it
    only where an operator path asks (ClusterMetadataService.ensureCMSPlacement after a join,
    replace or move finishes; ReconfigureCMS.maybeReconfigureCMS before a member is removed):
    six joined nodes, five members; a non-member assassinated by a direct submission leaves the
    CMS as it was."""
    sc = scenario(6, submissions=(submit("n04", 3000, json.dumps(
        {"kind": "ASSASSINATE", "node": "n06"})),))
    c = Cluster(sc, 2)
    c.run_until(ms_to_ns(2900))
    assert cms_members(c.nodes["n04"].log.metadata) == ("n01", "n02", "n03", "n04", "n05")
    c.run()
    assert c.nodes["n04"].log.metadata.node_state("n06").value == "LEFT"
    assert cms_members(c.nodes["n04"].log.metadata) == ("n01", "n02", "n03", "n04", "n05")
