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

package org.apache.cassandra.tcm.sequences;

import java.net.UnknownHostException;
import java.util.HashSet;
import java.util.Set;

import org.junit.After;
import org.junit.Before;
import org.junit.BeforeClass;
import org.junit.Test;

import org.apache.cassandra.config.DatabaseDescriptor;
import org.apache.cassandra.dht.Murmur3Partitioner;
import org.apache.cassandra.dht.Token;
import org.apache.cassandra.distributed.test.log.ClusterMetadataTestHelper;
import org.apache.cassandra.locator.InetAddressAndPort;
import org.apache.cassandra.schema.KeyspaceMetadata;
import org.apache.cassandra.schema.KeyspaceParams;
import org.apache.cassandra.schema.ReplicationParams;
import org.apache.cassandra.service.StorageService;
import org.apache.cassandra.tcm.ClusterMetadata;
import org.apache.cassandra.tcm.ClusterMetadataService;
import org.apache.cassandra.tcm.membership.NodeId;
import org.apache.cassandra.tcm.transformations.CancelInProgressSequence;
import org.apache.cassandra.utils.FBUtilities;

import static org.junit.Assert.assertTrue;

/**
 * Finding cancel-after-mid (tcmcheck, docs/findings/cancel-after-mid.md).
 *
 * CancelInProgressSequence reverts MID and START of a join in one epoch (BootstrapAndJoin.cancel falls
 * through FINISH_JOIN -> MID_JOIN -> START_JOIN), with no progress barrier before it. A QUORUM read planned
 * at the MID epoch and a QUORUM write planned at the cancel epoch can then use disjoint replicas. This test
 * asserts that they cannot; it fails on trunk 6bbe85ef (read quorum {A, X}, write quorum {B, C} for a token
 * in (400, 100]).
 *
 * Not compiled or run here: written against trunk 6bbe85ef51d2 (2024-10-20) from the sources cited beside
 * each call (path:line at that commit). Setup as TokenAllocationTest (test/unit/.../dht/tokenallocator).
 */
public class CancelAfterMidQuorumTest
{
    private static final String KEYSPACE = "cancel_after_mid";

    @BeforeClass
    public static void beforeClass()
    {
        // TokenAllocationTest.java:64-65
        DatabaseDescriptor.daemonInitialization();
        StorageService.instance.setPartitionerUnsafe(Murmur3Partitioner.instance);
    }

    @Before
    public void before()
    {
        // TokenAllocationTest.java:71-72; ClusterMetadataTestHelper.java:183 (syncInstanceForTest)
        ClusterMetadataService.setInstance(ClusterMetadataTestHelper.syncInstanceForTest());
        ClusterMetadataService.instance().log().bootstrap(FBUtilities.getBroadcastAddressAndPort());
    }

    @After
    public void after()
    {
        ClusterMetadataService.unsetInstance(); // ClusterMetadataService.java:105, TokenAllocationTest.java:78
    }

    private static InetAddressAndPort peer(int i) throws UnknownHostException
    {
        return InetAddressAndPort.getByName("127.0.1." + i); // as ClusterMetadataTestHelper.java:107
    }

    private static Token token(long t)
    {
        return new Murmur3Partitioner.LongToken(t); // Murmur3Partitioner.java:152
    }

    @Test
    public void readAtMidAndWriteAtCancelIntersect() throws Throwable
    {
        // ClusterMetadataTestHelper.java:837 (addOrUpdateKeyspace); KeyspaceMetadata.java:87; KeyspaceParams.java:83
        ClusterMetadataTestHelper.addOrUpdateKeyspace(KeyspaceMetadata.create(KEYSPACE, KeyspaceParams.simple(3)));
        // A, B, C, D at 100, 200, 300, 400: ClusterMetadataTestHelper.java:797 (addEndpoint: Register + the whole join)
        for (int i = 1; i <= 4; i++)
            ClusterMetadataTestHelper.addEndpoint(peer(i), token(100L * i), "dc1", "rack1");

        // X registers and joins at 150 up to MID: ClusterMetadataTestHelper.java:285 (register), 400 (lazyJoin)
        InetAddressAndPort x = peer(5);
        NodeId xId = ClusterMetadataTestHelper.register(x, "dc1", "rack1");
        ClusterMetadataTestHelper.lazyJoin(x, token(150)).prepareJoin().startJoin().midJoin();
        ClusterMetadata atMid = ClusterMetadata.current(); // ClusterMetadata.java:793

        // the JMX cancel commits this (StorageService.cancelInProgressSequences, StorageService.java:855-864);
        // CancelInProgressSequence.java:41; ClusterMetadataTestHelper.java:850 (commit)
        ClusterMetadataTestHelper.commit(new CancelInProgressSequence(xId));
        ClusterMetadata atCancel = ClusterMetadata.current();

        // a key in (400, 100]: replicas A, B, C before X's join, X, A, B once X reads
        Token key = token(50);
        // ClusterMetadata.java:91 (schema), DistributedSchema.java:111, KeyspaceMetadata.java:69, KeyspaceParams.java:65
        ReplicationParams params = atMid.schema.getKeyspaceMetadata(KEYSPACE).params.replication;
        // ClusterMetadata.java:94 (placements), ReplicationMap.java:51 (get), DataPlacement.java:54-55,
        // ReplicaGroups.java:144 (forToken), VersionedEndpoints.java:172 (get), Endpoints.java:51 (endpoints)
        Set<InetAddressAndPort> readsAtMid = atMid.placements.get(params).reads.forToken(key).get().endpoints();
        Set<InetAddressAndPort> readsAtCancel = atCancel.placements.get(params).reads.forToken(key).get().endpoints();
        Set<InetAddressAndPort> writesAtCancel = atCancel.placements.get(params).writes.forToken(key).get().endpoints();

        int readQuorum = 3 / 2 + 1;                   // QUORUM of RF 3
        Set<InetAddressAndPort> pending = new HashSet<>(writesAtCancel);
        pending.removeAll(readsAtCancel);
        int writeQuorum = 3 / 2 + 1 + pending.size(); // ConsistencyLevel.blockForWrite: + pending.size()
        assertTrue(String.format("a read quorum of %s (MID epoch %s) and a write quorum of %s (cancel epoch %s) can be disjoint",
                                 readsAtMid, atMid.epoch, writesAtCancel, atCancel.epoch),
                   quorumsIntersect(readsAtMid, readQuorum, writesAtCancel, writeQuorum));
    }

    /** Every `r`-subset of `reads` meets every `w`-subset of `writes`. */
    private static boolean quorumsIntersect(Set<InetAddressAndPort> reads, int r, Set<InetAddressAndPort> writes, int w)
    {
        Set<InetAddressAndPort> both = new HashSet<>(reads);
        both.retainAll(writes);
        int readOnly = reads.size() - both.size();
        int writeOnly = writes.size() - both.size();
        // disjoint quorums take what they can from their own side, then from the shared replicas
        return Math.max(0, r - readOnly) + Math.max(0, w - writeOnly) > both.size();
    }
}
