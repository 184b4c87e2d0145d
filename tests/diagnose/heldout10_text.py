"""Text of the tenth held-out set: nine teams that serve a gpt-oss model (harmony format).

Each team has its own vocabulary (the things it handles, what staff do with them, the
circumstances that change the rule, what callers ask, its tools and handbook headings);
``Desk`` strings them into handbooks of 1-4k tokens, questions, answers, tool schemas and
documents from a seeded generator, so the set is deterministic.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

Param = tuple[str, str, str]  # name, JSON type, description


@dataclass(frozen=True)
class Team:
    key: str
    org: str
    product: str
    role: str
    things: tuple[str, ...]
    verbs: tuple[str, ...]
    when: tuple[str, ...]
    asks: tuple[str, ...]
    tools: dict[str, tuple[str, tuple[Param, ...]]]
    headings: tuple[str, ...]


WIND = Team(
    "wind", "Skerryvore Offshore Wind", "BladeRunner", "maintenance planning assistant",
    ("gearbox borescope", "blade leading edge", "yaw bearing", "crew transfer vessel", "jack-up barge window",
     "pitch accumulator", "transition piece bolt torque", "SCADA alarm history", "significant wave height limit",
     "nacelle crane", "converter cabinet", "lightning receptor", "main shaft seal", "permit to work", "cable protection system"),
    ("schedule", "defer", "bundle", "inspect", "isolate", "re-torque", "log", "escalate", "re-sequence", "sign off"),
    ("when the forecast swell exceeds 1.8 m", "if the turbine has tripped twice in a week", "when a technician's GWO ticket expires this month",
     "if the vessel is already at the array", "when the grid operator requests curtailment", "if a bat curtailment window applies",
     "when spare parts are held at the Montrose depot", "if the blade crawler is unavailable"),
    ("Can we fit the yaw bearing job on turbine {t} into Thursday's vessel window?", "Turbine {t} logged a pitch fault twice; do we send a crew?",
     "What is the wave limit for a walk-to-work transfer at string {s}?", "Should the borescope on {t} be bundled with the oil change?",
     "How many technicians does a converter swap on {t} need?", "Which jobs can move if the jack-up slips by {n} days?",
     "Is a torque check due on the transition piece of {t}?", "Can the blade repair on {t} be done from rope access?"),
    {"get_turbine_status": ("Current alarms, availability and last service of one turbine.",
                            (("turbine_id", "string", "Array position such as SV-A07"), ("include_scada", "boolean", "Attach the last 24 h of alarms"))),
     "book_vessel_slot": ("Reserve a crew transfer vessel slot.",
                          (("vessel", "string", "Vessel name"), ("date", "string", "ISO date"), ("technicians", "integer", "Crew size"))),
     "list_open_work_orders": ("Open work orders for a string of turbines.",
                               (("string_id", "string", "Array string, A to F"), ("priority", "string", "P1, P2 or P3"))),
     "get_metocean_forecast": ("Hourly wind, wave and visibility forecast at the array.",
                               (("hours", "integer", "How far ahead, up to 120"),)),
     "raise_permit": ("Open a permit to work for an isolation.",
                      (("turbine_id", "string", "Array position"), ("isolation", "string", "Electrical, mechanical or hydraulic"))),
     "order_spare": ("Order a spare part from the depot.",
                     (("part_number", "string", "OEM part number"), ("quantity", "integer", "Units"), ("urgent", "boolean", "Same-day courier")))},
    ("Scope", "Weather limits", "Vessel planning", "Isolations and permits", "Gearbox and drivetrain", "Blades",
     "Electrical systems", "Spares", "Crew competence", "Environmental windows", "Reporting", "Escalation"))

SIGN = Team(
    "sign", "Handshape Interpreting Co-operative", "BookSign", "booking coordinator for sign-language interpreters",
    ("BSL interpreter", "deafblind hands-on interpreting", "video relay session", "co-working pair", "court booking",
     "medical appointment", "lipspeaker", "notetaker", "Access to Work invoice", "travel time", "cancellation fee",
     "preparation material", "NRCPD registration", "trainee interpreter", "remote interpreting link"),
    ("assign", "confirm", "pair", "brief", "cancel", "rebook", "invoice", "decline", "shadow", "prioritise"),
    ("when the booking runs longer than two hours", "if the client is deafblind", "when the setting is a courtroom",
     "if the interpreter has worked with the family before", "when the notice is under 48 hours", "if the venue has no loop",
     "when the client prefers a female interpreter", "if the appointment involves a mental-health assessment"),
    ("Can you find an interpreter for a hospital appointment on the morning of {d}?", "Does booking {n} need a co-worker?",
     "The client on booking {n} cancelled this morning; do we still charge?", "Who is free for a court hearing in Leeds on {d}?",
     "Can a trainee shadow the session for booking {n}?", "How much travel time do we bill for a visit {k} miles away?",
     "Is remote interpreting acceptable for a GP consultation?", "What preparation should the interpreter get for a job interview?"),
    {"search_interpreters": ("Find registered interpreters free at a time.",
                             (("date", "string", "ISO date"), ("start", "string", "24-hour time"), ("skills", "array", "Court, medical, deafblind"))),
     "create_booking": ("Create a booking for a client.",
                        (("client_id", "string", "Client reference"), ("setting", "string", "Medical, legal, work or education"),
                         ("hours", "number", "Booked length"))),
     "get_booking": ("Read a booking and its assignments.", (("booking_id", "string", "Booking number"),)),
     "cancel_booking": ("Cancel a booking and work out the fee.",
                        (("booking_id", "string", "Booking number"), ("reason", "string", "Free text"))),
     "send_prep_pack": ("Send preparation material to the assigned interpreters.",
                        (("booking_id", "string", "Booking number"), ("documents", "array", "File names"))),
     "log_invoice": ("Raise an Access to Work invoice.", (("booking_id", "string", "Booking number"), ("miles", "integer", "Travel miles")))},
    ("Who we serve", "Booking rules", "Co-working", "Legal settings", "Health settings", "Deafblind clients",
     "Cancellations", "Remote work", "Fees", "Safeguarding", "Confidentiality", "Quality"))

SEED = Team(
    "seed", "Ardmore Community Seed Bank", "SeedLedger", "accessions and germination assistant",
    ("accession", "germination test", "viability threshold", "drying room", "moisture content", "cold vault drawer",
     "regeneration plot", "isolation distance", "landrace", "passport data", "seed lot", "tetrazolium test", "donor agreement",
     "distribution request", "herbarium voucher"),
    ("accession", "dry", "test", "regenerate", "split", "withdraw", "label", "quarantine", "distribute", "re-bag"),
    ("when germination falls below 85%", "if the lot weighs under 10 grams", "when the donor restricted commercial use",
     "if the species is recalcitrant", "when moisture reads above 7%", "if the passport data lacks a collection site",
     "when a pest is seen in the drying room", "if the accession is a wild relative"),
    ("Is accession {a} due for a germination test?", "Can we send 50 seeds of {a} to a school garden?",
     "The lot {a} tested at {k}% germination; do we regenerate it?", "How far apart must the squash regeneration plots be?",
     "What moisture content should the bean lot reach before the vault?", "Who signs off a distribution to a university?",
     "Can {a} be split between two drawers?", "Do we need a voucher for a wild onion collection?"),
    {"get_accession": ("Passport data and stock of one accession.", (("accession_id", "string", "ARD accession number"),)),
     "record_germination": ("Record a germination test result.",
                            (("accession_id", "string", "ARD accession number"), ("sown", "integer", "Seeds sown"),
                             ("germinated", "integer", "Seeds that germinated"))),
     "find_drawer": ("Locate a seed lot in the cold vault.", (("lot_id", "string", "Lot label"),)),
     "plan_regeneration": ("Put an accession on next season's regeneration list.",
                           (("accession_id", "string", "ARD accession number"), ("plot", "string", "Plot code"))),
     "log_distribution": ("Record seeds sent out under a material transfer agreement.",
                          (("accession_id", "string", "ARD accession number"), ("recipient", "string", "Organisation"),
                           ("seeds", "integer", "How many")))},
    ("Purpose", "Accessioning", "Drying", "Storage", "Germination testing", "Regeneration", "Distribution",
     "Donor agreements", "Records", "Health and pests", "Volunteers", "Audit"))

COURIER = Team(
    "courier", "Spoke & Satchel", "Dispatch", "bicycle courier dispatcher",
    ("cargo bike", "same-hour job", "proof of delivery", "rider zone", "lock-up", "signature on glass",
     "oversize parcel", "congestion route", "rain surcharge", "return leg", "pharmacy run", "rider break", "puncture kit",
     "dock booking", "loading bay"),
    ("dispatch", "reassign", "batch", "hold", "reroute", "price", "chase", "split", "refuse", "log"),
    ("when the parcel is over 25 kg", "if the rider has done six hours", "when the drop is above the fourth floor",
     "if the client marked it fragile", "when the bridge is closed", "if the recipient is not home",
     "when rain is forecast within the hour", "if the job crosses the river twice"),
    ("Who can take a same-hour job from {p} to {q}?", "Job {n} is late; where is the rider?",
     "Can a cargo bike carry {k} boxes of printer paper?", "What do we charge for a return leg on job {n}?",
     "The recipient of {n} refused the parcel; what now?", "Can we batch the three pharmacy runs in zone {z}?",
     "Is there a loading bay at the drop for job {n}?", "How long can a rider wait at a pickup before we bill?"),
    {"find_riders": ("Riders near a pickup, with their load and hours.",
                     (("postcode", "string", "Pickup postcode"), ("cargo", "boolean", "Needs a cargo bike"))),
     "assign_job": ("Give a job to a rider.", (("job_id", "string", "Job number"), ("rider_id", "string", "Rider callsign"))),
     "track_job": ("Last position and state of a job.", (("job_id", "string", "Job number"),)),
     "quote_price": ("Price a job from the tariff.",
                     (("from_postcode", "string", "Pickup"), ("to_postcode", "string", "Drop"), ("weight_kg", "number", "Weight"))),
     "mark_failed": ("Record a failed drop and the reason.",
                     (("job_id", "string", "Job number"), ("reason", "string", "No answer, refused, access"))),
     "book_dock": ("Book a loading dock slot at a building.", (("building", "string", "Building name"), ("time", "string", "HH:MM")))},
    ("Dispatch basics", "Zones", "Cargo bikes", "Rider welfare", "Pricing", "Failed drops", "Weather",
     "Pharmacy runs", "Client accounts", "Incidents", "Radio etiquette", "End of shift"))

PATENT = Team(
    "patent", "Northgate Patent Search", "PriorArtFinder", "prior-art search assistant",
    ("independent claim", "CPC subgroup", "family member", "non-patent literature", "priority date", "X document",
     "Y document", "search report", "claim chart", "keyword string", "citation graph", "examiner citation",
     "grace period disclosure", "translation of the abstract", "utility model"),
    ("search", "cite", "classify", "exclude", "map", "translate", "rank", "flag", "narrow", "report"),
    ("when the priority date is before 2010", "if the claim uses functional language", "when the family has a Chinese member",
     "if a conference paper predates the filing", "when the applicant cited its own earlier patent",
     "if the CPC subgroup has more than 5,000 documents", "when the claim combines two known features", "if the abstract is machine translated"),
    ("Is {pn} an X document for claim 1 of our case?", "Which CPC subgroups should the search for case {n} cover?",
     "Does the 2009 conference paper anticipate the valve claim?", "Can you chart claim {k} against {pn}?",
     "How many family members does {pn} have?", "Should we search utility models for the hinge case?",
     "Is a product brochure valid prior art here?", "What keyword string covers a self-cleaning filter?"),
    {"search_patents": ("Full-text search of patent documents.",
                        (("query", "string", "Boolean keyword string"), ("cpc", "array", "CPC subgroups"), ("before", "string", "Latest publication date"))),
     "get_family": ("Family members of a publication.", (("publication_number", "string", "For example EP1234567A1"),)),
     "get_claims": ("Claims of a publication.", (("publication_number", "string", "Publication number"), ("language", "string", "en, de, fr"))),
     "search_npl": ("Search non-patent literature.", (("query", "string", "Keywords"), ("year_to", "integer", "Latest year"))),
     "add_to_report": ("Cite a document in the search report.",
                       (("case_id", "string", "Case number"), ("publication_number", "string", "Cited document"), ("category", "string", "X, Y or A")))},
    ("Mandate", "Reading the claims", "Classification", "Keyword strategy", "Patent databases", "Non-patent literature",
     "Dates", "Categories", "Claim charts", "Languages", "Reporting", "Confidentiality"))

THEATRE = Team(
    "theatre", "The Lyceum Rooms", "HouseSeats", "box office assistant",
    ("stalls seat", "dress circle", "restricted view", "access booking", "companion ticket", "captioned performance",
     "relaxed performance", "exchange", "gift voucher", "matinee", "press night", "group rate", "booking fee", "standing ticket",
     "touch tour"),
    ("hold", "release", "exchange", "refund", "upgrade", "reseat", "comp", "void", "reprint", "note"),
    ("when the show is within 24 hours", "if the customer uses a wheelchair", "when the performance is sold out",
     "if the booking was made through an agent", "when the customer is a member", "if the seats are split",
     "when a performance is cancelled", "if the party is ten or more"),
    ("Can I swap my tickets for order {n} to the {d} matinee?", "Are there wheelchair spaces for the evening show on {d}?",
     "Is the performance on {d} captioned?", "How much is a group of {k} for the Saturday matinee?",
     "My voucher {v} has expired; can you extend it?", "Can you move us from row {r} to the circle?",
     "Do companion tickets need proof?", "What time does the touch tour start?"),
    {"find_seats": ("Available seats for a performance.",
                    (("performance_id", "string", "Performance code"), ("section", "string", "Stalls, circle, balcony"), ("count", "integer", "Seats"))),
     "get_order": ("An order with its tickets.", (("order_id", "string", "Order number"),)),
     "exchange_tickets": ("Move tickets to another performance.",
                          (("order_id", "string", "Order number"), ("performance_id", "string", "New performance"))),
     "issue_voucher": ("Issue or extend a gift voucher.", (("voucher_code", "string", "Voucher"), ("months", "integer", "Extension"))),
     "add_access_note": ("Add an access requirement to a customer record.",
                         (("customer_id", "string", "Customer"), ("note", "string", "What they need")))},
    ("Welcome", "Seating plan", "Prices", "Access", "Exchanges", "Refunds", "Vouchers", "Groups",
     "Special performances", "Agents", "Complaints", "Data protection"))

LEAK = Team(
    "leak", "Brackwater Water", "LeakLine", "leak desk assistant",
    ("burst main", "stop tap", "district metered area", "night flow", "pressure transient", "service pipe",
     "boundary box", "supply interruption", "bottled water station", "priority services register", "leak noise logger",
     "reinstatement", "traffic management", "discoloured water", "valve operation"),
    ("log", "dispatch", "triage", "isolate", "notify", "escalate", "close", "reinstate", "flush", "survey"),
    ("when water is entering a property", "if the customer is on the priority services register", "when the leak is on a trunk main",
     "if the road is a red route", "when more than 200 properties lose supply", "if the leak is on the customer side",
     "when the night flow rises 20% above baseline", "if a school is affected"),
    ("Water is pouring out of the pavement outside {h} {st}; who is coming?", "Is there a supply interruption in DMA {z}?",
     "My water has been brown since this morning at {h} {st}; is it safe?", "Who pays to fix the service pipe at {h} {st}?",
     "Incident {n} has no crew yet; when will one arrive?", "Can we get bottled water to a dialysis patient in {z}?",
     "How long will the road stay closed for job {n}?", "The meter is spinning with every tap off; what do I do?"),
    {"log_leak": ("Log a leak report.", (("address", "string", "Street address"), ("severity", "string", "Low, medium, high, flooding"))),
     "get_incident": ("State of a leak incident.", (("incident_id", "string", "Incident number"),)),
     "check_supply": ("Planned and unplanned interruptions in a metered area.", (("dma", "string", "District metered area code"),)),
     "dispatch_crew": ("Send a repair or survey crew.", (("incident_id", "string", "Incident number"), ("crew_type", "string", "Repair, survey, valve"))),
     "flag_vulnerable": ("Flag a priority-services customer for bottled water.",
                         (("account", "string", "Customer account"), ("litres", "integer", "Daily litres")))},
    ("Our duty", "Triage", "Severity levels", "Customer-side leaks", "Supply interruptions", "Vulnerable customers",
     "Water quality", "Streetworks", "Compensation", "Crews", "Night flow", "Closing incidents"))

BEES = Team(
    "bees", "Heatherdown Beekeepers' Co-operative", "HiveHub", "co-operative apiary assistant",
    ("brood frame", "varroa count", "queen excluder", "swarm cell", "honey super", "extraction slot", "oxalic acid treatment",
     "apiary site", "nucleus colony", "foulbrood inspection", "heather honey", "moisture reading", "drum of honey",
     "jar labelling", "bee inspector visit"),
    ("inspect", "treat", "split", "requeen", "extract", "weigh", "jar", "move", "report", "feed"),
    ("when the mite drop exceeds ten a day", "if the colony has made swarm cells", "when honey moisture reads over 18%",
     "if the apiary is within 3 km of a notifiable case", "when the heather is in flower", "if the queen is unmarked",
     "when the colony is queenless", "if a member is new to the co-op"),
    ("Can I book the extractor on {d}?", "Hive {hv} had {k} mites on the board this week; should I treat?",
     "Is there space at the moor apiary for two more hives?", "How do I label heather honey for the co-op stall?",
     "My colony at site {z} has queen cells; split or not?", "When is the next bee inspector visit?",
     "What moisture reading do we need before jarring?", "How many jars did the co-op sell last month?"),
    {"book_extractor": ("Book the co-op's extraction room.", (("date", "string", "ISO date"), ("supers", "integer", "Boxes to extract"))),
     "log_inspection": ("Record a hive inspection.",
                        (("hive_id", "string", "Hive tag"), ("brood_frames", "integer", "Frames of brood"), ("queen_seen", "boolean", "Queen seen"))),
     "record_varroa": ("Record a varroa count.", (("hive_id", "string", "Hive tag"), ("mites_per_day", "number", "Average natural drop"))),
     "list_sites": ("Apiary sites and free stands.", (("region", "string", "Moor, valley or town"),)),
     "sell_honey": ("Record jars handed to the co-op shop.", (("member_id", "string", "Member"), ("jars", "integer", "Jars"), ("variety", "string", "Blossom or heather")))},
    ("Membership", "Apiary sites", "Inspections", "Varroa", "Swarming", "Disease", "Feeding", "Extraction",
     "Honey standards", "Selling", "Equipment", "Winter"))

TM = Team(
    "tm", "Ponte & Partners Legal Translation", "MemoriaTM", "translation-memory assistant for legal Portuguese and Korean",
    ("translation unit", "fuzzy match", "termbase entry", "sworn translation", "apostille", "certified copy", "segment",
     "alignment job", "reviewer pass", "source clause", "context match", "do-not-translate list", "client glossary",
     "leverage report", "numbering convention"),
    ("align", "match", "propose", "lock", "review", "export", "merge", "flag", "certify", "retire"),
    ("when the fuzzy match is below 85%", "if the clause cites a statute", "when the document is for a notary",
     "if the client glossary disagrees with the termbase", "when the Korean source uses honorific register",
     "if the segment holds a date or an amount", "when the Portuguese is from Brazil rather than Portugal", "if the text is a sworn translation"),
    ("How should '{pt}' be rendered in Korean in contract {n}?", "What is the termbase entry for '{ko}'?",
     "Can we reuse the 2024 lease translation for job {n}?", "Is 'outorgante' right for the grantor in a Portuguese power of attorney?",
     "Which segments in job {n} are below a 75% match?", "Does the sworn translation need the apostille translated too?",
     "How do we number clauses in the Korean version?", "Should '주식회사' stay untranslated in the Portuguese text?"),
    {"search_memory": ("Search the translation memory.",
                       (("text", "string", "Source segment"), ("source_lang", "string", "pt-PT, pt-BR or ko"), ("min_match", "integer", "Percent"))),
     "lookup_term": ("Look up a termbase entry.", (("term", "string", "Term"), ("domain", "string", "Contracts, litigation, corporate"))),
     "get_job": ("A translation job and its segments.", (("job_id", "string", "Job number"),)),
     "lock_segment": ("Lock an approved segment.", (("job_id", "string", "Job number"), ("segment", "integer", "Segment number"))),
     "leverage_report": ("Match statistics for a job.", (("job_id", "string", "Job number"),))},
    ("Scope", "Portuguese variants", "Korean register", "Termbase", "Matches", "Statutes", "Numbers and dates",
     "Sworn work", "Review", "Glossaries", "Formatting", "Confidentiality"))

TEAMS = (WIND, SIGN, SEED, COURIER, PATENT, THEATRE, LEAK, BEES, TM)

# Short texts in languages the earlier sets do not use, for multilingual workloads.
PT_CLAUSES = ("O arrendatário obriga-se a pagar a renda até ao dia oito de cada mês.",
              "A presente procuração é conferida com poderes para outorgar escrituras.",
              "As partes elegem o foro da comarca de Lisboa, com renúncia a qualquer outro.",
              "O incumprimento confere ao credor o direito de resolver o contrato.",
              "A cessão da posição contratual carece de consentimento escrito.",
              "Os juros de mora vencem-se à taxa legal em vigor.")
KO_CLAUSES = ("임차인은 매월 8일까지 차임을 지급하여야 한다.", "본 계약은 대한민국 법률에 따라 해석된다.",
              "당사자는 서울중앙지방법원을 관할 법원으로 한다.", "양도인은 서면 동의 없이 권리를 양도할 수 없다.",
              "지연손해금은 연 12%의 비율로 계산한다.", "이 위임장은 등기 신청에 관한 권한을 포함한다.")
ICELANDIC_DAYS = ("mánudagur", "þriðjudagur", "miðvikudagur", "fimmtudagur", "föstudagur", "laugardagur", "sunnudagur")
ICELANDIC_MONTHS = ("janúar", "febrúar", "mars", "apríl", "maí", "júní", "júlí", "ágúst", "september", "október",
                    "nóvember", "desember")
WELSH_DAYS = ("Dydd Llun", "Dydd Mawrth", "Dydd Mercher", "Dydd Iau", "Dydd Gwener", "Dydd Sadwrn", "Dydd Sul")
TURKISH_ASKS = ("Sipariş {n} için kurye ne zaman gelir?", "Kargo bisikleti {k} koli taşıyabilir mi?",
                "Teslimat {n} neden gecikti?", "Dönüş yolu için ücret nedir?")


class Desk:
    """Seeded text for one team."""

    def __init__(self, rng: random.Random, team: Team) -> None:
        self.rng = rng
        self.team = team

    def _fill(self, text: str) -> str:
        r = self.rng
        return text.format(
            t=f"SV-{r.choice('ABCDEF')}{r.randint(1, 40):02d}", s=r.choice("ABCDEF"), n=r.randint(10000, 99999),
            d=f"{r.randint(1, 28)} {r.choice(['January', 'February', 'March', 'April'])}", h=r.randint(1, 220),
            k=r.randint(2, 60), p=f"E{r.randint(1, 20)}", q=f"N{r.randint(1, 20)}", z=f"Z{r.randint(1, 30):02d}",
            a=f"ARD-{r.randint(1000, 9999)}", pn=f"EP{r.randint(1000000, 3999999)}A1", v=f"GV{r.randint(10000, 99999)}",
            r=r.choice("ABCDEFGHJK"), st=r.choice(["Mill Lane", "Quarry Road", "Fore Street", "Harbour Row", "Tannery Walk"]),
            hv=f"H{r.randint(1, 90):02d}", pt=r.choice(PT_CLAUSES)[:40], ko=r.choice(KO_CLAUSES)[:12])

    def rule(self) -> str:
        t, r = self.team, self.rng
        forms = [
            lambda: f"{r.choice(t.when).capitalize()}, {r.choice(t.verbs)} the {r.choice(t.things)} before anything else.",
            lambda: f"Never {r.choice(t.verbs)} a {r.choice(t.things)} {r.choice(t.when)}; ask a supervisor instead.",
            lambda: f"The {r.choice(t.things)} comes before the {r.choice(t.things)} {r.choice(t.when)}.",
            lambda: f"{r.choice(t.when).capitalize()}, note it on the {r.choice(t.things)} and {r.choice(t.verbs)} it within {r.randint(2, 48)} hours.",
            lambda: f"You may {r.choice(t.verbs)} the {r.choice(t.things)} yourself unless {r.choice(t.when)[5:] if r.random() < 0.5 else 'a manager objects'}.",
            lambda: f"Quote the {r.choice(t.things)} exactly as recorded and say who last changed it.",
            lambda: f"Say plainly when the {r.choice(t.things)} is unknown rather than guessing.",
        ]
        return r.choice(forms)()

    def rules(self, n: int) -> list[str]:
        return [self.rule() for _ in range(n)]

    def paragraph(self, n: int) -> str:
        return " ".join(self.rules(n))

    def section(self, heading: str) -> str:
        return f"## {heading}\n{self.paragraph(self.rng.randint(5, 8))}"

    def opening(self) -> str:
        t = self.team
        return (f"You are {t.product}, the {t.role} of {t.org}. Answer staff and customers in plain English, "
                f"keep to the handbook below, and say which rule you applied.")

    def system(self, sections: int) -> str:
        heads = list(self.team.headings)
        while len(heads) < sections:
            heads += [f"{h} (continued)" for h in self.team.headings]
        return "\n\n".join([self.opening()] + [self.section(h) for h in heads[:sections]])

    def question(self) -> str:
        q = self._fill(self.rng.choice(self.team.asks))
        if self.rng.random() < 0.35:
            q += " " + self._fill(self.rng.choice(self.team.asks))
        if self.rng.random() < 0.2:
            q = f"{q} Context: {self.paragraph(self.rng.randint(1, 3))}"
        return q

    def answer(self) -> str:
        return self.paragraph(self.rng.randint(2, 4))

    def document(self, n: int) -> str:
        t, r = self.team, self.rng
        return f"[{r.choice(t.things).title()} note {r.randint(100, 999)}] " + self.paragraph(n)

    def tool(self, name: str) -> dict[str, Any]:
        desc, params = self.team.tools[name]
        props: dict[str, Any] = {}
        for pname, ptype, pdesc in params:
            spec: dict[str, Any] = {"type": ptype, "description": pdesc}
            if ptype == "array":
                spec["items"] = {"type": "string"}
            props[pname] = spec
        return {"type": "function", "function": {"name": name, "description": desc,
                                                 "parameters": {"type": "object", "properties": props,
                                                                "required": [params[0][0]]}}}

    def tools(self, names: list[str] | None = None) -> list[dict[str, Any]]:
        return [self.tool(n) for n in (names if names is not None else list(self.team.tools))]
