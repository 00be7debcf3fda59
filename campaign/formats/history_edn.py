"""Jepsen histories in EDN (`history.edn`), read with the EDN reader of `edn.py`.

What Jepsen 0.3.x writes (jepsen.store/write-history! prints each op with `prn`, one per line;
jepsen.history's Op record prints as a plain map: `{:index 0, :time 12, :type :invoke,
:process 0, :f :read, :value nil}`, with `:error` and other fields after), and every other shape
a Jepsen or Knossos user has: one op map per line, or one vector, list or set of them (a set is
put in `:index` order, which every op then needs); maps in any key order, as records
(`#jepsen.history.Op{...}`, `#knossos.op.Op{...}`) or plain; comments and discards anywhere.

- Ops whose `:process` is not an integer (`:nemesis`) are not client operations: skipped.
- `:index`, `:error` and any other field are not needed: events are in file order, which is real
  time (Jepsen's `:index` is the position in that order).
- An invocation that never completes, or completes with `:info`, has an unknown outcome
  (`checkers/linearizability/history.pair`).
- Values keep what EDN says: `:x` stays the keyword `:x` (not the string "x"), `#{1 2}` a set.
- A history of `jepsen.independent` keys: an explicit `:key` on the ops, or every invocation's
  value a `[k v]` tuple (a cas's then `[k [old new]]`, a txn's `[k [[:read x nil] ...]]`).
"""

from __future__ import annotations

from typing import Any

from campaign.errors import BadInput
from campaign.formats.edn import EdnError, Reader, hashable, read_all, read_one
from checkers.linearizability.history import EVENT_TYPES, Op
from observed.edn_values import Keyword, Symbol, name_of

PROCESS, TYPE, F, VALUE, KEY, TIME, INDEX = (Keyword(n) for n in ("process", "type", "f", "value", "key", "time", "index"))


def read_items(text: str) -> list[tuple[int, Any]]:
    """A history's items with the line each starts on: the elements of its one top-level list,
    vector or set (a set's in `:index` order), or else its top-level forms (one map a line)."""
    reader = Reader(text)
    reader.skip_discards()
    if reader.at_end() or reader.peek()[0] != "open" or reader.peek()[1] not in ("[", "(", "#{"):
        return list(reader.forms())
    is_set = reader.peek()[1] == "#{"
    items = reader.collection_items()
    reader.skip_discards()
    if not reader.at_end():
        raise EdnError(reader.peek()[2], "unexpected data after the history's collection")
    return _by_index(items) if is_set else items


def _by_index(items: list[tuple[int, Any]]) -> list[tuple[int, Any]]:
    """A set's ops in `:index` order: a set has no order of its own."""
    indexed = []
    for line, m in items:
        index = m.get(INDEX) if isinstance(m, dict) else None
        if not isinstance(index, int) or isinstance(index, bool):
            raise EdnError(line, "a set of ops has no order: every op in it needs an integer :index")
        indexed.append((index, line, m))
    indexed.sort(key=lambda x: x[0])
    for (a, line, _), (b, _, _) in zip(indexed, indexed[1:], strict=False):
        if a == b:
            raise EdnError(line, f"two ops of the set have :index {a}")
    return [(line, m) for _, line, m in indexed]


def client_maps(text: str) -> list[tuple[int, dict[Any, Any]]]:
    """The client ops' maps, in history order, with their lines; the nemesis's skipped. Every
    item must be an op map with `:process`, `:type` and `:f`."""
    try:
        items = read_items(text)
    except EdnError as e:
        raise BadInput(str(e)) from None
    maps: list[tuple[int, dict[Any, Any]]] = []
    for line, m in items:
        if not isinstance(m, dict):
            raise BadInput(f"line {line}: expected an op map {{:process .. :type ..}}, found {_short(m)}")
        for field in (PROCESS, TYPE, F):
            if field not in m:
                raise BadInput(f"line {line}: op map has no {field!r}")
        process = m[PROCESS]
        if isinstance(process, int) and not isinstance(process, bool):
            maps.append((line, m))
    return maps


def _short(x: Any) -> str:
    text = repr(x)
    return text if len(text) <= 60 else text[:57] + "..."


def _is_pair(v: Any) -> bool:
    return isinstance(v, tuple) and len(v) == 2


def _is_txn(v: Any) -> bool:
    """A transaction: a sequence of `[f k v]` micro-ops (a micro-op's f is a keyword, so a
    transaction of two micro-ops is never taken for a `[k txn]` tuple)."""
    return isinstance(v, tuple) and all(isinstance(m, tuple) and len(m) == 3 for m in v)


def _independent(f: Any, value: Any) -> bool:
    """Is an invocation's value a jepsen.independent `[k v]` tuple (for its f)?"""
    if not _is_pair(value):
        return False
    if f == "cas":
        return _is_pair(value[1])
    if f == "txn":
        return _is_txn(value[1])
    return True


def parse_edn(text: str) -> tuple[tuple[Op, ...], tuple[int, ...]]:
    """A Jepsen history (see the module doc) as the checker's ops, with each op's line."""
    raw = client_maps(text)
    for line, m in raw:
        if name_of(m[TYPE]) not in EVENT_TYPES:
            raise BadInput(f"line {line}: unknown :type {m[TYPE]!r} (one of :invoke, :ok, :fail, :info)")
        if not isinstance(m[F], Keyword | Symbol | str):
            raise BadInput(f"line {line}: :f must be a keyword, found {_short(m[F])}")
    invokes = [m for _, m in raw if name_of(m[TYPE]) == "invoke"]
    explicit = any(KEY in m for _, m in raw)
    keyed = not explicit and bool(invokes) and all(_independent(name_of(m[F]), m.get(VALUE)) for m in invokes)
    ops: list[Op] = []
    lines: list[int] = []
    for line, m in raw:
        t = name_of(m[TYPE])
        value: Any = m.get(VALUE)
        key: Any = None
        if explicit:
            key = hashable(m.get(KEY))
        elif keyed and t in ("invoke", "ok"):
            if not _is_pair(value):
                raise BadInput(f"line {line}: a history of independent keys, but :value {_short(value)} "
                               "is not a [key value] tuple")
            key, value = hashable(value[0]), value[1]
        elif keyed and _is_pair(value):
            key, value = hashable(value[0]), value[1]
        time = m.get(TIME)
        ops.append(Op(process=m[PROCESS], type=t, f=name_of(m[F]) or "", key=key,  # type: ignore[arg-type]
                      value=hashable(value), time=time if isinstance(time, int) and not isinstance(time, bool) else None))
        lines.append(line)
    return tuple(ops), tuple(lines)


__all__ = ["EdnError", "Keyword", "Symbol", "client_maps", "parse_edn", "read_all", "read_items", "read_one"]
