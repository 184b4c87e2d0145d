"""Model router with fallbacks; ids and timing go to metadata, never into the prompt."""

import uuid

import litellm
from litellm import Router

router = Router(model_list=[
    {"model_name": "support", "litellm_params": {"model": "openai/gpt-4o-mini"}},
    {"model_name": "support", "litellm_params": {"model": "anthropic/claude-3-5-haiku-latest"}},
], fallbacks=[{"support": ["support-backup"]}])

POLICY = """You are Juniper, the support assistant of Tallyfold, an invoicing service for small
businesses. Answer billing, invoicing and payment questions. Never change a customer's plan
or issue a refund yourself: explain the steps and offer to open a ticket."""

TOOLS = [
    {"type": "function", "function": {"name": "get_invoice", "description": "Look up an invoice by number.",
                                      "parameters": {"type": "object", "properties": {"number": {"type": "string"}}}}},
    {"type": "function", "function": {"name": "open_ticket", "description": "Open a support ticket for a human agent.",
                                      "parameters": {"type": "object", "properties": {"summary": {"type": "string"}}}}},
]


async def reply(message: str, history: list[dict], use_tools: bool = True):
    request_id = uuid.uuid4().hex
    kwargs = {
        "model": "support",
        "messages": [{"role": "system", "content": POLICY}, *history, {"role": "user", "content": message}],
        "metadata": {"request_id": request_id},
    }
    if use_tools:
        kwargs["tools"] = TOOLS
    return await router.acompletion(**kwargs)


def one_shot(message: str):
    return litellm.completion(
        model="openai/gpt-4o-mini",
        messages=[{"role": "system", "content": POLICY}, {"role": "user", "content": message}],
        tools=TOOLS if message.endswith("?") else None,
    )
