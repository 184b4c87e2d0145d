"""Prose for the held-out diagnosis workloads: policies, product docs, code, schemas, tables,
several languages, few-shot examples and user questions, all from a seeded ``random.Random``.

Written apart from the detector and its own test workloads, so that the held-out set shares
no phrasing, section markers or value shapes with them. Every generator takes the rng it
draws from; the same seed gives the same text.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field

COMPANIES = [
    ("Tidewater Freight", "ocean and rail logistics", "ShipDesk"),
    ("Orchard Lane Health", "outpatient clinics", "CareNote"),
    ("Brightforge Analytics", "retail forecasting", "Forecast Studio"),
    ("Kestrel Mutual", "home and motor insurance", "ClaimPath"),
    ("Northwind Learning", "online language courses", "Lingo Rooms"),
    ("Copperleaf Energy", "residential solar installations", "SunLedger"),
    ("Halcyon Travel", "corporate travel booking", "TripFrame"),
    ("Juniper Civic", "municipal permits software", "PermitFlow"),
]

PRODUCT_AREAS = [
    "billing", "account access", "data export", "integrations", "notifications", "reporting",
    "mobile app", "user roles", "audit trail", "single sign-on", "webhooks", "scheduling",
]

TEAMS = ["Tier 2 support", "the billing desk", "the trust and safety team", "field operations",
         "the platform on-call engineer", "customer success", "the privacy office", "finance operations"]

CHANNELS = ["the in-app chat", "email", "the phone line", "the partner portal", "the status page"]

_POLICY = {
    "refunds": [
        "Refunds for annual plans are prorated to the day once the first {days} days have passed.",
        "A customer who was charged twice for the same invoice gets the duplicate back without any questions about usage.",
        "Never promise a refund amount before the ledger shows the original charge as settled.",
        "Partial refunds above {amount} need a second approval from {team}.",
        "If the card on file has expired, the refund goes out as account credit and you tell the customer so in plain words.",
        "Chargebacks are handled by {team}; do not discuss the dispute outcome with the customer yourself.",
    ],
    "data retention": [
        "Conversation transcripts are kept for {days} days and then deleted from every replica.",
        "Exports requested through {channel} expire after seventy-two hours; a new export can be requested at any time.",
        "Backups are encrypted at rest and never leave the region the workspace was created in.",
        "When a workspace is closed, its data stays recoverable for {days} days before permanent deletion begins.",
        "Personal data in support tickets is redacted by an automated job every night; do not paste it back into notes.",
        "Legal holds override the retention schedule, and only {team} can place or lift one.",
    ],
    "escalation": [
        "Escalate to {team} when a customer reports the same failure for more than {days} consecutive days.",
        "An outage that touches more than one region is declared on {channel} before any individual reply goes out.",
        "Do not guess at root causes in customer-facing replies; say what is known and when the next update will come.",
        "Security reports go straight to {team}, even when they look like ordinary bugs.",
        "If a customer threatens to leave, note it in the ticket and let customer success own the follow-up.",
        "Severity one incidents page the on-call engineer within five minutes, day or night.",
    ],
    "tone": [
        "Write the way a patient colleague would explain things: short sentences, no jargon the customer did not use first.",
        "Apologize once when something went wrong on our side, then move on to what happens next.",
        "Use the customer's own words for their problem so that they can see you understood it.",
        "Avoid exclamation marks and avoid promising anything on behalf of another team.",
        "When you are unsure, say so and offer to find out rather than inventing a plausible answer.",
        "Keep replies under two hundred words unless the customer asked for a detailed walkthrough.",
    ],
    "security": [
        "Never ask for a full password, a one-time code or the complete card number, in any channel.",
        "Identity is verified with the account email plus the last four digits of the payment method.",
        "API keys shown in screenshots must be treated as leaked; advise the customer to rotate them at once.",
        "Administrators can enforce two-factor sign-in for the whole workspace from the security settings page.",
        "Session tokens last {days} hours; a forced sign-out invalidates every token for the account.",
        "Audit logs record who changed a permission, from which address and at what time.",
    ],
    "shipping": [
        "Standard deliveries leave the warehouse within {days} business days of payment.",
        "Customs paperwork for shipments outside the customs union is generated automatically at booking.",
        "A delayed container gets a new estimate as soon as the carrier publishes one, never earlier.",
        "Damaged goods must be photographed before the delivery note is signed; otherwise the claim is weaker.",
        "Hazardous materials require a separate declaration that {team} reviews by hand.",
        "Tracking numbers become active a few hours after the label is printed, not immediately.",
    ],
    "accessibility": [
        "Every screen in {product} supports keyboard navigation and the standard screen readers.",
        "Customers who need large-print invoices can switch the PDF layout from the billing settings.",
        "Captions are available for all recorded training sessions in the help centre.",
        "When a customer mentions a disability, ask what would help instead of assuming.",
        "High-contrast mode follows the operating system setting unless the user overrides it.",
    ],
}

_FILLERS = {
    "days": ["7", "14", "30", "45", "60", "90"],
    "amount": ["$250", "$500", "EUR 300", "GBP 400", "$1,000"],
}


@dataclass
class Prose:
    """Text generators bound to one rng and one company."""

    rng: random.Random
    company: tuple[str, str, str]
    # Sentences already written in this workload: real prompts do not repeat themselves, and a
    # sentence recurring across unrelated blocks would be a shared unit no real traffic has.
    used: set[str] = field(default_factory=set)
    areas_left: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.company[0]

    @property
    def product(self) -> str:
        return self.company[2]

    def _fill(self, template: str) -> str:
        return template.format(
            days=self.rng.choice(_FILLERS["days"]), amount=self.rng.choice(_FILLERS["amount"]),
            team=self.rng.choice(TEAMS), channel=self.rng.choice(CHANNELS), product=self.product,
        )

    def _fresh(self, make) -> str:
        for _ in range(200):
            text = make()
            if text not in self.used:
                self.used.add(text)
                return text
        raise RuntimeError("sentence grammar exhausted")

    def rule_sentence(self) -> str:
        r = self.rng
        return self._fresh(lambda: r.choice(_RULES).format(
            area=r.choice(PRODUCT_AREAS), plan=r.choice(PLANS), team=r.choice(TEAMS), channel=r.choice(CHANNELS),
            hours=r.choice([2, 4, 8, 12, 24, 48]), minutes=r.choice([1, 5, 10, 15, 30]), days=r.choice(_FILLERS["days"]),
            amount=r.choice(_FILLERS["amount"]), weekday=r.choice(["Monday", "Tuesday", "Wednesday", "Thursday"]),
            product=self.product, Team=r.choice(TEAMS).capitalize()))

    def policy_paragraph(self, topic: str | None = None) -> str:
        topic = topic or self.rng.choice(sorted(_POLICY))
        pool = [t for t in _POLICY[topic] if t not in self.used]
        k = self.rng.randint(3, 5)
        picked = self.rng.sample(pool, k=min(len(pool), k))
        self.used.update(picked)
        sentences = [self._fill(t) for t in picked]
        while len(sentences) < k:
            sentences.append(self.rule_sentence())
        return " ".join(sentences)

    def intro(self) -> str:
        name, industry, product = self.company
        return (f"You are the assistant that answers customers of {name}, a company working in {industry}. "
                f"Most questions are about {product}, the web application customers use every day, and about "
                f"their invoices and contracts. Answer from the policies and documents below; when they do not "
                f"cover a question, say that you will pass it to a human colleague.")

    def policy_section(self, paragraphs: int) -> str:
        topics = sorted(_POLICY)
        out = []
        for i in range(paragraphs):
            topic = topics[i % len(topics)]
            out.append(f"{topic.capitalize()}. {self.policy_paragraph(topic)}")
        return "\n\n".join(out)

    def product_doc(self, area: str | None = None) -> str:
        if area is None:
            if not self.areas_left:
                self.areas_left = list(PRODUCT_AREAS)
                self.rng.shuffle(self.areas_left)
            area = self.areas_left.pop()
        setting = area.replace(" ", "_")
        steps = self.rng.randint(3, 5)
        lines = [f"### {self.product}: {area}", "",
                 f"The {area} pages live under Settings and are visible to workspace owners and to anyone with "
                 f"the {self.rng.choice(['Admin', 'Manager', 'Billing contact', 'Auditor'])} role."]
        lines.append("")
        for i in range(1, steps + 1):
            verb = self.rng.choice(["Open", "Select", "Review", "Confirm", "Toggle", "Save"])
            obj = self.rng.choice(["the overview tab", "the filter panel", "the advanced options", "the change log",
                                   "the confirmation dialog", "the list of connected apps"])
            lines.append(f"{i}. {verb} {obj} and check that the {area} status reads as expected.")
        lines.append("")
        lines.append("```yaml")
        lines.append(f"{setting}:")
        lines.append(f"  enabled: {self.rng.choice(['true', 'false'])}")
        lines.append(f"  retry_limit: {self.rng.randint(2, 9)}")
        lines.append(f"  notify: [{self.rng.choice(['owner', 'admins', 'billing'])}]")
        lines.append("```")
        lines.append("")
        lines.append(f"Known limitation in {area}: {self.rng.choice(_LIMITATIONS)}")
        return "\n".join(lines)

    def code_snippet(self) -> str:
        fn = self.rng.choice(["normalize_invoice", "merge_contacts", "split_shipment", "score_lead",
                              "parse_permit", "rollup_usage", "dedupe_events"])
        field = self.rng.choice(["amount_cents", "created_at", "region", "status", "owner_id"])
        limit = self.rng.randint(10, 500)
        return "\n".join([
            "```python",
            f"def {fn}(rows: list[dict]) -> list[dict]:",
            f'    """Keep the newest row per key and drop rows without a {field}."""',
            "    latest: dict[str, dict] = {}",
            "    for row in rows:",
            f"        if row.get('{field}') is None:",
            "            continue",
            "        key = row['key']",
            "        if key not in latest or row['version'] > latest[key]['version']:",
            "            latest[key] = row",
            f"    return sorted(latest.values(), key=lambda r: r['key'])[:{limit}]",
            "```",
        ])

    def table(self, rows: int) -> list[str]:
        """A markdown table of plan limits, as lines (header first)."""
        header = ["| Plan | Seats | API calls / day | Support | Data residency |",
                  "| --- | --- | --- | --- | --- |"]
        plans = ["Starter", "Team", "Growth", "Business", "Enterprise", "Public sector", "Education",
                 "Nonprofit", "Partner", "Sandbox"]
        body = []
        for plan in plans[:rows]:
            body.append(f"| {plan} | {self.rng.choice(['5', '25', '100', 'unlimited'])} | "
                        f"{self.rng.choice(['10,000', '50,000', '250,000', '1,000,000'])} | "
                        f"{self.rng.choice(['email', 'chat, email', '24/7 phone', 'named manager'])} | "
                        f"{self.rng.choice(['EU or US', 'EU only', 'any region', 'customer choice'])} |")
        return header + body

    def tool(self, name: str) -> dict:
        """One OpenAI function tool with a JSON schema."""
        spec = _TOOLS[name]
        props = {}
        for pname, (ptype, pdesc, extra) in spec["params"].items():
            p: dict = {"type": ptype, "description": pdesc}
            p.update(extra)
            props[pname] = p
        return {"type": "function", "function": {
            "name": name, "description": spec["description"].format(product=self.product),
            "parameters": {"type": "object", "properties": props, "required": spec["required"]}}}

    def fewshot(self, n: int) -> list[tuple[str, str]]:
        pairs = list(_FEWSHOT)
        self.rng.shuffle(pairs)
        return [(q.format(product=self.product), a.format(product=self.product, name=self.name)) for q, a in pairs[:n]]

    def question(self) -> str:
        t = self.rng.choice(_QUESTIONS)
        return t.format(
            product=self.product, area=self.rng.choice(PRODUCT_AREAS),
            n=self.rng.randint(2, 9800), inv=f"INV-{self.rng.randint(100000, 999999)}",
            city=self.rng.choice(["Lyon", "Osaka", "Porto", "Leeds", "Austin", "Gdansk", "Recife", "Pune"]),
            weekday=self.rng.choice(["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"]),
        )

    def answer(self) -> str:
        r = self.rng
        return r.choice(_ANSWERS).format(
            product=self.product, team=r.choice(TEAMS), days=r.choice(_FILLERS["days"]),
            inv=f"INV-{r.randint(100000, 999999)}", n=r.randint(2, 60), area=r.choice(PRODUCT_AREAS),
            weekday=r.choice(["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"]), hours=r.choice([2, 4, 24]))

    def kb_sentence(self) -> str:
        r = self.rng
        return self._fresh(lambda: r.choice(_KB).format(
            area=r.choice(PRODUCT_AREAS), plan=r.choice(PLANS), ver=f"{r.randint(3, 9)}.{r.randint(0, 19)}",
            city=r.choice(_CITIES), n=r.randint(2, 500), m=r.randint(501, 5000), year=r.randint(2019, 2025),
            code=f"KI-{r.randint(1000, 9999)}", thing=r.choice(_THINGS), symptom=r.choice(_SYMPTOMS),
            event=r.choice(_EVENTS), fix=r.choice(_WORKAROUNDS), month=r.choice(_MONTHS),
            endpoint=f"/v{r.randint(1, 3)}/{r.choice(['exports', 'invoices', 'contacts', 'events', 'reports'])}",
            param=r.choice(["cursor", "since", "page_size", "include_archived", "format"])))

    def passage(self, doc_id: int) -> str:
        """A retrieved passage, fixed per ``doc_id`` (same id, same text) whatever the rng state;
        written in its own grammar, so it shares no sentence with the system prompt."""
        local = Prose(random.Random(f"{self.name}/doc/{doc_id}"), self.company)
        title = f"{local.rng.choice(PRODUCT_AREAS).capitalize()} knowledge base, article {doc_id}"
        body = " ".join(local.kb_sentence() for _ in range(local.rng.randint(3, 7)))
        return f"[{title}]\n{body}"

    def customer_note(self) -> str:
        """Notes about one customer or tenant: specific to it, shared with nothing else."""
        return " ".join(self.kb_sentence() if self.rng.random() < 0.3 else self.memory_fact() for _ in range(self.rng.randint(2, 4)))

    def memory_fact(self) -> str:
        r = self.rng
        return self._fresh(lambda: r.choice(_MEMORY).format(
            n=r.randint(2, 400), area=r.choice(PRODUCT_AREAS), city=r.choice(_CITIES), team=r.choice(TEAMS),
            weekday=r.choice(["Mondays", "Wednesdays", "Fridays", "weekends"]), month=r.choice(_MONTHS),
            inv=f"INV-{r.randint(100000, 999999)}", plan=r.choice(PLANS), thing=r.choice(_THINGS),
            year=r.randint(2019, 2026)))

    def multilingual_block(self) -> str:
        parts = []
        for lang in sorted(_MULTI):
            parts.append(f"{lang}: {self.rng.choice(_MULTI[lang])}")
        return "\n".join(parts)

    def memory_block(self, user: str, facts: int) -> str:
        """A per-user memory block of ``facts`` remembered facts (300+ tokens at 20 facts)."""
        out = [f"Things you remember about {user} from earlier conversations:"]
        for _ in range(facts):
            out.append("- " + self.memory_fact())
        return "\n".join(out)


def system_prompt(p: Prose, paragraphs: int, docs: int = 2, code: bool = False) -> str:
    """A long static system prompt: intro, policies, product docs, optionally code."""
    parts = [p.intro(), p.policy_section(paragraphs)]
    for _ in range(docs):
        parts.append(p.product_doc())
    if code:
        parts.append("Example of the helper the data team uses for deduplication:\n" + p.code_snippet())
    return "\n\n".join(parts)


def compact_json(value: object) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


PLANS = ["Starter", "Team", "Growth", "Business", "Enterprise"]
_CITIES = ["Tallinn", "Cork", "Bologna", "Kyoto", "Denver", "Accra", "Hobart", "Lyon", "Osaka", "Porto", "Leeds",
           "Austin", "Gdansk", "Recife", "Pune", "Quito", "Tartu", "Bergen"]
_MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December"]
_THINGS = ["saved filters", "scheduled exports", "invoice PDFs", "contact merges", "webhook secrets", "audit entries",
           "role templates", "usage alerts", "custom fields", "report snapshots", "SAML certificates", "API tokens"]
_SYMPTOMS = ["totals were off by one day", "the page loaded without data", "emails arrived twice",
             "the export stopped at ten thousand rows", "sign-in looped back to the start page",
             "timestamps showed in the wrong time zone", "a retry created a duplicate record"]
_EVENTS = ["the daylight-saving change", "a bulk import", "the nightly maintenance window", "a plan downgrade",
           "switching the workspace region", "rotating the signing key"]
_WORKAROUNDS = ["re-run the job after midnight UTC", "clear the saved view and apply the filter again",
                "split the import into files under fifty megabytes", "ask an administrator to re-save the role",
                "download the PDF from the invoice list instead of the email link"]

_RULES = [
    "Questions about {area} from customers on the {plan} plan go to {team} when they are not answered within {hours} hours.",
    "For {area}, quote the help-centre article instead of paraphrasing it, and link it once at the end of the reply.",
    "If a {plan} customer asks for {area} changes outside office hours, log the request and confirm it by {channel}.",
    "Changes to {area} settings take effect within {minutes} minutes; suggest a refresh rather than a second attempt.",
    "Do not switch on {area} features for trial workspaces; offer a {days}-day trial extension instead.",
    "When {area} figures look wrong, ask for the workspace id and the time of the last change before involving {team}.",
    "{Team} reviews every {area} exception above {amount} on {weekday} mornings.",
    "A {plan} workspace may keep {area} history for {days} days; longer periods need a written request.",
    "Never edit {area} records on a customer's behalf unless they confirm the change in {channel}.",
    "Mention the {product} status page whenever an {area} problem could affect more than one customer.",
]

_KB = [
    "Release {ver} changed how {area} handles {thing}, which now sync every {n} seconds.",
    "Customers in {city} reported that {symptom} after {event}; the fix shipped in release {ver}.",
    "The {area} limit on the {plan} plan is {n} {thing} per workspace, raised from a lower figure in {year}.",
    "To move {thing} off the legacy {area} API, call {endpoint} with the {param} parameter, {n} records per page.",
    "Known issue {code}: {symptom} when {area} is used during {event}. Workaround: {fix}.",
    "Since {month} {year}, {thing} created from the mobile app carry the device name in their history.",
    "Workspaces with more than {m} {thing} should expect {area} pages to load in pages of {n}.",
    "Support article {code} explains why {symptom} for some {plan} workspaces after {event}.",
]

_LIMITATIONS = [
    "changes made from the mobile app can take up to a minute to show in the web view.",
    "filters are not saved between sessions unless the workspace owner enables saved views.",
    "the export omits archived records; unarchive them first if they must be included.",
    "connected apps that use the legacy token format stop syncing after the next major release.",
    "reports with more than fifty thousand rows are emailed instead of shown on screen.",
]

_TOOLS: dict[str, dict] = {
    "lookup_invoice": {
        "description": "Fetch one invoice from {product} by its number, with line items and payment state.",
        "params": {"invoice_number": ("string", "Invoice number such as INV-204811.", {}),
                   "include_lines": ("boolean", "Also return the line items.", {})},
        "required": ["invoice_number"]},
    "search_orders": {
        "description": "Search a customer's orders by status and date range.",
        "params": {"customer_id": ("string", "The customer's account id.", {}),
                   "status": ("string", "Order status filter.", {"enum": ["open", "shipped", "delivered", "returned"]}),
                   "since": ("string", "Earliest order date, YYYY-MM-DD.", {}),
                   "limit": ("integer", "How many orders to return at most.", {"minimum": 1, "maximum": 50})},
        "required": ["customer_id"]},
    "create_ticket": {
        "description": "Open a ticket for a human colleague when the assistant cannot resolve the request.",
        "params": {"summary": ("string", "One sentence describing the problem.", {}),
                   "priority": ("string", "How urgent it is.", {"enum": ["low", "normal", "high", "urgent"]}),
                   "team": ("string", "Which team should own it.", {})},
        "required": ["summary", "priority"]},
    "get_shipment": {
        "description": "Current position and estimated arrival of a shipment.",
        "params": {"tracking_number": ("string", "Carrier tracking number.", {}),
                   "carrier": ("string", "Carrier code, if known.", {})},
        "required": ["tracking_number"]},
    "book_appointment": {
        "description": "Book a slot with a specialist; returns the confirmed time.",
        "params": {"specialist": ("string", "Specialist's role, e.g. installer or auditor.", {}),
                   "date": ("string", "Requested date, YYYY-MM-DD.", {}),
                   "duration_minutes": ("integer", "Length of the appointment.", {"enum": [15, 30, 60]}),
                   "notes": ("string", "Anything the specialist should know beforehand.", {})},
        "required": ["specialist", "date"]},
    "update_contact": {
        "description": "Change the contact details stored on the customer's account.",
        "params": {"customer_id": ("string", "The customer's account id.", {}),
                   "email": ("string", "New email address.", {"format": "email"}),
                   "phone": ("string", "New phone number in E.164 form.", {}),
                   "preferred_channel": ("string", "Where we reach them first.", {"enum": ["email", "phone", "sms"]}),
                   "language": ("string", "BCP 47 language tag.", {})},
        "required": ["customer_id"]},
    "run_report": {
        "description": "Run one of the saved {product} reports and return its first rows.",
        "params": {"report": ("string", "Saved report name.", {}),
                   "period": ("string", "Reporting period.", {"enum": ["day", "week", "month", "quarter"]}),
                   "format": ("string", "Output format.", {"enum": ["table", "csv"]})},
        "required": ["report"]},
}

TOOL_NAMES = sorted(_TOOLS)

_FEWSHOT = [
    ("Can I move my subscription to another workspace?",
     "Yes. A workspace owner can transfer it from Billing > Subscription > Transfer. The new workspace takes over "
     "the remaining term and the next invoice is issued to it."),
    ("Why was I charged twice this month?",
     "Usually one of the two charges is a pending authorization that drops off within three business days. If both "
     "show as settled, I will open a ticket so that the billing desk refunds the duplicate."),
    ("How do I export all my data from {product}?",
     "Go to Settings > Data > Export, pick the record types and press Start export. You get an email with a download "
     "link that works for seventy-two hours."),
    ("The mobile app keeps logging me out.",
     "That happens when the session token expires or an administrator forced a sign-out. Update the app, sign in "
     "again, and tell me if it repeats within a day."),
    ("Can you tell me my colleague's password?",
     "I cannot share or look up passwords. Your colleague can reset theirs from the sign-in page, or an administrator "
     "can send them a reset link."),
    ("Do you store our data in Europe?",
     "Workspaces created in the EU region keep their data and backups in Frankfurt and Dublin. You can check the "
     "region under Settings > Workspace."),
    ("Is there a discount for nonprofits?",
     "{name} offers the Nonprofit plan at forty percent off the Team price. Send proof of registration through the "
     "billing settings and the discount applies from the next invoice."),
    ("My webhook stopped firing yesterday.",
     "Webhooks are paused after twenty failed deliveries in a row. Fix the receiving endpoint, then press Resume on "
     "the webhook's page; the queued events are sent again in order."),
]

_QUESTIONS = [
    "Hi, I was billed for {n} seats but we only have a handful of people. Invoice {inv}. Can you check?",
    "How do I give a contractor read-only access to {area} without letting them see billing?",
    "Our {area} sync has been failing since {weekday}. We are in {city}. What should I look at first?",
    "Is it possible to schedule a report to go out every {weekday} morning?",
    "We need all tickets from the last {n} days exported for an audit. What is the fastest way?",
    "The {product} dashboard shows a different total than invoice {inv}. Which one is right?",
    "Can you explain what happens to our data if we cancel? We have about {n} records.",
    "A customer in {city} says they never got the confirmation email. How can I resend it?",
    "I think someone outside the company accessed our account. What do I do right now?",
    "Please update the phone number on our account and switch notifications to SMS.",
    "Which plan do we need for {n} API calls a day and EU-only data residency?",
    "Our accountant wants the VAT breakdown for invoice {inv}; where can I find it?",
]

_ANSWERS = [
    "I checked {inv} and the charge matches the {n} seats on the day it was issued. If seats were removed later, "
    "the difference comes back as credit on the next invoice.",
    "You can do that from Settings > Roles: create a role with read access to {area} only and assign it to the "
    "contractor. Billing stays hidden unless the role includes it.",
    "I have opened a ticket for {team} about {area}; they usually reply within {hours} hours. I will update this "
    "conversation as soon as I hear back.",
    "An export of {n} thousand records can take a while. You will get an email with a link, valid for {days} days.",
    "I have switched your {area} notifications. The next alert arrives by SMS on {weekday}; reply STOP to undo it.",
    "The {area} page shows totals in the workspace time zone, while {inv} uses UTC, which explains a gap of {n} "
    "minutes around midnight.",
    "That is expected on the {product} side for {area}: changes appear after the next sync, usually within {hours} hours.",
]

_MULTI = {
    "Deutsch": [
        "Bitte antworte auf Deutsch, wenn der Kunde auf Deutsch schreibt, und verwende die Sie-Form.",
        "Rechnungen werden immer am ersten Werktag des Monats erstellt und per E-Mail verschickt.",
    ],
    "Español": [
        "Si el cliente escribe en español, responde en español neutro y evita modismos regionales.",
        "Las devoluciones se procesan en un plazo de cinco días hábiles desde la aprobación.",
    ],
    "Français": [
        "Lorsque le client écrit en français, réponds en français et vouvoie-le systématiquement.",
        "Les factures annuelles peuvent être réglées par virement SEPA ou par carte bancaire.",
    ],
    "Português": [
        "Quando o cliente escrever em português, responda em português do Brasil, com frases curtas.",
        "O suporte por telefone funciona de segunda a sexta, das nove às dezoito horas.",
    ],
    "日本語": [
        "お客様が日本語で書いた場合は、丁寧語で日本語で回答してください。",
        "請求書は毎月一日に発行され、登録されたメールアドレスに送信されます。",
    ],
    "中文": [
        "如果客户用中文提问，请用简体中文回答，语气礼貌而简洁。",
        "数据导出链接在七十二小时后失效，届时可以重新申请。",
    ],
}

_MEMORY = [
    "Manages a team of about {n} people who mostly work on {area}.",
    "Mentioned in {month} being based in {city} and working early hours.",
    "Had a dispute over {inv} that {team} resolved with a credit.",
    "Usually writes on {weekday} and expects a reply about {area} the same day.",
    "Asked about {area} limits {n} times before moving to the {plan} plan.",
    "Compared our {plan} price with a competitor's in {month} {year}.",
    "Keeps {n} {thing} and asked how to archive the old ones.",
    "Reported that {thing} disappeared in {month}; it was fixed the following week.",
    "Their finance contact in {city} receives {inv} and the later invoices.",
    "Wants {area} walkthroughs with the exact menu path.",
    "Signed up in {year} and has been on the {plan} plan since {month}.",
    "Prefers {thing} exported as CSV, about {n} rows at a time.",
]
