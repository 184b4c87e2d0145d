"""Text for the fourth held-out diagnosis set (tests/diagnose/heldout4.py).

Written apart from the detector, its zoo and the three earlier held-out sets' text modules:
other organisations (a broadband provider, a library network, a payroll bureau, a freight
forwarder, a dental chain, a co-working operator, a museum trust, an energy co-operative),
other phrasing, nested tool schemas, and text in Korean, Hindi, Greek and Thai. Everything is
drawn from a seeded ``random.Random``; a writer never repeats a sentence (a repeated sentence
would be a shared unit at two places, a signal no shape means to plant).
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from typing import Any

# (organisation, what it does, a customer's unit of business, the staff role answering)
ORGS = [
    ("Meridian Broadband", "fibre and fixed-wireless internet for homes and small offices", "line", "network adviser"),
    ("Ashgrove Libraries", "twenty-two public libraries, a mobile library van and an e-book lending service",
     "library card", "library assistant"),
    ("Pennant Payroll", "payroll, pensions and expenses processing for 3,400 small employers", "pay run",
     "payroll specialist"),
    ("Quayside Freight", "sea and road freight forwarding with customs brokerage", "consignment", "freight coordinator"),
    ("Larkspur Dental", "a group of dental practices offering check-ups, hygiene and orthodontics", "appointment",
     "practice coordinator"),
    ("Hollow Oak Workspaces", "co-working desks, private offices and meeting rooms in nine buildings", "membership",
     "community host"),
    ("Foxglove Museums Trust", "four museums, a touring exhibition programme and school visits", "visit booking",
     "visitor services officer"),
    ("Tidewater Energy Co-op", "community-owned electricity supply and solar buy-back", "supply point",
     "member services adviser"),
]

_TOPICS = ["speed complaints", "moving home", "overdue items", "payslip corrections", "customs holds",
           "missed appointments", "room bookings", "group tickets", "meter disputes", "direct debit changes",
           "accessibility requests", "data deletion requests", "contract renewals", "service outages",
           "price rises", "damaged goods", "late payments", "identity checks", "account closures", "gift vouchers"]
_OWNERS = ["the duty manager", "the second-line desk", "the compliance officer", "the accounts team",
           "the field operations lead", "the customer care manager", "the data protection lead",
           "the site supervisor", "the credit control team", "the escalations inbox"]
_DELAYS = ["three working days", "two hours", "24 hours", "the close of business", "one working week",
           "fifteen minutes", "the next morning", "72 hours"]
_CONDITIONS = ["the account holder has passed the security questions", "the reference number has been read back",
               "the refund has cleared", "a manager has signed it off", "the member has agreed in writing",
               "the earlier ticket is resolved", "the photographs have been received", "the address is verified"]
_MANNERS = ["courteous", "concise", "friendly and plain", "steady", "reassuring", "businesslike"]

_RULE = [
    "When a member raises {topic}, check the history on the {unit} first, because an earlier note may settle it.",
    "Only {owner} may agree a goodwill payment for {topic}, and only after {cond}.",
    "Once {cond}, you can act straight away; record the action in the case notes.",
    "Hand anything about {topic} that is still open after {delay} to {owner}, with a short summary of what was tried.",
    "For {topic}, lead with the direct answer, then give the reason in one or two sentences.",
    "If someone writing about {topic} becomes abusive, reply once in a {manner} way and pass the case to {owner}.",
    "Keep answers about {topic} to about 120 words unless the member asks for the full detail.",
    "Do not give a firm date for {topic}; tell the member that {owner} will confirm within {delay}.",
    "Read out the full {unit} reference whenever you discuss {topic}, so that the next colleague can trace it.",
    "Before you close a conversation about {topic}, make sure that {cond}.",
    "A member who contacts us about {topic} three times in a month should be offered a call back from {owner}.",
    "Describe {topic} in ordinary language and leave out internal system names.",
    "Where the process for {topic} depends on the region, ask the member which region applies.",
    "Note every change made to a {unit} during a conversation about {topic}, with the name of whoever requested it.",
    "If {cond} has not happened yet, explain what is still needed rather than saying no.",
    "Stay {manner} with members who write about {topic}, even when they are frustrated.",
    "Never copy a member's password or one-time code into a reply about {topic}, even if they paste it in.",
    "For {topic} raised outside office hours, acknowledge it and say that {owner} picks it up within {delay}.",
]

_NOTE = [
    "Since the {month} release, {thing} can be amended online until {hours} hours beforehand.",
    "{thing} arranged through a reseller are handled by the reseller first and by us second.",
    "Confirmation of {thing} normally arrives by email within {minutes} minutes.",
    "The app shows {thing} for the last {days} days; older records are in the web portal.",
    "On {weekday} evenings planned work can leave {thing} showing as pending until the following morning.",
    "Members over 60 and registered carers get a lower rate on {thing}.",
    "If {thing} are created twice by mistake, the duplicate is cancelled automatically within {minutes} minutes.",
    "{thing} cannot move to another person, although the name on them can be corrected once.",
    "Guide {code} walks through finding {thing} in the portal, with a screenshot for each step.",
    "Statements covering {thing} can be downloaded as PDF for the past six years.",
    "When two card payments for {thing} fail, the account is put on hold until the card is updated.",
    "Arranging {thing} by telephone costs the same as arranging them online.",
    "The {month} price list changed the fee for {thing} for new members only.",
    "Requests about {thing} received after 17:30 are processed on the next working day.",
]
_NOTE_FILL = {
    "month": ["January", "March", "May", "June", "August", "October", "December"],
    "thing": ["engineer visits", "book reservations", "payslips", "collection slots", "hygiene appointments",
              "meeting room holds", "school group visits", "meter readings", "router swaps", "inter-library loans",
              "pension uploads", "customs entries", "aligner fittings", "day passes", "membership renewals",
              "export declarations"],
    "hours": ["4", "8", "12", "24", "36", "48"],
    "minutes": ["5", "10", "20", "30", "45"],
    "days": ["30", "60", "90", "180"],
    "weekday": ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Sunday"],
}

_ASKS = [
    "My {unit} shows the wrong details, how do I correct them?",
    "Can you tell me why my last bill was higher than usual?",
    "I was promised a call back on {weekday} and nobody rang.",
    "How long does it take to process a change to my {unit}?",
    "Is there a way to pause my {unit} for a month?",
    "Someone else's name appears on my {unit}; what should I do?",
    "I need a copy of every statement from last year for my accountant.",
    "The portal keeps logging me out when I try to update my address.",
    "Can I add a second contact to my {unit}?",
    "What happens if I miss the payment date this month?",
    "Why was my request from {weekday} closed without an answer?",
    "Do you offer a discount for members on a low income?",
    "I'd like to make a formal complaint about the service I received.",
    "How do I cancel, and will there be a fee?",
]
_ASK_TAILS = ["", " Thank you.", " This is the second time I've asked.", " Quick answer please.",
              " I'm writing on behalf of my mother.", " I'm on mobile, so keep it short."]
_REPLIES = [
    "I've checked your {unit} and corrected the details; you'll get a confirmation email shortly.",
    "The increase comes from the annual price change; I can send you the breakdown if that helps.",
    "I'm sorry nobody called. I've booked a call back for {hh}:{mm} tomorrow and noted the missed one.",
    "Changes to a {unit} usually take {days} working days; yours is already in the queue.",
    "Yes, you can pause it for up to a month. I've set that up starting on the first of next month.",
    "Thanks for telling us. I've flagged the {unit} for a check and the name will be fixed within {days} days.",
    "I've sent every statement for last year to the email address on file, totalling {amount}.",
]

FIRST_NAMES = ["Aroha", "Bjorn", "Catalina", "Dev", "Elif", "Femi", "Gwen", "Hiroshi", "Ilse", "Joaquin", "Kavya",
               "Lorcan", "Malak", "Nikos", "Oona", "Pavel", "Quinn", "Rhiannon", "Sanjay", "Tova", "Ulrich", "Vesna",
               "Wren", "Xiadani", "Yusuf", "Zofia"]
LAST_NAMES = ["Achebe", "Bergstrom", "Castell", "Dimitriou", "Eze", "Fairweather", "Grünewald", "Hollis", "Iqbal",
              "Jaramillo", "Kowalczyk", "Lindqvist", "Mwangi", "Nakamura", "Okafor", "Papadakis", "Quintero",
              "Rasmussen", "Sørensen", "Takahashi", "Urquhart", "Varga", "Whitlock", "Yilmaz", "Zielinski"]


def _param(kind: str, desc: str, **extra: Any) -> dict[str, Any]:
    return {"type": kind, "description": desc, **extra}


# Tools with nested object and array parameters, as a real function-calling API declares them.
TOOLS: dict[str, tuple[str, dict[str, Any], list[str]]] = {
    "run_line_test": ("Run a remote line test on a broadband line and return sync speed and noise margin.",
                      {"line_id": _param("string", "Line identifier, e.g. MB-1234567."),
                       "checks": _param("array", "Which checks to run.",
                                        items={"type": "string", "enum": ["sync", "noise", "dropouts", "dns"]}),
                       "window": _param("object", "Time range to inspect.",
                                        properties={"from": _param("string", "ISO 8601 start."),
                                                    "to": _param("string", "ISO 8601 end.")},
                                        required=["from"])}, ["line_id"]),
    "book_engineer": ("Reserve an engineer visit slot at the member's address.",
                      {"line_id": _param("string", "Line identifier."),
                       "slot": _param("object", "Requested slot.",
                                      properties={"date": _param("string", "YYYY-MM-DD."),
                                                  "period": _param("string", "Half day.", enum=["am", "pm"])},
                                      required=["date", "period"]),
                       "access_notes": _param("string", "Parking, gate codes, pets.")}, ["line_id", "slot"]),
    "renew_loans": ("Renew the items on loan on a library card.",
                    {"card_number": _param("string", "Fourteen-digit card number."),
                     "items": _param("array", "Barcodes to renew; empty means all.", items={"type": "string"}),
                     "notify": _param("object", "How to confirm.",
                                      properties={"channel": _param("string", "Channel.", enum=["email", "sms", "none"])})},
                    ["card_number"]),
    "reserve_title": ("Place a hold on a title for collection at a branch.",
                      {"isbn": _param("string", "ISBN-13."),
                       "branch": _param("string", "Collection branch code."),
                       "format": _param("string", "Edition.", enum=["print", "large print", "audio", "ebook"])},
                      ["isbn", "branch"]),
    "correct_payslip": ("Raise a correction to an employee's payslip in an open pay run.",
                        {"employer_id": _param("string", "Employer PAYE reference."),
                         "employee": _param("object", "Who is affected.",
                                            properties={"payroll_id": _param("string", "Works number."),
                                                        "ni_number": _param("string", "National Insurance number.")},
                                            required=["payroll_id"]),
                         "lines": _param("array", "Adjustments.",
                                         items={"type": "object", "properties": {
                                             "code": _param("string", "Pay element code."),
                                             "amount": _param("number", "Signed amount in pounds.")}})},
                        ["employer_id", "employee", "lines"]),
    "track_consignment": ("Return the milestones and customs status of a consignment.",
                          {"reference": _param("string", "House bill or booking reference."),
                           "include": _param("array", "Extra detail.",
                                             items={"type": "string", "enum": ["documents", "charges", "temperature"]})},
                          ["reference"]),
    "quote_freight": ("Price a shipment by sea or road between two locations.",
                      {"origin": _param("object", "Collection point.",
                                        properties={"port": _param("string", "UN/LOCODE."),
                                                    "postcode": _param("string", "If collected inland.")}),
                       "destination": _param("object", "Delivery point.",
                                             properties={"port": _param("string", "UN/LOCODE."),
                                                         "postcode": _param("string", "If delivered inland.")}),
                       "cargo": _param("object", "What is moving.",
                                       properties={"weight_kg": _param("number", "Gross weight."),
                                                   "volume_cbm": _param("number", "Volume."),
                                                   "hazardous": _param("boolean", "Dangerous goods.")},
                                       required=["weight_kg"])}, ["origin", "destination", "cargo"]),
    "move_appointment": ("Move a dental appointment to another slot at the same practice.",
                         {"appointment_id": _param("string", "Appointment reference."),
                          "new_start": _param("string", "ISO 8601 start time."),
                          "reason": _param("string", "Why it moves.", enum=["patient", "clinician", "emergency"])},
                         ["appointment_id", "new_start"]),
    "hold_room": ("Hold a meeting room for a member.",
                  {"building": _param("string", "Building code."),
                   "room": _param("string", "Room name."),
                   "when": _param("object", "Booking time.",
                                  properties={"start": _param("string", "ISO 8601."),
                                              "minutes": _param("integer", "Length.", minimum=15, maximum=480)},
                                  required=["start", "minutes"]),
                   "extras": _param("array", "Catering or kit.", items={"type": "string"})},
                  ["building", "room", "when"]),
    "issue_tickets": ("Issue timed-entry museum tickets.",
                      {"museum": _param("string", "Museum code."),
                       "party": _param("object", "Who is coming.",
                                       properties={"adults": _param("integer", "Adults.", minimum=0),
                                                   "children": _param("integer", "Under 16.", minimum=0),
                                                   "concessions": _param("integer", "Concessions.", minimum=0)}),
                       "entry_time": _param("string", "HH:MM.")}, ["museum", "party", "entry_time"]),
    "submit_reading": ("Submit a meter reading for a supply point.",
                       {"mpan": _param("string", "Thirteen-digit supply number."),
                        "reading": _param("object", "The register values.",
                                          properties={"day": _param("integer", "Day register."),
                                                      "night": _param("integer", "Night register, if any.")},
                                          required=["day"]),
                        "taken_at": _param("string", "ISO 8601 date.")}, ["mpan", "reading"]),
    "open_case": ("Open a case for a named team with a short summary.",
                  {"team": _param("string", "Receiving team."),
                   "summary": _param("string", "Two or three sentences."),
                   "urgency": _param("string", "Priority.", enum=["low", "normal", "urgent"]),
                   "links": _param("array", "Related references.", items={"type": "string"})}, ["team", "summary"]),
}
TOOL_NAMES = sorted(TOOLS)

KOREAN = [
    "고객 문의에는 항상 정중하게 답변해 주세요.",
    "요금 관련 질문은 청구서 번호를 먼저 확인한 뒤 답변합니다.",
    "개인 정보는 본인 확인이 끝난 후에만 안내할 수 있습니다.",
    "서비스 장애가 발생하면 예상 복구 시간을 함께 알려 주세요.",
    "해지 요청은 위약금 여부를 설명한 다음 처리합니다.",
    "답변이 어려운 경우 담당 부서로 연결하고 그 사실을 기록합니다.",
]
HINDI = [
    "ग्राहक के प्रश्न का उत्तर सरल और स्पष्ट भाषा में दें।",
    "भुगतान से जुड़े सवालों में पहले बिल संख्या की पुष्टि करें।",
    "पहचान की जाँच पूरी होने से पहले कोई निजी जानकारी साझा न करें।",
    "सेवा बाधित होने पर अनुमानित समय भी बताएँ।",
    "शिकायत दर्ज करने के बाद ग्राहक को संदर्भ संख्या दें।",
]
GREEK = [
    ("Πώς μπορώ να αλλάξω τη διεύθυνση χρέωσης;",
     "Μπορείτε να την αλλάξετε από τις ρυθμίσεις λογαριασμού· η αλλαγή ισχύει από τον επόμενο λογαριασμό."),
    ("Γιατί χρεώθηκα δύο φορές αυτόν τον μήνα;",
     "Η δεύτερη χρέωση είναι προσωρινή δέσμευση και αποδεσμεύεται μέσα σε πέντε εργάσιμες ημέρες."),
    ("Μπορώ να αναστείλω τη συνδρομή μου;",
     "Ναι, για έως δύο μήνες τον χρόνο, χωρίς επιπλέον κόστος."),
    ("Πού βρίσκω τα παλιά μου τιμολόγια;",
     "Στην ενότητα «Έγγραφα» της πύλης, ταξινομημένα ανά έτος."),
    ("Τι γίνεται αν χάσω το ραντεβού μου;",
     "Σας στέλνουμε μήνυμα για νέο ραντεβού· η πρώτη απουσία δεν χρεώνεται."),
    ("Πώς ακυρώνω την κράτηση;",
     "Πατήστε «Ακύρωση» στην κράτηση· η επιστροφή χρημάτων γίνεται στην ίδια κάρτα."),
]
THAI = [
    "กรุณาตรวจสอบหมายเลขสมาชิกก่อนตอบคำถามเรื่องค่าบริการ",
    "หากลูกค้าแจ้งปัญหาการเชื่อมต่อ ให้สอบถามรุ่นของเราเตอร์ก่อน",
    "ห้ามขอรหัสผ่านหรือรหัสยืนยันจากลูกค้าไม่ว่ากรณีใด",
    "เรื่องร้องเรียนต้องบันทึกในระบบภายในวันเดียวกัน",
    "การคืนเงินใช้เวลาประมาณเจ็ดวันทำการ",
    "ลูกค้าที่อายุเกินหกสิบปีได้รับส่วนลดค่าบริการรายเดือน",
    "ช่างเทคนิคจะโทรหาลูกค้าก่อนเข้าบ้านอย่างน้อยสามสิบนาที",
    "ใบแจ้งหนี้ย้อนหลังดาวน์โหลดได้จากเว็บไซต์สมาชิก",
    "หากระบบล่ม ให้แจ้งเวลาที่คาดว่าจะกลับมาใช้งานได้",
    "คำถามที่ตอบไม่ได้ให้ส่งต่อไปยังทีมดูแลลูกค้าระดับสอง",
]
THAI_ASKS = ["อินเทอร์เน็ตช้ามากตั้งแต่เมื่อวาน ทำอย่างไรดี", "ขอเปลี่ยนวันชำระเงินได้ไหม",
             "ช่างจะมาวันไหนครับ", "ใบแจ้งหนี้เดือนนี้แพงผิดปกติ", "ต้องการยกเลิกบริการ"]
KOREAN_ASKS = ["인터넷이 자주 끊겨요. 어떻게 해야 하나요?", "이번 달 요금이 왜 이렇게 많이 나왔나요?",
               "이사 가는데 서비스를 옮길 수 있나요?", "기사님 방문 일정을 바꾸고 싶어요."]


@dataclass
class Writer:
    """Seeded text for one organisation; never the same sentence twice."""

    rng: random.Random
    org: tuple[str, str, str, str]
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
        return s

    def rule(self) -> str:
        r = self.rng
        return self._fresh(lambda: r.choice(_RULE).format(
            topic=r.choice(_TOPICS), owner=r.choice(_OWNERS), delay=r.choice(_DELAYS), cond=r.choice(_CONDITIONS),
            manner=r.choice(_MANNERS), unit=self.unit))

    def note(self) -> str:
        r = self.rng

        def make() -> str:
            fill = {k: r.choice(v) for k, v in _NOTE_FILL.items()}
            fill["code"] = f"HG-{r.randint(1000, 9999)}"
            s = r.choice(_NOTE).format(**fill)
            return s[0].upper() + s[1:]
        return self._fresh(make)

    def paragraph(self, n: int = 5) -> str:
        return " ".join(self.rule() if self.rng.random() < 0.55 else self.note() for _ in range(n))

    def preface(self) -> str:
        return (f"This is the operating guide for the {self.org[3]}s of {self.name}, which provides {self.org[1]}. "
                f"Members reach you through web chat, email and the app. Use the tools listed for look-ups and "
                f"changes; you never see full bank or card details and you must not ask for them.")

    def guide(self, sections: int, per: int = 6) -> str:
        """Headed sections of rules and notes, about 150 tokens each."""
        heads = ["Purpose", "Verifying members", "Payments", "Amendments", "Complaints", "Vulnerability",
                 "Personal data", "Voice and style", "Handing over", "Incidents", "Accessibility", "Record keeping",
                 "Third parties", "Ending a conversation", "Out of hours", "Quality checks"]
        out = []
        for k in range(sections):
            head = heads[k % len(heads)] + ("" if k < len(heads) else f", part {k // len(heads) + 1}")
            out.append(f"### {head}\n{self.paragraph(per)}")
        return "\n\n".join(out)

    def rules(self, n: int) -> list[str]:
        return [self.rule() for _ in range(n)]

    def tool(self, name: str) -> dict[str, Any]:
        desc, props, required = TOOLS[name]
        return {"type": "function", "function": {"name": name, "description": desc, "parameters": {
            "type": "object", "properties": json.loads(json.dumps(props)), "required": list(required)}}}

    def doc(self, kind: str, k: int, sentences: int = 5) -> str:
        """Retrieved document ``k`` of a corpus: the same text every time, no sentence shared."""
        key = (kind, k)
        if key not in self._docs:
            saved, self.rng = self.rng, random.Random(f"{self.name}/{kind}/{k}")
            try:
                body = " ".join(self.note() for _ in range(sentences))
            finally:
                self.rng = saved
            self._docs[key] = body
        return self._docs[key]

    def question(self) -> str:
        r = self.rng
        return (r.choice(_ASKS).format(unit=self.unit, weekday=r.choice(_NOTE_FILL["weekday"])) + r.choice(_ASK_TAILS)
                + f" [{self.ref()}]")

    def answer(self) -> str:
        r = self.rng
        return r.choice(_REPLIES).format(unit=self.unit, hh=f"{r.randint(9, 17):02d}", mm=r.choice(["00", "20", "40"]),
                                         days=r.randint(2, 8), amount=money(r.randint(1200, 98000) + r.random()))

    def ref(self) -> str:
        return "".join(self.rng.choice("BCDFGHJKMNPQRTVWXY346789") for _ in range(7))

    def person(self) -> str:
        return f"{self.rng.choice(FIRST_NAMES)} {self.rng.choice(LAST_NAMES)}"


def money(x: float, symbol: str = "$") -> str:
    """A currency amount with thousands separators: $12,480.55."""
    return f"{symbol}{x:,.2f}"


def compact(value: object) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
