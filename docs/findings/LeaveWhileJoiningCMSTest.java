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
import java.util.Collections;

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
import org.apache.cassandra.tcm.membership.NodeState;
import org.apache.cassandra.tcm.transformations.cms.PrepareCMSReconfiguration;
import org.apache.cassandra.utils.FBUtilities;

import static org.junit.Assert.assertFalse;

/**
 * Finding leave-while-joining-cms (tcmcheck, docs/findings/leave-while-joining-cms.md).
 *
 * A CMS reconfiguration chooses its additions at PREPARE and adds them one step at a time. A node among them
 * may decommission meanwhile: SingleNodeSequences.decommission (l.73) runs ReconfigureCMS.maybeReconfigureCMS,
 * which returns unless fullCMSMembers() contains the node (ReconfigureCMS.java:207), and PrepareLeave refuses
 * only isCMSMember (PrepareLeave.java:89; ClusterMetadata.isCMSMember l.200-203, the full members).
 * AdvanceCMSReconfiguration.startAdd / finishAdd (l.153-227) add it regardless of its state. This test asserts
 * that the node does not end both LEFT and a full CMS member; it fails on trunk 6bbe85ef.
 *
 * Not compiled or run here: written against trunk 6bbe85ef51d2 (2024-10-20) from the sources cited beside
 * each call (path:line at that commit). Setup as TokenAllocationTest (test/unit/.../dht/tokenallocator); the
 * reconfiguration is driven as ClusterMetadataTestHelper.reconfigureCms does (l.828-836), step by step.
 */
public class LeaveWhileJoiningCMSTest
{
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
        // TokenAllocationTest.java:71-72; ClusterMetadataTestHelper.java:183: the local node is the one CMS member
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
        return i == 1 ? FBUtilities.getBroadcastAddressAndPort()
                      : InetAddressAndPort.getByName("127.0.1." + i); // as ClusterMetadataTestHelper.java:107
    }

    private static Token token(long t)
    {
        return new Murmur3Partitioner.LongToken(t); // Murmur3Partitioner.java:152
    }

    /** Commits the reconfiguration's next step (ClusterMetadataTestHelper.java:833-834). */
    private static ClusterMetadata advance(ClusterMetadata metadata) throws Throwable
    {
        // InProgressSequences.java:109 (get), ReconfigureCMS.java:388 (SequenceKey.instance), :90 (next)
        ReconfigureCMS sequence = (ReconfigureCMS) metadata.inProgressSequences.get(ReconfigureCMS.SequenceKey.instance);
        return ClusterMetadataTestHelper.commit(sequence.next); // ClusterMetadataTestHelper.java:850
    }

    @Test
    public void aNodeTheCMSIsAddingDoesNotEndLeftAndAMember() throws Throwable
    {
        // ClusterMetadataTestHelper.java:837, KeyspaceMetadata.java:87, KeyspaceParams.java:83
        ClusterMetadataTestHelper.addOrUpdateKeyspace(KeyspaceMetadata.create("ks", KeyspaceParams.simple(3)));
        for (int i = 1; i <= 4; i++) // ClusterMetadataTestHelper.java:797
            ClusterMetadataTestHelper.addEndpoint(peer(i), token(100L * i), "dc1", "rack1");

        // `nodetool cms reconfigure 4`: PrepareCMSReconfiguration.java:234 (Complex), ReplicationParams.java:124
        // (simpleMeta), Directory.java:392 (knownDatacenters); nodes 2, 3 and 4 are its additions
        ClusterMetadata metadata = ClusterMetadataTestHelper.commit(
            new PrepareCMSReconfiguration.Complex(ReplicationParams.simpleMeta(4, ClusterMetadata.current().directory.knownDatacenters()),
                                                  Collections.emptySet()));
        metadata = advance(metadata); // the first addition becomes a write member

        // node 4 decommissions meanwhile: ClusterMetadataTestHelper.java:506 (lazyLeave; force: four nodes at RF 3)
        try
        {
            ClusterMetadataTestHelper.lazyLeave(peer(4), true).prepareLeave().startLeave().midLeave().finishLeave();
        }
        catch (RuntimeException refused)
        {
            // what a fix does: PrepareLeave refuses a node the CMS is adding
        }

        metadata = ClusterMetadata.current();
        while (metadata.inProgressSequences.contains(ReconfigureCMS.SequenceKey.instance)) // InProgressSequences.java:104
            metadata = advance(metadata);

        NodeId node4 = ClusterMetadataTestHelper.nodeId(peer(4)); // ClusterMetadataTestHelper.java:258
        // ClusterMetadata.java:179 (fullCMSMembers), Directory.java:361 (peerState)
        assertFalse("node 4 is LEFT and a full CMS member",
                    metadata.fullCMSMembers().contains(peer(4)) && metadata.directory.peerState(node4) == NodeState.LEFT);
    }
}
