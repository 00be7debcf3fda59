"""A history's events written back: as the file wrote them (a failing sub-history is printed in
the input's own format), or as Jepsen's EDN op maps (`check-history --output edn`).

The file's text is read again only when something is printed: the parsers keep the checker's
values, not the input's spelling (the fields' order, a record's tag, commas).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from campaign.formats.history import ParsedHistory, json_array_items
from campaign.formats.history_edn import client_maps
from campaign.formats.jsonio import loads_json
from checkers.linearizability.frozen import thaw
from checkers.linearizability.history import Operation
from observed.edn_values import Keyword, edn

LABELS = {"jsonl": "JSONL", "json": "JSON", "edn": "EDN", "porcupine-kv": "Porcupine kv log",
          "porcupine-etcd": "Porcupine etcd log"}
"""How the failing sub-history's heading names each input format."""


_KEYWORD_VALUES = ("type", "f")
"""Fields whose JSON string values are keywords in Jepsen's op maps (`:type :ok`, `:f :read`)."""


def _json_op_edn(obj: Mapping[str, Any]) -> str:
    """A JSON event object as a Jepsen op map: keys as keywords, `type` and `f` as keywords."""
    return edn({Keyword(k): Keyword(v) if k in _KEYWORD_VALUES and isinstance(v, str) else v
                for k, v in obj.items()})


def value_writer(fmt: str) -> Callable[[Any], str]:
    """How a value of a history in format `fmt` is written back (the HTML page's values): JSON
    for `jsonl` and `json` (`null`), EDN for `edn` and Porcupine's logs (`nil`; a keyword value
    as the keyword it was)."""
    if fmt in ("jsonl", "json"):
        return lambda v: json.dumps(thaw(v), ensure_ascii=False, default=str)
    return edn


class Source:
    """The events of one parsed history as its file wrote them (`parsed.text`), by position."""

    def __init__(self, parsed: ParsedHistory) -> None:
        self.parsed = parsed
        self._raw: list[Any] | None = None

    @property
    def format(self) -> str:
        return self.parsed.format

    def raw(self, i: int) -> Any:
        """Event `i` as read before conversion: an EDN map (keywords kept), a JSON object, or
        for the line formats its line."""
        if self._raw is None:
            self._raw = self._read()
        return self._raw[i]

    def _read(self) -> list[Any]:
        p = self.parsed
        if p.format == "edn":
            return [m for _, m in client_maps(p.text)]
        if p.format == "json":
            return [obj for _, obj in json_array_items(p.text)]
        lines = p.text.splitlines()
        return [lines[n - 1].strip() for n in p.lines]

    def text(self, i: int) -> str:
        """Event `i` in the input's format, on one line."""
        raw = self.raw(i)
        if self.format == "edn":
            return edn(raw)
        if self.format == "json":
            return json.dumps(raw, ensure_ascii=False)
        return str(raw)

    def edn(self, i: int) -> str:
        """Event `i` as a Jepsen op map."""
        raw = self.raw(i)
        if self.format == "edn":
            return edn(raw)
        if self.format == "json":
            return _json_op_edn(raw)
        if self.format == "jsonl":
            return _json_op_edn(loads_json(raw, f"line {self.parsed.lines[i]}", one_line=True))
        if self.format == "porcupine-kv":
            return str(raw)  # already one EDN op map per line
        # porcupine-etcd: `INFO jepsen.util - PROCESS :TYPE :F VALUE`, the value as written
        op, parts = self.parsed.ops[i], str(raw).split(None, 6)
        value = parts[6] if len(parts) > 6 else "nil"
        return f"{{:process {op.process}, :type :{op.type}, :f :{op.f}, :value {value}}}"

    def key(self, i: int) -> Any:
        """The key of event `i` as the input wrote it (EDN: a `[k v]` tuple's k, or `:key`)."""
        raw = self.raw(i)
        if self.format == "edn" and isinstance(raw, dict):
            if Keyword("key") in raw:
                return raw[Keyword("key")]
            value = raw.get(Keyword("value"))
            if isinstance(value, tuple) and len(value) == 2:
                return value[0]
        return thaw(self.parsed.ops[i].key)

    def events_of(self, operations: Sequence[Operation]) -> list[int]:
        """The positions of the events of `operations` in file order: each invocation and its
        completion (an `info` one too, though the checker pairs it as unknown)."""
        ops = self.parsed.ops
        positions: set[int] = set()
        for o in operations:
            positions.add(o.call)
            if o.ret is not None:
                positions.add(o.ret)
                continue
            done = next((j for j in range(o.call + 1, len(ops)) if ops[j].process == ops[o.call].process
                         and ops[j].type != "invoke"), None)
            if done is not None:
                positions.add(done)
        return sorted(positions)

    def sub_history(self, operations: Sequence[Operation]) -> list[str]:
        """The lines that print `operations` as a history of the input's format (a JSON array
        for `json`, one event per line otherwise)."""
        texts = [self.text(i) for i in self.events_of(operations)]
        if self.format == "json":
            return ["[" + ",\n ".join(texts) + "]"]
        return texts


__all__ = ["LABELS", "Source", "edn", "value_writer"]
