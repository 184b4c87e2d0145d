"""The parametric set's clean controls through the diagnosis: no finding of a defect.

Each control (append-only sessions, locale variants, an A/B test of two prompts, a date that
changes once, single-shot documents) in each serving setup, the record kind rotated, analyzed
in process with the setup's tokenizer and chat template. A finding of TR101, TR102 or TR201
that claims more than CLAIM_SHARE of the prompt tokens is a false one (bench/accuracy.py's
test, on the whole set)."""

from __future__ import annotations

from typing import Any

import pytest

from advisor.api import analyze
from tests.diagnose import param

SEED = 12
CLAIM_SHARE = 0.01
DEFECT_CODES = ("TR101", "TR102", "TR104", "TR201")


def controls() -> list[param.Spec]:
    out = []
    for j, name in enumerate(param.CONTROLS):
        for k, setup in enumerate(param.SETUPS):
            kind = param.KINDS[(j + k) % len(param.KINDS)]
            out.append(next(s for s in param.SPECS.values() if (s.shape, s.kind, s.setup) == (name, kind, setup.name)))
    return out


@pytest.fixture(scope="module")
def engines() -> dict[str, Any]:
    return {st.setup.name: st.local_engine() for st in param.SETS.values()}


@pytest.mark.parametrize("spec", controls(), ids=lambda s: s.name)
def test_a_clean_control_has_no_defect_finding(spec: param.Spec, engines: dict[str, Any]) -> None:
    chosen = next(st for st in param.SETS.values() if st.setup.name == spec.setup)
    (w,) = chosen.build_workloads(SEED, engines[spec.setup], [spec.name])
    setup = chosen.setup
    options: dict[str, Any] = {"tokenizer": setup.tokenizer, "chat_template": setup.template} if setup.template else {}
    result = analyze(w.records, **options)
    claims = [(f.code, f.kind, f.token_offset, f.tokens_lost) for f in result.findings
              if f.code in DEFECT_CODES and f.tokens_lost > CLAIM_SHARE * result.prompt_tokens]
    assert not claims, claims
