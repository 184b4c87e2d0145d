"""Offline batch summarisation with vLLM: the instruction leads every prompt, the document
follows it, so the instruction's KV cache is computed once for the whole batch."""

import json
import sys
from datetime import datetime

from vllm import LLM, SamplingParams

INSTRUCTION = (
    "Summarize the following incident report in five concise bullet points for a busy on-call "
    "engineer. Lead with customer impact, then root cause, then the fix and any follow-up work."
)
SYSTEM = "You are a precise technical writer. You never speculate beyond the text you are given."


def load(path: str) -> list[str]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line)["text"] for line in f]


def main(path: str) -> None:
    docs = load(path)
    llm = LLM(model="meta-llama/Llama-3.1-8B-Instruct", enable_prefix_caching=True)
    params = SamplingParams(temperature=0.0, max_tokens=256)
    prompts = [f"{INSTRUCTION}\n\nReport:\n{doc}\n\nSummary:" for doc in docs]
    outputs = llm.generate(prompts, params)
    conversations = [
        [{"role": "system", "content": SYSTEM}, {"role": "user", "content": f"{INSTRUCTION}\n\n{doc}"}]
        for doc in docs
    ]
    chats = llm.chat(conversations, params)
    stamp = datetime.now().isoformat()
    with open(f"summaries-{stamp}.jsonl", "w", encoding="utf-8") as out:
        for doc, a, b in zip(docs, outputs, chats):
            out.write(json.dumps({"doc": doc[:80], "summary": a.outputs[0].text, "chat": b.outputs[0].text}) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
