"""Tests of impl/: the simulated distributed implementation and its metadata engine."""
