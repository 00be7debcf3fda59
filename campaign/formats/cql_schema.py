"""CQL schema text (what `cqlsh -e 'DESCRIBE SCHEMA'` or `DESCRIBE KEYSPACE ks` prints) -> the
keyspaces and their replication.

What Cassandra prints: since 4.0 the server's DESCRIBE (`KeyspaceMetadata.toCqlString`):

    CREATE KEYSPACE ks WITH replication = {'class': 'NetworkTopologyStrategy', 'dc1': '3'}  AND durable_writes = true;

with the class's simple name for `org.apache.cassandra.locator` classes and the full name otherwise
(`ReplicationParams.appendCqlTo`), every factor quoted, names double-quoted when they need it
(`ColumnIdentifier.maybeQuote`), virtual keyspaces inside a `/* ... */` warning; up to 3.11 cqlsh's
Python driver (`KeyspaceMetadata.as_cql_query`), the same statement. A hand-written file may use
unquoted integers, another case for keywords, `IF NOT EXISTS`, comments (`--`, `//`, `/* */`),
and `ALTER KEYSPACE` / `DROP KEYSPACE` later in the file (applied in order, as cqlsh would run
them). Every other statement (tables, types, functions, ...) is skipped.

Replication as Cassandra settles it: NetworkTopologyStrategy's `replication_factor` option is
expanded to every datacenter not named (`NetworkTopologyStrategy.prepareOptions`, CASSANDRA-14303,
which also drops datacenters with factor "0"); a datacenter that holds no node is refused, as
`NetworkTopologyStrategy.recognizedOptions` makes `validateExpectedOptions` refuse it.
Cassandra's own keyspaces (`SchemaConstants`: system, system_schema, system_cluster_metadata,
system_traces, system_auth, system_distributed, system_views, system_virtual_schema,
system_metrics) are left out and listed in `skipped`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from attrs import frozen

from campaign.errors import BadInput
from campaign.formats.fields import describe
from campaign.formats.topology import parse_replication
from spec.replication import ReplicationParams

SYSTEM_KEYSPACES = frozenset({
    "system", "system_schema", "system_cluster_metadata", "system_traces", "system_auth",
    "system_distributed", "system_views", "system_virtual_schema", "system_metrics"})
"""SchemaConstants' local, replicated and virtual system keyspaces (trunk)."""


@frozen(kw_only=True)
class SchemaKeyspaces:
    keyspaces: tuple[tuple[str, ReplicationParams], ...]
    """User keyspaces, in the order first created."""
    skipped: tuple[str, ...]
    """Cassandra's system keyspaces the text named."""


@frozen
class _Token:
    kind: str  # "word", "string", "quoted" (a double-quoted name), "number", "punct"
    text: str
    line: int


_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_.$]*")
_NUMBER = re.compile(r"-?[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?")


def _tokens(text: str, where: str) -> Iterator[_Token]:
    """CQL's lexical pieces, comments and whitespace dropped (strings keep `''` unescaped)."""
    i, line, size = 0, 1, len(text)
    while i < size:
        c = text[i]
        if c == "\n":
            line += 1
            i += 1
        elif c.isspace():
            i += 1
        elif text.startswith(("--", "//"), i):
            end = text.find("\n", i)
            i = size if end < 0 else end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            if end < 0:
                raise BadInput(f"{where}: line {line}: a /* comment is never closed")
            line += text.count("\n", i, end)
            i = end + 2
        elif c in "'\"":
            start, j, parts = line, i + 1, []
            while True:
                end = text.find(c, j)
                if end < 0:
                    raise BadInput(f"{where}: line {start}: a {'string' if c == chr(39) else 'quoted name'} "
                                   "is never closed (the file is cut?)")
                parts.append(text[j:end])
                if text.startswith(c, end + 1):  # '' or "" stands for the quote itself
                    parts.append(c)
                    j = end + 2
                    continue
                break
            value = "".join(parts)
            line += value.count("\n")
            yield _Token("string" if c == "'" else "quoted", value, start)
            i = end + 1
        elif text.startswith("$$", i):
            end = text.find("$$", i + 2)
            if end < 0:
                raise BadInput(f"{where}: line {line}: a $$ string is never closed (the file is cut?)")
            yield _Token("string", text[i + 2:end], line)
            line += text.count("\n", i, end)
            i = end + 2
        elif (m := _NUMBER.match(text, i)) is not None and (c.isdigit() or c == "-"):
            yield _Token("number", m.group(), line)
            i = m.end()
        elif (m := _WORD.match(text, i)) is not None:
            yield _Token("word", m.group(), line)
            i = m.end()
        else:
            yield _Token("punct", c, line)
            i += 1


