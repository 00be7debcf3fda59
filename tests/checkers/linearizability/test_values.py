"""kv's index of the states that lead to a target (`kv_leading`) answers as `kv_leads_to` does."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from checkers.linearizability.values import kv_leading, kv_leads_to

_VALUES = st.one_of(st.none(), st.text("abx", max_size=4), st.integers(0, 2))


@given(st.lists(_VALUES.map(lambda v: (v,)), max_size=8), _VALUES.map(lambda v: (v,)))
def test_the_leading_index_agrees_with_leads_to(states: list[tuple[object]], target: tuple[object]) -> None:
    lookup = kv_leading(states)
    assert set(lookup(target)) == {s for s in states if kv_leads_to(s, target)}
