"""Prose for the second held-out diagnosis set (tests/diagnose/heldout2.py).

Written apart from the detector, its zoo and the first held-out set's text module: other
businesses (a retailer, a bank, a CI service, an HR platform, a dental chain, a game studio),
other phrasing, and the structured shapes real prompts use besides prose: YAML and XML
system prompts, tool catalogs, CSV extracts, price lists in several number formats, agent
runbooks returned by tools, ReAct scratchpads. Everything is drawn from a seeded
``random.Random``; the same seed gives the same text.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from typing import Any, Callable

# (business, what it does, the product customers use, what customers call an order)
BUSINESSES = [
    ("Fernhill Outfitters", "outdoor clothing and camping gear, sold online and in 40 stores", "the Fernhill app", "order"),
    ("Quayside Bank", "current accounts, savings and small-business loans", "Quayside Online", "payment"),
    ("Lattice CI", "hosted continuous integration for monorepos", "the Lattice dashboard", "pipeline"),
    ("Pinecrest People", "payroll and HR software for companies of 20 to 2,000 staff", "Pinecrest HQ", "pay run"),
    ("Meadowbrook Dental", "a chain of 28 dental practices", "the Meadowbrook patient portal", "appointment"),
    ("Emberfall Games", "an online multiplayer game with a premium currency", "the Emberfall launcher", "purchase"),
]

TOPICS = ["returns", "delivery", "privacy", "identity checks", "complaints", "accessibility", "pricing",
          "outages", "account changes", "fraud", "minors", "promotions"]

ROLES = ["a shift lead", "the duty manager", "the compliance desk", "second-line support", "the data protection officer",
         "the incident commander", "the payments team", "a senior agent", "the store operations team", "legal"]

PLACES = ["Aberdeen", "Utrecht", "Malmo", "Graz", "Bilbao", "Poznan", "Turku", "Ghent", "Brno", "Split", "Cluj",
          "Tromso", "Lille", "Basel", "Galway", "Tampere"]

US_STATES = ["Alabama", "Alaska", "Arizona", "Arkansas", "California", "Colorado", "Connecticut", "Delaware", "Florida",
             "Georgia", "Hawaii", "Idaho", "Illinois", "Indiana", "Iowa", "Kansas", "Kentucky", "Louisiana", "Maine",
             "Maryland", "Massachusetts", "Michigan", "Minnesota", "Mississippi", "Missouri", "Montana", "Nebraska",
             "Nevada", "New Hampshire", "New Jersey", "New Mexico", "New York", "North Carolina", "North Dakota", "Ohio",
             "Oklahoma", "Oregon", "Pennsylvania", "Rhode Island", "South Carolina", "South Dakota", "Tennessee", "Texas",
             "Utah", "Vermont", "Virginia", "Washington", "West Virginia", "Wisconsin", "Wyoming"]

_DUTIES = [
    "When a customer asks about {topic}, check the {record} history before you answer, because {reason}.",
    "Never offer {perk} on your own; {role} decides, and only after {condition}.",
    "If {condition}, hand the conversation to {role} and tell the customer roughly how long that takes ({hours} hours at most).",
    "Questions about {topic} that mention {place} are handled under the local rules, which differ in {detail}.",
    "Quote amounts exactly as the system shows them, including {detail}; do not round them.",
    "For {topic}, a short answer is better than a complete one: give the next step first and the background second.",
    "Customers sometimes confuse {topic} with {topic2}; ask one clarifying question instead of guessing.",
    "Before changing anything about {topic}, repeat the change back to the customer and wait for a clear yes.",
    "Escalations about {topic} stay open until {role} writes a closing note; you never close them yourself.",
    "Say plainly when {topic} is outside what you can do, and name who can help: usually {role}.",
    "A complaint that mentions {topic} more than {count} times in a month is flagged to {role} automatically.",
    "Do not speculate about {topic} timelines; the only dates you may give are the ones shown in the {record} record.",
    "If a customer writes in a language other than English, answer in that language and keep {detail} in English.",
    "Keep internal notes about {topic} factual: what was asked, what was checked, what was promised.",
    "When {condition}, you may waive the fee once per customer per year; record the waiver in the {record} record.",
    "Treat any message about {topic} from an address that is not on file as unverified until {condition}.",
]
_FILL = {
    "reason": ["the last change may explain the question", "older entries are often still pending",
               "the customer may already have had an answer", "limits depend on the account's age",
               "a duplicate request is common after an outage", "promotions change what applies"],
    "perk": ["a goodwill credit", "free express delivery", "a fee refund", "an extended trial", "a price match",
             "a loyalty upgrade", "priority booking"],
    "condition": ["the customer has passed the identity check", "the original request is older than 14 days",
                  "two attempts to fix it have failed", "the amount is above 250 pounds", "a manager has approved it",
                  "the account shows no open dispute", "the customer confirms the last four digits on file"],
    "detail": ["the currency code", "the reference number", "the legal wording", "the time zone",
               "product names", "the decimal separator", "the plan name"],
    "record": ["account", "order", "case", "billing", "contact", "audit"],
}

_TONE = [
    "Write in plain British English, in the second person, and keep sentences short.",
    "Do not use emoji, exclamation marks or marketing phrases such as 'amazing' or 'seamless'.",
    "If you made a mistake earlier in the conversation, say so in one sentence and correct it.",
    "Never blame the customer, another team or a supplier; describe what happened instead.",
    "Prefer lists for steps and prose for explanations.",
    "Use the customer's first name at most once per reply.",
    "End with a question only when you need an answer to continue.",
    "Match the customer's level of detail: a one-line question gets a short reply.",
]

_KB_SENT = [
    "Since release {ver}, {thing} are kept for {days} days instead of the previous limit.",
    "Customers near {place} reported that {symptom}; the cause was {cause} and it is fixed.",
    "The {thing} page can be filtered by date, status and {detail}, and exported as CSV.",
    "A known issue (reference {code}) makes {thing} show twice after {cause}; refreshing clears it.",
    "Each account can hold up to {count} {thing}; support can raise the limit for business accounts.",
    "From {month}, {thing} created on mobile are labelled with the device they came from.",
    "When {cause}, {thing} may arrive up to {hours} hours late, but none are lost.",
    "The help article {code} walks through {thing} with screenshots for web and mobile.",
    "Deleting {thing} is final after {days} days; before that, support can restore them on request.",
    "Administrators receive a weekly digest of {thing}, sent on {weekday} mornings.",
]
_KB_FILL = {
    "thing": ["saved baskets", "gift cards", "direct debits", "build caches", "payslips", "recall reminders",
              "wish lists", "standing orders", "deployment logs", "holiday requests", "treatment plans", "item bundles"],
    "symptom": ["totals were shown without tax", "the page loaded empty", "notifications arrived twice",
                "the export stopped half way", "sign-in loops back to the start", "dates showed in the wrong zone"],
    "cause": ["a database failover", "a bulk import", "the clock change", "a payment provider outage",
              "an expired certificate", "a cache that was not cleared"],
    "month": ["January", "March", "April", "June", "August", "October", "November"],
    "weekday": ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"],
}

# Tools: name -> (description, {param: (type, description, extra)}, required)
TOOLS: dict[str, tuple[str, dict[str, tuple[str, str, dict[str, Any]]], list[str]]] = {
    "get_order_status": ("Look up where an order is and what happens next.",
                         {"order_id": ("string", "The order reference, e.g. FH-20931.", {}),
                          "include_items": ("boolean", "Return the line items as well.", {})}, ["order_id"]),
    "issue_refund": ("Refund all or part of a settled payment to the original method.",
                     {"payment_id": ("string", "Payment to refund.", {}),
                      "amount": ("number", "Amount in the payment's currency; omit for a full refund.", {"minimum": 0}),
                      "reason": ("string", "Why.", {"enum": ["damaged", "late", "wrong_item", "goodwill", "duplicate"]})},
                     ["payment_id", "reason"]),
    "search_catalog": ("Search products by free text, with optional filters.",
                       {"query": ("string", "What the customer is looking for.", {}),
                        "category": ("string", "Category slug.", {}),
                        "max_price": ("number", "Upper price bound.", {}),
                        "in_stock_only": ("boolean", "Hide items that cannot ship this week.", {})}, ["query"]),
    "check_inventory": ("Stock level of one item in one store or the warehouse.",
                        {"sku": ("string", "Stock keeping unit.", {}),
                         "location": ("string", "Store code or 'warehouse'.", {})}, ["sku"]),
    "schedule_callback": ("Book a phone callback from a human agent.",
                          {"phone": ("string", "Number in E.164 form.", {}),
                           "window": ("string", "Preferred window.", {"enum": ["morning", "afternoon", "evening"]}),
                           "topic": ("string", "Short summary for the agent.", {})}, ["phone", "window"]),
    "list_pipelines": ("List recent pipeline runs for a repository.",
                       {"repo": ("string", "owner/name.", {}),
                        "status": ("string", "Filter.", {"enum": ["running", "failed", "passed", "cancelled"]}),
                        "limit": ("integer", "At most this many runs.", {"minimum": 1, "maximum": 100})}, ["repo"]),
    "retry_job": ("Retry one failed job of a pipeline run.",
                  {"run_id": ("string", "Pipeline run id.", {}), "job": ("string", "Job name.", {})}, ["run_id", "job"]),
    "fetch_runbook": ("Return the runbook section that covers an alert.",
                      {"alert": ("string", "Alert name as it appears in the pager.", {})}, ["alert"]),
    "open_incident": ("Declare an incident and page the on-call engineer.",
                      {"title": ("string", "One line.", {}),
                       "severity": ("string", "Severity.", {"enum": ["sev1", "sev2", "sev3"]}),
                       "services": ("array", "Affected services.", {"items": {"type": "string"}})}, ["title", "severity"]),
    "get_balance": ("Current and available balance of an account.",
                    {"account_id": ("string", "Account number.", {})}, ["account_id"]),
    "freeze_card": ("Freeze or unfreeze a payment card at once.",
                    {"card_id": ("string", "Card token.", {}), "frozen": ("boolean", "True to freeze.", {})},
                    ["card_id", "frozen"]),
    "book_visit": ("Book a dental appointment at a practice.",
                   {"practice": ("string", "Practice code.", {}), "date": ("string", "YYYY-MM-DD.", {}),
                    "treatment": ("string", "Treatment type.", {"enum": ["checkup", "hygiene", "filling", "emergency"]})},
                   ["practice", "date", "treatment"]),
}
TOOL_ORDER = sorted(TOOLS)

_FAQ = [
    ("Can I change the delivery address after ordering?",
     "Yes, until the parcel is packed. Open the order, choose Change address, and you will see straight away whether "
     "it is still possible. After packing, the courier's own redirect service is the only option."),
    ("Why is there a pending payment I do not recognise?",
     "A pending line is a hold, not a charge. It drops off within five working days if the merchant never takes the "
     "money. If it is still there after that, tell me the amount and date and I will raise a dispute."),
    ("My build has been queued for an hour.",
     "Queued builds wait for a free runner of the right size. Check the runner pool page: if it shows zero idle "
     "runners, the queue is expected; if it shows idle runners, the job's labels probably match none of them."),
    ("How do I correct a payslip that went out with the wrong hours?",
     "Create an adjustment in the next pay run rather than editing the sent payslip. The adjustment line shows on "
     "the next payslip with a note that points back to the original period."),
    ("Can I bring my appointment forward?",
     "Often, yes. Earlier slots open up when people cancel, so I can check now and add you to the short-notice list "
     "if nothing suits you today."),
    ("I bought coins but they never arrived.",
     "Purchases can take up to fifteen minutes to show. If it has been longer, send me the receipt number from the "
     "store email and I will check whether the payment reached us."),
    ("Do you sell gift cards for use in stores?",
     "Gift cards bought online work in every store and online. Physical cards bought in a store also work online "
     "once you add the sixteen-digit number to your account."),
    ("Is my data shared with other companies?",
     "Only with the processors listed in the privacy notice, and only for the purpose stated there. Nothing is sold. "
     "You can ask for a copy of everything we hold from the privacy page."),
    ("What happens if I miss a repayment?",
     "Nothing is charged for the first missed repayment if you catch up within fourteen days. After that a fee "
     "applies and the missed payment may show on your credit file, so it is worth calling us early."),
    ("Can two people share one account?",
     "Each person needs their own sign-in, but an account owner can invite others with limited rights, which keeps "
     "a record of who did what."),
    ("How long do refunds take?",
     "Card refunds leave us within two working days; your bank then takes three to five more to show them. Gift card "
     "refunds are instant."),
    ("The app says my session expired every few minutes.",
     "That usually means the phone's clock is wrong. Turn on automatic date and time in the phone's settings, then "
     "sign in again."),
]

_QUESTIONS = [
    "Where is my {ordn} {ref}? It was due on {weekday}.",
    "I was charged {amount} twice for {ref}, can you fix that?",
    "How do I add a colleague called {first} to our account without giving them admin rights?",
    "Can I move my {ordn} to the {place} store?",
    "What does error {code} mean? It started this morning.",
    "I want to close my account. What happens to the {thing} I still have?",
    "Is there any discount for students or for people over sixty?",
    "Why did my {ordn} {ref} get cancelled without any email?",
    "Can someone call me back this afternoon about {ref}?",
    "The total on {ref} does not match what I saw at checkout ({amount}).",
    "How do I download all my {thing} as a spreadsheet?",
    "We have {count} people starting next month; how do we set them up in bulk?",
    "My card was declined but the money left my account. Reference {ref}.",
    "Can I pause my subscription for {count} weeks while I travel to {place}?",
]
_FIRST = ["Ayla", "Bruno", "Cosmin", "Dagny", "Emeka", "Fiona", "Goran", "Hedda", "Ismail", "Jurgen", "Kalani",
          "Lotte", "Mirela", "Nuno", "Oksana", "Piet", "Ruairi", "Signe", "Tariq", "Ulla"]
_LAST = ["Achterberg", "Bjornsson", "Castell", "Dvorak", "Eriksen", "Fabbri", "Grunwald", "Holm", "Iversen",
         "Jankowski", "Kowalczyk", "Lindahl", "Moreau", "Nygaard", "Oliveira", "Pajari"]

_ANSWERS = [
    "I have checked {ref}: it left the warehouse on {weekday} and the courier now expects to deliver within {count} days.",
    "I can see two lines of {amount} on {ref}. One is a hold that will drop off; the other is the real charge.",
    "I have booked a callback for the afternoon window. You will get a text twenty minutes before the call.",
    "That error means the session could not be verified. Signing out and back in fixes it in most cases.",
    "Your {thing} stay available for {count} days after closing, and you can download them until then.",
    "I have passed this to {role}; they reply within one working day and I have noted your preferred channel.",
    "The difference is the delivery charge, which was added after the voucher was applied. I have refunded it.",
]


@dataclass
class Writer:
    """Text generators bound to one rng and one business; sentences are not repeated within
    a workload, because real prompts do not repeat themselves."""

    rng: random.Random
    business: tuple[str, str, str, str]
    used: set[str] = field(default_factory=set)
    # The key of a tool's function object the engine renders first ("name" or "description").
    first_tool_key: str = "name"

    @property
    def name(self) -> str:
        return self.business[0]

    @property
    def product(self) -> str:
        return self.business[2]

    @property
    def ordn(self) -> str:
        return self.business[3]

    def _fresh(self, make: Callable[[], str]) -> str:
        for _ in range(400):
            text = make()
            if text not in self.used:
                self.used.add(text)
                return text
        raise RuntimeError("sentence grammar exhausted")

    def duty(self) -> str:
        r = self.rng

        def make() -> str:
            t1, t2 = r.sample(TOPICS, 2)
            return r.choice(_DUTIES).format(
                topic=t1, topic2=t2, reason=r.choice(_FILL["reason"]), perk=r.choice(_FILL["perk"]),
                role=r.choice(ROLES), condition=r.choice(_FILL["condition"]), hours=r.choice([2, 4, 8, 24, 48]),
                place=r.choice(PLACES), detail=r.choice(_FILL["detail"]), record=r.choice(_FILL["record"]),
                count=r.choice([2, 3, 4, 5]))
        return self._fresh(make)

    def kb(self) -> str:
        r = self.rng
        return self._fresh(lambda: r.choice(_KB_SENT).format(
            ver=f"{r.randint(2, 14)}.{r.randint(0, 30)}", thing=r.choice(_KB_FILL["thing"]), days=r.choice([7, 30, 90, 180, 365]),
            place=r.choice(PLACES), symptom=r.choice(_KB_FILL["symptom"]), cause=r.choice(_KB_FILL["cause"]),
            detail=r.choice(_FILL["detail"]), code=f"KB-{r.randint(100, 9999)}", count=r.choice([10, 25, 50, 200, 1000]),
            month=r.choice(_KB_FILL["month"]), hours=r.choice([1, 2, 6, 12]), weekday=r.choice(_KB_FILL["weekday"])))

    def paragraph(self, sentences: int | None = None) -> str:
        return " ".join(self.duty() for _ in range(sentences or self.rng.randint(3, 5)))

    def rules(self, n: int, bullet: str = "- ") -> list[str]:
        return [bullet + self.duty() for _ in range(n)]

    def opening(self) -> str:
        name, what, product, _ = self.business
        return (f"You are the customer assistant of {name}, which provides {what}. Customers reach you from "
                f"{product} and from the website. You can explain policies, look things up with the tools you are "
                f"given and prepare changes for a human to confirm. You cannot make promises on behalf of staff.")

    def handbook(self, sections: int, per_section: int = 4) -> str:
        """A static prose system prompt of ``sections`` titled sections (about 110 tokens each
        at 4 sentences)."""
        parts = [self.opening()]
        topics = list(TOPICS)
        self.rng.shuffle(topics)
        for k in range(sections):
            parts.append(f"{topics[k % len(topics)].capitalize()}\n{self.paragraph(per_section)}")
        return "\n\n".join(parts)

    def tone_block(self) -> str:
        picked = self.rng.sample(_TONE, 5)
        return "How to write:\n" + "\n".join(f"* {t}" for t in picked)

    def article(self, title: str | None = None, sentences: int = 6) -> str:
        title = title or f"{self.rng.choice(_KB_FILL['thing']).capitalize()} explained"
        return f"{title}\n" + " ".join(self.kb() for _ in range(sentences))

    def yaml_block(self, key: str, items: int) -> str:
        """A YAML mapping of policy lists under ``key``."""
        lines = [f"{key}:"]
        for _ in range(items):
            lines.append(f"  - {json.dumps(self.duty(), ensure_ascii=False)}")
        return "\n".join(lines)

    def tool(self, name: str) -> dict[str, Any]:
        desc, params, required = TOOLS[name]
        props: dict[str, Any] = {}
        for pname, (ptype, pdesc, extra) in params.items():
            props[pname] = {"type": ptype, "description": pdesc, **extra}
        return {"type": "function", "function": {"name": name, "description": desc,
                                                 "parameters": {"type": "object", "properties": props, "required": required}}}

    def passage(self, doc_id: int, sentences: int | None = None) -> str:
        """A retrieved knowledge-base passage, the same text for the same id whatever the rng."""
        local = Writer(random.Random(f"{self.name}/kb/{doc_id}"), self.business)
        return f"(doc {doc_id}) " + local.article(sentences=sentences or local.rng.randint(3, 6))

    def faq(self, n: int) -> list[tuple[str, str]]:
        pairs = list(_FAQ)
        self.rng.shuffle(pairs)
        return pairs[:n]

    def ref(self) -> str:
        return f"{self.name[:2].upper()}-{self.rng.randint(10000, 99999)}"

    def question(self) -> str:
        r = self.rng
        return r.choice(_QUESTIONS).format(
            ordn=self.ordn, ref=self.ref(), weekday=r.choice(_KB_FILL["weekday"]), amount=f"{r.randint(5, 900)}.{r.randint(0, 99):02d}",
            first=r.choice(_FIRST), place=r.choice(PLACES), code=f"E{r.randint(100, 999)}", thing=r.choice(_KB_FILL["thing"]),
            count=r.randint(2, 40))

    def answer(self) -> str:
        r = self.rng
        return r.choice(_ANSWERS).format(ref=self.ref(), weekday=r.choice(_KB_FILL["weekday"]), count=r.randint(2, 9),
                                         amount=f"{r.randint(5, 900)}.{r.randint(0, 99):02d}", thing=r.choice(_KB_FILL["thing"]),
                                         role=r.choice(ROLES))

    def person(self) -> str:
        return f"{self.rng.choice(_FIRST)} {self.rng.choice(_LAST)}"

    def runbook(self, steps: int) -> str:
        """A static runbook as an agent tool returns it (numbered steps with commands)."""
        local = Writer(random.Random(f"{self.name}/runbook/{steps}"), self.business)
        lines = []
        for k in range(1, steps + 1):
            svc = local.rng.choice(["checkout", "ledger", "search", "auth", "notifier", "scheduler"])
            lines.append(f"{k}. {local.kb()} Then run `kubectl -n {svc} rollout status deploy/{svc}-api` and "
                         f"check the {svc} error budget panel.")
        return "\n".join(lines)

    def persona(self, k: int) -> str:
        """One of a few tenant personas (the same text for the same k)."""
        local = Writer(random.Random(f"{self.name}/persona/{k}"), self.business)
        brand = ["Trailhead", "Summit", "Harbour", "Lumen", "Copper", "Juniper", "Beacon"][k % 7]
        return (f"Persona: you speak for the {brand} brand.\n" + local.paragraph(4) + "\n" + local.paragraph(3))

    def csv_activity(self, rows: int, rng: random.Random) -> str:
        lines = ["date,reference,description,amount,balance"]
        bal = rng.randint(100, 9000)
        for _ in range(rows):
            amt = rng.randint(-900, 400)
            bal += amt
            lines.append(f"2026-11-{rng.randint(1, 30):02d},{self.ref()},{rng.choice(_KB_FILL['thing'])} "
                         f"{rng.choice(['fee', 'payment', 'refund', 'transfer', 'top-up'])},{amt}.{rng.randint(0, 99):02d},{bal}")
        return "\n".join(lines)


def price_lines(rng: random.Random, items: int) -> list[tuple[str, float]]:
    goods = ["trail shoes", "rain shell", "down jacket", "base layer", "trekking poles", "head torch", "sleeping mat",
             "two-person tent", "stove kit", "water filter", "daypack", "gaiters", "fleece", "bivvy bag", "map case"]
    picked = rng.sample(goods, items)
    return [(g, rng.randint(900, 64000) / 100) for g in picked]


def format_amount(value: float, style: str) -> str:
    """A price in one of four locale conventions (grouping and decimal separators)."""
    whole, frac = f"{value:,.2f}".split(".")
    if style == "en":
        return f"£{whole}.{frac}"
    if style == "de":
        return f"{whole.replace(',', '.')},{frac} €"
    if style == "fr":
        return f"{whole.replace(',', ' ')},{frac} €"
    if style == "ch":
        return f"CHF {whole.replace(',', chr(39))}.{frac}"
    raise ValueError(style)


def compact(value: object) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
