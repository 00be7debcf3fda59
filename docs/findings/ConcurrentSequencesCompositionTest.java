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

package org.apache.cassandra.tcm.ownership;

import java.net.UnknownHostException;
import java.util.Collections;
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
import org.apache.cassandra.utils.FBUtilities;

import static org.junit.Assert.assertEquals;

/**
 * Finding nts-rack-composition (tcmcheck, docs/findings/nts-rack-composition.md).
 *
 * A join and a move of single-token nodes, prepared on disjoint locked ranges and run concurrently, under
 * NetworkTopologyStrategy with two racks: each plan was computed against the ring of its own PREPARE
 * (UniformRangePlacement.planForJoin / planForMove), and together they change a range neither locked. This
 * test asserts that the placements at rest equal those computed from the token map; it fails on trunk
 * 6bbe85ef: (174, 212] is read from {X, n1, n3}, the token map gives {X, n0, n1}.
 *
 * MetadataChangeSimulationTest.testPlacementsAllSettled runs concurrent operations across racks in one fixed
 * scenario but compares with composed deltas (writePlacementAllSettled), which cannot see this.
 *
 * Not compiled or run here: written against trunk 6bbe85ef51d2 (2024-10-20) from the sources cited beside
 * each call (path:line at that commit). Setup as TokenAllocationTest (test/unit/.../dht/tokenallocator).
 */
public class ConcurrentSequencesCompositionTest
{
    private static final String KEYSPACE = "nts_rack_composition";

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
        // TokenAllocationTest.java:71-72; ClusterMetadataTestHelper.java:183
        ClusterMetadataService.setInstance(ClusterMetadataTestHelper.syncInstanceForTest());
        ClusterMetadataService.instance().log().bootstrap(FBUtilities.getBroadcastAddressAndPort());
    }

    @After
    public void after()
    {
        ClusterMetadataService.unsetInstance(); // ClusterMetadataService.java:105
    }

    private static InetAddressAndPort peer(int i) throws UnknownHostException
    {
        return InetAddressAndPort.getByName("127.0.1." + (i + 1)); // as ClusterMetadataTestHelper.java:107
    }

    private static Token token(long t)
    {
        return new Murmur3Partitioner.LongToken(t); // Murmur3Partitioner.java:152
    }

    @Test
    public void concurrentJoinAndMoveEndAtTheTokenMapsPlacements() throws Throwable
    {
        // KeyspaceParams.java:98 (nts), KeyspaceMetadata.java:87, ClusterMetadataTestHelper.java:837
        ClusterMetadataTestHelper.addOrUpdateKeyspace(KeyspaceMetadata.create(KEYSPACE, KeyspaceParams.nts("dc1", 3)));
        // racks r1 {n0@55, n1@21, n2@174}, r2 {n3@26, n4@156, n5@115, n6@157}, one token each
        long[] tokens = { 55, 21, 174, 26, 156, 115, 157 };
        String[] racks = { "r1", "r1", "r1", "r2", "r2", "r2", "r2" };
        for (int i = 0; i < tokens.length; i++) // ClusterMetadataTestHelper.java:797
            ClusterMetadataTestHelper.addEndpoint(peer(i), token(tokens[i]), "dc1", racks[i]);

        // X (rack r2) prepares a join at 212; n3 prepares a move to 113 (a one-token node: SingleNodeSequences.move
        // allows it, l.145-156); both PREPAREs pass the lock check (PrepareJoin.java:138-141, PrepareMove.java:100-104)
        InetAddressAndPort x = peer(7);
        ClusterMetadataTestHelper.register(x, "dc1", "r2");                                   // :285
        ClusterMetadataTestHelper.JoinProcess join = ClusterMetadataTestHelper.lazyJoin(x, token(212)).prepareJoin(); // :400
        Set<Token> target = Collections.singleton(token(113));
        ClusterMetadataTestHelper.MoveProcess move = ClusterMetadataTestHelper.lazyMove(peer(3), target).prepareMove(); // :692

        // then both run to the end, as tcmcheck's examples/nts-rack-composition-ops.json resumes them
        join.startJoin().midJoin().finishJoin();
        move.startMove().midMove().finishMove();

        ClusterMetadata metadata = ClusterMetadata.current(); // ClusterMetadata.java:793
        // PlacementProvider.java:33 (calculatePlacements), ClusterMetadataService.java:613 (placementProvider),
        // TokenMap.java:141 (toRanges), DistributedSchema.java:327 (getKeyspaces)
        DataPlacements fromTokenMap = ClusterMetadataService.instance()
                                                            .placementProvider()
                                                            .calculatePlacements(metadata.nextEpoch(),
                                                                                 metadata.tokenMap.toRanges(),
                                                                                 metadata,
                                                                                 metadata.schema.getKeyspaces());
        ReplicationParams params = metadata.schema.getKeyspaceMetadata(KEYSPACE).params.replication;
        Token inRange = token(200); // in (174, 212]
        // ReplicationMap.java:51, DataPlacement.java:54-55, ReplicaGroups.java:144, VersionedEndpoints.java:172, Endpoints.java:51
        assertEquals("reads at rest vs from the token map",
                     fromTokenMap.get(params).reads.forToken(inRange).get().endpoints(),
                     metadata.placements.get(params).reads.forToken(inRange).get().endpoints());
        assertEquals("writes at rest vs from the token map",
                     fromTokenMap.get(params).writes.forToken(inRange).get().endpoints(),
                     metadata.placements.get(params).writes.forToken(inRange).get().endpoints());
    }
}
