"""Small generated workloads for the simulator tests (seeded, deterministic)."""

from __future__ import annotations

import json
import random
from array import array
from pathlib import Path

from advisor.ingest.pipeline import Sequence
from advisor.index.radix import pack
from advisor.simulate.cache import make_pool
from advisor.simulate.model import HitRules, Job
from advisor.simulate.pool import replay_one
from advisor.ingest.traffic import Request


def token_jobs(seed: int = 0, n: int = 120, groups: int = 5, prefix: int = 70, tail: int = 30,
               dup: float = 0.15, tenants: tuple[str, ...] = ()) -> list[Job]:
    """Token-id requests: a few shared prefixes of varied length, random tails, some
    exact repeats (so the L-1 cap and page rounding matter)."""
    rng = random.Random(seed)
    heads = [[rng.randrange(1000) for _ in range(rng.randint(prefix // 2, prefix))] for _ in range(groups)]
    jobs: list[Job] = []
    seen: list[list[int]] = []
    for i in range(n):
        if seen and rng.random() < dup:
            ids = list(rng.choice(seen))
        else:
            head = rng.choice(heads)
            ids = head[: rng.randint(1, len(head))] + [rng.randrange(1000) for _ in range(rng.randint(1, tail))]
        seen.append(ids)
        tenant = tenants[i % len(tenants)] if tenants else None
        jobs.append(Job(i, "tokens", pack(ids), len(ids), 1, float(i), rng.randint(1, 8), tenant))
    return jobs


def hash_jobs(seed: int = 0, n: int = 80, unit: int = 32) -> list[Job]:
    """Block-hash requests (Mooncake style): chained ids, partial last block."""
    rng = random.Random(seed)
    trunks = [[rng.randrange(10_000) for _ in range(rng.randint(1, 6))] for _ in range(4)]
    jobs = []
    for i in range(n):
        trunk = rng.choice(trunks)
        ids = trunk[: rng.randint(1, len(trunk))] + [rng.randrange(10_000) for _ in range(rng.randint(0, 3))]
        length = unit * (len(ids) - 1) + rng.randint(1, unit)
        jobs.append(Job(i, "hash:x", pack(ids), length, unit, float(i), 4, None))
    return jobs


def as_sequences(jobs: list[Job]) -> list[Sequence]:
    out = []
    for j in jobs:
        ids = array("I")
        ids.frombytes(j.key)
        req = Request("gen", j.index + 1, "input_ids" if j.unit == 1 else "hash_ids", tenant=j.tenant)
        out.append(Sequence(req, j.namespace, ids, j.prompt_tokens, j.unit))
    return out


def write_jsonl(path: Path, jobs: list[Job], timestamps: bool = False) -> Path:
    with path.open("w") as fh:
        for j in jobs:
            ids = array("I")
            ids.frombytes(j.key)
            rec: dict = {"input_ids": ids.tolist(), "output_length": j.output_len}
            if j.tenant:
                rec["tenant"] = j.tenant
            if timestamps:
                rec["timestamp"] = j.arrival
            fh.write(json.dumps(rec) + "\n")
    return path


def pool_hits(jobs: list[Job], eviction: str, capacity: int | None, rules: HitRules) -> list[int]:
    """Cached tokens of each job replayed one at a time through one pool."""
    pool = make_pool(eviction, capacity, rules)
    return [replay_one(pool, job).cached for job in jobs]
