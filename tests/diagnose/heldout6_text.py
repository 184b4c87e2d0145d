"""Text for the sixth held-out diagnosis set (tests/diagnose/heldout6.py).

Written apart from the detector, its zoo and the earlier held-out sets' text modules: other
organisations (a managed security operations centre, a regional airline's operations control,
a music licensing collective, a county services office, an estate agency, an online academy,
an employee benefits administrator, a district heating utility), other phrasing, nested tool
schemas, and text in Turkish, Vietnamese, Polish, Indonesian and Hebrew. Everything is drawn
from a seeded ``random.Random``; a desk never writes the same sentence twice (a repeated
sentence would be a shared unit at two places, a signal no workload means to plant).
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from typing import Any

# (organisation, what it does, the unit of business, who answers, the things staff handle)
ORGS: list[tuple[str, str, str, str, list[str]]] = [
    ("Cobalt Harbor Security", "a managed detection and response service watching 340 customer networks", "alert",
     "SOC analyst", ["phishing reports", "impossible-travel sign-ins", "EDR quarantines", "firewall rule requests",
                     "malware detonations", "privileged account changes", "DNS tunnelling alerts", "vulnerability scans"]),
    ("Skylark Regional Airways", "scheduled turboprop and regional jet flights from twelve bases", "flight",
     "operations controller", ["crew swaps", "de-icing holds", "diversions", "technical delays", "slot changes",
                               "passenger connections", "catering shortfalls", "aircraft swaps"]),
    ("Mosaic Rights Collective", "licensing of recorded music and compositions for film, games and advertising",
     "licence request", "licensing coordinator", ["sync quotes", "split sheets", "territory limits", "cue sheets",
                                                  "trailer uses", "most-favoured-nation clauses", "royalty statements",
                                                  "stem requests"]),
    ("Fenwick County Services", "council tax, housing benefit, parking permits and blue badge applications",
     "application", "caseworker", ["council tax discounts", "housing benefit claims", "parking permits",
                                   "blue badge renewals", "change-of-address forms", "hardship payments",
                                   "appeals", "direct debit mandates"]),
    ("Alder & Finch Realty", "residential sales and new-build listings across three counties", "listing",
     "sales negotiator", ["viewing requests", "offers", "valuation visits", "price reductions", "chain breaks",
                          "survey results", "floor plan corrections", "leasehold questions"]),
    ("Brightpath Online Academy", "accredited online courses for adult learners and sixth-form students",
     "enrolment", "learner support tutor", ["deadline extensions", "quiz resets", "certificate reissues",
                                            "course transfers", "accessibility adjustments", "plagiarism flags",
                                            "payment plans", "exam bookings"]),
    ("Greystone Benefits", "health, dental, pension and life cover administration for 900 employers",
     "benefits election", "benefits adviser", ["dependant additions", "qualifying life events", "pension transfers",
                                               "health plan claims", "salary sacrifice changes", "cover upgrades",
                                               "leaver packs", "beneficiary nominations"]),
    ("Kettering District Heat", "metered district heating and hot water for 41,000 homes", "heat account",
     "billing adviser", ["estimated bills", "meter faults", "payment plans", "tariff changes", "standing charges",
                         "move-in readings", "heat interface unit repairs", "priority register requests"]),
]

_OWNERS = ["the shift supervisor", "the second-line team", "the compliance lead", "the finance desk",
           "the duty manager", "the quality reviewer", "the data protection officer", "the team leader on call",
           "the escalation queue", "the service owner"]
_WAITS = ["one working day", "four hours", "48 hours", "the end of the shift", "five working days", "thirty minutes",
          "the next business morning", "ten working days"]
_IFS = ["the caller has passed identity checks", "the reference has been repeated back", "a supervisor has approved it",
        "the evidence is attached to the case", "the customer has confirmed by email", "the earlier case is closed",
        "the payment has cleared", "the address matches the records"]
_STYLES = ["calm", "brief", "warm but exact", "patient", "plain-spoken", "professional"]

_RULES = [
    "Whenever {topic} come up, open the {unit} history before replying; an earlier note often answers it.",
    "Only {owner} can approve an exception for {topic}, and only once {cond}.",
    "After {cond}, go ahead without waiting and write what you did in the case log.",
    "Pass {topic} that are still unresolved after {wait} to {owner} with a two-line summary.",
    "With {topic}, give the answer first and the reason second, in at most two sentences.",
    "If a message about {topic} turns hostile, answer once in a {style} tone and route it to {owner}.",
    "Replies on {topic} should stay under roughly 130 words unless more detail is requested.",
    "Never commit to a date for {topic}; say that {owner} will confirm it within {wait}.",
    "Quote the full {unit} reference each time you discuss {topic} so colleagues can follow the thread.",
    "Do not close a thread about {topic} until {cond}.",
    "Anyone raising {topic} for the third time in thirty days gets a call back from {owner}.",
    "Explain {topic} without internal jargon or system names.",
    "Where the rules for {topic} differ by region, ask which region applies before answering.",
    "Log every change made to a {unit} while handling {topic}, with the name of the requester.",
    "If {cond} is still outstanding, say what is missing instead of refusing.",
    "Keep a {style} manner with people writing about {topic}, even under pressure.",
    "Never repeat a password, PIN or one-time code that someone pastes while asking about {topic}.",
    "Outside office hours, acknowledge {topic} and explain that {owner} will pick them up within {wait}.",
    "For {topic}, check whether a similar case was opened in the last week and link the two.",
    "Summarise {topic} for the handover note in one sentence each, newest first.",
]

_FACTS = [
    "Since the {month} update, {thing} can be changed online up to {hours} hours in advance.",
    "{Thing} booked through a partner are handled by the partner before they reach us.",
    "A confirmation for {thing} usually arrives by email within {minutes} minutes.",
    "The portal keeps {thing} for {days} days; older records are archived and can be requested.",
    "On {weekday} nights scheduled maintenance can leave {thing} marked as pending until morning.",
    "People on the priority register get {thing} handled first.",
    "Duplicate {thing} are cancelled automatically within {minutes} minutes of being created.",
    "{Thing} cannot be transferred to someone else, though the name on them can be corrected once.",
    "Article {code} in the knowledge base explains {thing} step by step with screenshots.",
    "A PDF history of {thing} can be downloaded for the past seven years.",
    "After two failed card payments for {thing} the account goes on hold until the card is updated.",
    "Arranging {thing} by phone costs the same as arranging them online.",
    "The {month} fee schedule changed the charge for {thing} for new customers only.",
    "Requests about {thing} sent after 18:00 are processed on the next working day.",
    "The mobile app shows {thing} only for the primary account holder.",
    "Bulk changes to {thing} go through the {month} batch and cannot be rushed.",
]
_FILL = {
    "month": ["February", "April", "May", "July", "September", "November"],
    "hours": ["2", "6", "12", "24", "48", "72"],
    "minutes": ["5", "15", "25", "40", "60"],
    "days": ["45", "90", "120", "365"],
    "weekday": ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"],
}

_ASKS = [
    "Can you check the status of my {unit}? I haven't heard anything since {weekday}.",
    "Why has my {unit} been put on hold?",
    "I need to change the contact details on my {unit}, what's the quickest way?",
    "Is it possible to speed up {thing}?",
    "Someone from your team promised an update on {weekday} and nothing came.",
    "What documents do you need from me for {thing}?",
    "Could you explain the charge on my last statement?",
    "I think there's a mistake with {thing}; who can look at it?",
    "How long does {thing} normally take at the moment?",
    "Can I add a colleague as a second contact on the {unit}?",
    "I'd like to raise a formal complaint about how {thing} was handled.",
    "What happens if I miss the deadline for {thing}?",
    "Do you have an accessible version of the guidance on {thing}?",
    "Please cancel the request I made yesterday about {thing}.",
]
_TAILS = ["", " Thanks.", " Urgent please.", " Second time asking.", " I'm on my phone.",
          " Asking for my manager.", " Kind regards.", " Sorry if this is the wrong place."]
_REPLIES = [
    "I've looked at your {unit} and the hold is lifted; you'll receive a confirmation shortly.",
    "That charge is the annual adjustment. I can send you the line-by-line breakdown if it helps.",
    "Apologies for the silence. I've booked a call for {hh}:{mm} tomorrow and noted the missed update.",
    "Changes like this take about {days} working days; yours is already queued.",
    "Yes, I've added the second contact. They'll get an email asking them to confirm.",
    "Thanks for flagging it. I've asked the team to review the {unit} and they'll reply within {days} days.",
    "We need proof of address and the reference letter; you can upload both in the portal.",
    "I've cancelled yesterday's request, and nothing further will be charged.",
]

FIRST_NAMES = ["Adaeze", "Bartosz", "Chiara", "Dinh", "Esra", "Fintan", "Gulnara", "Hamish", "Ifeoma", "Jarrah",
               "Kiri", "Lucía", "Mehmet", "Nadia", "Orla", "Piotr", "Qadira", "Ravi", "Siobhan", "Thao", "Uriel",
               "Valentina", "Wiremu", "Ximena", "Yael", "Zainab"]
LAST_NAMES = ["Abernathy", "Brzezinski", "Cavanagh", "Demir", "Ekwueme", "Fonseca", "Goldberg", "Halvorsen",
              "Ibarra", "Jankowska", "Kaplan", "Le", "Mahlangu", "Nguyen", "O'Doherty", "Przybylski", "Quaresma",
              "Rahimi", "Szabo", "Tamihana", "Uysal", "Vaughan", "Wojcik", "Yildirim", "Zamora"]


def _p(kind: str, desc: str, **extra: Any) -> dict[str, Any]:
    return {"type": kind, "description": desc, **extra}


# Nested parameter schemas, as a real function-calling API declares them.
TOOLS: dict[str, tuple[str, dict[str, Any], list[str]]] = {
    "query_siem": ("Run a saved or ad-hoc search over the SIEM for a customer tenant.",
                   {"tenant": _p("string", "Customer tenant code."),
                    "query": _p("string", "Search expression in the SIEM's query language."),
                    "window": _p("object", "Time range.", properties={"from": _p("string", "ISO 8601 start."),
                                                                        "to": _p("string", "ISO 8601 end.")}),
                    "limit": _p("integer", "Maximum rows.", minimum=1, maximum=500)}, ["tenant", "query"]),
    "isolate_host": ("Network-isolate an endpoint through the EDR agent.",
                     {"hostname": _p("string", "Fully qualified host name."),
                      "reason": _p("string", "Why the host is isolated."),
                      "notify": _p("array", "Who to tell.", items={"type": "string", "enum": ["customer", "soc-lead", "ir"]})},
                     ["hostname", "reason"]),
    "lookup_ioc": ("Check a hash, domain or address against threat intelligence feeds.",
                   {"indicator": _p("string", "The indicator value."),
                    "type": _p("string", "Indicator type.", enum=["sha256", "domain", "ipv4", "url"])}, ["indicator"]),
    "open_incident": ("Open an incident for the customer with a severity and summary.",
                      {"tenant": _p("string", "Customer tenant code."),
                       "severity": _p("string", "Severity.", enum=["low", "medium", "high", "critical"]),
                       "summary": _p("string", "Three sentences at most."),
                       "evidence": _p("array", "Alert or event identifiers.", items={"type": "string"})},
                      ["tenant", "severity", "summary"]),
    "get_flight_status": ("Return the live status, gate and delay codes of a flight.",
                          {"flight": _p("string", "Flight number, e.g. SK1432."),
                           "date": _p("string", "Local departure date, YYYY-MM-DD.")}, ["flight"]),
    "reassign_crew": ("Swap a crew member on a rostered duty.",
                      {"duty_id": _p("string", "Roster duty identifier."),
                       "out": _p("object", "Crew member leaving the duty.",
                                 properties={"staff_no": _p("string", "Staff number."),
                                             "reason": _p("string", "Reason code.", enum=["sick", "fatigue", "training", "other"])},
                                 required=["staff_no"]),
                       "in": _p("object", "Replacement.", properties={"staff_no": _p("string", "Staff number.")})},
                      ["duty_id", "out", "in"]),
    "file_delay_code": ("Record an IATA delay code and minutes against a departure.",
                        {"flight": _p("string", "Flight number."),
                         "codes": _p("array", "Delay codes with minutes.",
                                     items={"type": "object", "properties": {"code": _p("string", "Two-digit code."),
                                                                             "minutes": _p("integer", "Minutes.")}})},
                        ["flight", "codes"]),
    "search_catalogue": ("Search recordings and compositions by title, artist, ISRC or ISWC.",
                         {"text": _p("string", "Free-text query."),
                          "filters": _p("object", "Narrowing filters.",
                                        properties={"territory": _p("string", "ISO country code."),
                                                    "one_stop": _p("boolean", "Only fully controlled works.")})},
                         ["text"]),
    "quote_sync_licence": ("Price a synchronisation licence for a media use.",
                           {"work_id": _p("string", "Catalogue work identifier."),
                            "media": _p("string", "Use.", enum=["film", "tv", "game", "advert", "trailer", "online"]),
                            "term_years": _p("integer", "Licence term.", minimum=1, maximum=25),
                            "territories": _p("array", "Where it is shown.", items={"type": "string"})},
                           ["work_id", "media"]),
    "check_application": ("Look up the progress of a council application.",
                          {"reference": _p("string", "Application reference."),
                           "postcode": _p("string", "Applicant postcode for verification.")}, ["reference", "postcode"]),
    "book_viewing": ("Book a viewing of a listed property.",
                     {"listing_id": _p("string", "Listing reference."),
                      "slot": _p("object", "Preferred time.", properties={"date": _p("string", "YYYY-MM-DD."),
                                                                          "time": _p("string", "HH:MM.")},
                                 required=["date"]),
                      "buyer": _p("object", "Who is viewing.", properties={"name": _p("string", "Full name."),
                                                                           "position": _p("string", "Buying position.",
                                                                                          enum=["first-time", "chain", "cash"])})},
                     ["listing_id", "slot"]),
    "reset_quiz_attempt": ("Give a learner another attempt at a quiz.",
                           {"enrolment_id": _p("string", "Enrolment reference."),
                            "quiz": _p("string", "Quiz code."),
                            "reason": _p("string", "Why.", enum=["technical", "illness", "adjustment"])},
                           ["enrolment_id", "quiz"]),
    "get_benefit_elections": ("Return an employee's current benefit elections and dependants.",
                              {"employee": _p("object", "Who.", properties={"employee_id": _p("string", "Employee number."),
                                                                           "employer": _p("string", "Employer code.")},
                                              required=["employee_id"]),
                               "plan_year": _p("integer", "Plan year.")}, ["employee"]),
    "submit_life_event": ("Record a qualifying life event that opens a mid-year change window.",
                          {"employee_id": _p("string", "Employee number."),
                           "event": _p("string", "Event.", enum=["birth", "marriage", "divorce", "loss of cover", "move"]),
                           "event_date": _p("string", "YYYY-MM-DD."),
                           "documents": _p("array", "Uploaded evidence ids.", items={"type": "string"})},
                          ["employee_id", "event", "event_date"]),
    "get_tariff": ("Return the heat tariff, standing charge and unit rates for an account.",
                   {"account": _p("string", "Heat account number."),
                    "on": _p("string", "Date the rates apply, YYYY-MM-DD.")}, ["account"]),
    "set_payment_plan": ("Set up a payment plan for arrears on a heat account.",
                         {"account": _p("string", "Heat account number."),
                          "instalments": _p("object", "Schedule.",
                                            properties={"amount": _p("number", "Per instalment, in pounds."),
                                                        "every": _p("string", "Interval.", enum=["week", "fortnight", "month"]),
                                                        "count": _p("integer", "How many.")},
                                            required=["amount", "every"])}, ["account", "instalments"]),
}
TOOL_NAMES = sorted(TOOLS)

TURKISH = [
    "Müşteriye her zaman nazik ve açık bir dille yanıt verin.",
    "Fatura sorularında önce hesap numarasını doğrulayın.",
    "Kimlik doğrulaması tamamlanmadan kişisel bilgi paylaşmayın.",
    "Ödeme planı taleplerini aynı gün sisteme kaydedin.",
    "Çözemediğiniz talepleri ikinci seviye destek ekibine aktarın.",
    "İade işlemleri yedi iş günü içinde tamamlanır.",
]
TURKISH_ASKS = ["Bu ayki faturam neden bu kadar yüksek?", "Sayaç okumamı nasıl gönderebilirim?",
                "Ödeme planı yapmak istiyorum.", "Taşınıyorum, hesabımı nasıl kapatırım?"]
VIETNAMESE = [
    "Luôn trả lời học viên bằng giọng lịch sự và rõ ràng.",
    "Trước khi trả lời câu hỏi về học phí, hãy xác minh mã ghi danh.",
    "Không chia sẻ điểm thi cho bất kỳ ai ngoài học viên.",
    "Nếu hệ thống gặp sự cố, hãy thông báo thời gian dự kiến khôi phục.",
    "Yêu cầu hoàn học phí được xử lý trong vòng mười ngày làm việc.",
]
VIETNAMESE_ASKS = ["Tôi có thể gia hạn bài tập không?", "Khi nào tôi nhận được chứng chỉ?",
                   "Tại sao tôi không vào được bài kiểm tra?", "Làm sao để đổi sang khóa học khác?"]
POLISH = [
    "Zawsze zwracaj się do klienta per Pan lub Pani.",
    "Przed odpowiedzią na pytanie o rachunek sprawdź numer sprawy.",
    "Nie podawaj danych osobowych przed weryfikacją tożsamości.",
    "Reklamacje rejestruj w systemie tego samego dnia.",
    "Zwrot środków trwa do czternastu dni roboczych.",
    "Jeśli sprawa jest pilna, przekaż ją kierownikowi zmiany.",
]
POLISH_ASKS = ["Kiedy rozpatrzycie mój wniosek?", "Czy mogę dosłać brakujące dokumenty mailem?",
               "Dlaczego moja zniżka została cofnięta?", "Jak złożyć odwołanie od decyzji?"]
INDONESIAN = [
    "Selalu jawab pertanyaan peserta dengan sopan dan jelas.",
    "Periksa nomor pendaftaran sebelum menjawab pertanyaan tentang kursus.",
    "Jangan membagikan nilai ujian kepada orang selain peserta.",
    "Permintaan pengembalian dana diproses dalam sepuluh hari kerja.",
]
HEBREW = [
    "יש לענות ללקוח בנימוס ובשפה ברורה.",
    "לפני מתן מידע על הנכס יש לאמת את זהות הפונה.",
    "אין למסור מידע אישי לצד שלישי.",
    "בקשות לתיאום סיור בנכס מטופלות בתוך יום עסקים אחד.",
]


@dataclass
class Desk:
    """Seeded text for one organisation; never the same sentence twice."""

    rng: random.Random
    org: tuple[str, str, str, str, list[str]]
    first_tool_key: str = "description"
    _seen: set[str] = field(default_factory=set)
    _docs: dict[tuple[str, int], str] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.org[0]

    @property
    def unit(self) -> str:
        return self.org[2]

    def _fresh(self, make: Any) -> str:
        for _ in range(80):
            s = make()
            if s not in self._seen:
                break
        self._seen.add(s)
        return str(s)

    def rule(self) -> str:
        r = self.rng
        return self._fresh(lambda: r.choice(_RULES).format(
            topic=r.choice(self.org[4]), owner=r.choice(_OWNERS), wait=r.choice(_WAITS), cond=r.choice(_IFS),
            style=r.choice(_STYLES), unit=self.unit))

    def fact(self) -> str:
        r = self.rng

        def make() -> str:
            fill = {k: r.choice(v) for k, v in _FILL.items()}
            thing = r.choice(self.org[4])
            fill.update(thing=thing, Thing=thing[0].upper() + thing[1:], code=f"KB-{r.randint(10000, 99999)}")
            return r.choice(_FACTS).format(**fill)
        return self._fresh(make)

    def paragraph(self, n: int = 5) -> str:
        return " ".join(self.rule() if self.rng.random() < 0.5 else self.fact() for _ in range(n))

    def preface(self) -> str:
        return (f"You assist the {self.org[3]}s of {self.name}, which runs {self.org[1]}. Requests arrive from the "
                f"web portal, email and the internal desk. Use the listed tools for look-ups and changes, say plainly "
                f"when you do not know, and never invent a reference number.")

    def guide(self, sections: int, per: int = 6) -> str:
        """Headed sections of rules and facts, about 150 tokens each."""
        heads = ["Scope", "Identity checks", "Money", "Changes", "Complaints", "People who need extra help",
                 "Privacy", "Tone", "Handover", "Incidents", "Accessibility", "Records", "Partners", "Closing a case",
                 "Nights and weekends", "Reviews"]
        out = []
        for k in range(sections):
            head = heads[k % len(heads)] + ("" if k < len(heads) else f" (continued {k // len(heads) + 1})")
            out.append(f"**{head}.** {self.paragraph(per)}")
        return "\n\n".join(out)

    def tool(self, name: str) -> dict[str, Any]:
        desc, props, required = TOOLS[name]
        return {"type": "function", "function": {"name": name, "description": desc, "parameters": {
            "type": "object", "properties": json.loads(json.dumps(props)), "required": list(required)}}}

    def doc(self, kind: str, k: int, sentences: int = 5) -> str:
        """Document ``k`` of a corpus: the same text every time it is drawn."""
        key = (kind, k)
        if key not in self._docs:
            saved, self.rng = self.rng, random.Random(f"{self.name}/{kind}/{k}")
            try:
                self._docs[key] = " ".join(self.fact() for _ in range(sentences))
            finally:
                self.rng = saved
        return self._docs[key]

    def question(self) -> str:
        r = self.rng
        return (r.choice(_ASKS).format(unit=self.unit, weekday=r.choice(_FILL["weekday"]), thing=r.choice(self.org[4]))
                + r.choice(_TAILS) + f" (ref {self.ref()})")

    def long_question(self) -> str:
        """A question with a pasted paragraph of context: request sizes vary in real logs."""
        return self.question() + "\n\n" + " ".join(self.fact() for _ in range(self.rng.randint(1, 6)))

    def answer(self) -> str:
        r = self.rng
        return r.choice(_REPLIES).format(unit=self.unit, hh=f"{r.randint(8, 18):02d}", mm=r.choice(["00", "15", "30", "45"]),
                                         days=r.randint(2, 9))

    def ref(self) -> str:
        return "".join(self.rng.choice("ACEFHJKLMNPRTUVWXY2345679") for _ in range(8))

    def person(self) -> str:
        return f"{self.rng.choice(FIRST_NAMES)} {self.rng.choice(LAST_NAMES)}"


def compact(value: object) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
