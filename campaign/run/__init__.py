"""The run layer: what one run is (`RunSpec`), what it found (`Outcome`, `Cause`), how a simulated
run is judged (`judge`), which implementation variant it ran (`variants`), and which failures are
known findings (`findings`).

It sits above spec/, impl/, checkers/ and campaign/formats/ and below strategies/, the run kinds
(campaign/kinds/) and everything that runs campaigns. Import the modules, not this package: it
re-exports nothing, so `campaign.judge.cause` (what a report needs) does not load the simulator.
"""
