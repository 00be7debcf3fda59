"""Hashable JSON values for the checker: `observed.frozen`'s, named here as before (a history
read from a file and one a simulated run observed carry the same frozen values)."""

from observed.frozen import SCALARS, FrozenMap, freeze, thaw

__all__ = ["SCALARS", "FrozenMap", "freeze", "thaw"]
