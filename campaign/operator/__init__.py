"""Operator pre-flight: a live cluster read from what nodetool and cqlsh print (`cluster.py`,
`describering.py`), Cassandra's token allocation for a new node (`token_allocation.py`), and a
topology change planned step by step (`plan.py`) with its findings (`plan_findings.py`),
rendered as text, JSON and HTML (`plan_render.py`, `plan_html.py`). docs/operators.md."""
