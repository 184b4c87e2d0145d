"""Chat requests that vary every dimension a chat template and an engine's preprocessing
react to: system or not, one or many turns, tool definitions (none, empty, several, with
and without optional fields), assistant tool calls with string, object, empty and broken
arguments, tool results (string, parts, null), null content, content parts, unicode,
empty strings, padding whitespace, names, reasoning text, request options.

Deterministic: request ``i`` of ``corpus(n, seed)`` is always the same.
"""

from __future__ import annotations

import json
import random
from typing import Any

TEXTS = [
    "Hello", "What's the weather in Paris?", "  padded with spaces  ", "", "multi\nline\ntext",
    "Ünïcödé façade – naïve café", "日本語のテキストです", "emoji 🚀🔥 and ZWJ 👩‍💻", "مرحبا بالعالم",
    "quotes \" and \\ backslash", "{\"looks\": \"like json\"}", "tab\tseparated", "<b>html</b> & ampersand",
    "trailing newline\n", "Ελληνικά κείμενα", "1234567890", "a" * 50,
]
SYSTEMS = ["You are a helpful assistant.", "Be brief. ", "", "Système: réponds en français 🇫🇷", "  \n  "]

TOOLS = [
    {"type": "function", "function": {"name": "get_weather", "description": "Weather for a city",
                                      "parameters": {"type": "object",
                                                     "properties": {"city": {"type": "string",
                                                                             "description": "City name"},
                                                                    "unit": {"type": "string",
                                                                             "enum": ["c", "f"]}},
                                                     "required": ["city"]}}},
    {"type": "function", "function": {"name": "search", "parameters": {"type": "object", "properties": {
        "q": {"type": "string"}, "k": {"type": "integer"}, "tags": {"type": "array", "items": {"type": "string"}}}}}},
    {"type": "function", "function": {"name": "now", "description": "Current time, ünïcode ✓"}},
    {"function": {"name": "strict_tool", "description": "d", "strict": True,
                  "parameters": {"type": "object", "properties": {"x": {"type": "number"}}}}},
    {"type": "function", "function": {"name": "extra_keys", "description": "has extras", "parameters": {},
                                      "x-owner": "team-a"}, "x-tag": 1},
]


def _text(rng: random.Random) -> str:
    return rng.choice(TEXTS)


def _content(rng: random.Random, allow_parts: bool = True, allow_null: bool = False) -> Any:
    r = rng.random()
    if allow_null and r < 0.1:
        return None
    if allow_parts and r < 0.35:
        n = rng.randint(1, 3)
        return [{"type": "text", "text": _text(rng)} for _ in range(n)]
    return _text(rng)


def _arguments(rng: random.Random, name: str) -> Any:
    value = {"city": rng.choice(["Paris", "東京", "São Paulo"]), "n": rng.randint(0, 9)}
    r = rng.random()
    if r < 0.4:
        return json.dumps(value, ensure_ascii=rng.random() < 0.5)
    if r < 0.75:
        return value
    if r < 0.85:
        return ""
    if r < 0.93:
        return "{not json"
    return "[1, 2]"


def _call(rng: random.Random, i: int) -> dict:
    name = rng.choice(["get_weather", "search", "now"])
    call_id = rng.choice([f"call{i:05d}", f"id{i}"])  # 9 characters, or not (Mistral checks)
    call: dict = {"id": call_id, "type": "function", "function": {"name": name, "arguments": _arguments(rng, name)}}
    if rng.random() < 0.2:
        call["index"] = i
    return call


