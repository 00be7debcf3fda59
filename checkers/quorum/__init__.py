"""Quorum intersection across epochs: the Z3 prover, the exhaustive simulator, the barrier theorem.

- `model`: the input (`History` of per-epoch placements, CMS sets and node DCs); `from_spec`
  builds one from the spec's `ClusterMetadata` states.
- `levels`: consistency levels as `QuorumRule`s (Cassandra's counts).
- `z3prover.prove_history` / `exhaustive.prove_history`: one signature, one `Verdict`
  (`verdict`); `pairs` holds their shared driver (epoch pairs, range refinement, DCs), `cms`
  the CMS obligations, `search` the question both answer, `linear` the SMT-LIB scripts.
- `barrier.prove_barrier`: the closing theorem of the CEP's "Catching Up".
- `render`: JSON and one-line explanations of a `Verdict` (the checkers produce no text).

See docs/prove.md.
"""
