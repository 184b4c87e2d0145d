"""A simulation study: the replays of one job set, each distinct configuration run once.

The advisory (capacity curve, pool figures, optimal bound, tenant twins, engine comparison)
and ``advisor simulate`` (policy x eviction runs, tenant twins, the pressure ceiling, the
sweep) ask for overlapping configurations: the advisory's FCFS run at the GPU's pool is also
a point of its capacity curve, its unlimited run is the curve's last point, and so on. A
``Study`` keys each replay by its full configuration (the ``RunSpec``, whose every field
changes a result) and runs it once. A run is deterministic for its jobs and spec (seeded
policies and routers), so a repeat could only return the same figures.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence as SequenceOf
from dataclasses import dataclass, field, replace

from advisor.simulate.model import Job
from advisor.simulate.runner import OPTIMAL, BlockIndexes, RunResult, RunSpec, run


def configuration(spec: RunSpec) -> RunSpec:
    """The spec as the simulator reads it: the optimal bound ignores the scheduling policy
    and the mode (one pool in arrival order, ``runner.optimal_result``), so those fields
    do not make a different configuration of it."""
    if spec.eviction == OPTIMAL:
        return replace(spec, policy="fcfs", mode="replay")
    return spec


@dataclass
class Study:
    """Replays of ``jobs``, memoised by configuration; ``requested`` counts the runs asked
    for and ``replays`` the ones simulated."""

    jobs: SequenceOf[Job]
    indexes: BlockIndexes = field(default_factory=BlockIndexes)
    requested: int = 0
    replays: int = 0
    _runs: dict[RunSpec, tuple[RunResult, array | None]] = field(default_factory=dict, repr=False)

    def run(self, spec: RunSpec, per_request: array | None = None) -> RunResult:
        """The result of ``spec`` (simulated on first use); ``per_request``, one slot per job,
        receives each request's cached tokens as ``runner.run`` writes them."""
        self.requested += 1
        key = configuration(spec)
        got = self._runs.get(key)
        if got is not None and (per_request is None or got[1] is not None):
            if per_request is not None and got[1] is not None:
                per_request[:] = got[1]
            return got[0]
        self.replays += 1
        result = run(self.jobs, spec, self.indexes, per_request)
        self._runs[key] = (result, array(per_request.typecode, per_request) if per_request is not None else None)
        return result
