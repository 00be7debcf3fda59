"""The metadata machine (strategies/metadata_machine.py) under the active Hypothesis profile."""

from __future__ import annotations

from strategies.metadata_machine import MetadataMachine

TestMetadataMachine = MetadataMachine.TestCase
