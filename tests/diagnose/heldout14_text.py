"""Text of the fourteenth held-out set: seven trades that serve Mistral 7B Instruct v0.3 on SGLang.

Each trade has its own words (things, verbs, cautions, asks, tools, headings); ``Desk`` joins
them into staff manuals of 1-4k tokens, questions, replies, tool schemas and file extracts, all
drawn from a seeded generator so the set is deterministic. None of the earlier sets' trades:
an observatory's night desk, a cheese-ageing cellar, a narrowboat hire yard, a funeral
director's arrangements office, a bird-of-prey centre, a tattoo collective and a quarry's
blasting office.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

Param = tuple[str, str, str]  # name, JSON type, what it holds


@dataclass(frozen=True)
class Trade:
    key: str
    house: str
    assistant: str
    things: tuple[str, ...]
    verbs: tuple[str, ...]
    cautions: tuple[str, ...]
    asks: tuple[str, ...]
    tools: dict[str, tuple[str, tuple[Param, ...]]]
    headings: tuple[str, ...]


OBSERVATORY = Trade(
    "observatory", "Tarnhelm Ridge Observatory", "night-desk assistant",
    ("the 1.2 m reflector", "the echelle spectrograph", "a twilight flat", "the guide camera", "the dome shutter",
     "an airmass limit", "the seeing monitor", "a bias frame", "the filter wheel", "a proposal's time allocation",
     "the cryostat", "a target of opportunity", "the all-sky camera", "the focus model", "a photometric standard"),
    ("schedule", "close", "recalibrate", "log", "park", "warm up", "re-focus", "queue", "abort", "archive"),
    ("when humidity passes 85%", "if the wind gusts above 15 m/s", "when the Moon is within 20 degrees of the target",
     "if the cryostat pressure rises", "when a satellite trail crosses the field", "if the guide star is lost",
     "when the proposal has used its allocation", "if cloud covers more than a third of the sky"),
    ("Can I move target {n} ahead of the queue tonight?", "The seeing is {m} arcsec; should I switch to the low-resolution mode?",
     "How many twilight flats do I need for the B and V filters?", "Is proposal {n} allowed to use bright time?",
     "The dome shutter stalled at {m} degrees; what is the procedure?", "Which standard star fits an airmass of {m}?",
     "Why did the focus model drift after the filter change on run {n}?", "Can a visiting observer take raw frames home?",
     "The cryostat read {m} K at midnight; do I stop the run?"),
    {"get_ephemeris": ("Positions, rise and set times of a target for a night.",
                       (("target", "string", "Catalogue name such as NGC 2392"), ("night", "string", "Night as YYYY-MM-DD"))),
     "queue_observation": ("Add an observation block to the night queue.",
                           (("proposal_id", "string", "Proposal code such as TR-26B-041"), ("target", "string", "Catalogue name"),
                            ("exposure_s", "number", "Exposure per frame in seconds"), ("filter", "string", "Filter name"))),
     "dome_status": ("Shutter, humidity and wind readings from the dome controller.",
                     (("sensor", "string", "Which sensor group"),)),
     "log_fault": ("Write a fault report to the engineering log.",
                   (("subsystem", "string", "Subsystem that failed"), ("severity", "string", "low, medium or high"),
                    ("detail", "string", "What happened"))),
     "archive_frames": ("Send a night's frames to the long-term archive.",
                        (("night", "string", "Night as YYYY-MM-DD"), ("proposal_id", "string", "Proposal code"))),
     "seeing_history": ("Seeing measurements over the last hours.",
                        (("hours", "integer", "How many hours back"),))},
    ("Opening the dome", "Calibration frames", "Queue rules", "Weather limits", "Instrument changes", "Targets of opportunity",
     "Visiting observers", "Data archiving", "Closing the night", "Faults"))

CELLAR = Trade(
    "cellar", "Caves de Brévanne", "affinage assistant",
    ("a washed-rind wheel", "the brine bath", "cellar 3", "a bloomy rind", "the turning rota", "a batch ticket",
     "the humidity probe", "an ammonia note", "a spruce board", "the morge wash", "a cheese iron sample", "the ripening log",
     "a wholesale pallet", "the mite brush", "a raw-milk lot"),
    ("turn", "wash", "brush", "sample", "hold back", "release", "salt", "weigh", "label", "condemn"),
    ("when the rind turns sticky", "if humidity drops below 88%", "when ammonia is noticeable at the door",
     "if a wheel has cracked at the heel", "when the batch is younger than 21 days", "if mites show on the boards",
     "when a buyer asks for a split case", "if the milk lot has a pending test"),
    ("Can lot {n} leave the cellar before day 60?", "The wheels in rack {m} feel soft; do I wash them again?",
     "How often do we turn the tommes in their third week?", "Is a pink rind on batch {n} a problem?",
     "What salt strength should the brine be for the small formats?", "Can I ship a pallet with {m} wheels to a shop without a cold van?",
     "Why does the ripening log show batch {n} twice?", "Which boards can be reused after a mite brush?",
     "The probe reads {m}% humidity; should I open the vent?"),
    {"batch_lookup": ("Ripening record of a batch: make date, milk lot, washes and weights.",
                      (("batch", "string", "Batch ticket such as BR-26-1187"),)),
     "log_wash": ("Record a rind wash on a rack.",
                  (("rack", "string", "Rack code"), ("solution", "string", "Brine, morge or plain water"),
                   ("wheels", "integer", "Number of wheels washed"))),
     "cellar_climate": ("Temperature and humidity from a cellar's probes.",
                        (("cellar", "integer", "Cellar number"),)),
     "release_batch": ("Release a batch for sale after the quality check.",
                       (("batch", "string", "Batch ticket"), ("grade", "string", "A, B or reject"))),
     "order_pallet": ("Book a wholesale pallet with the carrier.",
                      (("buyer", "string", "Buyer account"), ("wheels", "integer", "Wheel count"),
                       ("chilled", "boolean", "Whether the van must be chilled")))},
    ("Cellar hygiene", "Turning and brushing", "Washing rinds", "Brining", "Humidity and air", "Grading", "Releasing lots",
     "Wholesale orders", "Milk lots and tests", "Defects"))

CANAL = Trade(
    "canal", "Ashby & Trent Narrowboat Hire", "boatyard assistant",
    ("a narrowboat", "the lock flight", "a winding hole", "the pump-out", "a stoppage notice", "the mooring pins",
     "a windlass", "the bow thruster", "a hire agreement", "the damage deposit", "a lift bridge", "the water point",
     "a handover briefing", "the stern gland", "a towpath"),
    ("moor", "brief", "refund", "tow", "re-route", "inspect", "refuel", "cancel", "extend", "report"),
    ("when a stoppage closes the route", "if the crew has no one over 18", "when the river section is in flood",
     "if the boat runs aground", "when the hirer returns after 9 am", "if a lock paddle is damaged",
     "when the deposit claim is over £200", "if a dog is on board without notice"),
    ("Can booking {n} start from the other marina?", "Our boat is stuck at lock {m}; who do we call?",
     "How long does the ring take with a crew of two?", "Is the deposit on {n} refunded if we come back a day early?",
     "The bow thruster stopped after {m} hours; do we keep going?", "Can we moor overnight above the flight?",
     "Why does hire {n} show a fuel charge?", "Which winding holes fit a 62-foot boat?",
     "We lost a windlass at bridge {m}; do we pay for it?"),
    {"booking_lookup": ("A hire booking: boat, dates, crew size and the deposit.",
                        (("booking", "string", "Booking reference such as AT-55120"),)),
     "stoppages": ("Navigation stoppages on a stretch of the network.",
                   (("waterway", "string", "Canal or river name"), ("from_date", "string", "First day as YYYY-MM-DD"))),
     "route_time": ("Cruising time between two points, with locks counted.",
                    (("start", "string", "Mooring or marina"), ("end", "string", "Mooring or marina"),
                     ("crew", "integer", "People able to work locks"))),
     "log_damage": ("Record damage to a boat at handover or return.",
                    (("boat", "string", "Boat name"), ("part", "string", "Which part"), ("cost_gbp", "number", "Estimate"))),
     "call_engineer": ("Send the mobile engineer to a boat.",
                       (("boat", "string", "Boat name"), ("location", "string", "Nearest bridge or lock number")))},
    ("Handover", "Locks and bridges", "Mooring", "Rivers in flood", "Fuel and water", "Breakdowns", "Deposits", "Pets",
     "Stoppages", "Returns"))

FUNERAL = Trade(
    "funeral", "Hollis & Marr Funeral Directors", "arrangements assistant",
    ("the arrangement meeting", "a cremation slot", "the registrar's certificate", "a green burial plot", "the order of service",
     "a hearse booking", "the officiant", "a memorial notice", "the chapel of rest", "a pre-paid plan", "the floral tribute",
     "a repatriation file", "the eulogy", "an estimate of costs", "the ashes casket"),
    ("arrange", "confirm", "postpone", "itemise", "collect", "reserve", "print", "notify", "transfer", "waive"),
    ("when the death was reported to the coroner", "if the family asks for a weekday morning", "when the plan was bought before 2015",
     "if the deceased is to be repatriated", "when the crematorium has no slot within ten days", "if the family wants a home viewing",
     "when the estimate changes after the meeting", "if the officiant is from outside the area"),
    ("Can the service for file {n} move to Thursday?", "The family wants {m} copies of the order of service; is that extra?",
     "How do we book a slot at the green burial ground?", "Is pre-paid plan {n} still valid after the price change?",
     "The registrar appointment is in {m} days; can we hold the cremation slot?", "Can a family member read the eulogy?",
     "Why does estimate {n} list two hearses?", "Which florists deliver to the chapel of rest?",
     "What happens if repatriation papers take {m} weeks?"),
    {"file_lookup": ("An arrangement file: the deceased, next of kin, dates and the estimate.",
                     (("file", "string", "File number such as HM-8820"),)),
     "crematorium_slots": ("Free slots at a crematorium on a date.",
                           (("venue", "string", "Crematorium name"), ("date", "string", "Date as YYYY-MM-DD"))),
     "book_hearse": ("Book the hearse and limousines.",
                     (("file", "string", "File number"), ("vehicles", "integer", "How many"), ("time", "string", "HH:MM"))),
     "print_order": ("Send the order of service to the printer.",
                     (("file", "string", "File number"), ("copies", "integer", "Number of copies"))),
     "plan_check": ("Check what a pre-paid plan covers.",
                    (("plan", "string", "Plan number"),))},
    ("The first call", "Arrangement meetings", "Cremation", "Burial", "Repatriation", "Pre-paid plans", "Estimates and fees",
     "Orders of service", "Viewings", "After the funeral"))

RAPTOR = Trade(
    "raptor", "Kestrel Moor Bird of Prey Centre", "mews assistant",
    ("a Harris hawk", "the flying weight", "a barn owl", "the weathering lawn", "a set of jesses", "the casting tray",
     "a hood", "the display field", "a moult record", "the imping kit", "a day-old chick ration", "the bath pan",
     "an experience booking", "the creance line", "a peregrine"),
    ("weigh", "fly", "hood", "rest", "feed up", "cancel", "move", "imp", "record", "rehome"),
    ("when a bird is more than 5% over its flying weight", "if it rains during a display", "when a bird is in heavy moult",
     "if a visitor has a feather allergy", "when the wind is above 25 mph", "if a bird refuses the glove",
     "when a child under eight books an experience", "if a casting is missing in the morning"),
    ("Can booking {n} fly the peregrine?", "The hawk weighed {m} g this morning; do we fly her?",
     "How long is the owl encounter?", "Is experience {n} refundable if it rains?",
     "The barn owl has not cast for {m} days; what do we do?", "Can I bring my own glove?",
     "Why does display {n} show no falcons?", "Which birds can be handled by children?",
     "A feather snapped on bird {m}; do we imp it today?"),
    {"bird_record": ("A bird's weights, food and moult record.",
                     (("ring", "string", "Ring number such as KM-2219"),)),
     "log_weight": ("Record a bird's morning weight.",
                    (("ring", "string", "Ring number"), ("grams", "integer", "Weight in grams"))),
     "experience_slots": ("Free experience slots on a day.",
                          (("date", "string", "Date as YYYY-MM-DD"), ("kind", "string", "owl, hawk or falcon"))),
     "weather_now": ("Wind and rain at the display field.",
                     (("field", "string", "Which field"),)),
     "vet_request": ("Ask the visiting vet to see a bird.",
                     (("ring", "string", "Ring number"), ("reason", "string", "What is wrong")))},
    ("Morning weighing", "Feeding", "Flying displays", "Experiences", "Moult", "Health checks", "Weather",
     "Handling by visitors", "Equipment", "Incidents"))

TATTOO = Trade(
    "tattoo", "Inkwell Row Tattoo Collective", "studio assistant",
    ("a consultation", "the deposit", "a stencil", "the aftercare sheet", "a cover-up", "the patch test", "a touch-up",
     "the artist's books", "a flash design", "the consent form", "a fine-line piece", "the healing film", "a walk-in slot",
     "the sterilisation log", "a colour realism sleeve"),
    ("book", "reschedule", "refund", "redraw", "check", "turn away", "quote", "patch test", "sign off", "forward"),
    ("when the client is under 18", "if the skin is sunburnt", "when the design copies another artist's work",
     "if the client takes blood thinners", "when the deposit is older than six months", "if a touch-up is after 12 weeks",
     "when the piece covers scar tissue", "if the client arrives over 20 minutes late"),
    ("Can booking {n} move to next month?", "My tattoo is {m} days old and peeling; is that normal?",
     "How much is a palm-sized flash piece?", "Is the deposit on {n} refundable?",
     "The artist quoted {m} hours; can we split it into two sessions?", "Can I swim after a week?",
     "Why does consultation {n} need a patch test?", "Which artists do fine-line lettering?",
     "Can I bring {m} friends to the session?"),
    {"artist_calendar": ("An artist's free sessions in a week.",
                         (("artist", "string", "Artist's studio name"), ("week", "string", "ISO week such as 2026-W49"))),
     "booking_lookup": ("A booking: design, artist, deposit and consent.",
                        (("booking", "string", "Booking code such as IR-3391"),)),
     "take_deposit": ("Take a deposit by card link.",
                      (("booking", "string", "Booking code"), ("amount_gbp", "number", "Deposit in pounds"))),
     "send_aftercare": ("Email the aftercare sheet for a style.",
                        (("email", "string", "Client email"), ("style", "string", "fine-line, colour, blackwork"))),
     "flag_client": ("Flag a client file for the manager.",
                     (("booking", "string", "Booking code"), ("why", "string", "Reason")))},
    ("Consultations", "Deposits", "Consent and age", "Hygiene", "Aftercare", "Touch-ups", "Cover-ups", "Walk-ins",
     "Cancellations", "Complaints"))

QUARRY = Trade(
    "quarry", "Garnock Quarry", "blasting-office assistant",
    ("the shot firer", "a blast design", "the vibration monitor", "an exclusion zone", "the sentry posts", "a misfire",
     "the face profile", "a drill log", "the explosives store", "a neighbour complaint", "the air overpressure limit",
     "a delay sequence", "the burden and spacing", "the siren test", "a flyrock report"),
    ("fire", "delay", "clear", "re-survey", "notify", "charge", "stem", "inspect", "record", "suspend"),
    ("when wind blows toward the village", "if a hole is wet", "when the monitor reads above 6 mm/s",
     "if a sentry post is unmanned", "when a misfire is suspected", "if the face has overhang",
     "when a neighbour has logged a complaint that week", "if the store count does not match the log"),
    ("Can blast {n} go ahead at noon?", "The monitor read {m} mm/s at the farm; do we report it?",
     "How wide is the exclusion zone for a 40-hole shot?", "Is drill log {n} complete enough to charge?",
     "The store count is off by {m} detonators; what now?", "Can we fire on a Saturday?",
     "Why did blast {n} throw rock past the bund?", "Which sentry posts cover the bridleway?",
     "The siren failed at post {m}; can we still fire?"),
    {"blast_record": ("A blast's design, charge weights and monitor readings.",
                      (("blast", "string", "Blast number such as GQ-26-311"),)),
     "monitor_reading": ("Peak particle velocity and overpressure from a monitor.",
                         (("monitor", "string", "Monitor location"), ("blast", "string", "Blast number"))),
     "store_count": ("Explosives store stock by item.",
                     (("item", "string", "Emulsion, detonators or boosters"),)),
     "notify_neighbours": ("Text the neighbours' list before a blast.",
                           (("blast", "string", "Blast number"), ("time", "string", "HH:MM"))),
     "log_misfire": ("Report a misfire to the manager and the regulator.",
                     (("blast", "string", "Blast number"), ("holes", "integer", "Holes affected")))},
    ("Blast design", "Drilling", "Charging and stemming", "Exclusion zones", "Sentries and sirens", "Vibration limits",
     "Misfires", "Neighbours", "The explosives store", "Reporting"))

TRADES = (OBSERVATORY, CELLAR, CANAL, FUNERAL, RAPTOR, TATTOO, QUARRY)

_SHAPES = (
    "Staff {verb} {thing} {cond}.",
    "{Cond}, {verb} {thing} and tell the duty lead.",
    "Never {verb} {thing} without a second check {cond}.",
    "The {house} rule is simple: {verb} {thing} first, then note it in the log.",
    "{Cond}, the assistant explains why we {verb} {thing} and offers the next option.",
    "If a customer asks about {thing}, say that we {verb} it {cond} and no earlier.",
    "Write down who asked to {verb} {thing}, and when, {cond}.",
    "{Cond}, do not promise to {verb} {thing}; point to the manual instead.",
    "A note on {thing}: we {verb} it once per shift, {cond} twice.",
    "Before you {verb} {thing}, read back the request to the caller.",
)


class Desk:
    """Seeded text for one trade."""

    def __init__(self, rng: random.Random, trade: Trade) -> None:
        self.rng = rng
        self.trade = trade

    def sentence(self) -> str:
        t, r = self.trade, self.rng
        cond = r.choice(t.cautions)
        return r.choice(_SHAPES).format(verb=r.choice(t.verbs), thing=r.choice(t.things), cond=cond,
                                        Cond=cond[0].upper() + cond[1:], house=t.house)

    def paragraph(self, n: int = 5) -> str:
        return " ".join(self.sentence() for _ in range(n))

    def section(self, heading: str, n: int = 6) -> str:
        return f"### {heading}\n{self.paragraph(n)}"

    def opening(self) -> str:
        t = self.trade
        return (f"You are the {t.assistant} of {t.house}. Answer staff and customers briefly and exactly, using the "
                f"manual below; when the manual is silent, say so and name who can decide. {self.paragraph(2)}")

    def manual(self, sections: int, per: int = 6) -> str:
        heads = list(self.trade.headings)
        while len(heads) < sections:
            heads += [f"{h} (continued)" for h in self.trade.headings]
        return "\n\n".join(self.section(h, per) for h in heads[:sections])

    def system(self, sections: int, per: int = 6) -> str:
        return f"{self.opening()}\n\n{self.manual(sections, per)}"

    def rule(self) -> str:
        return self.sentence()

    def rules(self, n: int) -> list[str]:
        out: list[str] = []
        while len(out) < n:
            s = self.sentence()
            if s not in out:
                out.append(s)
        return out

    def question(self) -> str:
        r = self.rng
        q = r.choice(self.trade.asks).format(n=r.randint(1000, 99999), m=r.randint(2, 95))
        if r.random() < 0.35:
            q = f"{q} {self.sentence()}"
        if r.random() < 0.15:
            q = f"{self.paragraph(2)} {q}"
        return q

    def answer(self) -> str:
        return f"{self.paragraph(self.rng.randint(1, 3))} Anything else I can check?"

    def extract(self, n: int = 5) -> str:
        """A file extract a retrieval step would return."""
        r = self.rng
        return f"[{r.choice(self.trade.things)} · ref {r.randint(10000, 99999)}]\n{self.paragraph(n)}"

    def fewshot(self, n: int) -> list[tuple[str, str]]:
        return [(self.question(), self.answer()) for _ in range(n)]

    def tool(self, name: str) -> dict[str, Any]:
        desc, params = self.trade.tools[name]
        props = {p: {"type": kind, "description": what} for p, kind, what in params}
        return {"type": "function", "function": {"name": name, "description": desc, "parameters": {
            "type": "object", "properties": props, "required": [params[0][0]]}}}

    def tools(self, names: list[str] | None = None) -> list[dict[str, Any]]:
        return [self.tool(n) for n in (names if names is not None else list(self.trade.tools))]
