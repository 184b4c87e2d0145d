"""Mistral chats as vLLM renders them with ``--tokenizer-mode mistral``: no Jinja, the
request goes to ``mistral-common``, which encodes the conversation straight to token ids
(``encode_chat_completion``). The messages are first those vLLM's preprocessing builds
(string content, tool-call arguments as objects).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from advisor.errors import AdvisorError
from advisor.ingest.family_tokenizers import mistral_common_tokenizer
from advisor.ingest.preprocess import check_mistral_tokenizer_request, prepare


@dataclass
class MistralChat:
    tokenizer_name: str
    name: str = "mistral-common"
    engine: str = "vllm"  # or an engine_spec: "vllm==0.34.0"
    timezone: dt.tzinfo = field(default=dt.timezone.utc, repr=False)

    def encode_chat(self, messages: Sequence[dict[str, Any]], tools: Sequence[Any] | None,
                    timestamp: float | None = None, options: Mapping[str, Any] | None = None) -> list[int]:
        from mistral_common.protocol.instruct.request import ChatCompletionRequest

        prepared = prepare(self.engine, messages, tools, options, "string")
        check_mistral_tokenizer_request(prepared)
        try:
            request = ChatCompletionRequest.from_openai(prepared.messages, tools=prepared.tools or None,
                                                        continue_final_message=prepared.continue_final_message)
            tokens = mistral_common_tokenizer(self.tokenizer_name).encode_chat_completion(request).tokens
        except Exception as exc:  # mistral-common's validation errors (pydantic, its own): one line
            text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise AdvisorError(f"mistral-common refuses the conversation: {text}")
        return list(tokens)

    def render(self, messages: Sequence[dict[str, Any]], tools: Sequence[Any] | None,
               timestamp: float | None = None, options: Mapping[str, Any] | None = None) -> str:
        from advisor.ingest.tokenizers import load_tokenizer

        return load_tokenizer(self.tokenizer_name).decode(self.encode_chat(messages, tools, timestamp, options))
