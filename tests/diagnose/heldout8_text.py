"""Text for the eighth held-out diagnosis set (tests/diagnose/heldout8.py).

Written apart from the detector, its zoo and the earlier sets' text modules: eight other teams
(a bank's card dispute desk, a newsroom's wire desk, a 300 mm wafer fab, a translation agency,
a football analytics unit, a city transit planning office, a group of veterinary clinics and a
children's reading and maths app), their own tools with nested schemas, and text in Chinese,
Japanese, Portuguese, Swahili, Finnish and German. Everything is drawn from a seeded
``random.Random``; an office never writes the same sentence twice, so no sentence is a shared
unit at two places by accident.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from typing import Any

# (team, what it does, the unit of work, who is assisted, what comes up)
TEAMS: list[tuple[str, str, str, str, list[str]]] = [
    ("Larkspur Savings Bank", "the card dispute desk for 2.3 million debit and credit cardholders", "dispute",
     "dispute analyst", ["chargebacks", "merchant credits", "duplicate charges", "provisional credits",
                         "ATM cash shortfalls", "recurring billing cancellations", "first-party fraud reviews",
                         "cross-border fees"]),
    ("Meridian Courier", "a regional daily's newsroom, its wire desk and its live blogs", "story",
     "desk editor", ["corrections", "embargoed releases", "wire rewrites", "headline tests", "photo credits",
                     "reader complaints", "legal reads", "live-blog updates"]),
    ("Tessera Microdevices", "a 300 mm wafer fab running logic and power devices around the clock", "lot",
     "process engineer", ["lot holds", "tool excursions", "recipe changes", "overlay drift", "particle alarms",
                          "wafer scraps", "chamber seasoning", "metrology reworks"]),
    ("Polyglot & Vane", "translation, localisation and certified translation in forty language pairs", "job",
     "project manager", ["term base updates", "rush quotes", "back-translations", "certified translations",
                         "CAT tool exports", "style guide queries", "reviewer disputes", "subtitle timings"]),
    ("Eastgate Performance Lab", "match analysis and recruitment data for two professional football clubs",
     "match report", "performance analyst", ["expected-goals figures", "training load reports", "scouting clips",
                                             "set-piece breakdowns", "tracking data gaps", "lineup forecasts",
                                             "referee assessments", "press-box requests"]),
    ("Cardew City Transit", "bus, tram and demand-responsive services for a city of 640,000", "service change",
     "transit planner", ["timetable revisions", "bus bridges", "stop relocations", "headway complaints",
                         "GTFS feed errors", "paratransit bookings", "detour notices", "fare capping questions"]),
    ("Thornbury Veterinary Group", "eleven small-animal clinics and a 24-hour referral hospital", "appointment",
     "clinic coordinator", ["vaccination reminders", "repeat prescriptions", "surgery estimates", "lab results",
                            "boarding bookings", "insurance pre-authorisations", "dental cleanings",
                            "end-of-life consultations"]),
    ("Little Lantern", "a reading and maths app for children aged four to eleven", "learner profile",
     "parent support agent", ["reading level changes", "streak resets", "subscription pauses", "screen-time limits",
                              "sibling profiles", "progress reports", "classroom links", "offline downloads"]),
]

_WHO = ["the desk lead", "the night editor", "the shift engineer", "the quality manager", "the duty planner",
        "the senior vet on call", "the safeguarding lead", "the compliance officer", "the account director",
        "the head of analysis"]
_WHEN = ["two working days", "six hours", "the next shift change", "72 hours", "the end of the week",
         "twenty minutes", "the next morning meeting", "one calendar week"]
_UNLESS = ["the customer has signed the declaration", "the source has been confirmed twice",
           "the lot traveller has been scanned", "the client has approved the quote", "the match footage is uploaded",
           "the planner has checked the depot roster", "the owner has given consent", "a parent has verified the account"]
_MOODS = ["steady", "concise", "friendly but precise", "unhurried", "direct", "courteous"]

_RULE_FORMS = [
    "Before answering anything about {topic}, read the last three notes on the {unit}.",
    "Exceptions for {topic} are granted by {who} alone, and only after {cond}.",
    "Once {cond}, proceed and record the step in the {unit} log.",
    "Escalate {topic} still open after {when} to {who}, with a short summary.",
    "On {topic}, lead with the decision and follow with one line of reasoning.",
    "When a conversation about {topic} gets heated, reply once in a {mood} voice and hand it to {who}.",
    "Keep answers on {topic} below about 120 words unless asked for more.",
    "Do not promise a date for {topic}; say {who} will confirm within {when}.",
    "Always cite the {unit} number when you discuss {topic}.",
    "A thread about {topic} stays open until {cond}.",
    "A third contact about {topic} inside a month triggers a call from {who}.",
    "Describe {topic} in plain words, never with internal system names.",
    "If the handling of {topic} depends on the region, ask for the region first.",
    "Note every edit made to a {unit} during {topic}, with who asked for it.",
    "If {cond} has not happened yet, say what is missing rather than saying no.",
    "Stay {mood} with anyone writing about {topic}, however pressed they are.",
    "Never echo back a card number, password or one-time code pasted during {topic}.",
    "Out of hours, acknowledge {topic} and say {who} will follow up within {when}.",
    "For {topic}, look for a similar {unit} from the past fortnight and link it.",
    "In the shift handover, give each of the {topic} one line, most recent first.",
    "Where two sources disagree about {topic}, state both and flag it to {who}.",
    "Check spelling of names twice in anything about {topic} that leaves the building.",
]

_FACT_FORMS = [
    "Since the {month} release, {thing} can be requested in the portal up to {hours} hours ahead.",
    "{Thing} raised through a partner are first handled by that partner.",
    "An acknowledgement for {thing} is sent within {minutes} minutes on weekdays.",
    "Records of {thing} are kept for {days} days and archived after that.",
    "On {weekday} evenings, planned maintenance can hold {thing} in a pending state until 06:00.",
    "Accounts flagged as vulnerable have their {thing} reviewed first.",
    "Duplicate {thing} are merged automatically within {minutes} minutes.",
    "{Thing} are tied to the {unit} they were opened on and cannot be moved to another.",
    "Guide {code} in the help centre walks through {thing} with screenshots.",
    "A full history of {thing} can be exported as CSV for the last five years.",
    "Two failed attempts at {thing} lock the {unit} until a supervisor clears it.",
    "{Thing} by phone follow the same steps as {thing} online.",
    "The {month} price list changed the fee for {thing} for new accounts only.",
    "{Thing} submitted after 17:30 are picked up the next working day.",
    "Only the main account holder sees {thing} in the mobile app.",
    "Bulk {thing} run in the {month} batch window and cannot be expedited.",
    "A {unit} with open {thing} is shown in amber on the team board.",
    "The weekly report counts {thing} by the day they were closed, not opened.",
]
_SLOTS = {
    "month": ["January", "March", "June", "August", "October", "December"],
    "hours": ["3", "8", "12", "36", "48", "96"],
    "minutes": ["10", "20", "30", "45", "90"],
    "days": ["60", "180", "400", "730"],
    "weekday": ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Sunday"],
}

_ASK_FORMS = [
    "Where are we with my {unit}? Nothing has moved since {weekday}.",
    "Why was my {unit} paused?",
    "I need to update the details on the {unit}; what's fastest?",
    "Can {thing} be handled any quicker this week?",
    "I was told someone would call on {weekday}, and no one did.",
    "Which documents do you still need for {thing}?",
    "Could you walk me through the last change on the {unit}?",
    "I think {thing} went wrong here; who can check?",
    "How long are {thing} taking at the moment?",
    "Can a colleague be added as a second contact for the {unit}?",
    "I want to make a formal complaint about {thing}.",
    "What happens if we miss the cut-off for {thing}?",
    "Is there a large-print or screen-reader version of the guidance on {thing}?",
    "Please withdraw yesterday's request about {thing}.",
    "Who signed off {thing} on this {unit}?",
    "Is anything else blocking the {unit} besides {thing}?",
]
_CODAS = ["", " Thank you.", " It's urgent.", " Asking again.", " Sent from my phone.", " On behalf of my manager.",
          " Best wishes.", " Apologies if this is the wrong channel.", " Cheers."]
_REPLY_FORMS = [
    "I've checked the {unit} and released the pause; a confirmation is on its way.",
    "That change is the scheduled annual review. I can send the itemised version if useful.",
    "Sorry for the silence. I've booked a call for {hh}:{mm} tomorrow and logged the missed one.",
    "This usually takes {days} working days, and yours is already in the queue.",
    "Done: the second contact is added and will receive an email to confirm.",
    "Thanks for raising it. The team will review the {unit} and reply within {days} days.",
    "We still need the signed form and a photo ID; both can be uploaded in the portal.",
    "Yesterday's request is withdrawn and nothing further will happen on it.",
    "It was approved by the duty lead on {weekday}; the note is on the {unit}.",
]

GIVEN = ["Amara", "Bongani", "Céline", "Dariusz", "Eun-ji", "Farhan", "Greta", "Hiroshi", "Ines", "Jomo", "Kalani",
         "Leilani", "Matías", "Niamh", "Oluwaseun", "Priya", "Quentin", "Rosalind", "Sanna", "Tomasz", "Umaima",
         "Viggo", "Wanjiru", "Xiaoming", "Yusuf", "Zofia"]
FAMILY = ["Achterberg", "Bhattacharya", "Castellanos", "Dlamini", "Eriksen", "Fairweather", "Gallagher", "Haddad",
          "Iwasaki", "Järvinen", "Kowalczyk", "Lindqvist", "Mwangi", "Nakamura", "Okonkwo", "Pellegrini", "Quigley",
          "Rasmussen", "Sørensen", "Takahashi", "Usman", "Villanueva", "Whitcombe", "Zhou"]


def _prop(kind: str, desc: str, **more: Any) -> dict[str, Any]:
    return {"type": kind, "description": desc, **more}


# Function schemas as each team's function-calling client declares them.
TOOLS: dict[str, tuple[str, dict[str, Any], list[str]]] = {
    "get_card_transactions": ("List a card's posted and pending transactions in a date range.",
                              {"card_token": _prop("string", "Tokenised card reference."),
                               "range": _prop("object", "Date range.", properties={
                                   "from": _prop("string", "YYYY-MM-DD."), "to": _prop("string", "YYYY-MM-DD.")}),
                               "include_pending": _prop("boolean", "Also list pending authorisations.")},
                              ["card_token"]),
    "open_chargeback": ("Open a chargeback with the card scheme for a disputed transaction.",
                        {"transaction_id": _prop("string", "Transaction identifier."),
                         "reason_code": _prop("string", "Scheme reason code.",
                                              enum=["10.4", "12.6.1", "13.1", "13.3", "13.6", "13.7"]),
                         "evidence": _prop("array", "Evidence document ids.", items={"type": "string"})},
                        ["transaction_id", "reason_code"]),
    "issue_provisional_credit": ("Post a provisional credit while a dispute is investigated.",
                                 {"dispute_id": _prop("string", "Dispute case number."),
                                  "amount": _prop("object", "Amount.", properties={
                                      "value": _prop("number", "Amount in the card currency."),
                                      "currency": _prop("string", "ISO 4217 code.")}, required=["value"])},
                                 ["dispute_id", "amount"]),
    "search_wire": ("Search incoming wire copy by keyword, agency and time.",
                    {"query": _prop("string", "Keywords."),
                     "agencies": _prop("array", "Agencies.", items={"type": "string", "enum": ["AP", "Reuters", "AFP", "PA", "Lusa"]}),
                     "since_minutes": _prop("integer", "How far back.", minimum=5, maximum=1440)}, ["query"]),
    "publish_correction": ("Append a correction note to a published story.",
                           {"story_id": _prop("string", "CMS story id."),
                            "note": _prop("string", "The correction, one or two sentences."),
                            "severity": _prop("string", "How serious.", enum=["minor", "material", "legal"])},
                           ["story_id", "note"]),
    "get_lot_history": ("Return a lot's route, holds and measurements.",
                        {"lot_id": _prop("string", "Lot identifier."),
                         "steps": _prop("object", "Which steps.", properties={
                             "from_step": _prop("integer", "First route step."), "to_step": _prop("integer", "Last route step.")})},
                        ["lot_id"]),
    "hold_lot": ("Put a lot on engineering hold with a reason and owner.",
                 {"lot_id": _prop("string", "Lot identifier."),
                  "reason": _prop("string", "Hold reason code.", enum=["EXC", "MET", "DEF", "REC", "QA"]),
                  "owner": _prop("string", "Engineer badge number.")}, ["lot_id", "reason"]),
    "query_spc": ("Query statistical process control charts for a tool and parameter.",
                  {"tool": _prop("string", "Tool id."), "parameter": _prop("string", "Measured parameter."),
                   "window": _prop("object", "Window.", properties={"hours": _prop("integer", "Hours back.")})},
                  ["tool", "parameter"]),
    "lookup_term": ("Look up a term in the client's term base.",
                    {"term": _prop("string", "Source term."),
                     "pair": _prop("string", "Language pair, e.g. en-zh."),
                     "domain": _prop("string", "Subject field.", enum=["legal", "medical", "technical", "marketing"])},
                    ["term", "pair"]),
    "quote_job": ("Price a translation job by word count, pair and turnaround.",
                  {"words": _prop("integer", "Source word count."),
                   "pair": _prop("string", "Language pair."),
                   "turnaround": _prop("string", "Speed.", enum=["standard", "express", "same-day"]),
                   "certified": _prop("boolean", "Needs a certified translation.")}, ["words", "pair"]),
    "get_match_events": ("Return event data for a match: shots, passes, duels.",
                         {"match_id": _prop("string", "Match id."),
                          "types": _prop("array", "Event types.", items={"type": "string"}),
                          "period": _prop("integer", "1 or 2; omit for both.")}, ["match_id"]),
    "player_load": ("Return a player's training and match load for recent weeks.",
                    {"player_id": _prop("string", "Squad id."),
                     "weeks": _prop("integer", "Weeks back.", minimum=1, maximum=12)}, ["player_id"]),
    "get_trip_updates": ("Return real-time trip updates for a route.",
                         {"route_id": _prop("string", "GTFS route id."),
                          "direction": _prop("integer", "0 or 1."),
                          "at": _prop("string", "Local time HH:MM.")}, ["route_id"]),
    "create_detour": ("Publish a detour notice for affected stops.",
                      {"route_id": _prop("string", "GTFS route id."),
                       "stops": _prop("array", "Closed stop ids.", items={"type": "string"}),
                       "window": _prop("object", "When.", properties={"start": _prop("string", "ISO 8601."),
                                                                     "end": _prop("string", "ISO 8601.")})},
                      ["route_id", "stops"]),
    "book_appointment": ("Book a clinic appointment for a pet.",
                         {"pet_id": _prop("string", "Pet record number."),
                          "clinic": _prop("string", "Clinic code."),
                          "slot": _prop("object", "Time.", properties={"date": _prop("string", "YYYY-MM-DD."),
                                                                      "time": _prop("string", "HH:MM.")}),
                          "reason": _prop("string", "Visit reason.", enum=["vaccination", "check-up", "surgery", "dental", "lab"])},
                         ["pet_id", "clinic", "slot"]),
    "refill_prescription": ("Request a repeat prescription for a pet.",
                            {"pet_id": _prop("string", "Pet record number."),
                             "drug": _prop("string", "Medicine and strength."),
                             "quantity": _prop("integer", "Units.")}, ["pet_id", "drug"]),
    "get_lab_results": ("Return a pet's lab panels with reference ranges.",
                        {"pet_id": _prop("string", "Pet record number."),
                         "panel": _prop("string", "Panel.", enum=["CBC", "biochemistry", "urinalysis", "T4", "SDMA"])},
                        ["pet_id"]),
    "estimate_surgery": ("Produce a costed estimate for a procedure.",
                         {"procedure": _prop("string", "Procedure name."),
                          "weight_kg": _prop("number", "Pet weight."),
                          "extras": _prop("array", "Add-ons.", items={"type": "string"})}, ["procedure"]),
    "check_insurance": ("Check an insurer's pre-authorisation status for a claim.",
                        {"policy": _prop("string", "Policy number."),
                         "claim": _prop("object", "Claim.", properties={"amount": _prop("number", "GBP."),
                                                                        "condition": _prop("string", "Diagnosis.")})},
                        ["policy"]),
    "find_boarding": ("Find boarding kennel or cattery space.",
                      {"species": _prop("string", "Species.", enum=["dog", "cat", "rabbit"]),
                       "nights": _prop("integer", "Nights."), "from": _prop("string", "YYYY-MM-DD.")},
                      ["species", "nights", "from"]),
    "get_progress": ("Return a child's reading and maths progress.",
                     {"profile_id": _prop("string", "Learner profile id."),
                      "subject": _prop("string", "Subject.", enum=["reading", "maths", "both"])}, ["profile_id"]),
    "set_screen_time": ("Set daily screen-time limits for a profile.",
                        {"profile_id": _prop("string", "Learner profile id."),
                         "limits": _prop("object", "Minutes per day.", properties={
                             "weekday": _prop("integer", "School days."), "weekend": _prop("integer", "Weekends.")})},
                        ["profile_id", "limits"]),
}

CHINESE = [
    "译文必须忠实于原文，不得随意增删内容。",
    "专有名词首次出现时请保留英文原文并加括号。",
    "数字、日期和金额的格式须符合目标市场的习惯。",
    "遇到术语库中没有的词条，请先查询客户的参考资料。",
    "法律文件的译文需要第二位译员逐句审校。",
    "交稿前请运行质量检查工具并处理所有高优先级错误。",
    "不要在译文中使用网络流行语或方言。",
    "客户的风格指南优先于本社的通用指南。",
]
CHINESE_ASKS = ["这份合同什么时候能翻译好？", "请问加急费用是多少？", "术语表可以更新吗？", "审校意见我不同意，怎么处理？",
                "能不能提供双语对照版本？"]
JAPANESE = [
    "装置の異常を検知した場合は、直ちにロットを保留にしてください。",
    "レシピの変更は品質保証部の承認後に限り実施できます。",
    "クリーンルーム内では必ず規定の防塵服を着用してください。",
    "測定値が管理限界を超えた場合は、原因調査を記録に残してください。",
    "夜間シフトでは、重大な異常を当番エンジニアに電話で連絡してください。",
    "ウェハの廃棄は二名の承認が必要です。",
]
JAPANESE_ASKS = ["このロットの保留理由を教えてください。", "エッチング装置の稼働状況はどうですか。",
                 "レシピ変更の承認は誰に依頼すればよいですか。", "測定の再実施は可能ですか。"]
PORTUGUESE = [
    "Confirme sempre a fonte antes de publicar uma notícia de última hora.",
    "Os nomes de menores não devem ser divulgados em nenhuma circunstância.",
    "As correções são publicadas no fim do artigo, com a data e a hora.",
    "Citações traduzidas devem indicar a língua original.",
    "Material sob embargo não pode ser partilhado fora da redação.",
]
SWAHILI = [
    "Tumia takwimu rasmi za mechi kabla ya kutoa uchambuzi wowote.",
    "Usitoe taarifa za majeraha ya wachezaji bila idhini ya daktari wa timu.",
    "Ripoti ya mechi inapaswa kuwa tayari saa mbili baada ya filimbi ya mwisho.",
    "Taja chanzo cha kila takwimu unayotumia.",
]
FINNISH = [
    "Ilmoita poikkeusreitistä pysäkeillä vähintään kaksi päivää etukäteen.",
    "Esteettömät pysäkit merkitään aikatauluun erikseen.",
    "Yölinjojen vuoroväli tarkistetaan jokaisen aikataulukauden alussa.",
    "Asiakaspalautteeseen vastataan viiden arkipäivän kuluessa.",
]
GERMAN_MONTHS = ["Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August", "September", "Oktober",
                 "November", "Dezember"]
FRENCH_DAYS = ["lundi", "mardi", "mercredi", "jeudi", "vendredi", "samedi", "dimanche"]
JAPANESE_DAYS = ["月", "火", "水", "木", "金", "土", "日"]


@dataclass
class Office:
    """Seeded text for one team; never the same sentence twice."""

    rng: random.Random
    team: tuple[str, str, str, str, list[str]]
    first_tool_key: str = "description"
    _used: set[str] = field(default_factory=set)

    @property
    def name(self) -> str:
        return self.team[0]

    @property
    def unit(self) -> str:
        return self.team[2]

    def _new(self, draw: Any) -> str:
        for _ in range(100):
            s = draw()
            if s not in self._used:
                break
        self._used.add(s)
        return str(s)

    def rule(self) -> str:
        r = self.rng
        return self._new(lambda: r.choice(_RULE_FORMS).format(
            topic=r.choice(self.team[4]), who=r.choice(_WHO), when=r.choice(_WHEN), cond=r.choice(_UNLESS),
            mood=r.choice(_MOODS), unit=self.unit))

    def fact(self) -> str:
        r = self.rng

        def draw() -> str:
            slots = {k: r.choice(v) for k, v in _SLOTS.items()}
            thing = r.choice(self.team[4])
            slots.update(thing=thing, Thing=thing[0].upper() + thing[1:], code=f"HC-{r.randint(1000, 9999)}",
                         unit=self.unit)
            return r.choice(_FACT_FORMS).format(**slots)
        return self._new(draw)

    def paragraph(self, n: int = 5) -> str:
        return " ".join(self.rule() if self.rng.random() < 0.55 else self.fact() for _ in range(n))

    def opening(self) -> str:
        return (f"You are the assistant of the {self.team[3]}s at {self.name}, which runs {self.team[1]}. "
                f"Messages come from the staff app, shared inboxes and the phone team. Use the tools for look-ups "
                f"and changes, say so when you are unsure, and never make up an identifier.")

    def handbook(self, sections: int, per: int = 6) -> str:
        """Headed sections of rules and facts, about 150 Qwen tokens each."""
        titles = ["Purpose", "Verification", "Payments and fees", "Amendments", "Complaints", "Vulnerable people",
                  "Data protection", "Voice", "Shift handover", "Outages", "Accessibility", "Record keeping",
                  "Third parties", "Closing work", "Out of hours", "Audits", "Training", "Suppliers"]
        out = []
        for k in range(sections):
            title = titles[k % len(titles)] + ("" if k < len(titles) else f", part {k // len(titles) + 1}")
            out.append(f"### {title}\n{self.paragraph(per)}")
        return "\n\n".join(out)

    def tool(self, name: str) -> dict[str, Any]:
        desc, props, required = TOOLS[name]
        return {"type": "function", "function": {"name": name, "description": desc, "parameters": {
            "type": "object", "properties": json.loads(json.dumps(props)), "required": list(required)}}}

    def ask(self) -> str:
        r = self.rng
        return (r.choice(_ASK_FORMS).format(unit=self.unit, weekday=r.choice(_SLOTS["weekday"]), thing=r.choice(self.team[4]))
                + r.choice(_CODAS) + f" [{self.code()}]")

    def long_ask(self) -> str:
        """A question with pasted context: real requests vary in size."""
        return self.ask() + "\n\n" + " ".join(self.fact() for _ in range(self.rng.randint(1, 7)))

    def reply(self) -> str:
        r = self.rng
        return r.choice(_REPLY_FORMS).format(unit=self.unit, hh=f"{r.randint(8, 17):02d}", mm=r.choice(["00", "20", "40"]),
                                             days=r.randint(2, 8), weekday=r.choice(_SLOTS["weekday"]))

    def code(self) -> str:
        return "".join(self.rng.choice("BCDFGHJKMNPQRSTVWXZ") for _ in range(3)) + f"{self.rng.randint(10, 99)}"

    def person(self) -> str:
        return f"{self.rng.choice(GIVEN)} {self.rng.choice(FAMILY)}"


def tight(value: object) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
