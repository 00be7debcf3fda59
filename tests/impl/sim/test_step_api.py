"""The cluster's step API (what the system machine drives): events added at the current virtual
time act as the same events of a scenario would, deterministically."""

from __future__ import annotations

from impl.bus import NetworkFaults
from impl.client_workload import ClientOp
from impl.cluster import Cluster
from impl.scenario import Operation
from impl.sim.clock import ms_to_ns

from .helpers import scenario, schema


def drive(loss: float) -> tuple[str, list[str], int, bool]:
    c = Cluster(scenario(3), 5, spares=("j1",))
    c.run_until(ms_to_ns(100))
    # the base keyspace's params: accepted even while the starting CMS reconfiguration holds its lock
    c.submit("n01", schema("CREATE_KEYSPACE", keyspace="kv", replication={"class": "SimpleStrategy",
                                                                          "replication_factor": 3}))
    c.run_until(ms_to_ns(300))
    c.set_network(NetworkFaults(loss=loss))
    c.client(ClientOp(at=c.clock.now, node="n02", f="write", keyspace="kv", key="k", value=1, cl="ALL"))
    c.run_until(ms_to_ns(3000))
    c.set_network(NetworkFaults())
    c.crash("n03")
    c.begin_operation(Operation(op="join", node="j1", at=c.clock.now, tokens=(7,), location=("dc1", "r1")))
    c.run_until(ms_to_ns(20_000))
    outcomes = [call.outcome for call in c.history.clients if call.f == "write"]
    return c.trace.hexdigest(), outcomes, c.nodes["j1"].log.applied if c.nodes["j1"] else -1, c.is_up("n03")


def test_added_events_act_and_the_same_steps_give_the_same_run() -> None:
    first = drive(0.0)
    assert first == drive(0.0)
    trace, outcomes, j1_epoch, n03_up = first
    assert outcomes == ["ok"]  # the write happened, at ALL
    assert j1_epoch > 2 and not n03_up  # the join ran (REGISTER and on), the crash held


def test_a_network_that_drops_everything_times_the_write_out() -> None:
    _, outcomes, _, _ = drive(1.0)
    assert outcomes == ["info"]
