"""Messages of replica synchronization (the seed doc's "Replica Synchronization"): hinted
handoff's pages and their acknowledgements, and anti-entropy repair's validation, sync requests
and streamed rows. Like every message they carry the sender and its epoch (impl/messages.py);
none of their handlers catches up on it (impl/node/node.py says which verbs reveal an epoch).
"""

from __future__ import annotations

from attrs import frozen

from impl.messages import Message

# --- Hinted handoff (HINT_REQ / HINT_RSP) ---


@frozen(kw_only=True)
class HintBatch(Message):
    """One page of hints for the receiver: (hint id, keyspace, key, token, timestamp, value)."""

    hints: tuple[tuple[int, str, str, int, int, int], ...]

    def brief(self) -> str:
        return f"HintBatch n{len(self.hints)}"


@frozen(kw_only=True)
class HintAck(Message):
    """The page was applied (or re-hinted): its hints may be deleted."""

    ids: tuple[int, ...]

    def brief(self) -> str:
        return f"HintAck n{len(self.ids)}"


# --- Anti-entropy repair (VALIDATION_REQ / RSP, SYNC_REQ, streaming) ---


@frozen(kw_only=True)
class ValidationRequest(Message):
    """To a repair participant: your cells of `keyspace` in `ranges`, please."""

    session: int
    keyspace: str
    ranges: tuple[tuple[int, int], ...]


@frozen(kw_only=True)
class ValidationResponse(Message):
    """A participant's cells, (key, timestamp, value), as of receipt (its "Merkle tree" at the
    finest resolution: one key per leaf)."""

    session: int
    rows: tuple[tuple[str, int, int], ...]

    def brief(self) -> str:
        return f"ValidationResponse r{self.session} rows{len(self.rows)}"


@frozen(kw_only=True)
class RepairSync(Message):
    """To a participant: send your current cells of `keys` to `destination`."""

    session: int
    keyspace: str
    keys: tuple[str, ...]
    destination: str

    def brief(self) -> str:
        return f"RepairSync r{self.session} -> {self.destination} keys{len(self.keys)}"


@frozen(kw_only=True)
class RepairRows(Message):
    """Streamed repair data: the receiver applies each cell (last write wins)."""

    session: int
    keyspace: str
    rows: tuple[tuple[str, int, int], ...]
    coordinator: str

    def brief(self) -> str:
        return f"RepairRows r{self.session} rows{len(self.rows)}"


@frozen(kw_only=True)
class RepairSyncComplete(Message):
    """To the repair's coordinator: the rows `source` sent were applied here."""

    session: int
    source: str
