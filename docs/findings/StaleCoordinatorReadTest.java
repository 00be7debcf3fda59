/*
 * Licensed to the Apache Software Foundation (ASF) under one
 * or more contributor license agreements.  See the NOTICE file
 * distributed with this work for additional information
 * regarding copyright ownership.  The ASF licenses this file
 * to you under the Apache License, Version 2.0 (the
 * "License"); you may not use this file except in compliance
 * with the License.  You may obtain a copy of the License at
 *
 *     http://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */

package org.apache.cassandra.distributed.test.log;

import java.util.Collection;
import java.util.Collections;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.junit.Test;

import org.apache.cassandra.distributed.Cluster;
import org.apache.cassandra.distributed.Constants;
import org.apache.cassandra.distributed.api.ConsistencyLevel;
import org.apache.cassandra.distributed.api.Feature;
import org.apache.cassandra.distributed.api.IInstanceConfig;
import org.apache.cassandra.distributed.api.IInvokableInstance;
import org.apache.cassandra.distributed.api.TokenSupplier;
import org.apache.cassandra.distributed.shared.NetworkTopology;
import org.apache.cassandra.distributed.test.TestBaseImpl;
import org.apache.cassandra.net.Verb;
import org.apache.cassandra.tcm.Epoch;
import org.apache.cassandra.tcm.transformations.PrepareJoin;

import static org.apache.cassandra.distributed.shared.ClusterUtils.dropAllEntriesBeginningAt;
import static org.apache.cassandra.distributed.shared.ClusterUtils.getNextEpoch;
import static org.apache.cassandra.distributed.shared.ClusterUtils.pauseBeforeCommit;
import static org.apache.cassandra.distributed.shared.ClusterUtils.unpauseCommits;
import static org.junit.Assert.assertEquals;

/**
 * Finding stale-coordinator-read (tcmcheck, docs/findings/stale-coordinator-read.md).
 *
 * A replica checks a read's routing only (ReadCommandVerbHandler.checkTokenOwnership, l.147-211): it serves a
 * coordinator whose epoch is before the read group's last change, where a mutation would be refused
 * (AbstractMutationVerbHandler.java:96, lastModified vs message.epoch()). A coordinator that learns of a newer
 * epoch from a successful response catches up asynchronously (ResponseVerbHandler.maybeFetchLogs, l.86-124),
 * so ReadCallback.awaitResults' stillAppliesTo(ClusterMetadata.current()) (l.158) re-checks its old plan.
 *
 * Six nodes at OPP tokens 10..60; node 7 bootstraps at 05. Key "03" has replicas 1, 2, 3 before the join and
 * 7, 1, 2 after it (node 3 gives it up). Node 4, the coordinator, is a replica of none of the ranges the join
 * changes, so the join's barriers never wait for it. Node 4 enacts nothing of the join and node 3 nothing past
 * START (dropAllEntriesBeginningAt stands for the partition and for the race with node 4's catch-up: it
 * over-approximates the window, which in a real cluster is the time between node 4 regaining contact and its
 * first fetch returning). A QUORUM write through node 2 is acknowledged by 2 and 7 (node 1's mutation is
 * lost); node 4 reads at QUORUM by its old plan {1, 2, 3}: node 1 (up to date, still a read replica) and node 3
 * (at START, a read replica by its view) serve it, and it returns the value before the write. The test asserts
 * it does not; it fails on trunk 6bbe85ef. With reads fenced by the read group's lastModified, node 1 answers
 * COORDINATOR_BEHIND and the read fails instead (here it times out: node 4 cannot catch up while filtered).
 *
 * Not compiled or run here: written against trunk 6bbe85ef51d2 (2024-10-20) from the sources cited beside
 * each call (path:line at that commit), after CleanupDuringRangeMovementTest (test/distributed/.../ring) and
 * TransientRangeMovement2Test (test/distributed/.../test).
 */
