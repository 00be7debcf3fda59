"""A history printed as JSON lines, and as EDN in every shape a Jepsen or Knossos user may have.

`jsonl(ops)` is DESIGN's form; `edn_shapes(ops)` is a Hypothesis strategy of EDN texts of the
same ops: one map per line or one vector, list or set (`:index` then orders it); keys in any
order, with commas or not; maps plain, as `#jepsen.history.Op{...}` or `#knossos.op.Op{...}`
records, or namespaced-map noise in extra fields; `;` comments, `#_` discards (of a form, of
two, of a whole op) anywhere; nemesis ops between client ops; `jepsen.independent` `[k v]`
tuples or a `:key` field for keys; vectors or lists for values; and, where the model reads no
strings, string values as keywords (one keyword per string, so the history means the same).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from hypothesis import strategies as st

from checkers.linearizability.frozen import FrozenMap, thaw
from checkers.linearizability.history import Op

_KEYWORDISH = re.compile(r"[a-z][a-z0-9-]*\Z")


def jsonl(ops: Sequence[Op]) -> str:
    lines = []
    for op in ops:
        row: dict[str, Any] = {"process": op.process, "type": op.type, "f": op.f}
        if op.key is not None:
            row["key"] = thaw(op.key)
        row["value"] = thaw(op.value)
        lines.append(json.dumps(row))
    return "".join(line + "\n" for line in lines)


class _Style:
    def __init__(self, draw: st.DrawFn, keywords: bool) -> None:
        self.draw = draw
        self.keywords = keywords and draw(st.booleans())
        self.lists = draw(st.booleans())
        self.commas = draw(st.booleans())
        self.noise = draw(st.sampled_from((0, 0, 1, 2)))

    def gap(self) -> str:
        """Whitespace, and now and then a comment or a discarded form."""
        if not self.noise or self.draw(st.integers(0, 3)) != 0:
            return ", " if self.commas else " "
        return self.draw(st.sampled_from((
            " ; a comment\n ", " #_ :dropped ", " #_ #_ 1 {:a [2]} ", " #_{:process 9 :type :ok} ",
            ' #_ #inst "2024-01-01T00:00:00Z" ', " ,, ")))

    def value(self, v: Any) -> str:
        if v is None:
            return "nil"
        if v is True or v is False:
            return "true" if v else "false"
        if isinstance(v, str):
            if self.keywords and _KEYWORDISH.match(v):
                return ":" + v
            return json.dumps(v)
        if isinstance(v, int | float):
            return repr(v)
        if isinstance(v, FrozenMap):  # (the log's outputs: string keys, as in JSON)
            return "{" + self.gap().join(f"{json.dumps(k)} {self.value(x)}" for k, x in v.items()) + "}"
        if isinstance(v, frozenset):
            return "#{" + self.gap().join(sorted(self.value(x) for x in v)) + "}"
        if isinstance(v, tuple | list):
            opening, closing = ("(", ")") if self.lists else ("[", "]")
            return opening + self.gap().join(self.value(x) for x in v) + closing
        raise TypeError(type(v))


@st.composite
def edn_shapes(draw: st.DrawFn, ops: Sequence[Op], *, keywords: bool = True) -> str:
    """One EDN text of `ops` (see the module doc). `keywords`: strings may be printed as
    keywords (not for models that read strings: kv's appends)."""
    style = _Style(draw, keywords)
    keyed = any(op.key is not None for op in ops)
    tuples = keyed and draw(st.booleans())  # jepsen.independent [k v] tuples, or a :key field
    container = draw(st.sampled_from(("lines", "vector", "list", "set")))
    record = draw(st.sampled_from(("", "", "#jepsen.history.Op", "#knossos.op.Op")))
    maps = []
    index = 0
    for op in ops:
        if draw(st.integers(0, 5)) == 0:  # the nemesis, skipped
            maps.append(f"{{:process :nemesis{style.gap()}:type :info{style.gap()}:f :start"
                        f"{style.gap()}:value nil{style.gap()}:index {index}}}")
            index += 1
        value = op.value
        fields = {":process": str(op.process), ":type": ":" + op.type, ":f": ":" + op.f, ":index": str(index),
                  ":time": str(1000 * index)}
        if tuples:
            opening, closing = ("(", ")") if style.lists else ("[", "]")
            fields[":value"] = f"{opening}{style.value(op.key)} {style.value(value)}{closing}"
        else:
            fields[":value"] = style.value(value)
            if keyed:
                fields[":key"] = style.value(op.key)
        if draw(st.integers(0, 4)) == 0:
            fields[":jepsen.history/extra"] = "#:my.app{:a 1, :_/b :c/d}"
        if op.type == "info" and draw(st.booleans()):
            fields[":error"] = "[:timeout \"read timed out\\n\"]"
        order = draw(st.permutations(sorted(fields)))
        body = style.gap().join(f"{k} {fields[k]}" for k in order)
        maps.append(f"{record if draw(st.booleans()) else ''}{{{body}}}")
        index += 1
    if container == "lines":
        return "".join(style.gap() + m + "\n" for m in maps)
    opening, closing = {"vector": ("[", "]"), "list": ("(", ")"), "set": ("#{", "}")}[container]
    if container == "set":
        order = draw(st.permutations(list(range(len(maps)))))
        maps = [maps[i] for i in order]
    return ";; a Jepsen history\n" + opening + ("\n" + style.gap()).join(maps) + closing + "\n"
