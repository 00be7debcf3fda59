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

package org.apache.cassandra.tcm.transformations;

import java.net.UnknownHostException;

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
 * Finding cross-dc-replace (tcmcheck, docs/findings/cross-dc-replace.md; class hardening, filed as an
 * improvement: it takes a replacement started with the wrong cassandra-rackdc.properties).
 *
 * PrepareReplace.execute (l.84-107) checks the two node states and the locks, not the replacement's location;
 * the plan's final placements come from ClusterMetadata.Transformer.replaced (l.463-471), which applies the
 * replacement's own rack and DC. With the old DC at its replication factor nothing there gains a range, so the
 * replace completes and every range keeps RF-1 replicas in that DC. This test asserts that a replacement in
 * another DC is either refused or leaves the DC at RF; on trunk 6bbe85ef it completes with two dc1 replicas.
 *
 * Not compiled or run here: written against trunk 6bbe85ef51d2 (2024-10-20) from the sources cited beside
 * each call (path:line at that commit). Setup as TokenAllocationTest (test/unit/.../dht/tokenallocator).
 */
public class ReplaceInAnotherDatacenterTest
{
    private static final String KEYSPACE = "cross_dc_replace";

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
        return InetAddressAndPort.getByName("127.0.1." + i); // as ClusterMetadataTestHelper.java:107
    }

    private static Token token(long t)
    {
        return new Murmur3Partitioner.LongToken(t); // Murmur3Partitioner.java:152
    }

    @Test
    public void replacementInAnotherDcIsRefusedOrKeepsTheOldDcAtRf() throws Throwable
    {
        // KeyspaceParams.java:98 (nts), KeyspaceMetadata.java:87, ClusterMetadataTestHelper.java:837
        ClusterMetadataTestHelper.addOrUpdateKeyspace(KeyspaceMetadata.create(KEYSPACE, KeyspaceParams.nts("dc1", 3)));
        for (int i = 1; i <= 3; i++) // ClusterMetadataTestHelper.java:797
            ClusterMetadataTestHelper.addEndpoint(peer(i), token(100L * i), "dc1", "rack1");
        // a node in dc2, so that dc2 is a known datacenter as it would be in a two-DC cluster
        ClusterMetadataTestHelper.addEndpoint(peer(4), token(400), "dc2", "rack1");

        // the replacement registers where its snitch says (Register.java:103): here dc2, a wrong rackdc file
        InetAddressAndPort replacement = peer(5);
        ClusterMetadataTestHelper.register(replacement, "dc2", "rack1");                 // :285
        try
        {
            // ClusterMetadataTestHelper.java:612 (lazyReplace): PrepareReplace(replaced, replacement, ...) and the
            // three steps, each committed; a rejected PrepareReplace throws (ClusterMetadataService.java:502-509)
            ClusterMetadataTestHelper.lazyReplace(peer(2), replacement)
                                     .prepareReplace()
                                     .startReplace()
                                     .midReplace()
                                     .finishReplace();
        }
        catch (RuntimeException refused)
        {
            return; // what a fix does: PrepareReplace refuses a replacement outside the replaced node's DC
        }

        ClusterMetadata metadata = ClusterMetadata.current(); // ClusterMetadata.java:793
        ReplicationParams params = metadata.schema.getKeyspaceMetadata(KEYSPACE).params.replication;
        for (long t : new long[]{ 50, 150, 250, 350 })
        {
            // ReplicationMap.java:51, DataPlacement.java:54, ReplicaGroups.java:144, VersionedEndpoints.java:172
            int dc1Replicas = 0;
            for (InetAddressAndPort replica : metadata.placements.get(params).reads.forToken(token(t)).get().endpoints())
                // Directory.java:300 (peerId), Directory.java:346 (location), Location.java:37
                if ("dc1".equals(metadata.directory.location(metadata.directory.peerId(replica)).datacenter))
                    dc1Replicas++;
            assertEquals("read replicas in dc1 for token " + t + " after the replace", 3, dc1Replicas);
        }
    }
}
