"""Offline batch summarisation with vLLM.

Planted defect: every prompt starts with a fresh timestamp, so the 60-token instruction
after it is prefilled again for every document.
"""

import json
import sys
import time

from vllm import LLM, SamplingParams

INSTRUCTION = (
    "Summarize the following incident report in five concise bullet points for a busy on-call "
    "engineer. Lead with customer impact, then root cause, then the fix and any follow-up work. "
    "Quote error messages exactly. Do not speculate beyond what the report says."
)


def main(path: str) -> None:
    docs = [json.loads(line)["text"] for line in open(path, encoding="utf-8")]
    prompts = [f"Generated at {time.time():.0f}\n{INSTRUCTION}\n\nReport:\n{doc}\n\nSummary:" for doc in docs]
    llm = LLM(model="meta-llama/Llama-3.1-8B-Instruct", enable_prefix_caching=True)
    outputs = llm.generate(prompts, SamplingParams(temperature=0.0, max_tokens=256))
    for out in outputs:
        print(out.outputs[0].text)


if __name__ == "__main__":
    main(sys.argv[1])
