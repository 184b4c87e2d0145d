"""Chat endpoint that keeps the prefix stable: the static rules first, the customer's
history next, and everything about this request in the last user message."""

import json
from datetime import datetime

from fastapi import FastAPI, Request
from openai import AsyncOpenAI
from pydantic import BaseModel

app = FastAPI()
llm = AsyncOpenAI(base_url="http://vllm:8000/v1", api_key="unused")

RULES = """You are the Corvina support assistant. Follow the Corvina support policy. Answer in
short numbered steps, cite the policy section you used, never promise refunds the policy does
not allow, and escalate billing disputes above one hundred dollars to a human agent."""


class ChatRequest(BaseModel):
    customer_name: str
    message: str
    history: list[dict] = []


@app.post("/chat")
async def chat(req: ChatRequest):
    messages = [{"role": "system", "content": RULES}]
    messages.extend(req.history)
    messages.append({"role": "user", "content": f"{req.message}\n\n(Customer: {req.customer_name}, {datetime.now():%H:%M})"})
    reply = await llm.chat.completions.create(model="corvina-support", messages=messages, max_tokens=400)
    return {"reply": reply.choices[0].message.content}


@app.post("/chat/v2")
async def chat_v2(request: Request):
    body = await request.json()
    settings = json.dumps(body.get("account_settings", {}), sort_keys=True)
    reply = await llm.chat.completions.create(
        model="corvina-support",
        messages=[
            {"role": "system", "content": RULES},
            {"role": "user", "content": f"Account settings: {settings}\n\n{body['message']}"},
        ],
    )
    return {"reply": reply.choices[0].message.content, "settings": json.loads(settings)}
