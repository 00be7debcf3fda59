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

package org.apache.cassandra.db;

import java.util.EnumSet;

import org.junit.BeforeClass;
import org.junit.Test;

import org.apache.cassandra.ServerTestUtils;
import org.apache.cassandra.cql3.CQLTester;
import org.apache.cassandra.dht.BootStrapper;
import org.apache.cassandra.dht.Murmur3Partitioner;
import org.apache.cassandra.distributed.test.log.ClusterMetadataTestHelper;
import org.apache.cassandra.locator.InetAddressAndPort;
import org.apache.cassandra.service.StorageService;
import org.apache.cassandra.tcm.ClusterMetadata;
import org.apache.cassandra.tcm.membership.NodeId;
import org.apache.cassandra.tcm.transformations.CancelInProgressSequence;
import org.apache.cassandra.tcm.transformations.Unregister;
import org.apache.cassandra.utils.FBUtilities;

import static org.apache.cassandra.tcm.membership.NodeState.BOOTSTRAPPING;
import static org.apache.cassandra.tcm.membership.NodeState.BOOT_REPLACING;
import static org.apache.cassandra.tcm.membership.NodeState.REGISTERED;
import static org.junit.Assert.assertFalse;

/**
 * Finding unregister-prepared-join (tcmcheck, docs/findings/unregister-prepared-join.md).
 *
 * `nodetool abortbootstrap` on a node whose metadata has not seen X's PREPARE_JOIN commits only
 * Unregister(X, {REGISTERED, BOOTSTRAPPING, BOOT_REPLACING}) (StorageService.abortBootstrap, l.1611-1642,
 * the commit at l.1637); Unregister.execute (l.60-72) checks presence and start state only, and PrepareJoin
 * leaves X REGISTERED, so the CMS unregisters X and keeps its JOIN sequence and range lock.
 *
 * The orphan then breaks ClusterMetadata.writePlacementAllSettled (l.278-289): it applies every in-progress
 * sequence (MultiStepOperation.applyMultipleTransformations), X's StartJoin included, whose result is built
 * with the replica groups sorted by PrimaryRangeComparator (ClusterMetadata.Transformer.build, l.572-575),
 * and PrimaryRangeComparator.compare calls directory.peerId(endpoint).equals(owner) on X's endpoint, which
 * the directory no longer maps: NullPointerException. DiskBoundaryManager.getLocalRanges (l.144-161; the call at l.158) calls
 * writePlacementAllSettled on every node not bootstrapping, whenever disk boundaries are (re)computed.
 *
 * Both tests assert the behaviour a fix gives (Unregister refused while a sequence names the node); on trunk
 * 6bbe85ef the first fails its assertion and the second throws NullPointerException.
 *
 * Not compiled or run here: written against trunk 6bbe85ef51d2 (2024-10-20) from the sources cited beside
 * each call (path:line at that commit). Setup as DiskBoundaryManagerTest (same package), l.71-81.
 */
public class UnregisterPreparedJoinTest extends CQLTester
{
    @BeforeClass
    public static void setUpClass()
    {
        // DiskBoundaryManagerTest.java:74-80
        ServerTestUtils.daemonInitialization();
        StorageService.instance.setPartitionerUnsafe(Murmur3Partitioner.instance);
        ServerTestUtils.prepareServerNoRegister();
        ClusterMetadataTestHelper.register(FBUtilities.getBroadcastAddressAndPort());
        ClusterMetadataTestHelper.join(FBUtilities.getBroadcastAddressAndPort(),
                                       BootStrapper.getRandomTokens(ClusterMetadata.current(), 10));
        ServerTestUtils.markCMS();
    }

    /** X registered and prepared to join, then the stale abortbootstrap's Unregister; returns X's id. */
    private static NodeId prepareThenUnregister(String address) throws Throwable
    {
        InetAddressAndPort x = InetAddressAndPort.getByName(address);   // as ClusterMetadataTestHelper.java:107
        NodeId xId = ClusterMetadataTestHelper.register(x);             // ClusterMetadataTestHelper.java:248
        // ClusterMetadataTestHelper.java:400 (lazyJoin), Murmur3Partitioner.java:281 (getRandomToken)
        ClusterMetadataTestHelper.lazyJoin(x, Murmur3Partitioner.instance.getRandomToken()).prepareJoin();
        try
        {
            // Unregister.java:47; ClusterMetadataTestHelper.java:850 (commit: a rejection throws
            // IllegalStateException, ClusterMetadataService.java:502-509)
            ClusterMetadataTestHelper.commit(new Unregister(xId, EnumSet.of(REGISTERED, BOOTSTRAPPING, BOOT_REPLACING)));
        }
        catch (IllegalStateException rejected)
        {
            // what a fix does: refuse to unregister a node that an in-progress sequence names. The operator's
            // retry, on a node that has caught up, cancels first (StorageService.java:1630-1637), then unregisters:
            // CancelInProgressSequence.java:41
            ClusterMetadataTestHelper.commit(new CancelInProgressSequence(xId));
            ClusterMetadataTestHelper.commit(new Unregister(xId, EnumSet.of(REGISTERED, BOOTSTRAPPING, BOOT_REPLACING)));
        }
        return xId;
    }

    @Test
    public void unregisterLeavesNoSequenceWithoutItsNode() throws Throwable
    {
        NodeId xId = prepareThenUnregister("127.0.0.10");
        ClusterMetadata metadata = ClusterMetadata.current();
        // InProgressSequences.java:104 (contains), Directory.java:331 (peerIds)
        assertFalse("a JOIN sequence (and its locked ranges) for a node the directory no longer has",
                    metadata.inProgressSequences.contains(xId) && !metadata.directory.peerIds().contains(xId));
    }

    @Test
    public void diskBoundariesSurviveAnAbortedBootstrap() throws Throwable
    {
        createTable("create table %s (id int primary key, x text)");     // DiskBoundaryManagerTest.java:87
        ColumnFamilyStore cfs = getCurrentColumnFamilyStore();
        prepareThenUnregister("127.0.0.11");

        // ClusterMetadata.java:278 (writePlacementAllSettled), ColumnFamilyStore.java:283 (keyspace), Keyspace.java:193
        ClusterMetadata.current().writePlacementAllSettled(cfs.keyspace.getMetadata());
        // what every later placement change does (PlacementsChangeListener -> StorageService.invalidateLocalRanges ->
        // ColumnFamilyStore.invalidateLocalRanges, l.3399-3401): DiskBoundaryManager.java:74 (invalidate),
        // ColumnFamilyStore.java:341 (diskBoundaryManager), :3389 (getDiskBoundaries) -> getLocalRanges
        cfs.diskBoundaryManager.invalidate();
        cfs.getDiskBoundaries();
    }
}
