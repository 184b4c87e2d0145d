"""Travel agent that "load-balances" its tools.

Planted defect: the tool list is shuffled before every call.
"""

import random

import litellm

TOOLS = [
    {"type": "function", "function": {"name": "search_flights", "description": "Search flights between two airports on a date.",
                                      "parameters": {"type": "object", "properties": {"origin": {"type": "string"}, "destination": {"type": "string"}, "date": {"type": "string"}}}}},
    {"type": "function", "function": {"name": "search_hotels", "description": "Search hotels in a city for a date range.",
                                      "parameters": {"type": "object", "properties": {"city": {"type": "string"}, "check_in": {"type": "string"}, "nights": {"type": "integer"}}}}},
    {"type": "function", "function": {"name": "book", "description": "Book an offer returned by a search.",
                                      "parameters": {"type": "object", "properties": {"offer_id": {"type": "string"}}}}},
]

SYSTEM = ("You are a travel assistant. Search before you suggest anything, never book without the traveller's "
          "explicit confirmation, and always state prices with their currency and what they include.")


def plan_trip(request: str):
    tools = TOOLS.copy()
    random.shuffle(tools)
    return litellm.completion(
        model="gpt-4o-mini",
        messages=[{"role": "system", "content": SYSTEM}, {"role": "user", "content": request}],
        tools=tools,
    )
