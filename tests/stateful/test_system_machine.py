"""The system machine (strategies/system_machine.py) under the active Hypothesis profile.

In the default run (`ci`) it runs a few examples of 30 steps; `TCMCHECK_HYPOTHESIS_PROFILE=fuzz`
runs 2,000 with the shared example database (docs/stateful.md).
"""

from __future__ import annotations

import os

from hypothesis import settings

from strategies.system_machine import SystemMachine

TestSystemMachine = SystemMachine.TestCase
if os.environ.get("TCMCHECK_HYPOTHESIS_PROFILE", "ci") == "ci":
    # why fewer: one example drives a cluster through 30 steps and checks it after each
    TestSystemMachine.settings = settings(max_examples=15, stateful_step_count=30)