public class StaleCoordinatorReadTest extends TestBaseImpl
{
    /** OPP tokens: nodes 1-6 at 10..60, node 7 (the one that bootstraps) at 05 (as TransientRangeMovementTest.java:263-270). */
    public static class Tokens implements TokenSupplier
    {
        @Override
        public Collection<String> tokens(int i)
        {
            return Collections.singleton(i == 7 ? "05" : String.valueOf(i * 10));
        }
    }

    @Test
    public void laggingCoordinatorReadSeesAcknowledgedWrite() throws Throwable
    {
        ExecutorService executor = Executors.newSingleThreadExecutor();
        // TransientRangeMovement2Test.java:53-58; CleanupDuringRangeMovementTest.java:102-106; HintsDisabledTest.java:49
        try (Cluster cluster = init(Cluster.build(6)
                                           .withTokenSupplier(new Tokens())
                                           .withNodeIdTopology(NetworkTopology.singleDcNetworkTopology(7, "dc0", "rack0"))
                                           .withConfig(conf -> conf.set("partitioner", "OrderPreservingPartitioner")
                                                                   .set("hinted_handoff_enabled", false)
                                                                   .with(Feature.NETWORK, Feature.GOSSIP))
                                           .start()))
        {
            IInvokableInstance cms = cluster.get(1);
            IInvokableInstance coordinator = cluster.get(4);
            IInvokableInstance formerReplica = cluster.get(3);
            cluster.schemaChange("CREATE KEYSPACE sc WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 3}");
            // RepairDigestTrackingTest.java:396: the read goes to all three replicas, completes on the first two
            cluster.schemaChange("CREATE TABLE sc.t (k text PRIMARY KEY, v int) WITH speculative_retry = 'ALWAYS'");
            cluster.coordinator(1).execute("INSERT INTO sc.t (k, v) VALUES ('03', 1)", ConsistencyLevel.ALL);

            // node 4 enacts nothing from here on: ClusterUtils.java:662 (getNextEpoch), :441 (dropAllEntriesBeginningAt)
            dropAllEntriesBeginningAt(coordinator, getNextEpoch(cms));

            // bootstrap node 7, paused before MID_JOIN: CleanupDuringRangeMovementTest.java:114-121, ClusterUtils.java:507
            Callable<Epoch> beforeMid = pauseBeforeCommit(cms, (e) -> e instanceof PrepareJoin.MidJoin);
            IInstanceConfig config = cluster.newInstanceConfig()
                                            .set("auto_bootstrap", true)
                                            .set(Constants.KEY_DTEST_FULL_STARTUP, true);
            IInvokableInstance joining = cluster.bootstrap(config);
            Future<?> bootstrap = executor.submit(() -> joining.startup());
            beforeMid.call();
            // node 3 stays at START (a read replica of "03" by its view); the barriers need only a quorum
            dropAllEntriesBeginningAt(formerReplica, getNextEpoch(cms));
            unpauseCommits(cms); // ClusterUtils.java:559
            bootstrap.get();     // FINISH_JOIN committed: "03" is now read from and written to 7, 1, 2

            // a QUORUM write acknowledged by nodes 2 and 7; node 1's mutation is lost (RequestTimeoutTest.java:102)
            cluster.filters().verbs(Verb.MUTATION_REQ.id).to(1).drop();
            cluster.coordinator(2).execute("UPDATE sc.t SET v = 2 WHERE k = '03'", ConsistencyLevel.QUORUM);
            cluster.filters().reset(); // CASContentionTest.java:95

            // node 4 reads by its old plan {1, 2, 3}; node 2's answer is dropped (CASCommonTestCases.java:64)
            cluster.filters().verbs(Verb.READ_REQ.id).from(4).to(2).drop();
            Object[][] rows = cluster.coordinator(4).execute("SELECT v FROM sc.t WHERE k = '03'", ConsistencyLevel.QUORUM);
            assertEquals("a QUORUM read after an acknowledged QUORUM write", 2, rows[0][0]);
        }
        finally
        {
            executor.shutdownNow();
        }
    }
}
