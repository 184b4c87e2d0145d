"""Model router for the Tallyfold support bot (LiteLLM Router over two deployments).

Planted defects: a request id in the system prompt, and the tool list cut to the tools the
caller enabled.
"""

import uuid

from litellm import Router

router = Router(model_list=[
    {"model_name": "support", "litellm_params": {"model": "openai/gpt-4o-mini"}},
    {"model_name": "support", "litellm_params": {"model": "anthropic/claude-3-5-haiku-latest"}},
])

POLICY = """You are Juniper, the support assistant of Tallyfold, an invoicing service for small
businesses. Answer billing, invoicing and payment questions. Never change a customer's plan
or issue a refund yourself: explain the steps and offer to open a ticket. Use the tools to look
up invoices and payments before you answer questions about them."""

TOOLS = [
    {"type": "function", "function": {"name": "get_invoice", "description": "Look up an invoice by number.",
                                      "parameters": {"type": "object", "properties": {"number": {"type": "string"}}}}},
    {"type": "function", "function": {"name": "list_payments", "description": "Payments of the customer's account.",
                                      "parameters": {"type": "object", "properties": {"limit": {"type": "integer"}}}}},
    {"type": "function", "function": {"name": "open_ticket", "description": "Open a support ticket for a human agent.",
                                      "parameters": {"type": "object", "properties": {"summary": {"type": "string"}}}}},
]


async def reply(message: str, enabled_tools: list[str]):
    request_id = uuid.uuid4().hex[:8]
    system = f"[request {request_id}]\n{POLICY}"
    tools = [t for t in TOOLS if t["function"]["name"] in enabled_tools]
    return await router.acompletion(
        model="support",
        messages=[{"role": "system", "content": system}, {"role": "user", "content": message}],
        tools=tools,
    )
