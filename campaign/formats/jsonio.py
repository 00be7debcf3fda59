"""Reading input files safely: one loader for every JSON (and the text of every other) format.

Every file a command reads goes through `read_text` and, for JSON, `loads_json`, so that
hostile input is refused here, once, as a one-line `BadInput` naming the file:

- bytes that are not UTF-8 (a UTF-8 byte-order mark is allowed and dropped);
- nesting deeper than `MAX_DEPTH` (found by a scan *before* parsing, so a 100,000-deep
  document cannot exhaust the stack of the parser or of any later recursive walk);
- integers longer than `MAX_INT_DIGITS` digits (no field of any format needs more; Python
  refuses to convert past 4,300 digits, and huge numbers only make later work slow);
- `NaN`, `Infinity` and numbers that overflow to infinity (`1e400`): JSON has no such values,
  and NaN != NaN would make a checker call a valid history invalid;
- strings holding lone UTF-16 surrogates (`"\\ud800"`): not text, and unprintable;
- an object naming a key twice (`{"type": "ok", "type": "fail"}`): which one counts is
  ambiguous, and silently taking the last could change a verdict.

`parsing(where)` turns an exception a parser did not foresee into `BadInput` as well: input
that crashes a parser is input the parser should have refused.
"""

from __future__ import annotations

import json
import math
import re
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from campaign.errors import BadInput
from campaign.formats.fields import describe, field

MAX_DEPTH = 100
"""Deepest nesting of lists/objects any input may have (real documents stay below 10)."""
MAX_INT_DIGITS = 100
"""Longest integer literal (digits) any input may hold; tokens need 19, seeds 20."""

MAX_FILE_BYTES = 2**30
"""Largest input file read (1 GiB)."""

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_BRACKETS = re.compile(r"[\[\]{}]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def read_text(path: str | Path, what: str) -> str:
    """The UTF-8 text of the file at `path`; every problem is BadInput naming the file.

    Only regular files and pipes are read (a device such as /dev/zero never ends), and at
    most MAX_FILE_BYTES of them."""
    if str(path) == "":
        raise BadInput(f"{what} file: empty path")
    p = Path(path)
    try:
        mode = p.stat().st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError
        if not (stat.S_ISREG(mode) or stat.S_ISFIFO(mode)):
            raise BadInput(f"{what} file {p} is not a regular file")
        with p.open("rb") as f:
            data = f.read(MAX_FILE_BYTES + 1)
        if len(data) > MAX_FILE_BYTES:
            raise BadInput(f"{what} file {p} is larger than {MAX_FILE_BYTES // 2**20} MiB")
    except FileNotFoundError:
        raise BadInput(f"{what} file not found: {p}") from None
    except IsADirectoryError:
        raise BadInput(f"{what} path is a directory: {p}") from None
    except OSError as e:
        raise BadInput(f"cannot read {what} file {p}: {e.strerror or e}") from None
    except ValueError as e:  # a NUL byte in the path
        raise BadInput(f"cannot read {what} file {describe(str(p))}: {e}") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        raise BadInput(f"{p}: line {line}: not UTF-8 text (byte {e.start})") from None


def check_depth(text: str, where: str) -> None:
    """Refuse JSON nested deeper than MAX_DEPTH, counting brackets outside strings (no recursion)."""
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return  # fast path: too few brackets to nest that deep
    depth = 0
    for m in _BRACKETS.finditer(_STRING.sub("", text)):
        if m.group() in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                raise BadInput(f"{where}: nested more than {MAX_DEPTH} levels deep")
        else:
            depth = max(depth - 1, 0)


class _Refused(Exception):
    """A number JSON input may not hold (raised inside the decoder, reported with its place)."""


def _checked_int(s: str) -> int:
    digits = len(s.lstrip("-"))
    if digits > MAX_INT_DIGITS:
        raise _Refused(f"integer with {digits} digits (at most {MAX_INT_DIGITS})")
    return int(s)


def _checked_float(s: str) -> float:
    value = float(s)
    if not math.isfinite(value):
        raise _Refused(f"number {s[:30]} is out of range")
    return value


def _checked_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        twice = next(k for k, _ in pairs if k in seen or seen.add(k))  # type: ignore[func-returns-value]
        raise _Refused(f"duplicate key {describe(twice)} in an object (which one counts is ambiguous)")
    return obj


def _refuse_constant(s: str) -> Any:
    raise _Refused(f"{s} is not a JSON number (JSON has no NaN or Infinity)")


# one decoder for every JSON input (the hooks cost little: a Python call per number)
_DECODER = json.JSONDecoder(parse_constant=_refuse_constant, parse_int=_checked_int,
                            parse_float=_checked_float, object_pairs_hook=_checked_object)
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def loads_json(text: str, where: str, *, one_line: bool = False) -> Any:
    """`json.loads` with the limits above; `where` (a file name, "line N") starts every error.
    `one_line`: `text` is one line of a file (JSONL), so errors give only the column."""
    check_depth(text, where)
    try:
        doc = _DECODER.decode(text)
    except _Refused as e:
        raise BadInput(f"{where}: {e}") from None
    except json.JSONDecodeError as e:
        at = f"column {e.colno}" if one_line else f"line {e.lineno} column {e.colno}"
        raise BadInput(f"{where}: invalid JSON at {at}: {e.msg}") from None
    except RecursionError:  # defence in depth: check_depth should have refused it
        raise BadInput(f"{where}: nested too deeply") from None
    # decoded UTF-8 holds no surrogate: only a \uD800-style escape can make one
    if "\\u" in text and _SURROGATE_ESCAPE.search(text):
        check_strings(doc, where)
    return doc


def check_strings(doc: Any, where: str) -> None:
    """Refuse lone surrogates in any string or key of a parsed document (iteratively)."""
    stack = [doc]
    while stack:
        x = stack.pop()
        if isinstance(x, str):
            if _SURROGATE.search(x):
                raise BadInput(f"{where}: string {x[:40]!r} holds a lone UTF-16 surrogate (not text)")
        elif isinstance(x, dict):
            stack.extend(x.keys())
            stack.extend(x.values())
        elif isinstance(x, list | tuple | frozenset):
            stack.extend(x)


def load_json(path: str | Path, what: str) -> Any:
    """The JSON document in the file at `path` (`what` names the kind of file in errors)."""
    return loads_json(read_text(path, what), str(path))


@contextmanager
def parsing(where: str) -> Iterator[None]:
    """Inside this block, an exception a parser did not foresee is BadInput naming `where`.

    why: a crash while *reading* input means input the parser should have refused; the user
    gets one line, not a traceback. Errors after parsing (a checker, the simulator) are bugs
    and keep their traceback."""
    try:
        yield
    except BadInput:
        raise
    except (ValueError, TypeError, KeyError, IndexError, AttributeError, OverflowError,
            RecursionError, UnicodeError) as e:
        raise BadInput(f"{where}: cannot parse ({type(e).__name__}: {str(e)[:120]})") from None


def in_file(e: BadInput, path: str | Path) -> BadInput:
    """`e` with the file named first, unless its message already names it."""
    message = str(e)
    if re.search(rf"(^|\s){re.escape(str(path))}(:|\s|$)", message):
        return e
    return BadInput(f"{path}: {message}")


__all__ = ["MAX_DEPTH", "MAX_INT_DIGITS", "check_depth", "check_strings", "field", "in_file",
           "load_json", "loads_json", "parsing", "read_text"]