def _statements(text: str, where: str) -> Iterator[list[_Token]]:
    current: list[_Token] = []
    for t in _tokens(text, where):
        if t.kind == "punct" and t.text == ";":
            if current:
                yield current
            current = []
        else:
            current.append(t)
    if current:
        yield current


class _CqlReader:
    """A cursor over one statement's tokens."""

    def __init__(self, tokens: list[_Token], where: str) -> None:
        self.tokens, self.i, self.where = tokens, 0, where

    def peek_word(self, *words: str) -> bool:
        t = self.tokens[self.i] if self.i < len(self.tokens) else None
        return t is not None and t.kind == "word" and t.text.lower() in words

    def next(self, what: str) -> _Token:
        if self.i >= len(self.tokens):
            last = self.tokens[-1].line if self.tokens else 0
            raise BadInput(f"{self.where}: line {last}: the statement ends where {what} was expected")
        t = self.tokens[self.i]
        self.i += 1
        return t

    def expect(self, text: str, what: str) -> None:
        t = self.next(what)
        if t.text.lower() != text.lower() or t.kind not in ("word", "punct"):
            raise BadInput(f"{self.where}: line {t.line}: expected {what}, found {describe(t.text)}")

    def name(self) -> str:
        t = self.next("a keyspace name")
        if t.kind == "quoted":
            return t.text
        if t.kind != "word" or "." in t.text:
            raise BadInput(f"{self.where}: line {t.line}: {describe(t.text)} is not a keyspace name")
        return t.text.lower()  # unquoted names are case-insensitive: Cassandra folds them

    def value(self) -> str | int:
        t = self.next("a value")
        if t.kind == "string":
            return t.text
        if t.kind == "number":
            return int(t.text) if re.fullmatch(r"-?[0-9]{1,18}", t.text) else t.text
        if t.kind == "word":
            return t.text
        raise BadInput(f"{self.where}: line {t.line}: expected a value, found {describe(t.text)}")

    def options(self) -> dict[str, tuple[object, int]]:
        """`name = value AND name = {map} ...`: each option with its line."""
        out: dict[str, tuple[object, int]] = {}
        while True:
            key = self.next("an option name")
            if key.kind not in ("word", "quoted"):
                raise BadInput(f"{self.where}: line {key.line}: expected an option name, found {describe(key.text)}")
            self.expect("=", f"'=' after {key.text}")
            if self.i < len(self.tokens) and self.tokens[self.i].text == "{":
                out[key.text.lower()] = (self.map(), key.line)
            else:
                out[key.text.lower()] = (self.value(), key.line)
            if self.i >= len(self.tokens):
                return out
            self.expect("AND", "AND or the end of the statement")

    def map(self) -> dict[str, object]:
        self.expect("{", "'{'")
        out: dict[str, object] = {}
        if self.i < len(self.tokens) and self.tokens[self.i].text == "}":
            self.i += 1
            return out
        while True:
            key = self.value()
            self.expect(":", "':' in the replication map")
            out[str(key)] = self.value()
            t = self.next("',' or '}'")
            if t.text == "}":
                return out
            if t.text != ",":
                raise BadInput(f"{self.where}: line {t.line}: expected ',' or '}}' in the replication map, "
                               f"found {describe(t.text)}")


