"""The judge of a simulated run: named checks (campaign/judge/checks/) over what the run observed
(observed/), the spec as referee (replay.py), each returning its causes with their evidence.

`judgement.judge` runs them all on a finished run; the stateful machine runs the incremental
ones after every step. Nothing is imported here: `campaign.judge.cause` and
`campaign.judge.evidence` are what a report needs, without the simulator.
"""
