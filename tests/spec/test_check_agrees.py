"""`spec check` agrees with `plan` (issue 35): it passes a spec, with plan's options that
stand in for the spec's fields, exactly when plan's generation step accepts it.

The generation step is what `plan` runs before the report (``advisor.spec.plan.plan``): the
spec's traffic and the recipe's reordered traffic, every request of both. The oracle here
reads the file's fields only (``parse_spec``, none of the whole-spec checks), applies the
options as plain field replacements and generates both traffics whole; the check is the
command. The specs are valid field by field, so that they differ where only generation
shows it: clock lines against their sections' tokens (fixed, ranges, normals, a later turn's
clock), tokenizers, shuffled messages, and the options that change the requests and times.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from advisor.errors import AdvisorError
from advisor.spec.generate import generate
from advisor.spec.load import parse_spec
from advisor.spec.model import Length
from advisor.spec.recipe import recipe

BASE = """\
name: agree
requests: 60
arrival: {rate: 2}
messages:
  - role: system
    sections:
      - {name: now, tokens: NOW, vary: {clock: {resolution_seconds: 1}}}
      - {name: passages, tokens: 40, vary: {retrieved: {documents: 50, k: 2}}}
      - {name: rules, tokens: 150}
  - role: user
    sections:
      - {name: question, tokens: {min: 5, max: 20}, vary: request}
"""

# The clock line "Current time: 2026-12-01 09:00:00 UTC" is 17 Llama 3 tokens, the day
# line "Today is Tuesday, 01 December 2026" 10.
CONVERSATION = """\
conversation:
  turns: 3
  think_seconds: 5
  append:
    - role: user
      sections:
        - {name: later, tokens: LATER, vary: {clock: {resolution_seconds: 1}}}
        - {name: follow-up, tokens: 12, vary: request}
"""


def _spec(now: str = "17", extra: str = "", **edits: str) -> str:
    text = BASE.replace("NOW", now)
    for old, new in edits.items():
        assert old in text, old
        text = text.replace(old, new, 1)
    return text + extra


CASES = [
    ("fits", _spec(), {}),
    ("short", _spec("12"), {}),
    ("range-below", _spec("{min: 14, max: 30}"), {}),
    ("range-fits", _spec("{min: 17, max: 30}"), {}),
    ("range-rarely-below", _spec("{min: 16, max: 80}"), {}),
    ("normal", _spec("{mean: 19, sd: 1.5}"), {}),
    ("day-fits", _spec("10", **{"resolution_seconds: 1}": "resolution_seconds: 86400}"}), {}),
    ("day-short", _spec("9", **{"resolution_seconds: 1}": "resolution_seconds: 86400}"}), {}),
    ("mistral", _spec(extra="tokenizer: mistral-v3\n"), {}),
    ("cl100k", _spec(extra="tokenizer: cl100k\n"), {}),
    ("shuffled", _spec(**{"  - role: system\n": "  - role: system\n    shuffle: true\n"}), {}),
    ("later-turn-short", _spec(extra=CONVERSATION.replace("LATER", "12")), {}),
    ("later-turn-fits", _spec(extra=CONVERSATION.replace("LATER", "17")), {}),
    ("more-requests", _spec("{min: 16, max: 80}"), {"requests": 200}),
    ("seed-1", _spec("{min: 16, max: 80}"), {"seed": 1}),
    ("seed-2", _spec("{min: 16, max: 80}"), {"seed": 2}),
    ("seed-3", _spec("{mean: 19, sd: 1.5}"), {"seed": 3}),
    ("slower", _spec("{min: 16, max: 40}"), {"rate": 0.2}),
    ("faster", _spec("{min: 16, max: 40}"), {"rate": 40.0}),
    ("short-outputs", _spec(extra=CONVERSATION.replace("LATER", "17")), {"output_len": 3}),
    ("too-slow", _spec(), {"rate": 1e-9}),
]

OPTION = {"requests": "--requests", "seed": "--seed", "rate": "--rate", "output_len": "--output-len"}


def _plan_generates(text: str, options: dict) -> bool:
    """Whether plan's generation step accepts the spec with these options."""
    spec = parse_spec(text, "spec.yaml")
    if "requests" in options:
        spec = replace(spec, requests=options["requests"])
    if "seed" in options:
        spec = replace(spec, seed=options["seed"])
    if "rate" in options:
        spec = replace(spec, rate=options["rate"], timestamps=True)
    if "output_len" in options:
        spec = replace(spec, output_tokens=Length(fixed=options["output_len"], minimum=1))
    try:
        if spec.rate < 1e-6:
            return False  # plan takes no rate that low (advisor.spec.model.MIN_RATE)
        generate(spec)
        generate(recipe(spec))  # (the same text when the recipe changes nothing)
    except AdvisorError:
        return False
    return True


@pytest.mark.parametrize("name,text,options", CASES, ids=[c[0] for c in CASES])
def test_spec_check_passes_exactly_what_plan_generates(cli, tmp_path, name, text, options):
    path = tmp_path / f"{name}.yaml"
    path.write_text(text)
    args = [a for key, value in options.items() for a in (OPTION[key], str(value))]
    res = cli("spec", "check", path, *args)
    assert res.code in (0, 2), res.err
    assert (res.code == 0) == _plan_generates(text, options), (res.out, res.err)
    if res.code:
        # Refused in one line, naming the file and line or the option that caused it.
        line = res.err.strip()
        assert "\n" not in line and "Traceback" not in line
        assert line.startswith(f"advisor: error: {path}:") or any(f"{o} " in line for o in OPTION.values()), line


def test_the_cases_are_both_kinds():
    # The agreement means something only if both answers occur, and where the check must
    # read past the first requests it generates (the other clock values of a range).
    accepted = {name: _plan_generates(text, options) for name, text, options in CASES}
    assert sum(accepted.values()) >= 6 and sum(not ok for ok in accepted.values()) >= 6
    assert accepted["fits"] and not accepted["short"] and not accepted["mistral"] and accepted["cl100k"]
    assert not accepted["later-turn-short"] and accepted["later-turn-fits"]
