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

package org.apache.cassandra.distributed.test;

import java.util.concurrent.Callable;

import org.junit.Test;

import org.apache.cassandra.distributed.Cluster;
import org.apache.cassandra.distributed.api.ConsistencyLevel;
import org.apache.cassandra.distributed.api.Feature;
import org.apache.cassandra.distributed.shared.NetworkTopology;
import org.apache.cassandra.net.Verb;
import org.apache.cassandra.tcm.Epoch;
import org.apache.cassandra.tcm.transformations.PrepareMove;

import static org.apache.cassandra.distributed.shared.ClusterUtils.pauseBeforeCommit;
import static org.apache.cassandra.distributed.shared.ClusterUtils.unpauseCommits;
import static org.apache.cassandra.distributed.shared.ClusterUtils.waitForCMSToQuiesce;
import static org.junit.Assert.assertEquals;

/**
 * Finding monotonic-read-across-movement (tcmcheck, docs/findings/monotonic-read-across-movement.md), the
 * follow-up to CASSANDRA-14740: that ticket added pending replicas to the read-repair plan, which is used only
 * after a digest mismatch; when the responses match, nothing is repaired (AbstractReadExecutor.awaitResponses,
 * l.412-441), and reads never contact a pending replica.
 *
 * RF 3, five nodes at OPP tokens 10..50. Key "15" has replicas 2, 3, 4. Node 5 moves to 16: the key's replicas
 * become 5, 2, 3 (node 4 gives the range up, node 5 is pending). Between the streams and MID_MOVE, a QUORUM
 * write through node 2 reaches nodes 2 and 4 only and fails (blockForWrite counts the pending replica:
 * 2 + 1); a QUORUM read served by 4 and 2 returns it with no repair; after the move, a QUORUM read served by
 * 5 and 3 returns the value before it. Hints are off: they stand for a hint not yet replayed (10 s dispatch,
 * HintsService.java:229). The test asserts the second read is not older than the first; it fails on trunk
 * 6bbe85ef. With the proposed fix (repair the pending replicas when the responses match) the first read
 * writes 2 to node 5 (and 3) by READ_REPAIR_REQ, which the MUTATION_REQ filter does not drop.
 *
 * Not compiled or run here: written against trunk 6bbe85ef51d2 (2024-10-20) from the sources cited beside
 * each call (path:line at that commit), after TransientRangeMovement2Test (same package).
 */
public class MonotonicReadAcrossMoveTest extends TestBaseImpl
{
    @Test
    public void quorumReadsStayMonotonicAcrossAMove() throws Throwable
    {
        // TransientRangeMovement2Test.java:53-58 (OPP partitioner, OPPTokens: TransientRangeMovementTest.java:263-270);
        // HintsDisabledTest.java:49
        try (Cluster cluster = init(Cluster.build(5)
                                           .withTokenSupplier(new TransientRangeMovementTest.OPPTokens())
                                           .withNodeIdTopology(NetworkTopology.singleDcNetworkTopology(5, "dc0", "rack0"))
                                           .withConfig(conf -> conf.set("partitioner", "OrderPreservingPartitioner")
                                                                   .set("hinted_handoff_enabled", false)
                                                                   .with(Feature.NETWORK, Feature.GOSSIP))
                                           .start()))
        {
            // TransientRangeMovementTest.java:286; RepairDigestTrackingTest.java:396 (speculative_retry = 'ALWAYS':
            // the read goes to every replica and completes on the first two that answer)
            cluster.schemaChange("CREATE KEYSPACE mr WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 3}");
            cluster.schemaChange("CREATE TABLE mr.t (k text PRIMARY KEY, v int) WITH speculative_retry = 'ALWAYS'");
            // TransientRangeMovementTest.java:289 (coordinator(i).execute)
            cluster.coordinator(1).execute("INSERT INTO mr.t (k, v) VALUES ('15', 1)", ConsistencyLevel.ALL);

            // hold the move before MID_MOVE, i.e. after its streams: TransientRangeMovement2Test.java:69-71,
            // ClusterUtils.java:507 (pauseBeforeCommit); node 1 is the CMS
            Callable<Epoch> beforeMid = pauseBeforeCommit(cluster.get(1), (e) -> e instanceof PrepareMove.MidMove);
            Thread move = new Thread(() -> cluster.get(5).nodetoolResult("move", "16").asserts().success());
            move.start();
            beforeMid.call();

            // the write's mutations to node 3 and to the pending node 5 are lost: RequestTimeoutTest.java:102
            cluster.filters().verbs(Verb.MUTATION_REQ.id).to(3, 5).drop();
            try
            {
                cluster.coordinator(2).execute("UPDATE mr.t SET v = 2 WHERE k = '15'", ConsistencyLevel.QUORUM);
            }
            catch (Throwable writeTimeout)
            {
                // expected: WriteTimeoutException, 2 of the 3 acknowledgements blockForWrite asks for
            }

            // a QUORUM read served by nodes 4 and 2 (CASCommonTestCases.java:64: verbs(..).from(..).to(..).drop())
            cluster.filters().verbs(Verb.READ_REQ.id).from(4).to(3).drop();
            Object[][] first = cluster.coordinator(4).execute("SELECT v FROM mr.t WHERE k = '15'", ConsistencyLevel.QUORUM);
            assertEquals(2, first[0][0]);

            cluster.filters().reset(); // CASContentionTest.java:95
            unpauseCommits(cluster.get(1)); // ClusterUtils.java:559
            move.join();
            waitForCMSToQuiesce(cluster, cluster.get(1)); // ClusterUtils.java:436, TransientRangeMovement2Test.java:82

            // a QUORUM read served by nodes 5 and 3 (the key's replicas are now 5, 2, 3)
            cluster.filters().verbs(Verb.READ_REQ.id).from(5).to(2).drop();
            Object[][] second = cluster.coordinator(5).execute("SELECT v FROM mr.t WHERE k = '15'", ConsistencyLevel.QUORUM);
            assertEquals("the second of two successive QUORUM reads went back in time", 2, second[0][0]);
        }
    }
}
