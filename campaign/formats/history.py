"""History files → the checker's `Op` tuples: format detection, JSONL, a JSON array of events,
and Porcupine's two logs.

Every parser returns the ops with, for each op, the line it came from, so that errors found
later (an unpaired completion) can still name a line. Malformed input raises `BadInput` with a
message starting "line N:". The EDN reader is in `history_edn.py`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from attrs import evolve, field, frozen

from campaign.errors import BadInput
from campaign.formats.history_edn import EdnError, Keyword, Symbol, parse_edn, read_one
from campaign.formats.jsonio import MAX_INT_DIGITS, in_file, loads_json, parsing, read_text
from checkers.linearizability.frozen import freeze
from checkers.linearizability.history import EVENT_TYPES, Op

FORMATS = ("jsonl", "json", "edn", "porcupine-kv", "porcupine-etcd")

# Porcupine's kv lines always start this way (fixed key order); other EDN with a :key is Jepsen's
_PORCUPINE_KV = re.compile(r"^\{:process \d+, :type :\w+, :f :(get|put|append), :key ", re.ASCII)
# a JSON array of event objects: `[` then `{"` (an EDN vector of op maps opens with `[{:`)
_JSON_ARRAY = re.compile(r'\s*\[\s*(\{\s*"|\]\s*$)')


@frozen(kw_only=True)
class ParsedHistory:
    """A parsed file: `ops[i]` came from line `lines[i]`.

    `model` is the model the format implies (None: decide from the ops' `f`s), and
    `initial` the value every key starts with when the format says so (Porcupine's kv: "").
    `text` is the file's text, kept to print events as the file wrote them
    (`campaign/formats/history_out.py`)."""

    format: str
    ops: tuple[Op, ...]
    lines: tuple[int, ...]
    model: str | None = None
    initial: Any = None
    has_initial: bool = False
    text: str = field(default="", eq=False, repr=False)


def detect_format(text: str) -> str:
    """The format of a history file from its first non-blank line (and, for a JSON array, the
    start of the next)."""
    offset = 0
    for line in text.splitlines(keepends=True):
        at, offset = offset, offset + len(line)
        s = line.strip().lstrip(",").lstrip()  # (commas are whitespace to EDN)
        if not s or s.startswith(";"):
            continue
        if s.startswith("INFO") and "jepsen.util" in s:
            return "porcupine-etcd"
        if s.startswith("{\"") or s == "{" or s.startswith("{ \""):
            return "jsonl"
        if s.startswith("[") and _JSON_ARRAY.match(text, at):
            return "json"
        if _PORCUPINE_KV.match(s):
            return "porcupine-kv"
        if s.startswith(("{:", "[", "#", "(")):
            return "edn"
        raise BadInput(f"line 1: cannot tell the history format from {s[:40]!r}; pass --format")
    return "jsonl"  # no events at all: every format reads it as the empty history


def read_history(path: str | Path, fmt: str | None = None) -> ParsedHistory:
    """The parsed history in the file at `path`; every error names the file and the line."""
    text = read_text(path, "history")
    try:
        with parsing(str(path)):
            return parse_history(text, fmt)
    except BadInput as e:
        raise in_file(e, path) from None


def parse_history(text: str, fmt: str | None = None) -> ParsedHistory:
    fmt = fmt or detect_format(text)
    parser = _PARSERS.get(fmt)
    if parser is None:
        raise BadInput(f"unknown history format {fmt!r} (one of {', '.join(FORMATS)})")
    return evolve(parser(text), text=text)


# --- JSONL (DESIGN's shape) ------------------------------------------------------------------


def _int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def json_event(obj: Any, n: int) -> Op:
    """One event object of DESIGN's shape (a JSONL line, or an element of a JSON array)."""
    if not isinstance(obj, dict):
        raise BadInput(f"line {n}: expected a JSON object, got {type(obj).__name__}")
    for name in ("process", "type", "f"):
        if name not in obj:
            raise BadInput(f"line {n}: missing field {name!r}")
    process, t, f = obj["process"], obj["type"], obj["f"]
    if not (_int(process) or isinstance(process, str)):
        raise BadInput(f"line {n}: field 'process' must be an integer, got {process!r}")
    if t not in EVENT_TYPES:
        raise BadInput(f"line {n}: field 'type' must be invoke, ok, fail or info, got {t!r}")
    if not isinstance(f, str) or not f:
        raise BadInput(f"line {n}: field 'f' must be a non-empty string, got {f!r}")
    time = obj.get("time")
    if time is not None and not _int(time):
        raise BadInput(f"line {n}: field 'time' must be an integer (ns), got {time!r}")
    return Op(process=process, type=t, f=f, key=freeze(obj.get("key")), value=freeze(obj.get("value")),
              time=time)


def parse_jsonl(text: str) -> ParsedHistory:
    ops: list[Op] = []
    lines: list[int] = []
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        ops.append(json_event(loads_json(line, f"line {n}", one_line=True), n))
        lines.append(n)
    return ParsedHistory(format="jsonl", ops=tuple(ops), lines=tuple(lines))


# --- a JSON array of events ------------------------------------------------------------------

_JSON_GAP = re.compile(r"[\s,]*")
_SCANNER = json.JSONDecoder()


def json_array_items(text: str) -> list[tuple[int, Any]]:
    """The elements of a JSON array with the line each starts on, checked as every JSON input
    is (`loads_json`'s limits), then scanned once more for where each element starts."""
    doc = loads_json(text, "JSON array")
    if not isinstance(doc, list):
        raise BadInput(f"expected a JSON array of event objects, got {type(doc).__name__}")
    items: list[tuple[int, Any]] = []
    pos = text.index("[") + 1
    line = 1 + text.count("\n", 0, pos)
    for element in doc:
        gap = _JSON_GAP.match(text, pos)
        start = gap.end() if gap is not None else pos
        line += text.count("\n", pos, start)
        items.append((line, element))
        pos = _SCANNER.raw_decode(text, start)[1]
        line += text.count("\n", start, pos)
    return items


def parse_json_array(text: str) -> ParsedHistory:
    """A JSON file holding one array of event objects (each as a JSONL line would be)."""
    ops: list[Op] = []
    lines: list[int] = []
    for n, obj in json_array_items(text):
        ops.append(json_event(obj, n))
        lines.append(n)
    return ParsedHistory(format="json", ops=tuple(ops), lines=tuple(lines))


# --- Porcupine's etcd Jepsen log -------------------------------------------------------------

_PROCESS = re.compile(r"[0-9]{1,%d}" % MAX_INT_DIGITS)  # noqa: UP031 (a regex's braces)
_ETCD = re.compile(r"^INFO\s+jepsen\.util\s+-\s+(\S+)\s+(\S+)\s+(\S+)\s*(.*?)\s*$")


def _edn_value(text: str, n: int) -> Any:
    try:
        return read_one(text, n)
    except EdnError as e:
        raise BadInput(str(e)) from None


def parse_porcupine_etcd(text: str) -> ParsedHistory:
    """`INFO  jepsen.util - <process> <type> <f> <value>` lines (fields split on whitespace).

    A `:fail` completion did not happen (Jepsen's convention; the corpus README notes that
    reading a failed cas as "returned false" changes no verdict). `:info` values such as
    `:timed-out` are dropped: the outcome is unknown."""
    ops: list[Op] = []
    lines: list[int] = []
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        m = _ETCD.match(line)
        if m is None:
            raise BadInput(f"line {n}: expected 'INFO  jepsen.util - <process> <type> <f> <value>'")
        process_s, type_s, f_s, value_s = m.groups()
        if not _PROCESS.fullmatch(process_s):
            raise BadInput(f"line {n}: process must be a non-negative integer, got {process_s!r}")
        t = type_s[1:] if type_s.startswith(":") else ""
        if t not in EVENT_TYPES:
            raise BadInput(f"line {n}: type must be :invoke, :ok, :fail or :info, got {type_s!r}")
        if not f_s.startswith(":") or f_s[1:] not in ("read", "write", "cas"):
            raise BadInput(f"line {n}: f must be :read, :write or :cas, got {f_s!r}")
        f = f_s[1:]
        if not value_s:
            raise BadInput(f"line {n}: missing value")
        value = _edn_value(value_s, n)
        if t in ("info", "fail") and isinstance(value, Keyword):
            value = None
        elif f == "cas":
            if not (isinstance(value, tuple) and len(value) == 2):
                raise BadInput(f"line {n}: a cas value must be [expected new], got {value_s!r}")
        elif not (value is None or _int(value)):
            raise BadInput(f"line {n}: value must be nil or an integer, got {value_s!r}")
        ops.append(Op(process=int(process_s), type=t, f=f, value=value))  # type: ignore[arg-type]
        lines.append(n)
    return ParsedHistory(
        format="porcupine-etcd", ops=tuple(ops), lines=tuple(lines), model="cas-register"
    )


# --- Porcupine's kv log ----------------------------------------------------------------------


def parse_porcupine_kv(text: str) -> ParsedHistory:
    """One EDN map per line with `:process :type :f :key :value`; f is get, put or append.

    Every key starts as "" (the 6.824 lab's store), so the model is kv with initial ""."""
    ops: list[Op] = []
    lines: list[int] = []
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        m = _edn_value(line, n)
        if not isinstance(m, dict):
            raise BadInput(f"line {n}: expected an op map {{:process .. :type ..}}")
        fields = {k.name: v for k, v in m.items() if isinstance(k, Keyword)}
        for name in ("process", "type", "f", "key"):
            if name not in fields:
                raise BadInput(f"line {n}: op map has no :{name}")
        process = fields["process"]
        if not _int(process):
            raise BadInput(f"line {n}: :process must be an integer, got {process!r}")
        t = fields["type"].name if isinstance(fields["type"], Keyword) else None
        if t not in EVENT_TYPES:
            raise BadInput(f"line {n}: :type must be :invoke, :ok, :fail or :info")
        f = fields["f"].name if isinstance(fields["f"], Keyword | Symbol) else None
        if f not in ("get", "put", "append"):
            raise BadInput(f"line {n}: :f must be :get, :put or :append, got {fields['f']!r}")
        value = fields.get("value")
        if value is not None and not isinstance(value, str):
            raise BadInput(f"line {n}: :value must be a string or nil, got {value!r}")
        key = fields["key"]
        if not isinstance(key, str | int):
            raise BadInput(f"line {n}: :key must be a string, got {key!r}")
        ops.append(Op(process=process, type=t, f=f, key=key, value=value))  # type: ignore[arg-type]
        lines.append(n)
    return ParsedHistory(
        format="porcupine-kv",
        ops=tuple(ops),
        lines=tuple(lines),
        model="kv",
        initial="",
        has_initial=True,
    )


def _parse_edn(text: str) -> ParsedHistory:
    ops, lines = parse_edn(text)
    return ParsedHistory(format="edn", ops=ops, lines=lines)


_PARSERS: dict[str, Callable[[str], ParsedHistory]] = {
    "jsonl": parse_jsonl,
    "json": parse_json_array,
    "edn": _parse_edn,
    "porcupine-kv": parse_porcupine_kv,
    "porcupine-etcd": parse_porcupine_etcd,
}


def infer_model(parsed: ParsedHistory) -> str:
    """The model a history's operations call for, when the format does not say: by the `f`s
    only one model has (`commit` the log, `get`/`put`/`append` kv, `cas` the cas-register,
    `acquire`/`release` the mutex, `txn` the multi-register, `add` the set), else the register.
    Enqueues and dequeues fit two queues that disagree on order: the user says which."""
    if parsed.model is not None:
        return parsed.model
    fs = {op.f for op in parsed.ops}
    for names, model in _IMPLIED:
        if fs & names:
            return model
    if fs & {"enqueue", "dequeue"}:
        raise BadInput("a queue's history (enqueue, dequeue): pass --model fifo-queue or "
                       "--model unordered-queue")
    return "register"


_IMPLIED: tuple[tuple[frozenset[str], str], ...] = (
    (frozenset({"commit"}), "log"),
    (frozenset({"get", "put", "append"}), "kv"),
    (frozenset({"cas"}), "cas-register"),
    (frozenset({"acquire", "release"}), "mutex"),
    (frozenset({"txn"}), "multi-register"),
    (frozenset({"add"}), "set"),
)