def request(i: int, seed: int = 0) -> dict:
    rng = random.Random(seed * 100_003 + i)
    messages: list[dict] = []
    if rng.random() < 0.6:
        messages.append({"role": "system", "content": _content(rng, allow_parts=rng.random() < 0.3)
                         if rng.random() < 0.3 else rng.choice(SYSTEMS)})
    turns = rng.randint(1, 4)
    call_n = 0
    for t in range(turns):
        user: dict = {"role": "user", "content": _content(rng)}
        if rng.random() < 0.1:
            user["name"] = "alice"
        messages.append(user)
        last = t == turns - 1
        if last and rng.random() < 0.8:
            break
        r = rng.random()
        if r < 0.4:
            calls = [_call(rng, call_n + k) for k in range(1 if rng.random() < 0.8 else 2)]
            call_n += len(calls)
            asst: dict = {"role": "assistant", "content": None if rng.random() < 0.7 else _text(rng),
                          "tool_calls": calls}
            if rng.random() < 0.2:
                asst["reasoning_content"] = "thinking about " + _text(rng)
            messages.append(asst)
            for call in calls:
                result: Any = rng.choice(["22 C and sunny", "", '{"ok": true}', "résultat ✓"])
                if rng.random() < 0.2:
                    result = [{"type": "text", "text": "part one"}, {"type": "text", "text": "part two"}]
                elif rng.random() < 0.1:
                    result = None
                messages.append({"role": "tool", "tool_call_id": call["id"], "content": result})
            if rng.random() < 0.6:
                messages.append({"role": "assistant", "content": _text(rng)})
        else:
            asst = {"role": "assistant", "content": _content(rng, allow_parts=rng.random() < 0.3, allow_null=True)}
            if rng.random() < 0.15:
                asst["reasoning_content"] = "let me think"
            if rng.random() < 0.05:
                asst["tool_calls"] = []
            messages.append(asst)
    req: dict = {"messages": messages}
    r = rng.random()
    if r < 0.15:
        req["tools"] = []
    elif r < 0.6:
        req["tools"] = rng.sample(TOOLS, rng.randint(1, 3))
    r = rng.random()
    if r < 0.08:
        req["tool_choice"] = "none"
    elif r < 0.12 and req.get("tools"):
        req["tool_choice"] = {"type": "function", "function": {"name": req["tools"][0]["function"]["name"]}}
    r = rng.random()
    if r < 0.1:
        req["chat_template_kwargs"] = {"enable_thinking": False}
    elif r < 0.15:
        req["chat_template_kwargs"] = {"date_string": "01 Dec 2026", "tools_in_user_message": False}
    elif r < 0.18:
        req["reasoning_effort"] = rng.choice(["low", "high", "none"])
    if rng.random() < 0.05 and messages[-1]["role"] == "assistant":
        req["continue_final_message"] = True
        req["add_generation_prompt"] = False
    req["timestamp"] = 1_764_547_200 + i * 3600 if rng.random() < 0.7 else None
    if req["timestamp"] is None:
        del req["timestamp"]
    return req


# Requests written by hand for cases a random draw may miss.
EDGE_CASES: list[dict] = [
    {"messages": [{"role": "user", "content": ""}]},
    {"messages": [{"role": "system", "content": ""}, {"role": "user", "content": "x"}]},
    {"messages": [{"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}]},
    {"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": None}]},
    {"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "partial"}],
     "continue_final_message": True, "add_generation_prompt": False},
    {"messages": [{"role": "user", "content": "weather?"},
                  {"role": "assistant", "content": None,
                   "tool_calls": [{"id": "call00001", "type": "function",
                                   "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}}]},
                  {"role": "tool", "tool_call_id": "call00001", "content": None},
                  {"role": "user", "content": "thanks"}],
     "tools": [TOOLS[0]]},
    {"messages": [{"role": "user", "content": "x"}], "tools": []},
    {"messages": [{"role": "system", "content": "s"}], "tools": [TOOLS[1]]},
    {"messages": [{"role": "user", "content": [{"type": "text", "text": "see"},
                                               {"type": "image_url", "image_url": {"url": "http://img/1.png"}}]}]},
    {"messages": [{"role": "user", "content": "🚀"}, {"role": "assistant", "content": "",
                                                     "tool_calls": [{"id": "call00002", "type": "function",
                                                                     "function": {"name": "now", "arguments": {}}}]},
                  {"role": "tool", "tool_call_id": "call00002",
                   "content": [{"type": "text", "text": "12:00"}]}], "tools": [TOOLS[2]]},
]


def corpus(n: int, seed: int = 0) -> list[dict]:
    return EDGE_CASES + [request(i, seed) for i in range(n)]
