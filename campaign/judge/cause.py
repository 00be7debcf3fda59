"""Why a run failed, as one value: `Cause(family, klass, text)`.

`text` is the line a user reads and runs.parquet's `cause` column and failure files store (the
same strings as before this value existed, so older campaigns and files read the same). `klass`
is what two failures share when they are taken to be the same bug: failures are grouped by it,
shrinking keeps it, and a known finding (campaign/run/findings.py) is matched on it. It is set by
the code that found the failure, which knows which part of the line is the run's detail (a
range, an epoch, a node, a step number) — nothing parses the text back. `family` names the kind
of check that failed (the first word of the text, roughly; one of `FAMILIES`), for filters and
reports.

The constructors below are the only places the texts are made.
"""

from __future__ import annotations

from attrs import field, frozen
from attrs.validators import in_

FAMILIES = ("crash", "error", "refine", "quorum", "conflict", "apply", "logs", "history", "clients",
            "spec-replay", "holdings", "durability", "liveness", "stateful", "trace")
"""Every family a cause may have: the check (or the way a run ended) that failed."""


@frozen(kw_only=True)
class Cause:
    family: str = field(validator=in_(FAMILIES))
    klass: str
    """What failures of one bug share (see the module doc)."""
    text: str
    """The whole line, run-specific details included."""

    def __str__(self) -> str:
        return self.text

    def to_json(self) -> dict[str, str]:
        return {"family": self.family, "class": self.klass, "text": self.text}


MAX_TEXT = 300
"""A cause line is cut here (an exception's message can be a whole document)."""


def _first_line(e: BaseException) -> str:
    return str(e).splitlines()[0] if str(e) else ""


def crash(e: BaseException) -> Cause:
    """An exception inside spec, impl, a checker or the generator: a found bug."""
    name = type(e).__name__
    return Cause(family="crash", klass=f"crash: {name}", text=f"crash: {name}: {_first_line(e)}"[:MAX_TEXT])


def bad_generated_input(e: BaseException) -> Cause:
    """A generated case that the parsers refuse: a generator bug."""
    return Cause(family="crash", klass="crash: generated bad input",
                 text=f"crash: generated bad input: {e}"[:MAX_TEXT])


def error(text: str) -> Cause:
    """A run that gave no verdict: its worker died, or it ran out of time."""
    return Cause(family="error", klass=text, text=text)


def worker_died(how: str) -> Cause:
    return error(f"worker died: {how}")


def timeout(seconds: float) -> Cause:
    return error(f"timeout: over {seconds:g} s")


# ---------------------------------------------------------------- refine


def refine_step(where: str, what: str, *, invariant: str | None = None) -> Cause:
    """A refinement step that failed: `where` is "step I (KIND at epoch E)", `what` the
    disagreement; for a broken invariant, its name is the class (not its keyspace or range)."""
    klass = f"invariant {invariant}" if invariant is not None else what
    return Cause(family="refine", klass=klass, text=f"{where}: {what}")


def initial_placements_differ() -> Cause:
    text = "initial placements differ"
    return Cause(family="refine", klass=text, text=text)


def quorum(verdict_cause: str, detail: str = "", across: str | None = None) -> Cause:
    """The prover's counterexample: `detail` says where (keyspace, range, epochs), `across` the
    transformation between the two epochs when they differ."""
    suffix = f" (across {across})" if across else ""
    text = f"quorum: {verdict_cause}" + (f" in {detail}" if detail else "") + suffix
    return Cause(family="quorum", klass=f"quorum: {verdict_cause}{suffix}", text=text)


# ---------------------------------------------------------------- sim


def conflict(detail: str) -> Cause:
    return Cause(family="conflict", klass="conflict", text=f"conflict: {detail}")


def apply_failure(node: str, epoch: int, reason: str) -> Cause:
    return Cause(family="apply", klass="apply failure",
                 text=f"apply failure: {node} refused epoch {epoch}: {reason}")


def logs(invariant: str, line: str) -> Cause:
    """A log invariant broken: `line` names where (epoch, node, entry)."""
    return Cause(family="logs", klass=f"logs: {invariant}", text=f"logs: {line}")


def history(verdict_cause: str) -> Cause:
    text = f"history: {verdict_cause}"
    return Cause(family="history", klass=text, text=text)


# the clients' verdict causes the judge gives a violation Cassandra documents or a known
# finding explains (campaign/judge/checks/clients.py)
REGULAR = "regular: every read at ONE saw each write completed before it began"
"""The clients' cause for writes at ALL and reads at ONE that are not linearizable but regular."""

SINGLE_SOURCE_LOSS = "not-linearizable: acknowledged writes lost by a single-source remove/replace stream"
"""The clients' cause when finding `remove-replace-single-source` explains every violation."""

RELAXED_BARRIER = "not-linearizable after a progress barrier relaxed below its first level"
"""The clients' cause in a run where an operation stepped past a relaxed progress barrier:
finding `relaxed-progress-barrier`."""

