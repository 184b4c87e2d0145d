"""The scheduler's in-batch check answers as SGLang's radix tree of the requests ahead.

The check (issue 37) keeps a set of leading ids per namespace instead of building a radix
tree every scheduling round; it must give exactly the tree's answers.
"""

from __future__ import annotations

import random

from advisor.index.radix import RadixTree, pack
from advisor.simulate.model import Job
from advisor.simulate.schedulers import IN_BATCH_DEPRIORITIZE, _Ahead


def _tree_answers(jobs: list[Job]) -> list[bool]:
    """SGLang's in-batch check as the scheduler did it: a radix tree of the requests ahead
    per namespace; a request sharing the threshold waits, any other joins the tree."""
    trees: dict[str, RadixTree] = {}
    out = []
    for job in jobs:
        tree = trees.setdefault(job.namespace, RadixTree(1))
        if job.tokens_of(tree.match(job.key)) >= IN_BATCH_DEPRIORITIZE:
            out.append(True)
        else:
            tree.insert(job.key)
            out.append(False)
    return out


def test_in_batch_check_matches_the_radix_tree():
    rng = random.Random(37)
    for _ in range(300):
        heads = [[rng.randrange(3) for _ in range(rng.randrange(0, 40))] for _ in range(4)]
        jobs = []
        for i in range(rng.randrange(1, 30)):
            unit = rng.choice((1, 1, 1, 16, 512))
            ids = list(rng.choice(heads)) + [rng.randrange(4) for _ in range(rng.randrange(0, 50))]
            prompt = len(ids) * unit - (rng.randrange(unit) if unit > 1 and ids else 0)
            if unit == 1 and rng.random() < 0.1:
                prompt = rng.randrange(0, 40)  # a prompt shorter than its ids (capped matches)
            jobs.append(Job(i, rng.choice(("a", "b", f"a{unit}")), pack(ids), max(prompt, 0), unit))
        ahead = _Ahead()
        assert [ahead.shares_else_add(j) for j in jobs] == _tree_answers(jobs)
