"""A reading whose first words are static ("Voicing room 53% RH ..."), on a line after worked
examples in another order per request, in raw prompts a client writes in Gemma's and
DeepSeek's markup. The fifteenth held-out set's shape: pairs of requests that differ only
after the reading's first words see the span start at the label's end, and the left side
that the examples' last sentence gives finds other text where they come in another order;
the move must anchor on the label and the reading's static words, and put the reading at
the end of the user turn (before the turn's closing markup, not in the model's turn).
Checked through the CLI against the brute-force truth of the ideally fixed traffic."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tests.oracle import after_fix_matches

from tests.diagnose import zoo
from tests.diagnose.test_regressions_12c import TOLERANCE, _prescribe

LAYOUTS = {
    "gemma": ("<start_of_turn>user\n", "<end_of_turn>\n<start_of_turn>model\n"),
    "deepseek": ("<｜User｜>", "<｜Assistant｜>"),
}


def _examples(rng: random.Random, n: int) -> list[str]:
    # Answers that end alike: the examples' last sentence recurs in several of them.
    return [f"Q: {zoo.question(rng)}\nA: {zoo.sentence(rng, 16, 30)} That keeps the pipes safe."
            for _ in range(n)]


def _reading(rng: random.Random) -> str:
    return (f"Workshop now: Voicing room {rng.randint(40, 70)}% RH at {rng.randint(120, 220) / 10} °C, "
            f"bench room {rng.randint(40, 70)}% RH")


@pytest.mark.parametrize("layout,count,seed", [("gemma", 5, 1), ("deepseek", 4, 2)])
def test_a_reading_after_shuffled_examples_moves_to_the_end_of_the_user_turn(tmp_path: Path, cli, layout: str,
                                                                              count: int, seed: int) -> None:
    rng = random.Random(seed)
    opener, closer = LAYOUTS[layout]
    head, handbook = zoo.persona(f"raw-{layout}-head"), "\n\n".join(zoo.persona(f"raw-{layout}-{k}") for k in range(6))
    examples = _examples(rng, count)
    records, fixed = [], []
    reading = _reading(rng)
    for i in range(60):
        if i % 6 == 0:
            reading = _reading(rng)  # a new reading every few requests
        q = zoo.question(rng)
        order = rng.sample(examples, len(examples))
        body = "\n\n".join(order)
        records.append({"prompt": f"{opener}{head}\n\nWorked examples:\n\n{body}\n\n{reading}\n\n{handbook}\n\n{q}{closer}"})
        canon = "\n\n".join(examples)
        fixed.append({"prompt": f"{opener}{head}\n\nWorked examples:\n\n{canon}\n\n{handbook}\n\n{q}\n\n{reading}{closer}"})
    w = zoo.Workload(f"raw-reading-{layout}", "prompt", records, fixed, [])
    data = _prescribe(tmp_path, cli, w)
    codes = sorted(f["code"] for f in data["findings"])
    assert codes == ["TR101", "TR201"], [(f["code"], f["token_offset"], f["example"][:60]) for f in data["findings"]]
    truth = zoo.truth(w)
    assert after_fix_matches(data, truth, TOLERANCE), (data["hit_rate_after"], truth, data["actions"])


# (head of the prompt, the user turn's text, what closes the turn and opens the answer)
PROMPTS = [
    ("<start_of_turn>user\nRules.\n\n", "Which temperament?", "<end_of_turn>\n<start_of_turn>model\n"),
    ("<|im_start|>system\nRules.<|im_end|>\n<|im_start|>user\n", "Which?", "<|im_end|>\n<|im_start|>assistant\n"),
    ("<|start_header_id|>user<|end_header_id|>\n\n", "Which?",
     "<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n"),
    ("<|start|>user<|message|>", "Which?", "<|end|><|start|>assistant<|channel|>final<|message|>"),
    # DeepSeek's markers hold the role: a short question after them is content, not a role.
    ("<｜begin▁of▁sentence｜>You are helpful.<｜User｜>", "What is 2+2?", "<｜Assistant｜>"),
    ("<｜User｜>Hi<｜Assistant｜>Hello<｜end▁of▁sentence｜><｜User｜>", "Thanks", "<｜Assistant｜><think>\n"),
    ("<s>[INST] ", "Thanks a lot", " [/INST]"),
    ("<|START_OF_TURN_TOKEN|><|USER_TOKEN|>", "q", "<|END_OF_TURN_TOKEN|><|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>"),
    ("Context.\n\nQuestion: is a > b", "?", "\nAnswer:"),
]
