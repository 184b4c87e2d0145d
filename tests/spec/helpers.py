"""Independent measurements of generated traffic: the test renders and tokenizes itself."""

from __future__ import annotations

from advisor.ingest.tokenizers import load_tokenizer

BOS = "<|begin_of_text|>"


def header(role: str) -> str:
    # Llama 3's chat layout as Meta documents it; the tool role is `ipython`.
    return f"<|start_header_id|>{'ipython' if role == 'tool' else role}<|end_header_id|>\n\n"


def rendered(record: dict) -> str:
    return BOS + "".join(header(m["role"]) + m["content"] + "<|eot_id|>" for m in record["messages"]) + header("assistant")


def section_token_lengths(record: dict, pieces, tokenizer: str = "llama3") -> list[int]:
    """Tokens each piece adds to the rendered prompt: the prompt's tokens up to the end
    of the piece minus those up to its start, each prefix tokenized on its own and checked
    to be a prefix of the whole prompt's tokens (so a length is where the engine's
    tokens really fall)."""
    tok = load_tokenizer(tokenizer)
    full = tok.encode(rendered(record))
    text = BOS
    out = []
    by_message: dict[int, list] = {}
    for p in pieces:
        by_message.setdefault(p.message, []).append(p)
    for i, m in enumerate(record["messages"]):
        text += header(m["role"])
        parts = by_message.get(i, [])
        assert "".join(p.text for p in parts) == m["content"], "pieces do not make up the message"
        for p in parts:
            before = tok.encode(text)
            text += p.text
            after = tok.encode(text)
            assert full[: len(after)] == after, "a section boundary falls inside a token"
            out.append(len(after) - len(before))
        text += "<|eot_id|>"
    return out
