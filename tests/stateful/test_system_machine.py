"""The system machine (strategies/system_machine.py) under the active Hypothesis profile."""

from __future__ import annotations

from strategies.system_machine import SystemMachine

TestSystemMachine = SystemMachine.TestCase