STALE_COORDINATOR_READ = "not-linearizable: reads served to a coordinator behind their read group's last change"
"""The clients' cause when reads a replica served to a lagging coordinator (Cassandra does not
fence reads by the read group's lastModified) explain every violation: finding
`stale-coordinator-read`."""

UNREPAIRED_PAST_PENDING = "not-linearizable: reads returned writes a pending replica missed, with no read repair"
"""The clients' cause when reads that returned a value a pending replica of their token lacked,
repairing nothing (Cassandra repairs only on a digest mismatch), explain every violation:
finding `monotonic-read-across-movement`."""


def clients(verdict_cause: str) -> Cause:
    text = f"clients: {verdict_cause}"
    return Cause(family="clients", klass=text, text=text)


def spec_replay(detail: str) -> Cause:
    return Cause(family="spec-replay", klass="spec replay", text=f"spec replay: {detail}")


def spec_invariant(name: str, detail: str) -> Cause:
    """A spec invariant broken by the final state of a simulated run's committed log: the same
    class as in a refine run (`invariant NAME`), so a known finding matches both."""
    return Cause(family="spec-replay", klass=f"invariant {name}",
                 text=f"spec replay: invariant {name} at the end: {detail}")


def install_keys(node: str, before: int, after: int, reported: tuple[str, ...], changed: tuple[str, ...]) -> Cause:
    """A snapshot install that reported other modified metadata keys than the ones it changed."""
    return Cause(family="holdings", klass="holdings: a snapshot install reported the wrong modified keys",
                 text=f"holdings: {node} installed the snapshot of epoch {after} from epoch {before} and "
                      f"reported {', '.join(reported) or 'nothing'} modified; it changed {', '.join(changed) or 'nothing'}")


def metadata_differs(node: str, epoch: int, when: str, parts: str) -> Cause:
    what = f"metadata differs from the spec on {parts}"
    return Cause(family="holdings", klass=f"holdings: {what}",
                 text=f"holdings: {node} at epoch {epoch} ({when}): {what}")


def epoch_regression(detail: str) -> Cause:
    """A node's applied epoch went backwards, or it holds a placement modified above its epoch."""
    return Cause(family="holdings", klass="holdings: applied epoch goes backwards", text=f"holdings: {detail}")


def durability(detail: str) -> Cause:
    """Writes at ALL: a replica lacks an acknowledged write at a quiet end that another one holds
    (stale: a repair would heal it)."""
    return Cause(family="durability", klass="durability: stale replica", text=f"durability: {detail}")


def stale_read(detail: str) -> Cause:
    """Writes at ALL: a read that began after a write was acknowledged missed it, which some
    replica held (stale, not lost)."""
    return Cause(family="durability", klass="durability: stale read", text=f"durability: {detail}")


LOST_BY_SINGLE_SOURCE = "durability: lost by a single-source stream"
"""The lost-write class when a faithful remove/replace stream from one source (or from nobody:
no replica left) explains every lost write: finding `remove-replace-single-source`."""


def lost_write(detail: str, *, single_source: bool = False) -> Cause:
    """An acknowledged write no replica holds at the end and no deliverable hint carries (any
    level but ANY): neither hints nor repair can bring it back."""
    klass = LOST_BY_SINGLE_SOURCE if single_source else "durability: lost write"
    return Cause(family="durability", klass=klass, text=f"durability: {detail}")


TRACE_INVARIANTS = ("barrier", "fencing", "quorum", "streaming")


def trace(invariant: str, detail: str) -> Cause:
    """A trace invariant broken (checkers/protocol/): the class is the invariant alone."""
    assert invariant in TRACE_INVARIANTS, invariant
    return Cause(family="trace", klass=f"trace: {invariant}", text=f"trace: {invariant}: {detail}"[:MAX_TEXT])


def liveness(what: str, detail: str) -> Cause:
    """A run that stopped making progress: `what` ("operation stuck", "CMS undersized", ...)."""
    return Cause(family="liveness", klass=f"liveness: {what}", text=f"liveness: {what}: {detail}")


def stateful(machine: str, where: str, message: str) -> Cause:
    """A Hypothesis machine's shrunk failure: the class is the machine, the rule or invariant,
    and the message up to its first colon (what follows is the example's detail)."""
    return Cause(family="stateful", klass=f"stateful {machine}: {where}: {message.split(':', 1)[0]}",
                 text=f"stateful {machine}: {where}: {message}"[:MAX_TEXT])


__all__ = ["FAMILIES", "LOST_BY_SINGLE_SOURCE", "REGULAR", "RELAXED_BARRIER", "SINGLE_SOURCE_LOSS",
           "STALE_COORDINATOR_READ", "UNREPAIRED_PAST_PENDING",
           "TRACE_INVARIANTS", "Cause", "apply_failure", "bad_generated_input", "clients", "conflict",
           "crash", "durability", "epoch_regression", "error", "history", "initial_placements_differ",
           "install_keys", "liveness", "logs", "lost_write", "metadata_differs", "quorum", "refine_step",
           "spec_invariant", "spec_replay", "stale_read", "stateful", "timeout", "trace", "worker_died"]
