"""What a simulated run observed, as plain frozen records below impl and the checkers.

impl writes them (impl/cluster.py, impl/final_state.py, impl/history.py, impl/protocol.py) and
the checkers and the judge read them, so that neither needs the other's types and a report can
load a run's observations without loading the simulator:

- `history.Op`: a history event, DESIGN's JSONL shape (also what files hold);
- `calls.ClientCall`, `calls.CommitCall`: each invocation with its completion;
- `protocol`: the protocol trace's events (what the data path, barriers, streaming, hints and
  repair decided), one record per kind;
- `cells`: what replicas hold at the end, the hints still stored, what streams carried;
- `entry.Entry`: a committed log entry;
- `run.Observed`: all of a run's observations.

Layers (tests/test_layering.py): spec < observed < impl | checkers.
"""
