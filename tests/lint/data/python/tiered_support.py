"""Support bot whose system prompt grows for enterprise customers.

Planted defect: a branch on the customer's tier adds text in the middle of the system
prompt, before the long shared policy.
"""

from openai import OpenAI

client = OpenAI()

INTRO = "You are the Corvina support assistant."
ENTERPRISE = "This customer has a dedicated account manager; offer to loop them in for any contract question."
POLICY = """Follow the support policy exactly. Answer in short numbered steps, cite the policy section
you used, never promise refunds the policy does not allow, and escalate billing disputes above one
hundred dollars to a human agent. Keep answers under 150 words unless the customer asks for detail."""


def support(customer, question: str):
    system = INTRO + "\n"
    if customer.tier == "enterprise":
        system += ENTERPRISE + "\n"
    system += POLICY
    return client.chat.completions.create(
        model="gpt-4o-mini",
        messages=[{"role": "system", "content": system}, {"role": "user", "content": question}],
    )
