"""Text of the eleventh held-out set: eight teams that serve Qwen3 on vLLM.

Each team brings its own nouns, duties, conditions, questions, tools and handbook section
titles; ``Bench`` (a workbench, in the violin-maker's sense) strings them into handbooks of
1-4k Qwen3 tokens, questions, answers, reasoning, tool schemas and tool results, all from a
seeded generator so the set is deterministic.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Crew:
    key: str
    org: str
    product: str
    role: str
    nouns: tuple[str, ...]
    duties: tuple[str, ...]
    conditions: tuple[str, ...]
    asks: tuple[str, ...]
    tools: dict[str, tuple[str, tuple[tuple[str, str, str], ...]]]
    sections: tuple[str, ...]


GLACIER = Crew(
    "glacier", "Vatnajökull Field Station", "IceWatch", "glacier-monitoring assistant",
    ("ablation stake", "GNSS mast", "proglacial lake gauge", "crevasse transect", "firn core", "time-lapse camera",
     "snow pit profile", "terminus position", "moulin survey", "debris cover map", "albedo sensor",
     "jökulhlaup alarm", "meltwater conductivity probe", "ice radar line", "weather mast battery"),
    ("re-drill", "log", "calibrate", "photograph", "flag for the hydrologist", "resurvey", "archive", "cross-check",
     "raise to the duty glaciologist", "drain-test"),
    ("when the lake stage rises more than 20 cm in six hours", "if a stake has melted out past its last mark",
     "when the mast tilts beyond three degrees", "if conductivity doubles within a day",
     "when the snow bridge on the transect looks undercut", "if the camera clock drifts by a minute or more",
     "when visibility on the outlet falls under 200 m", "if two sensors disagree by more than their stated error"),
    ("Stake {n} reads {m} cm lower than last week; is that plausible for late autumn?",
     "Should I resurvey the terminus at profile {n} after the calving event?",
     "The lake gauge jumped {m} mm overnight; do we call the civil protection office?",
     "How do I correct firn density for core {n} when the bottom section broke?",
     "Is it safe to walk transect {n} with the current crevasse map?",
     "Which battery schedule applies to the weather mast at the nunatak?",
     "What albedo threshold marks bare ice on the debris map?",
     "Can the time-lapse camera at site {n} stay out through the polar night?"),
    {"get_gauge_series": ("Fetch the lake-stage series of a gauge, as centimetres above datum.",
                          (("gauge_id", "string", "Gauge code such as GRM-04"), ("hours", "integer", "How many hours back"))),
     "log_stake_reading": ("Record an ablation-stake reading.",
                           (("stake_id", "string", "Stake label painted on the pole"),
                            ("exposed_cm", "number", "Exposed length in centimetres"),
                            ("observer", "string", "Initials of the observer"))),
     "raise_flood_watch": ("Raise a glacial-flood watch with the civil protection office.",
                           (("basin", "string", "Basin name"), ("level", "string", "watch, warning or alarm"))),
     "camera_frames": ("List time-lapse frames of a camera between two times.",
                       (("camera_id", "string", "Camera code"), ("since", "string", "ISO time"))),
     "radar_profile": ("Return the ice thickness along a radar line.",
                       (("line_id", "string", "Radar line code"),))},
    ("Field safety", "Ablation stakes", "Lake gauges", "Cameras", "Cores and pits", "Radar", "Data handling",
     "Flood watch", "Logistics", "Reporting"))

CERTIFY = Crew(
    "certify", "Al-Noor & Kashrut Joint Certification", "CertLedger", "halal and kosher certification assistant",
    ("slaughter log", "supervising inspector", "ingredient declaration", "cross-contact audit", "mashgiach rota",
     "certificate of conformity", "supplier letter", "gelatin source statement", "equipment kashering record",
     "alcohol residue test", "batch seal", "label proof", "plant visit report", "enzyme origin file",
     "corrective action notice"),
    ("suspend", "re-inspect", "approve", "request a supplier letter for", "seal", "record", "quarantine", "escalate",
     "countersign", "withdraw"),
    ("if a flavouring lists ethanol above 0.5%", "when the same line runs dairy and meat within a shift",
     "if a supplier letter is older than twelve months", "when the inspector could not attend the slaughter",
     "if a gelatin source is undeclared", "when a label proof shows the wrong symbol",
     "if the kashering record lacks a witness", "when a batch seal number is duplicated"),
    ("Can we renew the certificate for plant {n} before the enzyme file arrives?",
     "Supplier {n} changed the emulsifier; does the product need a new audit?",
     "The mashgiach missed {m} minutes of the run on line {n}; is the batch affected?",
     "Is a glycerine made from palm acceptable on the halal line?",
     "How do we record a kashering of the fryer at site {n}?",
     "Which label symbol goes on a pareve product made on dairy equipment?",
     "Batch seal {n} appears twice in the ledger; what is the procedure?",
     "Does the alcohol residue of {m} ppm in the vinegar pass?"),
    {"find_certificate": ("Look up a certificate of conformity by number or plant.",
                          (("certificate_no", "string", "Number such as CK-2026-0412"), ("plant", "string", "Plant code"))),
     "supplier_letters": ("List supplier letters on file for an ingredient.",
                          (("ingredient", "string", "Ingredient name"), ("max_age_days", "integer", "Oldest letter accepted"))),
     "open_corrective_action": ("Open a corrective action notice for a plant.",
                                (("plant", "string", "Plant code"), ("finding", "string", "What was found"),
                                 ("severity", "string", "minor, major or critical"))),
     "inspector_rota": ("Return the inspector rota of a site for a day.",
                        (("site", "string", "Site code"), ("date", "string", "ISO date"))),
     "seal_batch": ("Issue batch seals for a production run.",
                    (("run_id", "string", "Production run"), ("count", "integer", "How many seals")))},
    ("Scope", "Slaughter supervision", "Ingredients", "Equipment", "Labelling", "Audits", "Certificates",
     "Suppliers", "Corrective actions", "Records"))

LUTHIER = Crew(
    "luthier", "Bottega Ferrandi Liuteria", "ArchiLiuto", "violin-workshop assistant",
    ("spruce top", "maple back", "bass bar", "sound post", "purfling channel", "f-hole", "neck graft", "varnish coat",
     "rib garland", "bridge blank", "fingerboard", "peg box", "hide glue", "arching template", "client instrument"),
    ("re-carve", "fit", "graduate", "varnish", "set up", "inspect", "glue", "retouch", "photograph for the file",
     "quote"),
    ("when the humidity in the varnish room is above 60%", "if the top rings below the target tap tone",
     "when a crack reaches the bass-bar area", "if the client's bow needs rehairing as well",
     "when the neck projection is off by more than a millimetre", "if the wood lot has no seasoning record",
     "when the glue joint shows a dry line", "if the instrument is older than 1900"),
    ("The top for commission {n} is {m} mm at the centre; should I graduate further?",
     "Can the sound post crack on the cello from client {n} be cleated instead of patched?",
     "How long should the second varnish coat cure before the ground coat is rubbed?",
     "The bridge on viola {n} leans toward the fingerboard; reset or replace?",
     "Which arching template fits a Guarneri-model violin with a {m} mm body?",
     "Is a neck graft worth it on a trade instrument valued at {m} euros?",
     "The client on {n} wants a darker varnish; what do I quote?",
     "Should purfling be inlaid before or after the rib garland is off the mould?"),
    {"wood_lot": ("Return the seasoning record of a wood lot.",
                  (("lot_id", "string", "Lot code on the billet"),)),
     "book_bench": ("Book a bench and hours for a job.",
                    (("job_id", "string", "Workshop job number"), ("bench", "integer", "Bench number"),
                     ("hours", "number", "Hours needed"))),
     "client_instrument": ("Fetch a client's instrument file, with photographs and past work.",
                           (("client_id", "string", "Client number"), ("instrument", "string", "violin, viola or cello"))),
     "varnish_batch": ("Record a varnish batch and its recipe.",
                       (("batch", "string", "Batch label"), ("resin", "string", "Resin used"))),
     "quote_job": ("Draft a quote for a repair or commission.",
                   (("job_id", "string", "Workshop job number"), ("amount_eur", "number", "Price in euros")))},
    ("Tonewood", "Carving", "Assembly", "Varnish", "Setup", "Repairs", "Clients", "Quotes", "Safety", "Archive"))

DRONE = Crew(
    "drone", "Skylark Aerial Survey", "FlightBook", "drone-survey planning assistant",
    ("flight block", "ground control point", "orthomosaic", "overlap setting", "LiDAR strip", "battery cycle",
     "NOTAM check", "landowner consent", "RTK base station", "point cloud", "geofence", "visual observer",
     "wind limit", "survey report", "airspace authorisation"),
    ("replan", "ground", "re-fly", "log", "notify the client about", "check", "reprocess", "approve", "file",
     "brief the pilot on"),
    ("when the gusts exceed 12 m/s", "if the RTK fix drops to float for more than a minute",
     "when a NOTAM overlaps the block", "if a landowner has not signed the consent",
     "when the battery has more than 300 cycles", "if ground control residuals exceed 3 cm",
     "when the block crosses a road", "if the sun elevation is under 20 degrees"),
    ("Can block {n} be flown at 80% overlap with the current wind of {m} km/h?",
     "The orthomosaic for job {n} shows seams; do we re-fly or reprocess?",
     "Which airspace authorisation covers the quarry near the airfield?",
     "How many ground control points does a {m} hectare block need?",
     "Battery {n} swelled after landing; what is the procedure?",
     "Is a visual observer required for the corridor survey on job {n}?",
     "Can the LiDAR strips from Tuesday be merged with today's?",
     "What do we tell the client when the report for job {n} slips by {m} days?"),
    {"plan_block": ("Plan a flight block with altitude and overlap.",
                    (("job_id", "string", "Survey job number"), ("altitude_m", "number", "Flight altitude"),
                     ("overlap_pct", "integer", "Forward overlap"))),
     "check_notams": ("Check NOTAMs for a point and radius.",
                      (("lat", "number", "Latitude"), ("lon", "number", "Longitude"), ("radius_km", "number", "Radius"))),
     "battery_log": ("Return a battery's cycle log.",
                     (("battery_id", "string", "Battery serial"),)),
     "process_job": ("Queue photogrammetry processing for a job.",
                     (("job_id", "string", "Survey job number"), ("product", "string", "ortho, dsm or cloud"))),
     "consent_status": ("Return the landowner consent status of a block.",
                        (("block_id", "string", "Flight block code"),))},
    ("Airspace", "Pre-flight", "Batteries", "Flying", "Ground control", "Processing", "Clients", "Incidents",
     "Insurance", "Archive"))

RESETTLE = Crew(
    "resettle", "Harbourlight Resettlement Service", "CaseBridge", "refugee resettlement caseworker assistant",
    ("arrival file", "housing placement", "language class enrolment", "benefit claim", "school registration",
     "medical screening", "interpreter booking", "orientation session", "family reunion request", "work permit",
     "bank account opening", "tenancy agreement", "case note", "trauma referral", "travel loan"),
    ("book", "refer", "record", "chase", "translate", "escalate to the team lead", "close", "review", "schedule",
     "accompany the client to"),
    ("if the client has no interpreter for their dialect", "when a child has no school place after 20 days",
     "if the tenancy starts before the benefit claim is decided", "when a medical screening flags follow-up",
     "if the client asks for a female caseworker", "when a reunion request needs DNA evidence",
     "if the travel loan repayment is overdue", "when the client changes address without notice"),
    ("The family on case {n} has waited {m} days for a school place; what can I do?",
     "Can I book a Dari interpreter for the housing visit on case {n}?",
     "How do we record a trauma referral that the client declined?",
     "Is the tenancy for case {n} affordable on the current benefit of {m} a month?",
     "Which documents does the family reunion request need?",
     "Can a client on case {n} start work before the permit card arrives?",
     "What goes into the orientation session for a single adult?",
     "The bank refused to open an account for case {n}; which letter do I send?"),
    {"case_file": ("Fetch a case file with household members and open tasks.",
                   (("case_id", "string", "Case number such as HR-58120"),)),
     "book_interpreter": ("Book an interpreter by language and dialect.",
                          (("language", "string", "Language"), ("dialect", "string", "Dialect or region"),
                           ("when", "string", "ISO date and time"))),
     "housing_options": ("List housing placements that fit a household.",
                         (("household_size", "integer", "People in the household"), ("area", "string", "Area code"))),
     "benefit_status": ("Return the status of a benefit claim.",
                        (("claim_ref", "string", "Claim reference"),)),
     "add_case_note": ("Add a note to a case file.",
                       (("case_id", "string", "Case number"), ("note", "string", "The note text")))},
    ("Arrival", "Housing", "Benefits", "Education", "Health", "Interpreting", "Employment", "Family reunion",
     "Safeguarding", "Closure"))

CELLAR = Crew(
    "cellar", "Szőlőhegy Estate Winery", "CellarLog", "vineyard cellar-log assistant",
    ("fermentation tank", "barrique", "must weight", "sulphur addition", "malolactic check", "racking",
     "topping-up", "press fraction", "yeast strain", "botrytised berries", "free SO2 reading", "lees stirring",
     "barrel map", "bottling run", "harvest lot"),
    ("rack", "top up", "add sulphur to", "taste", "sample", "log", "blend", "fine", "filter", "hold"),
    ("when the tank temperature passes 28 °C", "if volatile acidity exceeds 0.8 g/l",
     "when free SO2 falls under 20 mg/l", "if a barrel smells of acetone",
     "when malolactic has stalled for two weeks", "if the must weight is under 19 Brix",
     "when the aszú berries show grey rot", "if a bottling run exceeds its planned volume"),
    ("Tank {n} is at {m} °C on day three; should I cool it?", "Barrel {n} tastes oxidised; top up or rack?",
     "How much sulphur do I add to a {m} litre tank at pH 3.4?", "Is malolactic finished on lot {n}?",
     "Can the press fraction from lot {n} go into the reserve blend?",
     "Which yeast suits the late-harvest furmint?", "The free SO2 on barrel {n} reads {m} mg/l; is that enough?",
     "When should we stir the lees on the hárslevelű barriques?"),
    {"tank_reading": ("Return the latest readings of a tank.",
                      (("tank_id", "string", "Tank code such as T-14"),)),
     "log_addition": ("Record an addition to a tank or barrel.",
                      (("vessel", "string", "Tank or barrel code"), ("additive", "string", "What was added"),
                       ("grams", "number", "Amount in grams"))),
     "barrel_map": ("Return the barrel map of a cellar row.",
                    (("row", "string", "Row letter"),)),
     "lab_result": ("Fetch a lab result by sample number.",
                    (("sample_no", "string", "Sample number"),)),
     "plan_bottling": ("Plan a bottling run.",
                       (("lot", "string", "Harvest lot"), ("bottles", "integer", "Number of bottles")))},
    ("Harvest", "Pressing", "Fermentation", "Sulphur", "Malolactic", "Barrels", "Blending", "Bottling",
     "Hygiene", "Records"))

SIGNAL = Crew(
    "signal", "Central Bohemia Rail Infrastructure", "SignalDesk", "railway signalling maintenance assistant",
    ("axle counter", "point machine", "track circuit", "interlocking fault log", "signal lamp", "level crossing",
     "possession", "balise group", "relay room", "cable route", "detection test", "speed restriction",
     "hand signaller", "maintenance window", "fault ticket"),
    ("isolate", "test", "reset", "log", "replace", "request a possession for", "inspect", "hand back",
     "brief the signaller on", "escalate to the on-call engineer"),
    ("when an axle counter needs a reset under supervision", "if a point machine fails to detect twice",
     "when a track circuit shows a wrong-side failure", "if the possession overruns by ten minutes",
     "when a level crossing barrier is damaged", "if a balise reports the wrong telegram",
     "when the relay room temperature passes 35 °C", "if a lamp proving alarm repeats"),
    ("Points {n} failed detection at {m}; can I reset them from the panel?",
     "Which possession covers the cable route between km {n} and km {m}?",
     "The level crossing at {n} reports a barrier fault; do we impose a speed restriction?",
     "How do I hand back a possession when the test train is late?",
     "Axle counter section {n} shows occupied with no train; what is the procedure?",
     "Can a hand signaller cover two crossings on the branch line?",
     "Is a signal lamp replacement a minor works item?",
     "The balise group at km {n} sent telegram {m}; who do I call?"),
    {"fault_ticket": ("Open or update a fault ticket.",
                      (("asset_id", "string", "Asset code such as PM-2204"), ("symptom", "string", "What was seen"),
                       ("priority", "string", "P1 to P4"))),
     "possession_board": ("Return the possessions planned for a line and day.",
                          (("line", "string", "Line number"), ("date", "string", "ISO date"))),
     "asset_history": ("Return the maintenance history of an asset.",
                       (("asset_id", "string", "Asset code"),)),
     "impose_restriction": ("Impose a temporary speed restriction.",
                            (("from_km", "number", "Start kilometre"), ("to_km", "number", "End kilometre"),
                             ("limit_kmh", "integer", "Speed limit"))),
     "crew_on_call": ("Return the on-call signalling crew for an area.",
                      (("area", "string", "Area code"),))},
    ("Safety of the line", "Possessions", "Points", "Track circuits", "Axle counters", "Signals", "Level crossings",
     "ETCS", "Relay rooms", "Hand-back"))

RESCUE = Crew(
    "rescue", "Alpine Rescue Coordination Centre", "SummitCall", "mountain-rescue dispatch assistant",
    ("callout", "helicopter tasking", "team leader", "casualty position", "avalanche bulletin", "hut warden",
     "stretcher party", "radio relay", "search sector", "thermal camera sweep", "winch hoist", "base camp",
     "missing-person form", "weather window", "team roster"),
    ("task", "stand down", "relay", "log", "brief", "dispatch", "hold", "request the helicopter for", "confirm",
     "hand over"),
    ("when the avalanche danger is level 4 or higher", "if the casualty cannot be reached by voice",
     "when cloud base is under the landing site", "if the caller's phone battery is below 10%",
     "when the hut warden reports the party overdue", "if two teams search the same sector",
     "when night falls before the stretcher party reaches the road", "if the winch hoist is unavailable"),
    ("A caller at grid {n} reports a fall of {m} metres; helicopter or ground team?",
     "Can team {n} go up the couloir with the current bulletin?",
     "The hut warden says a party of {m} is overdue; when do we start a search?",
     "How do I relay radio traffic from the north face to base?",
     "Is a thermal sweep useful in fresh snow over sector {n}?",
     "Which team leader is on the roster for tonight?",
     "The casualty at {n} is hypothermic; do we hold for the weather window?",
     "What goes on the missing-person form for a solo ski tourer?"),
    {"task_team": ("Task a rescue team to a position.",
                   (("team_id", "string", "Team code"), ("grid", "string", "Grid reference"),
                    ("priority", "string", "red, amber or green"))),
     "heli_availability": ("Return helicopter availability and minimum cloud base.",
                           (("base", "string", "Helicopter base"),)),
     "avalanche_bulletin": ("Fetch the avalanche bulletin for a region.",
                            (("region", "string", "Bulletin region"),)),
     "caller_location": ("Return the caller's last phone location.",
                         (("call_id", "string", "Call number"),)),
     "log_incident": ("Write an entry to the incident log.",
                      (("incident_id", "string", "Incident number"), ("entry", "string", "Log text")))},
    ("Call handling", "Helicopter", "Ground teams", "Avalanche", "Search", "Casualty care", "Radio", "Weather",
     "Stand-down", "Debrief"))

CREWS = (GLACIER, CERTIFY, LUTHIER, DRONE, RESETTLE, CELLAR, SIGNAL, RESCUE)

LINKS = ("Before you", "In every case", "As a rule", "Without exception", "Where the file allows", "Unless told otherwise",
         "On the night shift", "During audits", "At the start of each job", "For new staff")
TAILS = ("and say so in the log.", "and keep the reference in the reply.", "and note who agreed.",
         "then wait for a confirmation.", "before anything else is changed.", "and copy the duty lead.",
         "so the next shift can pick it up.", "and never guess a figure.", "and mark the entry as provisional.",
         "with the time written in UTC.")


class Bench:
    """A crew's text, drawn from a seeded generator."""

    def __init__(self, rng: random.Random, crew: Crew) -> None:
        self.rng = rng
        self.crew = crew

    def _fill(self, text: str) -> str:
        r = self.rng
        return text.replace("{n}", str(r.randint(10, 9999))).replace("{m}", str(r.randint(2, 480)))

    def rule(self) -> str:
        c, r = self.crew, self.rng
        return (f"{r.choice(LINKS)}, {r.choice(c.duties)} the {r.choice(c.nouns)} {r.choice(c.conditions)}, "
                f"{r.choice(TAILS)}")

    def rules(self, n: int) -> list[str]:
        return [self.rule() for _ in range(n)]

    def paragraph(self, n: int = 5) -> str:
        c, r = self.crew, self.rng
        out = []
        for _ in range(n):
            a, b = r.sample(c.nouns, 2)
            out.append(f"The {a} and the {b} are {r.choice(c.duties)}ed {r.choice(c.conditions)}; "
                       f"{r.choice(LINKS).lower()}, {r.choice(c.duties)} them {r.choice(TAILS)}")
        return " ".join(out)

    def section(self, title: str, n: int = 4) -> str:
        return f"## {title}\n" + self.paragraph(n) + "\n" + "\n".join(f"- {x}" for x in self.rules(n))

    def opening(self) -> str:
        c = self.crew
        return (f"You are {c.product}, the {c.role} of {c.org}. Answer staff questions from the handbook below, "
                f"use the tools when a record is needed, and say plainly when the handbook does not cover a case.")

    def handbook(self, sections: int, n: int = 4) -> str:
        titles = [self.crew.sections[k % len(self.crew.sections)] for k in range(sections)]
        return "\n\n".join(self.section(t, n) for t in titles)

    def system(self, sections: int, n: int = 4) -> str:
        return self.opening() + "\n\n" + self.handbook(sections, n)

    def question(self) -> str:
        q = self._fill(self.rng.choice(self.crew.asks))
        if self.rng.random() < 0.35:
            q += " " + self._fill(f"It is for {self.rng.choice(self.crew.nouns)} {{n}}.")
        if self.rng.random() < 0.2:
            q = "Quick one: " + q
        return q

    def answer(self) -> str:
        c, r = self.crew, self.rng
        return (f"{r.choice(LINKS)}, {r.choice(c.duties)} the {r.choice(c.nouns)} first. "
                + self.paragraph(r.randint(1, 3)))

    def reasoning(self, n: int) -> str:
        c, r = self.crew, self.rng
        steps = [f"The staff member asks about the {r.choice(c.nouns)}; the handbook says to {r.choice(c.duties)} "
                 f"it {r.choice(c.conditions)}." for _ in range(n)]
        return " ".join(steps)

    def tool(self, name: str) -> dict[str, Any]:
        desc, params = self.crew.tools[name]
        props = {p: {"type": t, "description": d} for p, t, d in params}
        return {"type": "function", "function": {"name": name, "description": desc,
                                                 "parameters": {"type": "object", "properties": props,
                                                                "required": [params[0][0]]}}}

    def tools(self, names: list[str] | None = None) -> list[dict[str, Any]]:
        return [self.tool(n) for n in (names or list(self.crew.tools))]

    def fewshot(self, n: int) -> list[tuple[str, str]]:
        return [(self.question(), self.answer()) for _ in range(n)]
