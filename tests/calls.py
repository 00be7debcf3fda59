"""Client calls written as the events of a history, for the judge's unit tests: each event
`(process, type, f, value, time)` (DESIGN's JSONL fields), paired here as impl records them."""

from __future__ import annotations

from typing import Any

from attrs import evolve

from observed.calls import ClientCall


def client_calls(*events: tuple[int, str, str, Any, int], key: str = "k", keyspace: str = "kv",
                 coordinator: str = "n1") -> tuple[ClientCall, ...]:
    calls: dict[int, ClientCall] = {}
    for i, (process, type_, f, value, time) in enumerate(events):
        if type_ == "invoke":
            calls[process] = ClientCall(process=process, f=f, keyspace=keyspace, key=key,
                                        value=value if f == "write" else None, level="ALL",
                                        coordinator=coordinator, invoked=time, invoke_index=i)
        else:
            c = calls[process]
            calls[process] = evolve(c, outcome=type_, completed=time, complete_index=i,
                                    value=c.value if f == "write" else (value if type_ == "ok" else None))
    return tuple(calls.values())
