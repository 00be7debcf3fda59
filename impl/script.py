"""The scenario's scripted events, put on the cluster's event queue (`Script.schedule`) or added
as a driver goes (the step API of impl/cluster.py): commit requests, client operations, topology
operations and cancels, crashes and restarts, partitions and heals, CMS targets, a CMS
initialization, anti-entropy repairs.

Each handler acts on whatever the cluster holds at that virtual instant: a request to a down node
never happens (it is counted, not recorded), a restart builds a new node on the old disk.
"""

from __future__ import annotations

from typing import Any

from impl import client_workload
from impl.cms.election import Election
from impl.cms.reconfiguration import AUTO
from impl.node.node import Node
from impl.node.repair import repair_plan
from impl.scenario import Cancel, Operation, Repair, Submission
from impl.workload import generate

Cluster = Any
"""impl/cluster.py's Cluster (not imported: it imports this module)."""


class Script:
    def __init__(self, cluster: Cluster) -> None:
        self.c = cluster

    # --- putting the scenario on the queue ---

    def schedule(self) -> None:
        c = self.c
        s = c.scenario
        q = c.queue
        submissions = list(s.submissions)
        for w in s.workloads:
            # why generate all and keep `only`: the kept ones stay what they were (shrinking)
            generated = generate(w, c.rng, c.node_ids, c.dcs)
            submissions.extend(generated if w.only is None else only(generated, w.only))
        for sub in submissions:
            q.at(sub.at, self.submit, sub)
        value = 1
        for cw in s.clients:
            ops = client_workload.generate(cw, c.rng, c.node_ids, value)
            value += sum(1 for op in ops if op.f == "write")
            for op in (ops if cw.only is None else only(ops, cw.only)):
                q.at(op.at, self.client_op, op)
        for o in s.operations:
            q.at(o.at, self.begin_operation, o)
        for cancel in s.cancels:
            q.at(cancel.at, self.cancel_operation, cancel)
        for cr in s.crashes:
            q.at(cr.at, self.crash, cr.node)
            if cr.restart is not None:
                q.at(cr.restart, self.restart, cr.node)
        for i, p in enumerate(s.partitions):
            name = f"p{i}"
            q.at(p.start, c.bus.partition, name, p.groups, c.node_ids)
            if p.heal is not None:
                q.at(p.heal, self.heal, name)
        for ch in s.cms_changes:
            q.at(ch.at, self.set_target, ch.members)
        if s.cms_size is None and s.cms_members is None and s.cms_reconfigure_at:
            q.at(s.cms_reconfigure_at, self.reconfigure_by_policy)
        for r in s.repairs:
            q.at(r.at, self.repair, r)
        if s.initialize is not None and s.initialize.discovery_rounds:
            for nid in c.node_ids:
                q.at(s.initialize.at, self.start_discovery, nid)
        elif s.initialize is not None:
            q.at(s.initialize.at, self.start_election, s.initialize.initiator, s.initialize.ignore)
        for node in c.nodes.values():
            assert node is not None
            node.start_periodic_tasks()
            q.at(0, node.reconfiguration.poll)

    # --- the events ---

    def submit(self, sub: Submission) -> None:
        c = self.c
        node = c.nodes.get(sub.node)
        c.trace.event("submit", sub.node, "-", sub.transformation)
        if node is None:
            # why: a down node cannot submit; the request never happened (no history event)
            c.counters["submissions_skipped"] += 1
            return
        node.submitter.submit(sub.transformation)

    def client_op(self, op: client_workload.ClientOp) -> None:
        c = self.c
        node = c.nodes.get(op.node)
        if node is None:
            # why: a client cannot reach a down node; the operation never happened
            c.counters["client_ops_skipped"] += 1
            return
        history = c.history
        process = history.invoke_client(coordinator=op.node, f=op.f, keyspace=op.keyspace, key=op.key,
                                        value=op.value, level=op.cl)
        c.counters["client_" + op.f + "s"] += 1

        def done(outcome: str, value: object) -> None:
            # both ends of the call are known here: it is recorded as one (observed/calls.py)
            history.complete_client(process, outcome, value)
            c.counters[f"client_{op.f}_{outcome}"] += 1

        token = node.replica.token(op.key)
        if op.f == "write":
            assert op.value is not None
            node.coordinator.write(op.keyspace, op.key, token, op.value, op.cl, done)
        else:
            node.coordinator.read(op.keyspace, op.key, token, op.cl, done)

    def begin_operation(self, o: Operation) -> None:
        c = self.c
        node = c.nodes.get(o.node)
        c.trace.event("operation", o.node, o.target or "-", f"request {o.op}")
        if node is None:
            c.operation_finished(o.node, o.op, "skipped: node down")
            return
        node.operation.begin(o.op, target=o.target, tokens=o.tokens, location=o.location)

    def cancel_operation(self, cancel: Cancel) -> None:
        """The operator cancels `cancel.node`'s operation from `cancel.by`: the JMX cancel (by
        default from the operation's own node when it runs, else from the first live node), or
        `nodetool abortbootstrap` (by default from the first live node other than it)
        (impl/node/operator.py). The sequence is named by the driver's disk."""
        c = self.c
        op = c.disks[cancel.node].operation
        seq_node = op["seq_node"] if op is not None else cancel.node
        by = c.nodes.get(cancel.by) if cancel.by is not None else None
        if cancel.by is None:
            live = [n for n in c.nodes.values() if n is not None
                    and (cancel.how == "jmx" or n.id != seq_node)]
            own = c.nodes.get(cancel.node)
            by = own if cancel.how == "jmx" and own is not None else (live[0] if live else None)
        if by is None:
            c.counters["cancels_skipped"] += 1
            return
        if cancel.how == "abortbootstrap":
            by.operator.abort_bootstrap(seq_node)
        else:
            by.operator.cancel(seq_node, cancel.kind)

    def crash(self, node_id: str) -> None:
        c = self.c
        node = c.nodes.get(node_id)
        if node is None:
            return
        c.trace.event("crash", node_id)
        node.crash()
        c.nodes[node_id] = None
        c.counters["crashes"] += 1

    def restart(self, node_id: str) -> None:
        c = self.c
        if c.nodes.get(node_id) is not None:
            return
        c.trace.event("restart", node_id)
        node = Node(node_id=node_id, index=c.node_ids.index(node_id), world=c,
                    disk=c.disks[node_id], restarted=True)
        c.nodes[node_id] = node
        c.counters["restarts"] += 1
        c.restarted(node)
        node.start_periodic_tasks()
        # why: a restarted node asks a CMS member where the log is (discovery)
        node.gossip_to(node.pick_cms_member(avoid=node_id))
        # why every node: the CMS driver's sizing policy leaves down nodes out, so it looks
        # again when one comes back (the failure detector marking it alive)
        for other in c.nodes.values():
            if other is not None:
                other.reconfiguration.poll()
        node.operation.advance()  # a node resumes its operation from what the log says
        init = c.scenario.initialize
        if init is not None and init.discovery_rounds:
            self.start_discovery(node_id)  # a new cluster's node discovers its peers at startup

    def set_target(self, members: tuple[str, ...]) -> None:
        c = self.c
        c.cms_target = members
        c.cms_rf = len(members)
        c.trace.event("cms_target", "-", "-", ",".join(members))
        for node in c.nodes.values():
            if node is not None:
                node.reconfiguration.poll()

    def reconfigure_by_policy(self) -> None:
        """The operator's first `nodetool cms reconfigure`, at the CEP's sizing policy."""
        c = self.c
        c.cms_target = AUTO
        c.trace.event("cms_target", "-", "-", "policy")
        for node in c.nodes.values():
            if node is not None:
                node.reconfiguration.poll()

    def start_discovery(self, node_id: str) -> None:
        c = self.c
        node = c.nodes.get(node_id)
        init = c.scenario.initialize
        if node is None or init is None or c.clock.now < init.at:
            return  # a node down then starts discovering when it restarts
        node.discovery.start(init.seeds, init.discovery_rounds, init.discovery_timeout)

    def start_election(self, initiator: str, ignore: tuple[str, ...]) -> None:
        node = self.c.nodes.get(initiator)
        if node is None:
            return
        node.election = Election(node, ignore)
        node.election.start()

    def heal(self, name: str) -> None:
        c = self.c
        c.bus.heal(name, c.node_ids)
        # why: after a heal, peers exchange status right away (as gossip would on reconnect)
        for node in c.nodes.values():
            if node is not None:
                node.gossip_round_once()

    def repair(self, r: Repair) -> None:
        """`nodetool repair -full KEYSPACE` (impl/node/repair.py): on `r.node`, or, without one,
        on every range's lowest-id live read replica in the most advanced live node's
        metadata (as `-pr` run on every node would cover the ring once)."""
        c = self.c
        live = [n for n in c.nodes.values() if n is not None]
        if r.node is not None:
            node = c.nodes.get(r.node)
            if node is None:
                c.counters["repairs_skipped"] += 1
                c.trace.event("repair", r.node, "-", "skipped: node down")
                return
            node.repair.start(r.keyspace, r.range)
            return
        if not live:
            return
        newest = max(live, key=lambda n: n.log.applied)
        for coordinator, ranges in repair_plan(newest.log.metadata, r.keyspace, c.is_up):
            node = c.nodes.get(coordinator)
            if node is not None:
                node.repair.start(r.keyspace, None, ranges=ranges)


def only(items: list[Any], keep: tuple[int, ...]) -> list[Any]:
    """The generated items whose index is in `keep` (a shrunk workload)."""
    wanted = set(keep)
    return [x for i, x in enumerate(items) if i in wanted]
