"""Short lines in another order per request at the end of a message that a raw prompt spells
with chat markup (a glossary closing the system text, the user turn right after it): the last
line of the list and the next turn's text are one line of the prompt, so a sort of the lines
must stop at the markup, or the line glued to each request's question moves with it and the
sorted lists still differ. A blind set's shape (a Korean/Portuguese glossary in a raw harmony
prompt), generated here over three markup layouts, line counts and line shapes; each checked
through the CLI against the brute-force truth of its ideally fixed traffic (``zoo.truth``)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tests.diagnose import zoo
from tests.diagnose.test_regressions_12c import TOLERANCE, _prescribe

TERMS = [("contrato", "계약"), ("senhorio", "임대인"), ("arrendatário", "임차인"), ("procuração", "위임장"),
         ("notarização", "공증"), ("foro", "관할"), ("indemnização", "손해배상"), ("resolução", "해지"),
         ("cessão", "양도"), ("caução", "보증금"), ("juros", "이자"), ("dívida", "채무"), ("crédito", "채권"),
         ("registo", "등기"), ("pessoa colectiva", "법인"), ("administrador", "대표이사"),
         ("assembleia geral", "주주총회"), ("estatutos", "정관"), ("acordo", "합의"), ("acção judicial", "소송")]

# (system opener, end of the system message and opener of the user turn, generation prompt)
LAYOUTS = {
    "harmony": ("<|start|>system<|message|>", "<|end|><|start|>user<|message|>", "<|end|><|start|>assistant"),
    "chatml": ("<|im_start|>system\n", "<|im_end|>\n<|im_start|>user\n", "<|im_end|>\n<|im_start|>assistant\n"),
    "llama3": ("<|start_header_id|>system<|end_header_id|>\n\n", "<|eot_id|><|start_header_id|>user<|end_header_id|>\n\n",
               "<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n"),
}


def _lines(count: int, both: bool) -> list[str]:
    out = [f"{ko} = {pt}" for pt, ko in TERMS[:count]]
    if both:  # variant pairs as a second kind of line
        out += [f"{pt} (pt-PT) ≠ {pt} (pt-BR): {ko}" for pt, ko in TERMS[:count]]
    return out


@pytest.mark.parametrize("layout,count,both,seed", [("harmony", 20, True, 1), ("chatml", 16, False, 2),
                                                     ("llama3", 12, True, 3)])
def test_lines_sorted_up_to_the_markup_that_ends_their_message(tmp_path: Path, cli, layout: str, count: int,
                                                               both: bool, seed: int) -> None:
    rng = random.Random(seed)
    opener, turn, reply = LAYOUTS[layout]
    system = "\n\n".join(zoo.persona(f"glossary-{layout}-{k}") for k in range(8))
    lines = _lines(count, both)
    bank = [zoo.question(rng) for _ in range(6)]
    records, fixed = [], []
    for _ in range(60):
        q = rng.choice(bank)
        for out, order in ((records, rng.sample(lines, len(lines))), (fixed, lines)):
            out.append({"prompt": f"{opener}{system}\n\nGlossary:\n" + "\n".join(order) + f"{turn}{q}{reply}"})
    w = zoo.Workload(f"glossary-{layout}", "prompt", records, fixed, [])
    data = _prescribe(tmp_path, cli, w)
    orders = [f for f in data["findings"] if f["code"] == "TR201"]
    assert len(orders) == 1, [(f["code"], f["token_offset"], f["example"][:60]) for f in data["findings"]]
    truth = zoo.truth(w)
    assert truth - zoo.truth(zoo.Workload(w.name, w.kind, records, records, [])) > 0.05  # the order costs
    assert abs(data["hit_rate_after"] - truth) <= TOLERANCE, (data["hit_rate_after"], truth, data["actions"])
