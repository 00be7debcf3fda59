"""Tests of impl/metadata: placements, sequences, schema, CMS, snapshots."""