def parse_schema(text: str, where: str, datacenters: set[str]) -> SchemaKeyspaces:
    """The user keyspaces the statements leave, with replication checked against `datacenters`."""
    keyspaces: dict[str, tuple[ReplicationParams, dict[str, object]]] = {}
    skipped: list[str] = []
    created = False
    for tokens in _statements(text, where):
        r = _CqlReader(tokens, where)
        line = tokens[0].line
        verb = r.next("a statement").text.lower()
        if verb not in ("create", "alter", "drop") or not r.peek_word("keyspace", "schema"):
            continue  # tables, types, functions, ...: not about replication
        r.next("KEYSPACE")
        created = created or verb == "create"
        if verb == "drop":
            if r.peek_word("if"):
                r.expect("IF", "IF")
                r.expect("EXISTS", "EXISTS after IF")
            keyspaces.pop(r.name(), None)
            continue
        if_not_exists = False
        if verb == "create" and r.peek_word("if"):
            for word in ("IF", "NOT", "EXISTS"):
                r.expect(word, f"{word} in IF NOT EXISTS")
            if_not_exists = True
        name = r.name()
        at = f"{where}: line {line}"
        if name.lower() in SYSTEM_KEYSPACES:
            skipped.append(name)
            continue
        r.expect("WITH", f"WITH after {verb.upper()} KEYSPACE {name}")
        options = r.options()
        raw, option_line = options.get("replication", (None, line))
        if verb == "create" and name in keyspaces:
            if if_not_exists:
                continue
            raise BadInput(f"{at}: keyspace {name} is created twice (Cassandra: 'Keyspace {name} already exists')")
        if verb == "alter" and name not in keyspaces:
            raise BadInput(f"{at}: ALTER KEYSPACE {name} before any CREATE KEYSPACE {name}")
        if raw is None:
            if verb == "alter":
                continue  # durable_writes only
            raise BadInput(f"{at}: CREATE KEYSPACE {name} has no replication (Cassandra requires the "
                           "'replication' option)")
        if not isinstance(raw, dict):
            raise BadInput(f"{where}: line {option_line}: keyspace {name}: replication must be a map, "
                           f"got {describe(raw)}")
        previous = keyspaces[name][1] if verb == "alter" else {}
        settled = _prepare(dict(raw), previous, datacenters)
        params = parse_replication(settled, f"{where}: line {option_line}: keyspace {name}", datacenters=datacenters)
        keyspaces[name] = (params, settled)
    if not created:
        raise BadInput(f"{where}: no CREATE KEYSPACE statement: give what cqlsh -e 'DESCRIBE SCHEMA' prints "
                       "(DESCRIBE KEYSPACES prints only the names)")
    return SchemaKeyspaces(keyspaces=tuple((n, p) for n, (p, _) in keyspaces.items()), skipped=tuple(skipped))


def _prepare(options: dict[str, object], previous: dict[str, object], datacenters: set[str]) -> dict[str, object]:
    """NetworkTopologyStrategy.prepareOptions: `replication_factor` expanded to every datacenter
    not named (on ALTER, the datacenters named before keep their factors); factors "0" dropped.
    Cassandra expands to its valid datacenters: here, the datacenters of the ring."""
    cls = str(options.get("class", ""))
    if cls.rsplit(".", 1)[-1] != "NetworkTopologyStrategy":
        return options
    out = {k: v for k, v in options.items() if k != "class"}
    replication = out.pop("replication_factor", None)
    if replication is None and not out:
        replication = previous.get("replication_factor")
    elif replication is not None:
        for k, v in previous.items():
            if k not in ("class", "replication_factor"):
                out.setdefault(k, v)
    if replication is not None:
        for dc in sorted(datacenters):
            out.setdefault(dc, replication)
    return {"class": cls, **{k: v for k, v in out.items() if str(v).strip() != "0"}}


__all__ = ["SYSTEM_KEYSPACES", "SchemaKeyspaces", "parse_schema"]
