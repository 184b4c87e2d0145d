"""Text of the ninth held-out set: seven teams that serve a Mistral model on vLLM.

Each team has its own vocabulary (nouns, actions, rules, questions, tools); ``Desk`` strings
them into handbooks of 1-4k tokens, questions, answers, tool schemas and documents, all drawn
from a seeded generator so the set is deterministic.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Team:
    key: str
    org: str
    product: str
    role: str
    nouns: tuple[str, ...]
    actions: tuple[str, ...]
    conditions: tuple[str, ...]
    asks: tuple[str, ...]
    tools: dict[str, tuple[str, tuple[tuple[str, str, str], ...]]]
    sections: tuple[str, ...]


CLAIMS = Team(
    "claims", "Harrowgate Mutual", "ClaimDesk", "claims triage assistant",
    ("first notice of loss", "loss adjuster", "excess", "salvage category", "subrogation file", "courtesy car",
     "water damage report", "third-party capture", "fraud indicator", "reserve figure", "repair network garage",
     "policy schedule", "no-claims discount", "storm surge endorsement", "contents inventory"),
    ("escalate", "flag", "route", "hold", "reserve against", "document", "photograph", "settle", "decline", "refer"),
    ("when the claimant reports injuries", "if the vehicle is not driveable", "when the loss exceeds the excess by less than 20%",
     "if the policy lapsed within the last 14 days", "when a third party admits liability", "if the property is uninhabitable",
     "when the claimant is a vulnerable customer", "if receipts are missing for high-value items"),
    ("Can we pay out on claim {n} before the engineer visits?", "Which adjuster should take the flood claim at postcode {p}?",
     "The claimant on {n} says the windscreen chip grew overnight; does that count as a new event?",
     "How do I reserve for a total loss on a car valued at £{m}?", "Is a burst pipe after 60 days unoccupied covered?",
     "What do I tell a customer whose courtesy car was refused on {n}?", "Can subrogation start before liability is agreed?",
     "Does the storm endorsement cover fence panels?", "The garage quotes £{m} for the repair; is that within authority?"),
    {"lookup_policy": ("Fetch a policy schedule by its number, with cover sections and the excess.",
                       (("policy_number", "string", "Policy number such as HM-4471-0932"),
                        ("as_of", "string", "ISO date the cover is checked at"))),
     "open_claim": ("Open a claim file from a first notice of loss.",
                    (("policy_number", "string", "Policy the claim is made under"),
                     ("loss_type", "string", "motor, home, travel or pet"), ("summary", "string", "What happened, in one paragraph"))),
     "assign_adjuster": ("Assign a loss adjuster to a claim by region and loss size.",
                         (("claim_id", "string", "Claim file number"), ("region", "string", "Adjuster region code"))),
     "set_reserve": ("Set or change the reserve on a claim file.",
                     (("claim_id", "string", "Claim file number"), ("amount_gbp", "number", "Reserve in pounds"),
                      ("reason", "string", "Why the reserve changes"))),
     "request_documents": ("Ask the claimant for documents through the portal.",
                           (("claim_id", "string", "Claim file number"), ("documents", "array", "Names of the documents"))),
     "check_fraud_score": ("Score a claim against the fraud model.",
                           (("claim_id", "string", "Claim file number"),))},
    ("Intake", "Cover checks", "Reserving", "Vulnerable customers", "Motor", "Home", "Travel", "Complaints",
     "Authority limits", "Fraud"))

MUSEUM = Team(
    "museum", "Galloway Hall Museum", "CollectionsSearch", "collection search assistant",
    ("accession record", "object file", "provenance gap", "loan agreement", "conservation report", "display case",
     "condition check", "accession number", "deaccession proposal", "rights statement", "image licence", "storage bay",
     "catalogue raisonne", "donor restriction", "light exposure budget"),
    ("catalogue", "cross-reference", "cite", "redact", "summarise", "link", "transcribe", "date", "attribute", "withhold"),
    ("when a donor asked for anonymity", "if the object is on loan to another institution", "when provenance has a gap before 1945",
     "if the image is still in copyright", "when the record is marked sensitive", "if two records describe one object",
     "when the maker is attributed rather than documented", "if the object contains human remains"),
    ("Which objects by the Whitcombe workshop are in store bay {b}?", "Do we hold any maps of the estuary before 18{y}?",
     "Who lent the brass astrolabe in case {b} and when does the loan end?", "Find textile samples dated between 17{y} and 1800.",
     "Is object {a} cleared for the online catalogue?", "What does the conservation report on {a} say about the varnish?",
     "List the ceramics given by the Pryce bequest.", "Can a school reproduce the photograph {a} in a leaflet?"),
    {"search_catalogue": ("Full-text search over accession records.",
                          (("query", "string", "Words to match"), ("date_from", "integer", "Earliest year"),
                           ("date_to", "integer", "Latest year"))),
     "get_object": ("Fetch one accession record by accession number.", (("accession", "string", "Such as GHM.1987.44.2"),)),
     "loan_status": ("Current loans in and out for an object.", (("accession", "string", "Accession number"),)),
     "rights_check": ("Rights and licence terms of an object's images.",
                      (("accession", "string", "Accession number"), ("use", "string", "web, print or education"))),
     "storage_location": ("Where an object is stored now.", (("accession", "string", "Accession number"),))},
    ("Scope", "Provenance", "Rights", "Sensitive material", "Loans", "Citations", "Dates", "Attribution", "Images"))

FERRY = Team(
    "ferry", "Skerry Link Ferries", "SailingsDesk", "passenger and freight desk assistant",
    ("sailing", "vehicle deck", "freight manifest", "lane metre", "foot passenger", "berth", "linkspan", "tidal window",
     "weather hold", "hazardous goods declaration", "season ticket", "island resident discount", "crossing time",
     "boarding card", "cabin upgrade"),
    ("rebook", "refund", "waitlist", "hold", "announce", "load", "reroute", "confirm", "cancel", "prioritise"),
    ("when the wind exceeds 35 knots", "if the linkspan is out of service", "when a vehicle is over 2.9 metres high",
     "if the passenger holds a resident card", "when livestock are on the manifest", "if the sailing is weather-held",
     "when the booking was made by an agent", "if the tidal window closes before departure"),
    ("Can I move my car booking {r} to the later sailing?", "Is the 07:{t} to Inchmore running today?",
     "How many lane metres does a 13.6 m trailer take?", "My van is 3.1 m high; which vessel can take it?",
     "Do island residents pay for the {r} return?", "What happens to my booking if the crossing is weather-held?",
     "Can I bring two dogs on the foot passenger deck?", "Is there a cabin on the overnight to Port Aline?"),
    {"find_sailings": ("Sailings between two ports on a date.",
                       (("from_port", "string", "Departure port code"), ("to_port", "string", "Arrival port code"),
                        ("date", "string", "ISO date"))),
     "get_booking": ("Fetch a booking by reference.", (("reference", "string", "Booking reference such as SK7Q2M"),)),
     "rebook": ("Move a booking to another sailing.", (("reference", "string", "Booking reference"),
                                                         ("sailing_id", "string", "Target sailing"))),
     "vessel_limits": ("Height, length and weight limits of a vessel.", (("vessel", "string", "Vessel name"),))},
    ("Bookings", "Vehicles", "Weather", "Freight", "Accessibility", "Pets", "Refunds", "Residents"))

PHARMACY = Team(
    "pharmacy", "St Brannoc Hospital Pharmacy", "InteractionCheck", "pharmacy interaction checker",
    ("interaction severity", "renal dose adjustment", "QT prolongation", "CYP3A4 inhibitor", "therapeutic drug monitoring",
     "formulary status", "controlled drug register", "allergy record", "creatinine clearance", "loading dose",
     "serotonin syndrome", "INR target", "hepatic impairment", "pregnancy category", "medicines reconciliation"),
    ("check", "flag", "recommend", "withhold", "monitor", "substitute", "titrate", "document", "escalate", "counsel"),
    ("when creatinine clearance is below 30 mL/min", "if the patient is over 75", "when two QT-prolonging drugs are combined",
     "if the patient is pregnant or breastfeeding", "when a narrow therapeutic index drug is involved",
     "if the allergy record is incomplete", "when the order is for a controlled drug", "if the patient is on dialysis"),
    ("Is clarithromycin safe with simvastatin {d} mg for bed {b}?", "Does ward {b} need a dose change for gentamicin at CrCl {c}?",
     "Can we give ondansetron with citalopram?", "What is the interaction between warfarin and fluconazole?",
     "Patient on lithium {d} mg started ibuprofen; what do we monitor?", "Is amiodarone with digoxin a contraindication?",
     "Which statin is safest with ticagrelor?", "Can tramadol be given with sertraline {d} mg?"),
    {"lookup_drug": ("Monograph summary of a drug in the hospital formulary.",
                     (("name", "string", "Generic drug name"), ("route", "string", "oral, iv, im or topical"))),
     "check_interaction": ("Interaction between two drugs, with severity and mechanism.",
                           (("drug_a", "string", "First generic name"), ("drug_b", "string", "Second generic name"))),
     "renal_dose": ("Dose adjustment for renal function.",
                    (("name", "string", "Generic drug name"), ("crcl_ml_min", "number", "Creatinine clearance"))),
     "patient_meds": ("Current medication chart of a patient.", (("mrn", "string", "Medical record number"),)),
     "allergy_record": ("Recorded allergies of a patient.", (("mrn", "string", "Medical record number"),))},
    ("Severity", "Renal", "Hepatic", "Older patients", "Pregnancy", "Controlled drugs", "Monitoring", "Escalation"))

TAX = Team(
    "tax", "Ledgerline Tax Partners", "ReturnPrep", "tax preparation assistant",
    ("self-assessment return", "payment on account", "capital gains allowance", "marriage allowance", "gift aid",
     "pension relief", "rental income", "allowable expense", "trading allowance", "student loan plan",
     "dividend allowance", "foreign income", "late filing penalty", "HMRC reference", "making tax digital"),
    ("claim", "deduct", "declare", "carry forward", "apportion", "amend", "estimate", "file", "query", "defer"),
    ("when income exceeds £100,000", "if the client moved abroad mid-year", "when a property is jointly owned",
     "if the client is self-employed and employed", "when gains come from crypto assets", "if the deadline has passed",
     "when a pension was drawn early", "if the client receives child benefit"),
    ("Can my client {u} claim home office costs at £{m} a year?", "Is the payment on account due in January for {u}?",
     "How do we declare rental income from a flat let for {k} months?", "Does gift aid extend the basic rate band?",
     "Can losses from the café be carried back?", "What is the penalty for filing {k} days late?",
     "Do I need to report the sale of shares worth £{m}?", "Can marriage allowance be backdated for {u}?"),
    {"get_client": ("Client record with UTR and filing status.", (("client_id", "string", "Practice client id"),)),
     "compute_liability": ("Compute income tax and NIC for a draft return.",
                           (("client_id", "string", "Practice client id"), ("tax_year", "string", "Such as 2025-26"))),
     "list_documents": ("Documents uploaded by the client.", (("client_id", "string", "Practice client id"),)),
     "file_return": ("Submit a return to HMRC.", (("client_id", "string", "Practice client id"),
                                                 ("confirm", "boolean", "Client approval recorded")))},
    ("Employment", "Self-employment", "Property", "Capital gains", "Pensions", "Penalties", "Residence", "Allowances"))

LIVEOPS = Team(
    "liveops", "Brightmoor Games", "LiveOpsDesk", "live-ops desk assistant",
    ("concurrent users", "event calendar", "drop table", "battle pass tier", "matchmaking queue", "hotfix",
     "store rotation", "server region", "crash rate", "refund request", "ban wave", "patch note", "season reset",
     "currency sink", "retention cohort"),
    ("schedule", "roll back", "announce", "throttle", "grant", "revoke", "hotfix", "compensate", "monitor", "pause"),
    ("when crash rate exceeds 2%", "if a region's queue passes 5 minutes", "when an exploit duplicates currency",
     "if the store rotation fails to publish", "when a ban wave is in progress", "if a patch breaks save files",
     "when the event ends within the hour", "if a streamer reports a bug live"),
    ("Should we extend the Frostfall event by {h} hours?", "EU queue is at {q} minutes; do we open more servers?",
     "How much compensation for the {h}-hour login outage?", "Can we roll back the store rotation from patch 4.{q}?",
     "Players report the tier {q} reward is missing; what do we post?", "Is the ban wave safe to run during the event?",
     "What is the drop rate of the Ember Crown after the hotfix?", "Do we pause ranked while the matchmaking fix rolls out?"),
    {"get_metrics": ("Live metrics for a region.", (("region", "string", "eu, na, sa, apac"), ("metric", "string", "ccu, queue, crash"))),
     "schedule_event": ("Schedule or extend a live event.", (("event_id", "string", "Event key"), ("hours", "integer", "Extension"))),
     "grant_items": ("Grant items to a cohort of players.", (("cohort", "string", "Cohort key"), ("items", "array", "Item keys"))),
     "post_notice": ("Post an in-game notice.", (("text", "string", "Notice text"), ("locale", "string", "Locale code"))),
     "rollback_store": ("Roll the store back to a rotation.", (("rotation_id", "string", "Rotation key"),))},
    ("Incidents", "Events", "Store", "Compensation", "Communication", "Bans", "Servers", "Economy"))

ADMISSIONS = Team(
    "admissions", "University of Caldermoor", "AdmitAssist", "admissions office assistant",
    ("personal statement", "predicted grade", "contextual offer", "deferred entry", "clearing place", "foundation year",
     "reference letter", "interview slot", "unconditional offer", "English language requirement", "fee status",
     "scholarship panel", "portfolio review", "widening participation flag", "UCAS choice"),
    ("review", "shortlist", "defer", "waive", "verify", "offer", "reject", "interview", "flag", "request"),
    ("when the applicant is care-experienced", "if predicted grades miss the offer by one grade",
     "when the course requires a portfolio", "if the reference is late", "when the applicant is international",
     "if the English test is older than two years", "when the applicant asks to defer", "if the applicant declares a disability"),
    ("Can applicant {a} get a contextual offer for Law?", "Is IELTS {s} enough for the MSc in Data Science?",
     "How do we handle a late reference for {a}?", "Can a foundation year student switch to Physics?",
     "Does the portfolio deadline move for applicants in clearing?", "What fee status applies to a student from Jersey?",
     "Is a B in maths acceptable for Economics with an A* in further maths?", "Can {a} defer to 2028 entry?"),
    {"get_applicant": ("Applicant record with grades and flags.", (("applicant_id", "string", "Such as A2026-04417"),)),
     "course_requirements": ("Entry requirements of a course.", (("course_code", "string", "UCAS course code"),)),
     "book_interview": ("Book an interview slot.", (("applicant_id", "string", "Applicant id"), ("slot", "string", "ISO datetime"))),
     "send_decision": ("Send an admission decision.", (("applicant_id", "string", "Applicant id"),
                                                      ("decision", "string", "offer, reject or waitlist")))},
    ("Offers", "Contextual admissions", "References", "International", "Deferral", "Interviews", "Fees", "Disability"))

TEAMS = (CLAIMS, MUSEUM, FERRY, PHARMACY, TAX, LIVEOPS, ADMISSIONS)

OPENERS = ("Always", "Before anything else,", "As a rule,", "Where possible,", "In every case,", "Unless told otherwise,")
REASONS = ("so the audit trail stays complete", "because the regulator samples these files", "to keep answers consistent",
           "so colleagues on the next shift can follow it", "since mistakes here are costly to undo",
           "because customers quote our replies back to us", "so the figures reconcile at month end")


class Desk:
    """A team's text generator, seeded."""

    def __init__(self, rng: random.Random, team: Team) -> None:
        self.rng, self.team = rng, team

    # ---------------------------------------------------------------- prose
    def sentence(self) -> str:
        t, r = self.team, self.rng
        return (f"{r.choice(OPENERS)} {r.choice(t.actions)} the {r.choice(t.nouns)} {r.choice(t.conditions)}, "
                f"and note the {r.choice(t.nouns)} {r.choice(REASONS)}.")

    def paragraph(self, n: int = 5) -> str:
        return " ".join(self.sentence() for _ in range(n))

    def section(self, title: str, n: int = 5) -> str:
        return f"## {title}\n{self.paragraph(n)}"

    def opening(self) -> str:
        t = self.team
        return (f"You are {t.product}, the {t.role} of {t.org}. You help staff answer quickly and correctly, "
                f"citing the rule you apply. Answer in plain English; keep replies under 200 words unless asked.")

    def handbook(self, sections: int, per: int = 6) -> str:
        titles = list(self.team.sections)
        out = []
        for k in range(sections):
            title = titles[k % len(titles)] + ("" if k < len(titles) else f" ({k // len(titles) + 1})")
            out.append(self.section(title, per))
        return "\n\n".join(out)

    def system(self, sections: int, per: int = 6) -> str:
        return f"{self.opening()}\n\n{self.handbook(sections, per)}"

    def rule(self) -> str:
        t, r = self.team, self.rng
        return f"{r.choice(t.actions).capitalize()} the {r.choice(t.nouns)} {r.choice(t.conditions)}."

    def rules(self, n: int) -> list[str]:
        seen: list[str] = []
        while len(seen) < n:
            x = self.rule()
            if x not in seen:
                seen.append(x)
        return seen

    def question(self) -> str:
        r = self.rng
        q = r.choice(self.team.asks).format(
            n=f"{r.randint(100000, 999999)}", p=f"{r.choice('BCDHLMNS')}{r.choice('ABEHLMNRST')}{r.randint(1, 29)}",
            m=f"{r.randint(2, 60) * 250:,}", b=r.randint(1, 40), y=r.randint(10, 99), a=f"GHM.{r.randint(1950, 2024)}.{r.randint(1, 99)}",
            r=f"SK{r.randint(1000, 9999)}", t=f"{r.randint(0, 5)}{r.choice('05')}", d=r.choice([10, 20, 40, 80, 250, 400]),
            c=r.randint(12, 60), u=r.choice(["Mr Okafor", "Ms Lindqvist", "the Draycotts", "Dr Banerjee", "Mrs Hale"]),
            k=r.randint(2, 11), h=r.randint(2, 48), q=r.randint(2, 19), s=r.choice(["6.0", "6.5", "7.0"]))
        if r.random() < 0.3:
            q += " " + self.sentence()
        return q

    def answer(self) -> str:
        return f"{self.paragraph(self.rng.randint(2, 4))} Rule applied: {self.rule()}"

    def document(self, n: int = 6) -> str:
        r = self.rng
        return f"[{self.team.key}-doc {r.randint(1000, 9999)}] " + self.paragraph(n)

    def fewshot(self, n: int) -> list[tuple[str, str]]:
        return [(self.question(), self.answer()) for _ in range(n)]

    # ---------------------------------------------------------------- tools
    def tool(self, name: str) -> dict[str, Any]:
        desc, params = self.team.tools[name]
        props: dict[str, Any] = {}
        for pname, ptype, pdesc in params:
            p: dict[str, Any] = {"type": ptype, "description": pdesc}
            if ptype == "array":
                p["items"] = {"type": "string"}
            props[pname] = p
        return {"type": "function", "function": {"name": name, "description": desc,
                                                 "parameters": {"type": "object", "properties": props,
                                                                "required": [params[0][0]]}}}

    def tools(self, names: list[str] | None = None) -> list[dict[str, Any]]:
        return [self.tool(n) for n in (names or list(self.team.tools))]
