"""Independent measurements of generated traffic: the test renders and tokenizes itself,
through the pipeline's chat layout (Llama 3.1 Instruct's, checked against transformers)."""

from __future__ import annotations

from advisor.ingest.chat import Llama3Layout
from advisor.ingest.tokenizers import load_tokenizer

EOT_AND_ASSISTANT = "<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n"


def rendered(record: dict) -> str:
    return Llama3Layout().render(record["messages"], None, record.get("timestamp"))


def tokens(text: str) -> int:
    return len(load_tokenizer("llama3").encode(text))


def layout_tokens(*roles: str) -> int:
    """Tokens of the layout alone for messages of these roles (empty contents)."""
    return tokens(Llama3Layout().render([{"role": r, "content": ""} for r in roles], None, None))


def section_token_lengths(record: dict, pieces, tokenizer: str = "llama3") -> list[int]:
    """Tokens each piece adds to the rendered prompt: the prompt's tokens up to the end of
    the piece minus those up to its start, each prefix tokenized on its own and checked to
    be a prefix of the whole prompt's tokens (so a length is where the engine's tokens
    really fall). A piece that closes with a period ends after the blank line that follows
    it, which Llama 3 spells with the period in one token (".\\n\\n")."""
    tok = load_tokenizer(tokenizer)
    text = rendered(record)
    full = tok.encode(text)
    by_message: dict[int, list] = {}
    for p in pieces:
        by_message.setdefault(p.message, []).append(p)
    out = []
    at = 0
    for i, m in enumerate(record["messages"]):
        parts = by_message.get(i, [])
        assert "\n\n".join(p.text for p in parts) == m["content"], "pieces and blank lines do not make up the message"
        at = text.index(m["content"], at)
        for j, p in enumerate(parts):
            if j:
                at += 2  # the blank line between two sections
            before = tok.encode(text[:at])
            assert full[: len(before)] == before, "a section starts inside a token"
            at += len(p.text)
            after = tok.encode(text[:at])
            if full[: len(after)] != after and j + 1 < len(parts) and p.text.endswith("."):
                after = tok.encode(text[:at + 2])  # its period's token holds the blank line
            assert full[: len(after)] == after, "a section ends inside a token"
            out.append(len(after) - len(before))
    return out
