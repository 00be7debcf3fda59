"""The deterministic discrete-event simulator: a virtual clock and an event queue.

No threads, no wall clock, no global state: one `random.Random(seed)` owned by the cluster
drives every choice, and time only moves when the queue pops an event.
"""
