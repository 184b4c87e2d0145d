"""Chat endpoint of the Corvina console (FastAPI + OpenAI-compatible vLLM server).

Planted defects: the customer's name opens the system prompt, and the account settings
from the request body are serialized in whatever key order the client sent.
"""

import json

from fastapi import FastAPI, Request
from openai import AsyncOpenAI
from pydantic import BaseModel

app = FastAPI()
llm = AsyncOpenAI(base_url="http://vllm:8000/v1", api_key="unused")

RULES = """Follow the Corvina support policy. Answer in short numbered steps, cite the policy
section you used, never promise refunds the policy does not allow, and escalate billing
disputes above one hundred dollars to a human agent. If the question is about a feature the
customer's plan does not include, say which plan includes it."""


class ChatRequest(BaseModel):
    customer_name: str
    message: str
    history: list[dict] = []


@app.post("/chat")
async def chat(req: ChatRequest):
    messages = [{"role": "system", "content": f"You are helping {req.customer_name}.\n{RULES}"}]
    messages += req.history
    messages.append({"role": "user", "content": req.message})
    reply = await llm.chat.completions.create(model="corvina-support", messages=messages)
    return {"reply": reply.choices[0].message.content}


@app.post("/chat/v2")
async def chat_v2(request: Request):
    body = await request.json()
    settings = json.dumps(body["account_settings"])
    system = f"Account settings: {settings}\n\n{RULES}"
    reply = await llm.chat.completions.create(
        model="corvina-support",
        messages=[{"role": "system", "content": system}, {"role": "user", "content": body["message"]}],
    )
    return {"reply": reply.choices[0].message.content}
