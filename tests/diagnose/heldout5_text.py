"""Text for the fifth held-out diagnosis set (tests/diagnose/heldout5.py).

Written apart from the detector, its zoo and the four earlier held-out sets' text modules: other
organisations (a legal intake clinic, a home and motor insurer, a platform operations team, an
online tutoring service, a travel agency, a pharmacy chain, an online game studio, a
refrigerated logistics firm), each with its own vocabulary, other phrasing, tool schemas with
defaults and enums, and text in Polish, Turkish, Vietnamese, Hebrew and Indonesian. Everything
is drawn from a seeded ``random.Random``; a clerk never repeats a sentence (a repeated sentence
would be a shared unit at two places, a signal no shape means to plant).
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Org:
    name: str
    does: str
    unit: str  # what a customer's business is filed under
    role: str  # who answers
    customer: str  # what the person writing is called
    topics: tuple[str, ...]
    things: tuple[str, ...]
    owners: tuple[str, ...]


ORGS = [
    Org("Calder & Voss Legal Clinic", "free first advice on employment, tenancy and consumer disputes", "matter",
        "intake paralegal", "client",
        ("unfair dismissal", "unpaid wages", "deposit disputes", "disrepair claims", "eviction notices",
         "faulty goods", "redundancy pay", "discrimination at work", "noise complaints", "contract cancellations"),
        ("witness statements", "tenancy agreements", "payslips", "photographs of damage", "termination letters",
         "receipts", "tribunal forms", "letters before action"),
        ("the supervising solicitor", "the duty caseworker", "the conflicts officer", "the tribunal team",
         "the housing unit", "the clinic manager")),
    Org("Brightwater Mutual", "home, motor and gadget insurance for members across the country", "claim",
        "claims handler", "policyholder",
        ("storm damage", "escape of water", "windscreen repairs", "theft from a vehicle", "accidental damage",
         "lost phones", "courtesy cars", "excess payments", "no-claims discounts", "total losses"),
        ("repair estimates", "police reference numbers", "engineer reports", "photographs", "invoices",
         "proof of ownership", "dashcam clips", "loss adjuster notes"),
        ("the senior claims handler", "the fraud team", "the loss adjuster", "the motor desk",
         "the complaints officer", "the underwriting lead")),
    Org("Stratus Platform Operations", "the shared Kubernetes platform, CI pipelines and databases for 140 product teams",
        "service", "on-call engineer", "engineer",
        ("failed deploys", "certificate expiry", "noisy alerts", "disk pressure", "slow queries",
         "pod evictions", "rollback requests", "quota increases", "DNS changes", "secret rotation"),
        ("runbooks", "dashboards", "incident timelines", "change tickets", "helm charts", "migration plans",
         "postmortems", "alert rules"),
        ("the incident commander", "the database team", "the security on-call", "the platform lead",
         "the networking team", "the release manager")),
    Org("Lumen Tutors", "live online maths, physics and chemistry tutoring for students aged 11 to 18", "lesson",
        "tutor assistant", "student",
        ("simultaneous equations", "circle theorems", "moles and concentration", "Newton's second law",
         "probability trees", "surds", "electric circuits", "organic naming", "vectors", "past-paper practice"),
        ("worked solutions", "homework sheets", "mark schemes", "lesson recordings", "progress reports",
         "formula sheets", "revision timetables", "mock papers"),
        ("the head of maths", "the safeguarding lead", "the scheduling team", "the student's lead tutor",
         "the parent liaison", "the science coordinator")),
    Org("Wayfarer Rail & Air", "rail, flight and hotel bookings for leisure and business travellers", "booking",
        "travel consultant", "traveller",
        ("missed connections", "seat changes", "baggage allowances", "refund requests", "name corrections",
         "visa questions", "delayed flights", "hotel upgrades", "group bookings", "special assistance"),
        ("e-tickets", "boarding passes", "hotel vouchers", "fare receipts", "travel insurance certificates",
         "seat maps", "rail passes", "itineraries"),
        ("the ticketing desk", "the airline liaison", "the duty travel manager", "the refunds team",
         "the corporate accounts team", "the accessibility coordinator")),
    Org("Greenleaf Pharmacy", "community pharmacies with repeat prescriptions, home delivery and travel clinics",
        "prescription", "pharmacy assistant", "patient",
        ("repeat prescriptions", "missed deliveries", "out-of-stock medicines", "travel vaccines",
         "controlled drugs", "medicine side effects", "prescription charges", "blister packs",
         "emergency supplies", "flu jabs"),
        ("prescription tokens", "exemption certificates", "delivery notes", "patient information leaflets",
         "dosage labels", "vaccination records", "prepayment certificates", "consent forms"),
        ("the responsible pharmacist", "the dispensary manager", "the delivery coordinator",
         "the clinical lead", "the superintendent pharmacist", "the store manager")),
    Org("Ironpeak Games", "the online multiplayer game Ironpeak Arena and its launcher", "player account",
        "player support agent", "player",
        ("lost items", "ranked penalties", "connection drops", "refund requests", "account bans",
         "purchase errors", "voice chat", "cheating reports", "launcher crashes", "name changes"),
        ("match histories", "purchase receipts", "crash logs", "ban appeals", "replay files",
         "inventory snapshots", "gift codes", "season rewards"),
        ("the trust and safety team", "the payments desk", "the live-ops producer", "the anti-cheat team",
         "the community manager", "the senior support lead")),
    Org("Northstar Cold Chain", "refrigerated warehousing and temperature-controlled delivery for food and medicine",
        "shipment", "logistics coordinator", "customer",
        ("temperature excursions", "missed collections", "short deliveries", "damaged pallets", "late drivers",
         "booking changes", "customs paperwork", "rejected loads", "depot cut-offs", "proof of delivery"),
        ("temperature logs", "delivery notes", "pallet labels", "collection bookings", "CMR notes",
         "cleaning certificates", "rejection reports", "driver manifests"),
        ("the depot supervisor", "the transport planner", "the quality manager", "the account manager",
         "the night shift lead", "the compliance officer")),
    Org("Kestrel Wealth", "a share-dealing and ISA platform for private investors", "portfolio", "investor support adviser",
        "investor",
        ("ISA transfers", "dividend payments", "failed trades", "corporate actions", "withdrawals",
         "platform fees", "tax certificates", "regular investing", "account verification", "fractional shares"),
        ("contract notes", "transfer forms", "tax vouchers", "annual statements", "identity documents",
         "fee schedules", "bank statements", "nomination forms"),
        ("the dealing desk", "the transfers team", "the compliance officer", "the client money team",
         "the operations lead", "the complaints handler")),
]

_DELAYS = ["two working days", "four hours", "48 hours", "the end of the day", "a week", "thirty minutes",
           "the next business morning", "five working days"]
_MANNERS = ["calm", "warm and direct", "brief", "patient", "plain-spoken", "careful"]

_RULE = [
    "If a {customer} asks about {topic}, look at the notes on the {unit} before you answer, since a colleague may "
    "already have replied.",
    "Only {owner} can approve an exception for {topic}; say so plainly instead of promising one.",
    "Ask for {thing} as soon as {topic} comes up, because nothing can move until we have them.",
    "Pass anything about {topic} that is still unresolved after {delay} to {owner}, with a two-line summary.",
    "When you explain {topic}, give the outcome first and the reasons afterwards.",
    "Stay {manner} if a {customer} is upset about {topic}, and never argue about what happened.",
    "Keep a reply about {topic} under about 150 words unless the {customer} asks for more detail.",
    "Do not quote a date for {topic}; say that {owner} will confirm it within {delay}.",
    "Repeat the {unit} reference back whenever you discuss {topic}, so that the next person can find it.",
    "Before ending a conversation about {topic}, check that the {customer} knows what happens next.",
    "A {customer} who raises {topic} for the third time should be offered a call from {owner}.",
    "Describe {topic} in everyday words and leave out our internal system names.",
    "Write down every change you make to a {unit} while handling {topic}, and who asked for it.",
    "If {thing} are missing for {topic}, explain exactly which ones are still needed.",
    "Never paste a {customer}'s password, card number or one-time code into a note about {topic}.",
    "Outside working hours, acknowledge {topic} and say that {owner} will pick it up within {delay}.",
    "For {topic}, offer the self-service route first and a person second.",
    "If {topic} might involve a safety risk, stop and bring in {owner} straight away.",
    "Link to the help article on {thing} rather than copying it into the reply when {topic} comes up.",
    "When {topic} affects more than one {unit}, handle them in one conversation and say so.",
]
_NOTE = [
    "Since the {month} update, {thing} can be uploaded from the app as well as the website.",
    "{thing} sent by post take around {days} days to reach the right team.",
    "We keep {thing} for {years} years and then delete them automatically.",
    "The portal shows {thing} from the last {days} days; anything older has to be requested.",
    "On {weekday}s the team that handles {thing} works until 20:00.",
    "{thing} in languages other than English are translated before review, which adds {days} days.",
    "A duplicate upload of {thing} is removed automatically within {minutes} minutes.",
    "Article {code} explains how to find {thing} in the portal, with a picture for every step.",
    "Copies of {thing} can be downloaded as PDF at any time.",
    "If {thing} arrive after 17:00 they are logged on the next working day.",
    "Requests about {thing} that mention a deadline are put at the front of the queue.",
    "The {month} price list did not change anything about {thing}.",
    "Scanned {thing} must be readable at normal size, or we will ask for them again.",
    "We can accept {thing} by email if the portal is down, from the address on file only.",
]
_FILL = {
    "month": ["February", "April", "June", "September", "November"],
    "days": ["2", "3", "5", "7", "10"],
    "years": ["3", "6", "7", "10"],
    "minutes": ["5", "15", "30", "60"],
    "weekday": ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"],
}
_ASKS = [
    "What's happening with my {unit}? Nobody has updated me since {weekday}.",
    "Can I send the {thing} later, or do you need them now?",
    "I think there's a mistake on my {unit}, who can correct it?",
    "How long does {topic} usually take to sort out?",
    "Is there anything I can do today to speed up my {unit}?",
    "I've been told two different things about {topic}. Which one is right?",
    "Do I need to pay anything for {topic}?",
    "Can someone call me about my {unit} instead of emailing?",
    "I uploaded the {thing} but the portal still says they are missing.",
    "Who do I complain to about how {topic} was handled?",
    "Can my partner deal with my {unit} on my behalf?",
    "What happens if I miss the deadline for {topic}?",
]
_ASK_TAILS = ["", " Thanks.", " Please reply today.", " I'm on my phone.", " Sorry if this was asked before.",
              " It's quite urgent."]
_REPLIES = [
    "I've checked your {unit}: it's with {owner}, who will update you within {delay}.",
    "You can send the {thing} later, but nothing moves until they arrive, so sooner is better.",
    "Thanks for spotting that. I've asked {owner} to correct the {unit} and noted your request.",
    "Usually {delay}. Yours is on track and nothing is missing.",
    "I've marked your {unit} for a call back; {owner} will ring you within {delay}.",
    "There's no charge for that. I've added a note to the {unit} so everyone sees the same answer.",
    "The portal can lag behind; I can see the {thing} on our side, so you don't need to upload them again.",
]

FIRST_NAMES = ["Şükrü", "Nguyễn Thị", "Zoë", "Ólafur", "Małgorzata", "Dvora", "Kofi", "Ines", "Ravi", "Ayşe",
               "Trần Văn", "Björk", "Noa", "Wiktor", "Siti", "Émile", "Chidi", "Leilani", "Matteo", "Yara"]
LAST_NAMES = ["Öztürk", "Hương", "Ångström", "Guðmundsson", "Wróblewska", "Ben-David", "Mensah", "Castañeda",
              "Raghunathan", "Yıldız", "Minh", "Þórsdóttir", "Levi", "Szczepański", "Rahmawati", "Lefèvre",
              "Okonkwo", "Kahananui", "Bianchi", "Haddad"]

# Short guidance in five languages, one line each (a clerk uses each line once).
POLISH = [
    "Odpowiadaj po polsku, jeśli klient pisze po polsku.",
    "Zawsze zwracaj się do klienta per Pan lub Pani.",
    "Nie podawaj wewnętrznych numerów zgłoszeń.",
    "Przy pytaniach o wypłatę odszkodowania odsyłaj do likwidatora szkody.",
    "Jeśli brakuje zdjęć uszkodzeń, poproś o nie w pierwszej wiadomości.",
    "Nie obiecuj terminu wypłaty przed oceną rzeczoznawcy.",
    "Kończ każdą odpowiedź pytaniem, czy sprawa jest jasna.",
    "W sprawach pilnych zaproponuj rozmowę telefoniczną z opiekunem szkody.",
]
TURKISH = [
    "Oyuncu Türkçe yazıyorsa Türkçe yanıt ver.",
    "Hesap şifresini veya doğrulama kodunu asla isteme.",
    "Yasaklama itirazlarını güven ve güvenlik ekibine yönlendir.",
    "Satın alma sorunlarında makbuz numarasını sor.",
    "Bağlantı kopmalarında önce sunucu bölgesini öğren.",
    "Yanıtların kısa ve anlaşılır olsun.",
]
VIETNAMESE = [
    "Nếu học sinh viết bằng tiếng Việt, hãy trả lời bằng tiếng Việt.",
    "Giải thích từng bước một, không chỉ đưa ra đáp án.",
    "Khuyến khích học sinh tự thử lại sau mỗi gợi ý.",
    "Không làm hộ bài kiểm tra hoặc bài thi.",
    "Báo cho giáo viên phụ trách nếu học sinh có dấu hiệu căng thẳng.",
]
HEBREW = [
    "אם המטופל כותב בעברית, יש לענות בעברית.",
    "אין לתת המלצה על מינון ללא אישור הרוקח האחראי.",
    "יש לבקש את מספר המרשם לפני כל בירור.",
    "במקרה של תופעות לוואי חמורות יש להפנות מיד לרופא.",
    "אין למסור מידע רפואי לאדם אחר ללא הסכמה בכתב.",
]
INDONESIAN = [
    "Jika pelanggan menulis dalam bahasa Indonesia, jawablah dalam bahasa Indonesia.",
    "Selalu minta nomor pengiriman sebelum memeriksa status.",
    "Jangan menjanjikan jam kedatangan yang pasti.",
    "Laporkan penyimpangan suhu kepada manajer mutu dalam satu jam.",
    "Gunakan bahasa yang sopan dan singkat.",
]
HEBREW_ASKS = ["מתי התרופה שלי תגיע?", "האם אפשר לחדש את המרשם בלי ביקור אצל הרופא?",
               "שכחתי לקחת מנה אחת, מה עליי לעשות?", "האם יש את התרופה במלאי בסניף?"]
TURKISH_ASKS = ["Sıralı maçta haksız ceza aldım, ne yapabilirim?", "Satın aldığım kostüm envanterimde görünmüyor.",
                "Oyun sürekli bağlantıyı koparıyor.", "Hesabım neden askıya alındı?"]
VIETNAMESE_ASKS = ["Em không hiểu cách giải hệ phương trình này.", "Thầy có thể giải thích định luật Newton thứ hai không?",
                   "Làm sao để tính nồng độ mol?", "Em nên ôn tập phần nào trước kỳ thi?"]


def _param(kind: str, desc: str, **extra: Any) -> dict[str, Any]:
    return {"type": kind, "description": desc, **extra}


TOOLS: dict[str, tuple[str, dict[str, Any], list[str]]] = {
    "open_matter": ("Open a new legal matter for a client after the conflict check.",
                    {"client_name": _param("string", "Full legal name."),
                     "area": _param("string", "Area of law.", enum=["employment", "housing", "consumer"]),
                     "deadline": _param("string", "Any limitation date the client mentioned, ISO 8601.")},
                    ["client_name", "area"]),
    "conflict_check": ("Search earlier matters for the other party's name before giving advice.",
                       {"party": _param("string", "The other side's name."),
                        "fuzzy": _param("boolean", "Also match similar spellings.")}, ["party"]),
    "lodge_claim": ("Register a new insurance claim against a policy.",
                    {"policy_number": _param("string", "Policy number, e.g. BWM-H-0042187."),
                     "peril": _param("string", "What happened.", enum=["storm", "water", "theft", "accident", "fire"]),
                     "incident_date": _param("string", "ISO 8601 date of the incident.")},
                    ["policy_number", "peril"]),
    "book_assessor": ("Book a loss assessor visit for a claim.",
                      {"claim_number": _param("string", "Claim number with its check digit."),
                       "window": _param("object", "Preferred visit window.",
                                        properties={"from": _param("string", "ISO 8601 start."),
                                                    "to": _param("string", "ISO 8601 end.")})},
                      ["claim_number"]),
    "query_metrics": ("Run a PromQL query against the platform's metrics store.",
                      {"promql": _param("string", "The PromQL expression."),
                       "range_minutes": _param("integer", "How far back to look.")}, ["promql"]),
    "rollback_release": ("Roll a service back to its previous helm release.",
                         {"service": _param("string", "Service name."),
                          "revision": _param("integer", "Helm revision to return to."),
                          "reason": _param("string", "Why, for the change log.")}, ["service", "reason"]),
    "run_sql": ("Run a read-only SQL query on the reporting replica.",
                {"sql": _param("string", "One SELECT statement."),
                 "timeout_s": _param("integer", "Statement timeout in seconds.")}, ["sql"]),
    "schedule_lesson": ("Book a tutoring lesson with an available tutor.",
                        {"subject": _param("string", "Subject.", enum=["maths", "physics", "chemistry"]),
                         "level": _param("string", "Exam level, e.g. GCSE or A level."),
                         "slot": _param("string", "ISO 8601 start time.")}, ["subject", "slot"]),
    "fetch_past_paper": ("Fetch a past exam paper and its mark scheme.",
                         {"board": _param("string", "Exam board."), "year": _param("integer", "Exam year."),
                          "paper": _param("string", "Paper code.")}, ["board", "year"]),
    "search_fares": ("Search rail and air fares between two places.",
                     {"origin": _param("string", "IATA or station code."),
                      "destination": _param("string", "IATA or station code."),
                      "date": _param("string", "ISO 8601 travel date."),
                      "cabin": _param("string", "Cabin.", enum=["economy", "premium", "business"])},
                     ["origin", "destination", "date"]),
    "change_booking": ("Change the dates or passengers of an existing booking.",
                       {"pnr": _param("string", "Six-character booking reference."),
                        "new_date": _param("string", "ISO 8601 date."),
                        "waive_fee": _param("boolean", "Only with a supervisor's approval.")}, ["pnr"]),
    "check_stock": ("Check whether a branch has a medicine in stock.",
                    {"medicine": _param("string", "Generic name."),
                     "form": _param("string", "Dosage form."),
                     "branch": _param("string", "Branch code.")}, ["medicine", "branch"]),
    "order_repeat": ("Order a repeat prescription for collection or delivery.",
                     {"rx_number": _param("string", "Prescription number."),
                      "delivery": _param("boolean", "Deliver to the address on file.")}, ["rx_number"]),
    "get_prescription": ("Fetch a prescription with its items and dosage instructions.",
                         {"rx_number": _param("string", "Prescription number.")}, ["rx_number"]),
    "lookup_player": ("Look up a player's account, sanctions and recent matches.",
                      {"player_id": _param("string", "Numeric player id."),
                       "include_matches": _param("boolean", "Also return the last 20 matches.")}, ["player_id"]),
    "grant_item": ("Grant an item to a player's inventory after a verified loss.",
                   {"player_id": _param("string", "Numeric player id."), "item_sku": _param("string", "Item SKU."),
                    "ticket": _param("string", "Support ticket that justifies the grant.")},
                   ["player_id", "item_sku", "ticket"]),
    "track_shipment": ("Return the status and temperature log of a refrigerated shipment.",
                       {"shipment_id": _param("string", "Shipment id, e.g. NSC-2026-0041877."),
                        "with_log": _param("boolean", "Include the five-minute temperature log.")}, ["shipment_id"]),
    "book_collection": ("Book a refrigerated collection from a customer's site.",
                        {"site": _param("string", "Site code."), "pallets": _param("integer", "Pallet count."),
                         "setpoint_c": _param("number", "Required temperature in Celsius.")},
                        ["site", "pallets"]),
    "seat_map": ("Return the seat map of a flight or train with the seats still free.",
                 {"pnr": _param("string", "Six-character booking reference."),
                  "segment": _param("integer", "Which leg, starting at 1.")}, ["pnr"]),
    "add_bags": ("Add checked bags to a booking and return the price.",
                 {"pnr": _param("string", "Six-character booking reference."),
                  "bags": _param("integer", "Number of extra bags, 1 to 3.")}, ["pnr", "bags"]),
    "book_vaccination": ("Book a travel-clinic vaccination appointment at a branch.",
                         {"vaccine": _param("string", "Vaccine name."), "branch": _param("string", "Branch code."),
                          "date": _param("string", "ISO 8601 date.")}, ["vaccine", "branch"]),
    "find_branch": ("Find the nearest branches with their opening hours.",
                    {"postcode": _param("string", "UK postcode."), "open_now": _param("boolean", "Only open ones.")},
                    ["postcode"]),
    "report_side_effect": ("Record a suspected side effect for the pharmacist to review.",
                           {"rx_number": _param("string", "Prescription number."),
                            "symptoms": _param("array", "What the patient noticed.", items={"type": "string"}),
                            "severity": _param("string", "How bad.", enum=["mild", "moderate", "severe"])},
                           ["symptoms", "severity"]),
    "check_exemption": ("Check whether a patient is exempt from prescription charges.",
                        {"nhs_number": _param("string", "Ten-digit NHS number."),
                         "certificate": _param("string", "Exemption certificate number, if any.")}, ["nhs_number"]),
    "fetch_match": ("Fetch one match with its scoreboard, penalties and replay link.",
                    {"match_id": _param("string", "Numeric match id.")}, ["match_id"]),
    "file_ban_appeal": ("File an appeal against a ban or ranked penalty.",
                        {"player_id": _param("string", "Numeric player id."),
                         "statement": _param("string", "The player's account of events.")}, ["player_id", "statement"]),
    "refund_purchase": ("Refund an in-game purchase made in the last 14 days.",
                        {"receipt": _param("string", "Store receipt id."),
                         "reason": _param("string", "Why.", enum=["not received", "duplicate", "accidental"])},
                        ["receipt", "reason"]),
    "check_server_status": ("Return the status of the game servers in a region.",
                            {"region": _param("string", "Region.", enum=["eu-west", "eu-east", "na-east", "na-west",
                                                                         "sa", "asia", "oce"])}, ["region"]),
    "reset_mfa": ("Start a two-factor reset after an identity check.",
                  {"player_id": _param("string", "Numeric player id."),
                   "verified_by": _param("string", "How the identity was checked.")}, ["player_id", "verified_by"]),
    "report_cheater": ("Send a cheating report with match evidence to the anti-cheat team.",
                       {"match_id": _param("string", "Numeric match id."),
                        "suspect": _param("string", "Suspect's display name.")}, ["match_id", "suspect"]),
    "account_overview": ("Return the customer's open shipments and the service terms that apply to them.",
                         {"scope": _param("string", "What to include.", enum=["open_shipments", "all"])}, ["scope"]),
}
TOOL_NAMES = list(TOOLS)


@dataclass
class Clerk:
    """Seeded text for one organisation; never the same sentence twice."""

    rng: random.Random
    org: Org
    first_tool_key: str = "description"
    _seen: set[str] = field(default_factory=set)
    _docs: dict[tuple[str, int], str] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.org.name

    @property
    def unit(self) -> str:
        return self.org.unit

    def _fresh(self, make: Any) -> str:
        for _ in range(80):
            s = make()
            if s not in self._seen:
                break
        self._seen.add(s)
        return s

    def rule(self) -> str:
        r, o = self.rng, self.org
        return self._fresh(lambda: r.choice(_RULE).format(
            topic=r.choice(o.topics), owner=r.choice(o.owners), thing=r.choice(o.things), delay=r.choice(_DELAYS),
            manner=r.choice(_MANNERS), unit=o.unit, customer=o.customer))

    def note(self) -> str:
        r = self.rng

        def make() -> str:
            fill = {k: r.choice(v) for k, v in _FILL.items()}
            fill["thing"] = r.choice(self.org.things)
            fill["code"] = f"KB-{r.randint(100, 999)}{r.choice('ABCDEFGH')}"
            s = r.choice(_NOTE).format(**fill)
            return s[0].upper() + s[1:]
        return self._fresh(make)

    def paragraph(self, n: int = 5) -> str:
        return " ".join(self.rule() if self.rng.random() < 0.6 else self.note() for _ in range(n))

    def preface(self) -> str:
        o = self.org
        return (f"You are the {o.role} for {o.name}, which offers {o.does}. Each {o.customer} who writes in has a "
                f"{o.unit} on file; use the tools and the reference below to help them, and say so when you cannot.")

    def guide(self, sections: int, per: int = 6) -> str:
        """Headed sections of rules and notes, about 150 tokens each."""
        heads = ["Scope", "Checking identity", "Money", "Changes", "Complaints", "People who need extra help",
                 "Privacy", "Tone", "Escalation", "Outages", "Accessibility", "Notes and records", "Partners",
                 "Closing", "Evenings and weekends", "Quality"]
        out = []
        for k in range(sections):
            head = heads[k % len(heads)] + ("" if k < len(heads) else f" ({k // len(heads) + 1})")
            out.append(f"#### {head}\n{self.paragraph(per)}")
        return "\n\n".join(out)

    def sentences(self, n: int) -> list[str]:
        return [self.rule() if self.rng.random() < 0.5 else self.note() for _ in range(n)]

    def tool(self, name: str) -> dict[str, Any]:
        desc, props, required = TOOLS[name]
        return {"type": "function", "function": {"name": name, "description": desc, "parameters": {
            "type": "object", "properties": json.loads(json.dumps(props)), "required": list(required)}}}

    def doc(self, kind: str, k: int, sentences: int = 5) -> str:
        """Document ``k`` of a corpus: the same text every time, no sentence shared with others."""
        key = (kind, k)
        if key not in self._docs:
            saved, self.rng = self.rng, random.Random(f"{self.name}/{kind}/{k}")
            try:
                self._docs[key] = " ".join(self.note() if j % 2 else self.rule() for j in range(sentences))
            finally:
                self.rng = saved
        return self._docs[key]

    def question(self) -> str:
        r, o = self.rng, self.org
        return (r.choice(_ASKS).format(unit=o.unit, thing=r.choice(o.things), topic=r.choice(o.topics),
                                       weekday=r.choice(_FILL["weekday"])) + r.choice(_ASK_TAILS) + f" (ref {self.ref()})")

    def answer(self) -> str:
        r, o = self.rng, self.org
        return r.choice(_REPLIES).format(unit=o.unit, owner=r.choice(o.owners), delay=r.choice(_DELAYS),
                                         thing=r.choice(o.things))

    def ref(self) -> str:
        return "".join(self.rng.choice("ACDEFHJKLMNPRTUVWXY2345679") for _ in range(6))

    def person(self) -> str:
        return f"{self.rng.choice(FIRST_NAMES)} {self.rng.choice(LAST_NAMES)}"


def compact(value: object) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def pretty(value: object) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)
