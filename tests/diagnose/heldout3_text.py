"""Text for the third held-out diagnosis set (tests/diagnose/heldout3.py).

Written apart from the detector, its zoo and the two earlier held-out sets' text modules:
other organisations (a ferry operator, a water utility, a ride-hailing service, a pharmacy
chain, a cloud host, a veterinary group, a solar installer, a letting agency), other phrasing,
and text in several scripts (Japanese, Arabic, Russian) and with emoji. Everything is drawn
from a seeded ``random.Random``: the same seed gives the same text.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from typing import Any

# (organisation, what it does, what a customer's unit of business is called)
ORGS = [
    ("Harbourline Ferries", "passenger and vehicle ferries between six island ports", "booking"),
    ("Saltmarsh Water", "drinking water and waste water for 1.2 million homes", "account"),
    ("Kestrel Rides", "ride hailing and courier deliveries in eleven cities", "trip"),
    ("Larchwood Pharmacy", "a chain of 140 pharmacies with a repeat-prescription service", "prescription"),
    ("Obsidian Cloud", "virtual machines, object storage and managed databases", "instance"),
    ("Thistle Veterinary Group", "small-animal clinics and a 24-hour emergency hospital", "patient record"),
    ("Brightfield Solar", "rooftop solar panels, batteries and heat pumps", "installation"),
    ("Copperleaf Lettings", "residential lettings and property management", "tenancy"),
]

_SUBJECTS = ["cancellations", "late arrivals", "refund requests", "data access requests", "disputed charges",
             "accessibility needs", "lost property", "safety reports", "price questions", "complaints",
             "contract changes", "service interruptions", "vulnerable customers", "billing errors"]
_TEAMS = ["the resolutions desk", "the night supervisor", "the safeguarding lead", "the finance office",
          "the regional manager", "tier-two support", "the privacy office", "the operations room",
          "the quality team", "the claims handler"]
_WAITS = ["two working days", "one hour", "48 hours", "the end of the next shift", "five working days",
          "ten minutes", "the next business morning"]
_CHECKS = ["the customer has confirmed their postcode", "the reference matches the one on file",
           "the payment has settled", "a supervisor has agreed", "the customer has been told what changes",
           "the previous case is closed", "the photo evidence has arrived"]
_MOODS = ["calm", "brief", "warm but direct", "matter-of-fact", "patient"]

_DUTY = [
    "For {subject}, read the latest note on the {unit} before replying, since the situation may have moved on.",
    "Do not promise compensation for {subject}; only {team} may offer it, and only once {check}.",
    "When {check}, you may go ahead without a second approval, but write down what you did.",
    "Anything about {subject} that you cannot settle within {wait} goes to {team} with a one-paragraph summary.",
    "Customers raising {subject} often need a quick yes or no first; give it, then explain.",
    "If a message about {subject} is abusive, answer once in a {mood} tone and then pass it to {team}.",
    "Keep each reply about {subject} under 150 words unless the customer asks for more detail.",
    "Never guess a date for {subject}; say that {team} will confirm it within {wait}.",
    "Quote the {unit} reference in full when you write about {subject}, so colleagues can find it later.",
    "Before closing a conversation about {subject}, check that {check}.",
    "A customer who mentions {subject} twice in one week should be offered a call from {team}.",
    "Explain {subject} in everyday words; avoid internal codes and abbreviations.",
    "Where the rules on {subject} differ by region, ask which region applies rather than assuming.",
    "Log every change to a {unit} made during a conversation about {subject}, including who asked for it.",
    "If {check} is not yet true, tell the customer what is missing instead of refusing outright.",
    "Stay {mood} with customers who write about {subject}, even if they are upset.",
]

_FACTS = [
    "Since the {month} update, {item} can be changed online up to {hours} hours before they start.",
    "{item} bought through a partner site are handled by that partner first, then by us.",
    "Most {item} are confirmed by email within {minutes} minutes; a text message follows if the customer opted in.",
    "The mobile app lists {item} for the past {days} days; older ones are in the web account.",
    "During planned maintenance on {weekday} nights, {item} may show as pending until morning.",
    "A reduced rate applies to {item} for customers over 65 and for registered carers.",
    "Duplicate {item} created by a double tap are cancelled automatically within {minutes} minutes.",
    "{item} cannot be transferred to another person, but they can be renamed once.",
    "The help article {code} shows how to find {item} in the account, with pictures for each step.",
    "Receipts for {item} can be downloaded as PDF from the account page for seven years.",
    "If a card payment for {item} fails twice, the account is paused until the customer updates the card.",
    "Customers who book {item} by phone pay the same price as online; there is no phone surcharge.",
]
_FACT_FILL = {
    "month": ["February", "April", "May", "July", "September", "November"],
    "item": ["return crossings", "meter readings", "scheduled rides", "repeat prescriptions", "database backups",
             "vaccination appointments", "panel inspections", "viewing slots", "cabin upgrades", "direct debits"],
    "hours": ["2", "6", "12", "24", "48"],
    "minutes": ["5", "10", "15", "30"],
    "days": ["30", "90", "180", "365"],
    "weekday": ["Monday", "Tuesday", "Wednesday", "Thursday"],
}

_ASKS = [
    "Can I move my {unit} to next {weekday} without paying again?",
    "Why was I charged twice this month?",
    "How do I add my partner to the {unit}?",
    "The app says my {unit} is pending. What does that mean?",
    "I was promised a call back yesterday and nobody rang. What now?",
    "Is there a discount for students or pensioners?",
    "Where do I find last year's statements?",
    "My card expired; how do I update it before the next payment?",
    "Can you explain the fee on my latest invoice?",
    "I want to complain about how I was treated at the desk.",
    "What happens to my {unit} if I move house?",
    "Can I get a copy of all the data you hold about me?",
    "How long does a refund usually take to arrive?",
    "Is the service running normally in my area today?",
    "I need to cancel; will I lose my deposit?",
    "Why does my {unit} show a different name from mine?",
]
_ASK_TAILS = ["", " Thanks.", " It's urgent.", " I've already tried the website.", " Please keep it short.",
              " This is the second time I'm asking.", " My reference is on the email you sent."]

_REPLIES = [
    "I've checked {unit} {ref} and the change is possible. The new date is confirmed once you accept the summary I "
    "send at {hh}:{mm}.",
    "Thanks for waiting. The second charge of {amount} on {unit} {ref} is a pre-authorisation that drops off within "
    "{days} working days.",
    "I'm sorry nobody called. I've booked a callback for {hh}:{mm} tomorrow and added note {ref} so it isn't missed again.",
    "{unit_cap} {ref} is pending because the payment of {amount} is still settling. Nothing else is needed from you.",
    "Yes, that's possible. I've sent a link to add the second person to {unit} {ref}; it stays valid for {days} days.",
    "The fee of {amount} covers the late change. Because this is the first time, I've removed it from {unit} {ref}.",
    "I've raised this as complaint {ref}, and the team will reply in writing within {days} working days.",
    "Statements for {unit} {ref} are under Account, then Documents. I've also emailed you the {days} PDFs.",
]

FIRST_NAMES = ["Anouk", "Bartek", "Chiara", "Dmitri", "Efua", "Farid", "Greta", "Hamza", "Ines", "Jonas", "Keiko",
               "Lior", "Mireille", "Nnamdi", "Oksana", "Pavel", "Quentin", "Rania", "Sunniva", "Tariq", "Ulla",
               "Viktor", "Wen", "Yusuf", "Zofia"]
LAST_NAMES = ["Abara", "Brennan", "Cerny", "Dahl", "Estrada", "Fontaine", "Gallo", "Haddad", "Ivanova", "Jansen",
              "Kowalczyk", "Lindqvist", "Moreau", "Nakamura", "Okafor", "Petrovic", "Quist", "Rossi", "Sato", "Tanaka"]

# Tools: name -> (description, {parameter: (type, description, extra)}, required)
TOOLS: dict[str, tuple[str, dict[str, tuple[str, str, dict[str, Any]]], list[str]]] = {
    "find_booking": ("Find a booking by reference or by the lead passenger's surname and travel date.",
                     {"reference": ("string", "Six-character booking reference.", {}),
                      "surname": ("string", "Lead passenger's surname.", {}),
                      "date": ("string", "Travel date, YYYY-MM-DD.", {})}, []),
    "change_sailing": ("Move a booking to another sailing on the same route.",
                       {"reference": ("string", "Booking reference.", {}),
                        "sailing_id": ("string", "Target sailing.", {}),
                        "keep_cabin": ("boolean", "Keep the same cabin grade if available.", {})},
                       ["reference", "sailing_id"]),
    "read_meter": ("Record a customer-supplied meter reading.",
                   {"account": ("string", "Water account number.", {}),
                    "reading": ("integer", "Cubic metres shown on the meter.", {"minimum": 0}),
                    "photo_url": ("string", "Optional photo of the meter face.", {})}, ["account", "reading"]),
    "report_leak": ("Open a leak report for the network team.",
                    {"postcode": ("string", "Where the leak is.", {}),
                     "severity": ("string", "How bad it looks.", {"enum": ["seeping", "running", "flooding"]}),
                     "on_property": ("boolean", "Inside the customer's boundary.", {})}, ["postcode", "severity"]),
    "quote_fare": ("Price a ride between two points for a vehicle class.",
                   {"pickup": ("string", "Pickup address or coordinates.", {}),
                    "dropoff": ("string", "Drop-off address or coordinates.", {}),
                    "vehicle": ("string", "Class.", {"enum": ["standard", "xl", "accessible", "courier"]})},
                   ["pickup", "dropoff"]),
    "locate_driver": ("Return the driver's last known position and estimated arrival.",
                      {"trip_id": ("string", "Trip identifier.", {})}, ["trip_id"]),
    "check_prescription": ("Report where a repeat prescription is in the dispensing queue.",
                           {"nhs_number": ("string", "Ten-digit patient number.", {}),
                            "item": ("string", "Medicine name as printed on the label.", {})}, ["nhs_number"]),
    "book_consultation": ("Book a pharmacist or vet consultation slot.",
                          {"branch": ("string", "Branch code.", {}),
                           "slot": ("string", "ISO start time.", {}),
                           "reason": ("string", "Short reason for the visit.", {})}, ["branch", "slot"]),
    "resize_instance": ("Change the machine type of a stopped instance.",
                        {"instance_id": ("string", "Instance to resize.", {}),
                         "machine_type": ("string", "Target type, e.g. m3.large.", {}),
                         "restart": ("boolean", "Start it again afterwards.", {})}, ["instance_id", "machine_type"]),
    "list_snapshots": ("List the snapshots of a volume, newest first.",
                       {"volume_id": ("string", "Volume identifier.", {}),
                        "limit": ("integer", "At most this many.", {"minimum": 1, "maximum": 200})}, ["volume_id"]),
    "estimate_yield": ("Estimate the yearly output of a planned solar array.",
                       {"latitude": ("number", "Decimal degrees.", {}),
                        "longitude": ("number", "Decimal degrees.", {}),
                        "kwp": ("number", "Array size in kilowatt-peak.", {"minimum": 0.5}),
                        "tilt": ("integer", "Panel tilt in degrees.", {"minimum": 0, "maximum": 90})},
                       ["latitude", "longitude", "kwp"]),
    "log_repair": ("Log a repair request against a let property.",
                   {"property_id": ("string", "Property reference.", {}),
                    "category": ("string", "What is broken.", {"enum": ["heating", "plumbing", "electrics", "damp", "other"]}),
                    "urgent": ("boolean", "Danger to health or safety.", {})}, ["property_id", "category"]),
    "send_receipt": ("Email a receipt or statement to the address on file.",
                     {"account": ("string", "Account or booking reference.", {}),
                      "period": ("string", "Month as YYYY-MM, or 'all'.", {})}, ["account"]),
    "escalate_case": ("Hand the case to a named team with a summary.",
                      {"team": ("string", "Team to receive it.", {}),
                       "summary": ("string", "Two or three sentences.", {}),
                       "priority": ("string", "How soon.", {"enum": ["low", "normal", "high"]})}, ["team", "summary"]),
}
TOOL_NAMES = sorted(TOOLS)

JAPANESE = [
    "ご注文の商品は本日発送されました。",
    "お問い合わせ番号をお手元にご用意ください。",
    "営業時間は平日の午前九時から午後六時までです。",
    "返品は商品到着後十四日以内にお願いいたします。",
    "システム保守のため、一部の機能が一時的にご利用いただけません。",
    "ご不明な点がございましたら、お気軽にお問い合わせください。",
]
ARABIC = [
    "يرجى الاحتفاظ برقم الحجز حتى نهاية الرحلة.",
    "تفتح مكاتب الخدمة من الساعة الثامنة صباحا حتى الخامسة مساء.",
    "يمكن إلغاء الحجز مجانا قبل موعد الإبحار بأربع وعشرين ساعة.",
    "نعتذر عن أي تأخير ناتج عن سوء الأحوال الجوية.",
    "تتوفر مقاعد مخصصة لكبار السن وذوي الاحتياجات الخاصة.",
]
RUSSIAN = [
    "Пожалуйста, отвечайте вежливо и по существу.",
    "Если клиент спрашивает о возврате денег, уточните номер заказа.",
    "Не обещайте сроки доставки, которых нет в системе.",
    "Передавайте жалобы старшему смены вместе с кратким описанием.",
    "Отвечайте на том языке, на котором написал клиент.",
    "Курьер ждёт у двери не больше пяти минут.",
]
RUSSIAN_ASKS = ["Где мой заказ?", "Можно ли изменить адрес доставки?", "Курьер опаздывает, что делать?",
                "Как вернуть деньги за отменённую поездку?", "Почему списали деньги дважды?",
                "Можно ли заказать машину на завтра утром?", "Водитель не взял трубку.", "Как добавить карту?"]
_ARABIC_FACTS = [
    "تغادر الرحلة رقم {n} من ميناء {port} الساعة {h}:{m} كل يوم.",
    "سعر تذكرة البالغ على الرحلة {n} هو {p} دينارا ذهابا فقط.",
    "يجب الوصول إلى ميناء {port} قبل الإبحار بما لا يقل عن {d} دقيقة.",
    "تم تحديث جدول ميناء {port} في اليوم {d} من الشهر الماضي.",
    "تسمح الرحلة {n} بنقل {d} سيارة كحد أقصى على السطح السفلي.",
    "يمكن تغيير موعد الحجز على الرحلة {n} مقابل رسوم قدرها {p} دينارا.",
]
_ARABIC_PORTS = ["الشمالي", "الجنوبي", "الغربي", "القديم", "الجديد", "الصخري"]
EMOJI = ["\u2600\ufe0f", "\u26c5", "\U0001F327\ufe0f", "\u2744\ufe0f", "\U0001F32A\ufe0f", "\U0001F44D", "\u2764\ufe0f",
         "\U0001F602", "\U0001F62E", "\U0001F622", "\U0001F621", "\U0001F389", "\U0001F680"]
WORDS = ["amber", "basil", "cobalt", "dune", "ember", "fjord", "garnet", "heron", "indigo", "juniper", "kelp",
         "lantern", "maple", "nectar", "onyx", "pepper", "quartz", "raven", "saffron", "tundra", "umber", "velvet",
         "willow", "yarrow", "zephyr", "acorn", "birch", "cedar", "delta", "falcon", "gravel", "harbor", "island"]


@dataclass
class Scribe:
    """Seeded text for one organisation."""

    rng: random.Random
    org: tuple[str, str, str]
    first_tool_key: str = "description"
    _seen: set[str] = field(default_factory=set)
    _passages: dict[tuple[int, int], str] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.org[0]

    @property
    def unit(self) -> str:
        return self.org[2]

    def _pick(self, options: list[str]) -> str:
        return self.rng.choice(options)

    def duty(self) -> str:
        for _ in range(20):
            s = self._pick(_DUTY).format(subject=self._pick(_SUBJECTS), team=self._pick(_TEAMS), wait=self._pick(_WAITS),
                                         check=self._pick(_CHECKS), mood=self._pick(_MOODS), unit=self.unit)
            if s not in self._seen:
                break
        self._seen.add(s)
        return s

    def fact(self, fresh: bool = True) -> str:
        """A knowledge-base sentence; ``fresh``: one this scribe has not written before (real
        prompts do not repeat a sentence verbatim, and a repeat would plant a shared unit that
        turns up at two places, which no shape means to)."""
        for _ in range(60):
            fill = {k: self._pick(v) for k, v in _FACT_FILL.items()}
            fill["code"] = f"KB-{self.rng.randint(100, 999)}"
            s = self._pick(_FACTS).format(**fill)
            s = s[0].upper() + s[1:]
            if not fresh or s not in self._seen:
                break
        if fresh:
            self._seen.add(s)
        return s

    def paragraph(self, sentences: int = 5) -> str:
        return " ".join(self.duty() if self.rng.random() < 0.6 else self.fact() for _ in range(sentences))

    def opening(self) -> str:
        return (f"You are the customer assistant of {self.name}, which runs {self.org[1]}. You answer customers "
                f"in writing, on the website chat and in the app. You can look things up with the tools you are "
                f"given, but you cannot see payment card numbers and you must never ask for them.")

    def rules(self, n: int) -> list[str]:
        return [self.duty() for _ in range(n)]

    def manual(self, sections: int, per: int = 4) -> str:
        """A long static prompt: headed sections of policy paragraphs (~170 tokens a section)."""
        heads = ["Scope", "Identity", "Money", "Changes", "Complaints", "Safety", "Privacy", "Tone", "Escalation",
                 "Outages", "Accessibility", "Records", "Partners", "Closing a case"]
        parts = []
        for k in range(sections):
            parts.append(f"## {heads[k % len(heads)]}{'' if k < len(heads) else f' ({k // len(heads) + 1})'}\n"
                         + self.paragraph(per))
        return "\n\n".join(parts)

    def tool(self, name: str) -> dict[str, Any]:
        desc, params, required = TOOLS[name]
        props = {p: {"type": t, "description": d, **extra} for p, (t, d, extra) in params.items()}
        return {"type": "function", "function": {"name": name, "description": desc,
                                                 "parameters": {"type": "object", "properties": props, "required": required}}}

    def passage(self, doc: int, sentences: int = 5) -> str:
        """Retrieved document ``doc``: the same text every time it is asked for, and no
        sentence shared with another document of this scribe."""
        key = (doc, sentences)
        if key not in self._passages:
            saved, self.rng = self.rng, random.Random(f"{self.name}/passage/{doc}")
            try:
                body = " ".join(self.fact() for _ in range(sentences))
            finally:
                self.rng = saved
            self._passages[key] = f"[{self.name} notes, entry {doc}] {body}"
        return self._passages[key]

    def question(self) -> str:
        return self._pick(_ASKS).format(unit=self.unit, weekday=self._pick(_FACT_FILL["weekday"])) + self._pick(_ASK_TAILS) \
            + f" (ref {self.ref()})"

    def answer(self) -> str:
        return self._pick(_REPLIES).format(unit=self.unit, unit_cap=self.unit[0].upper() + self.unit[1:], ref=self.ref(),
                                           hh=f"{self.rng.randint(8, 18):02d}", mm=f"{self.rng.choice([0, 15, 30, 45]):02d}",
                                           amount=f"\u00a3{self.rng.randint(3, 240)}.{self.rng.randint(0, 99):02d}",
                                           days=self.rng.randint(2, 9))

    def arabic_passage(self, doc: int) -> str:
        """A short retrieved passage in Arabic, its own figures in every sentence."""
        local = random.Random(f"{self.name}/ar/{doc}")
        picks = local.sample(_ARABIC_FACTS, 3)
        fill = {"n": local.randint(100, 999), "h": local.randint(6, 21), "m": local.choice(["00", "15", "30", "45"]),
                "port": local.choice(_ARABIC_PORTS), "p": local.randint(12, 180), "d": local.randint(2, 30)}
        return f"[وثيقة {doc}] " + " ".join(x.format(**fill) for x in picks)

    def ref(self) -> str:
        return "".join(self.rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZ23456789") for _ in range(6))

    def person(self) -> str:
        return f"{self._pick(FIRST_NAMES)} {self._pick(LAST_NAMES)}"

    def example(self) -> tuple[str, str]:
        return self.question(), self.answer()


def compact(value: object) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
