"""The failure detector's source filter, before anything streams (impl/node/streaming.py
`source_filter`, issue 33), as trunk 6bbe85ef plans each operation's streams:

- join, replace: `RangeStreamer`'s constructor "always" adds `FailureDetectorSourceFilter`
  (`fd.isAlive(replica.endpoint())`); a strict source filtered out throws "Necessary replicas for
  strict consistency were removed by source filters", no source left "Unable to find sufficient
  sources for streaming range" (`calculateRangesToFetchWithPreferredEndpoints`);
- move: `Move.movementMap(FailureDetector.instance, ...)`: "Strict consistency requires the node
  losing the range to be UP but ... is DOWN";
- remove: `DataMovementVerbHandler` filters by the destination's detector, "Found no sources to
  stream from";
- leave: `UnbootstrapStreams` streams from the leaving node; no filter."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from impl.node.streaming import Task, source_filter

R = ((0, 100),)


def seen(*down: str, by: str = "") -> Callable[[str, str], bool]:
    """A failure detector (of `by`, or of the planning node when "") that convicted `down`."""
    return lambda observer, peer: observer != by or peer not in down


def task(sources: tuple[str, ...], dest: str = "X") -> Task:
    return ("ks", dest, sources, R)


@pytest.mark.parametrize(("op", "message"), [
    ("join", "Necessary replicas for strict consistency were removed by source filters: Filtered B out because it was down"),
    ("move", "Strict consistency requires the node losing the range to be UP but B is DOWN")])
def test_a_convicted_strict_source_refuses_the_plan(op: str, message: str) -> None:
    tasks, refused = source_filter(op, [(task(("A",)), True), (task(("B",)), True)], seen("B"))
    assert refused == ("B", message)
    assert source_filter(op, [(task(("A",)), True)], seen("B")) == ([task(("A",))], None)


def test_a_replacement_keeps_its_live_sources_and_refuses_with_none() -> None:
    assert source_filter("replace", [(task(("A", "B", "C")), False)], seen("A")) == ([task(("B", "C"))], None)
    tasks, refused = source_filter("replace", [(task(("A", "B")), False)], seen("A", "B"))
    assert refused == ("A/B", "Unable to find sufficient sources for streaming range (0, 100) in keyspace ks")


def test_a_removal_asks_the_destinations_failure_detector() -> None:
    # DataMovementVerbHandler runs on the node gaining the range, with its own detector
    planned = [(task(("A", "B"), dest="D"), False)]
    assert source_filter("remove", planned, seen("A")) == ([task(("A", "B"), dest="D")], None)
    assert source_filter("remove", planned, seen("A", by="D")) == ([task(("B",), dest="D")], None)
    _, refused = source_filter("remove", planned, seen("A", "B", by="D"))
    assert refused == ("A/B", "Found no sources to stream from for (0, 100) in keyspace ks")


def test_a_decommission_is_not_filtered() -> None:
    assert source_filter("leave", [(task(("L",)), True)], seen("L")) == ([task(("L",))], None)


def test_the_removed_node_a_plan_waits_for_is_kept() -> None:
    # the fix stream-from-all-replicas at RF 1 (and a mutant) stream from the removed node itself
    assert source_filter("remove", [(task(("Z",)), False)], seen("Z", by="X"), keep="Z") == ([task(("Z",))], None)


def test_a_join_whose_strict_source_was_convicted_fails_before_it_streams() -> None:
    # join-source-dead-for-good.json (n5 dies at 1.48 s) with the join at 15 s, when d2's
    # failure detector has convicted n5: the plan is refused at once, nothing is requested
    import copy
    import json
    from pathlib import Path

    from campaign.formats.scenario import parse_scenario
    from campaign.kinds import checked
    from campaign.run.record import RunSpec
    from impl.cluster import run_scenario

    doc = json.loads((Path(__file__).parent / "data" / "join-source-dead-for-good.json").read_text())
    case = copy.deepcopy(doc["case"])
    case["operations"][0]["at_ms"] = 15_000
    result = run_scenario(parse_scenario(case), seed=int(doc["seed"]), keep_trace=True)
    assert [(o.node, o.op, o.outcome) for o in result.operations] == [("d2", "join", "failed: streaming failed: n5 is down")]
    streams = [line.split(" ", 4)[4].strip() for line in result.trace if " stream d2 " in line]
    assert streams == ["refused: Necessary replicas for strict consistency were removed by source filters: "
                       "Filtered n5 out because it was down"]
    outcome = checked(RunSpec(kind="sim", seed=int(doc["seed"]), case=case))
    assert outcome.valid, outcome.cause  # n5 did crash: Cassandra's halt, left to the operator


def test_a_move_resumed_right_after_its_restart_does_not_refuse_a_live_source() -> None:
    # fresh seed 91817 (sim run 91817276014): n2 crashes during its move and restarts at 3.934 s;
    # its failure detector sees every peer down until gossip and an echo say otherwise, and the
    # move's streams were planned 11 ms later, refusing n4 ("Strict consistency requires the
    # node losing the range to be UP"), alive, whose echo came back 2 ms after. Cassandra's
    # restarted node resumes its sequence only after Gossiper.waitToSettle
    import json
    from pathlib import Path

    from campaign.kinds import checked
    from campaign.run.record import RunSpec

    doc = json.loads((Path(__file__).parent / "data" / "move-resumed-right-after-restart.json").read_text())
    outcome = checked(RunSpec(kind="sim", seed=int(doc["seed"]), case=doc["case"]))
    assert outcome.valid, outcome.cause
