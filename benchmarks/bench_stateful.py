"""Examples per second of each stateful machine at 30 steps (one core). Not a test:
`python benchmarks/bench_stateful.py [--examples N] [--steps S] [--seed K] [--machine NAME]`.

Each machine's Hypothesis test runs N examples of up to S steps from seed K (generate phase
only, no database, as `tcmcheck fuzz --kinds stateful` runs it), and the rate is N / wall time
(and N / CPU time of this process; `test_cases` counts the invalid ones Hypothesis also ran).
Hypothesis stops a step sequence early at random, so examples average fewer than S steps; the
mean number of steps actually run is printed too. The aim for the metadata machine is at least
20 examples per second.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from campaign.kinds.stateful import MACHINES, machine_class, no_local_constants  # noqa: E402


def bench(machine: str, examples: int, steps: int, seed: int) -> dict[str, float]:
    from hypothesis import HealthCheck, Phase, settings
    from hypothesis import seed as hypothesis_seed
    from hypothesis.stateful import get_state_machine_test

    cls = machine_class(machine)
    counted = {"steps": 0, "examples": 0}

    class Counting(cls):  # type: ignore[misc, valid-type]
        def __init__(self) -> None:
            super().__init__()
            counted["examples"] += 1

        def check_invariants(self, *args: object, **kwargs: object) -> None:
            counted["steps"] += 1
            super().check_invariants(*args, **kwargs)

    s = settings(max_examples=examples, stateful_step_count=steps, database=None, deadline=None,
                 suppress_health_check=list(HealthCheck), phases=(Phase.generate,))
    test = get_state_machine_test(Counting, settings=s)
    hypothesis_seed(seed)(test)
    started, cpu = time.perf_counter(), time.process_time()
    with no_local_constants():
        test()
    took, cpu = time.perf_counter() - started, time.process_time() - cpu
    ran = max(counted["examples"], 1)
    # why CPU time too: on a shared machine the wall clock measures the neighbours as well
    return {"examples": examples, "test_cases": counted["examples"], "seconds": round(took, 2),
            "cpu_seconds": round(cpu, 2), "examples_per_s": round(examples / took, 1),
            "examples_per_cpu_s": round(examples / cpu, 1),
            "mean_steps": round(counted["steps"] / ran, 1)}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--examples", type=int, default=300)
    p.add_argument("--steps", type=int, default=30)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--machine", choices=sorted(MACHINES), action="append")
    a = p.parse_args()
    for machine in a.machine or ["metadata", "system"]:
        print(json.dumps({"machine": machine, "steps": a.steps, **bench(machine, a.examples, a.steps, a.seed)}),
              flush=True)


if __name__ == "__main__":
    main()
