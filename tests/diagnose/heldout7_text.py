"""Text for the seventh held-out diagnosis set (tests/diagnose/heldout7.py).

Written apart from the detector, its zoo and the six earlier held-out sets' text modules: other
organisations (a materials-science literature service, an IDE coding assistant, a roadside
rescue voice line, a handmade-goods marketplace, a container terminal, a corporate law firm's
contract review desk, an RPG studio's narrative engine, an agronomy advisory service, a hotel
group's guest messaging, a civil engineering contractor, a recruitment agency), each with its
own vocabulary and section headings, other phrasing, tool schemas of those trades, and text in
Czech, Swahili, Ukrainian, Finnish, Dutch and Brazilian Portuguese. Everything is drawn from a
seeded ``random.Random``; a scribe never writes the same sentence twice (a repeated sentence
would be a shared unit at two places, a signal no workload means to plant).
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
    unit: str  # what one piece of business is filed under
    role: str  # who the assistant helps
    asker: str  # who writes in
    topics: tuple[str, ...]
    things: tuple[str, ...]
    owners: tuple[str, ...]
    heads: tuple[str, ...]  # section headings of its guides


ORGS = [
    Org("Halden Institute Literature Service", "literature search, screening and evidence tables for 30 materials "
        "and energy research groups", "search request", "research librarian", "researcher",
        ("perovskite stability papers", "retracted articles", "paywalled full texts", "conference preprints",
         "duplicate records", "non-English abstracts", "dataset citations", "systematic review protocols"),
        ("screening decisions", "evidence tables", "citation exports", "full-text requests", "search strings",
         "PRISMA counts", "inter-rater checks", "alert digests"),
        ("the review lead", "the methods librarian", "the group's principal investigator", "the data steward",
         "the copyright officer", "the second screener"),
        ("Scope of the service", "Search strings", "Screening", "Full texts", "Citing", "Evidence tables",
         "Retractions", "Preprints", "Languages", "Deduplication", "Data availability", "Copyright",
         "Turnaround", "Escalation", "Quality checks", "Closing a request")),
    Org("Quillstack", "an IDE assistant for 1,400 engineers working in a payments monorepo", "change", "engineer",
        "developer", ("flaky tests", "migration scripts", "feature flags", "dependency upgrades", "code owners",
                      "secrets in diffs", "performance regressions", "API deprecations"),
        ("pull requests", "test runs", "build caches", "lint reports", "release branches", "schema migrations",
         "code reviews", "rollbacks"),
        ("the owning team", "the release captain", "the security champion", "the platform guild",
         "the on-call engineer", "the staff engineer for the area"),
        ("What you may change", "Repository layout", "Testing", "Style", "Dependencies", "Security", "Migrations",
         "Reviews", "Performance", "Logging", "Feature flags", "Documentation", "Releases", "Incidents",
         "Pairing etiquette", "When to stop")),
    Org("Beacon Roadside Rescue", "24-hour breakdown cover and recovery for 2.1 million members", "breakdown job",
        "call handler", "member", ("flat batteries", "motorway breakdowns", "misfuelling", "lockouts",
                                   "tyre blowouts", "electric vehicles out of charge", "accidents",
                                   "vulnerable callers"),
        ("patrol dispatches", "recovery trucks", "onward travel", "hire cars", "membership upgrades",
         "callback slots", "garage referrals", "incident notes"),
        ("the duty controller", "the recovery desk", "the welfare team", "the membership office",
         "the claims handler", "the patrol supervisor"),
        ("Safety first", "Locating the vehicle", "Membership checks", "Dispatch", "Motorways", "Electric vehicles",
         "Vulnerable callers", "Recovery", "Onward travel", "Payments", "Complaints", "Recording calls",
         "Weather", "Handover", "Call wrap-up", "Escalations")),
    Org("Thimble & Loom", "an online marketplace for 38,000 independent makers of handmade goods", "order", "seller",
        "shopper", ("late dispatches", "custom orders", "damaged parcels", "listing takedowns", "coupon codes",
                    "refund requests", "VAT invoices", "counterfeit reports"),
        ("listings", "shop payouts", "delivery labels", "gift wraps", "reviews", "return windows",
         "promoted listings", "shop policies"),
        ("the trust and safety desk", "the payments team", "the seller success manager", "the logistics partner",
         "the disputes team", "the marketplace policy lead"),
        ("How we talk", "Orders", "Payments and payouts", "Delivery", "Returns", "Custom work", "Listings",
         "Prohibited items", "Reviews", "Coupons", "Taxes", "Disputes", "Seller health", "Privacy",
         "Accessibility", "Closing a conversation")),
    Org("Gannet Bay Container Terminal", "a deep-water container terminal with four berths and a rail head",
        "container", "terminal planner", "haulier", ("reefer plugs", "customs holds", "overweight boxes",
                                                     "truck slot no-shows", "vessel delays", "dangerous goods",
                                                     "empty returns", "demurrage disputes"),
        ("truck appointments", "berth windows", "release orders", "VGM declarations", "gate transactions",
         "rail loadings", "reefer monitoring", "storage invoices"),
        ("the berth planner", "the gate supervisor", "the customs liaison", "the reefer technician",
         "the commercial desk", "the harbour master's office"),
        ("Terminal basics", "Gate hours", "Truck appointments", "Releases", "Customs", "Dangerous goods", "Reefers",
         "Weights", "Storage and demurrage", "Rail", "Vessel operations", "Safety", "Weather limits", "Invoices",
         "Incidents", "Shift handover")),
    Org("Ravensworth & Pike LLP", "corporate, M&A and commercial contracts work for mid-market clients",
        "matter", "contract reviewer", "associate", ("change-of-control clauses", "exclusivity terms",
                                                     "limitation of liability", "assignment restrictions",
                                                     "termination for convenience", "governing law",
                                                     "data protection schedules", "non-compete covenants"),
        ("clause extractions", "disclosure letters", "data room indexes", "red-flag reports", "signing bundles",
         "conflict checks", "engagement letters", "completion checklists"),
        ("the supervising partner", "the knowledge lawyer", "the conflicts team", "the matter senior associate",
         "the data room administrator", "the client relationship partner"),
        ("Purpose", "Reading the document", "Parties", "Definitions", "Term and termination", "Liability",
         "Assignment", "Exclusivity", "Governing law", "Data protection", "Confidentiality", "Red flags",
         "Output format", "Uncertainty", "Privilege", "Quality control")),
    Org("Lanternfall Studios", "the narrative engine of the open-world RPG Lanternfall: Ember Coast", "quest",
        "non-player character", "player", ("side quests", "faction standing", "merchant prices", "companion banter",
                                           "lost items", "night-time events", "bounties", "romance lines"),
        ("dialogue branches", "quest flags", "loot tables", "reputation changes", "barks", "cutscene triggers",
         "map markers", "journal entries"),
        ("the narrative director", "the quest designer", "the localisation lead", "the lore keeper",
         "the live-ops producer", "the audio director"),
        ("Voice", "World facts", "What the character knows", "Factions", "Quests", "Trading", "Combat talk",
         "Companions", "Secrets", "Time of day", "Taboos", "Humour", "Lore limits", "Spoilers", "Player safety",
         "Ending a conversation")),
    Org("Furrowfield Agronomy", "crop advice, spray planning and soil testing for 1,800 arable and horticultural "
        "farms", "field", "agronomist", "grower", ("blackgrass", "septoria", "aphid thresholds", "nitrogen timing",
                                                  "drift complaints", "buffer zones", "soil compaction", "cover crops"),
        ("spray records", "soil tests", "tank mixes", "field walks", "nutrient plans", "yield maps",
         "seed orders", "product labels"),
        ("the lead agronomist", "the compliance auditor", "the soil lab", "the regional adviser",
         "the farm manager", "the product stewardship team"),
        ("Who we advise", "Label law", "Spray windows", "Buffer zones", "Tank mixes", "Nutrients", "Soil",
         "Weeds", "Diseases", "Pests", "Records", "Weather", "Organic farms", "Water", "Neighbours",
         "Sign-off")),
    Org("Juniper Row Hotels", "fourteen city-centre hotels with restaurants, spas and meeting rooms", "stay",
        "guest services agent", "guest", ("early check-ins", "late check-outs", "noise complaints", "room moves",
                                          "deposit holds", "dietary requests", "lost property", "spa bookings"),
        ("room upgrades", "table reservations", "airport transfers", "folio corrections", "parking passes",
         "pillow menus", "wake-up calls", "invoice copies"),
        ("the duty manager", "the front office manager", "the revenue team", "the housekeeping supervisor",
         "the food and beverage manager", "the guest relations lead"),
        ("Welcome", "Arrivals", "Departures", "Rooms", "Dining", "Spa", "Payments", "Loyalty", "Families",
         "Accessibility", "Pets", "Complaints", "Security", "Privacy", "Local tips", "Goodbyes")),
    Org("Keystone Civil", "bridges, highways and drainage schemes for public clients", "work package",
        "site engineer", "subcontractor", ("temporary works", "concrete pours", "traffic management",
                                           "permit to dig", "utility strikes", "design changes", "night shifts",
                                           "waste transfer notes"),
        ("RFIs", "site diaries", "drawing revisions", "delivery bookings", "inspection test plans",
         "daywork sheets", "near-miss reports", "snag lists"),
        ("the project manager", "the temporary works coordinator", "the principal designer", "the site agent",
         "the commercial manager", "the environmental adviser"),
        ("Project basics", "Site rules", "RFIs", "Drawings", "Temporary works", "Concrete", "Traffic management",
         "Utilities", "Environment", "Deliveries", "Quality", "Health and safety", "Dayworks", "Programme",
         "Handover", "Close-out")),
    Org("Talentbridge Recruitment", "permanent and contract hiring for engineering and finance roles",
        "candidate", "recruiter", "applicant", ("salary expectations", "notice periods", "right to work",
                                               "reference checks", "counter-offers", "interview no-shows",
                                               "contract extensions", "relocation"),
        ("shortlists", "screening notes", "interview slots", "offer letters", "timesheets", "client briefs",
         "background checks", "placement fees"),
        ("the account manager", "the compliance officer", "the hiring manager", "the resourcing lead",
         "the payroll team", "the team director"),
        ("Our role", "Screening", "Scoring", "Right to work", "Pay", "Notice", "References", "Diversity",
         "Interviews", "Offers", "Contractors", "Privacy", "Candidate care", "Clients", "Records", "Hand-offs")),
]

_CONDS = ["the member has confirmed they are somewhere safe", "the document reference has been checked",
          "a second person has reviewed it", "the record shows the original request", "the payment has settled",
          "the owner has replied in writing", "the earlier ticket is closed", "the evidence has been attached",
          "the account holder has been verified", "the change has been logged"]
_WAITS = ["two working days", "an hour", "the next morning", "the end of the week", "ninety minutes",
          "three working days", "the same shift", "24 hours"]
_STYLES = ["measured", "friendly and direct", "unhurried", "crisp", "courteous", "matter-of-fact"]

_RULES = [
    "Before saying anything about {topic}, read the latest note on the {unit}; it usually settles the question.",
    "{Owner} signs off any exception on {topic}, and only after {cond}.",
    "When {cond}, carry on without asking again and record the step on the {unit}.",
    "If {topic} are still open after {wait}, hand them to {owner} with a short note of what was tried.",
    "Lead with the outcome on {topic}; give the reasoning afterwards in one or two sentences.",
    "Someone upset about {topic} gets one {style} reply, and the thread then goes to {owner}.",
    "Keep answers on {topic} short, about a hundred words, unless asked for more.",
    "Do not promise a time for {topic}; say {owner} will confirm it within {wait}.",
    "Repeat the {unit} reference whenever {topic} are discussed so anyone can pick the thread up.",
    "A thread on {topic} stays open until {cond}.",
    "A third contact about {topic} inside a month earns a personal reply from {owner}.",
    "Describe {topic} in plain words, without internal codes or tool names.",
    "Where {topic} are handled differently by site or region, ask which applies first.",
    "Every change to a {unit} made while dealing with {topic} is logged with who asked for it.",
    "If {cond} has not happened yet, explain what is missing rather than saying no.",
    "Stay {style} with anyone writing about {topic}, however the conversation goes.",
    "Never echo back a password, token or one-time code pasted into a message about {topic}.",
    "Out of hours, acknowledge {topic} and say {owner} will pick them up within {wait}.",
    "Check for a similar {unit} opened this week when {topic} come in, and link the two.",
    "In handover notes, give {topic} one line each, most recent first.",
    "Ask one clarifying question at most about {topic} before acting.",
    "Offer the self-service route for {topic} only when {cond}.",
]

_FACTS = [
    "Since the {month} release, {thing} can be amended online until {hours} hours beforehand.",
    "{Thing} raised through a partner are answered by that partner first.",
    "An acknowledgement for {thing} normally lands within {minutes} minutes.",
    "The portal holds {thing} for {days} days before they move to the archive, from where they can be requested.",
    "During the {weekday} maintenance window {thing} may show as queued until the next morning.",
    "Priority customers have their {thing} dealt with ahead of the queue.",
    "Duplicate {thing} are merged automatically after {minutes} minutes.",
    "{Thing} belong to one account and cannot be moved, though a misspelt name can be corrected once.",
    "Guide {code} in the help centre walks through {thing} with pictures.",
    "A full history of {thing} can be exported as a spreadsheet for the last five years.",
    "Two failed payments against {thing} put the account on hold until the card is replaced.",
    "Setting up {thing} by phone costs the same as doing it online.",
    "The {month} price list changed the fee for {thing} for new accounts only.",
    "{Thing} submitted after 17:30 are picked up the next working day.",
    "Only the main account holder sees {thing} in the app.",
    "Bulk updates to {thing} run in the {month} batch and cannot be brought forward.",
    "The {month} audit found that {thing} were most often delayed by missing details.",
    "Around {minutes} percent of {thing} need a second look from a colleague.",
]
_FILL = {
    "month": ["January", "March", "June", "August", "October", "December"],
    "hours": ["4", "8", "12", "24", "36", "72"],
    "minutes": ["10", "20", "30", "45", "90"],
    "days": ["30", "60", "180", "400"],
    "weekday": ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Sunday"],
}

_ASKS = [
    "Where are we with my {unit}? Nothing has come through since {weekday}.",
    "Why has the {unit} been paused?",
    "What is the fastest way to update the details on my {unit}?",
    "Can {thing} be sped up at all?",
    "I was told on {weekday} someone would get back to me and nobody did.",
    "Which documents do you need for {thing}?",
    "Could you walk me through the latest charge?",
    "I think {thing} went wrong somewhere; who can check?",
    "How long is {thing} taking right now?",
    "Can a colleague be added as a second contact on the {unit}?",
    "I want to make a formal complaint about {thing}.",
    "What happens if I miss the cut-off for {thing}?",
    "Is there an easy-read version of the guidance on {thing}?",
    "Please withdraw what I asked yesterday about {thing}.",
    "Is it normal for {thing} to look like this?",
]
_TAILS = ["", " Thank you.", " It's quite urgent.", " This is my second message.", " Typing from my phone.",
          " Asking on behalf of my boss.", " Cheers.", " Apologies if this is the wrong channel."]
_REPLIES = [
    "I've checked the {unit}: the pause is lifted and a confirmation is on its way.",
    "That charge is the yearly adjustment; I can send an itemised breakdown if you like.",
    "Sorry for the wait. I've set a call for {hh}:{mm} tomorrow and noted the missed update.",
    "This kind of change takes about {days} working days, and yours is already in the queue.",
    "Done: the second contact is added and will get an email to confirm.",
    "Thanks for raising it. The team will review the {unit} and reply within {days} days.",
    "We need proof of identity and the original reference; both can be uploaded in the portal.",
    "I've withdrawn yesterday's request; nothing more will be charged.",
    "That looks right for now, and I've added a note to the {unit} in case it changes.",
]

FIRST_NAMES = ["Amara", "Bjørn", "Catalina", "Dariusz", "Efua", "Farrukh", "Greta", "Hyun-woo", "Isabela", "Jakub",
               "Kalani", "Leilani", "Matteo", "Nkechi", "Oksana", "Pekka", "Quinn", "Rosalind", "Sipho", "Tereza",
               "Umberto", "Veera", "Wanjiru", "Xavier", "Yusuf", "Zofia"]
LAST_NAMES = ["Achterberg", "Bianchi", "Chukwu", "Dvořák", "Engström", "Ferreira", "Gathoni", "Hakala", "Iwasaki",
              "Janssen", "Kovalenko", "Lindqvist", "Mwangi", "Novák", "Okafor", "Pereira", "Quist", "Rautio",
              "Saarinen", "Tkachenko", "Uchenna", "Visser", "Wekesa", "Yilmaz", "Zeman"]


def _p(kind: str, desc: str, **extra: Any) -> dict[str, Any]:
    return {"type": kind, "description": desc, **extra}


# Parameter schemas as the trades' function-calling integrations declare them.
TOOLS: dict[str, tuple[str, dict[str, Any], list[str]]] = {
    "search_papers": ("Search the indexed literature by query string and filters.",
                      {"query": _p("string", "Boolean search string."),
                       "years": _p("object", "Publication year range.", properties={"from": _p("integer", "First year."),
                                                                                  "to": _p("integer", "Last year.")}),
                       "types": _p("array", "Record types.", items={"type": "string",
                                                                    "enum": ["article", "review", "preprint", "dataset"]})},
                      ["query"]),
    "get_fulltext": ("Fetch the licensed full text of a record by DOI.",
                     {"doi": _p("string", "The record's DOI."), "section": _p("string", "Optional section name.")},
                     ["doi"]),
    "export_citations": ("Export records as citations.",
                         {"dois": _p("array", "DOIs to export.", items={"type": "string"}),
                          "style": _p("string", "Citation style.", enum=["bibtex", "ris", "apa", "vancouver"])},
                         ["dois", "style"]),
    "read_file": ("Read a file of the working tree.",
                  {"path": _p("string", "Path relative to the repository root."),
                   "lines": _p("object", "Optional line range.", properties={"start": _p("integer", "First line."),
                                                                             "end": _p("integer", "Last line.")})},
                  ["path"]),
    "run_tests": ("Run tests selected by path or marker and return the summary.",
                  {"target": _p("string", "Test path or node id."),
                   "markers": _p("array", "Pytest markers.", items={"type": "string"}),
                   "timeout_s": _p("integer", "Time limit in seconds.", minimum=10, maximum=1800)}, ["target"]),
    "search_code": ("Search the repository with a regular expression.",
                    {"pattern": _p("string", "Regular expression."), "glob": _p("string", "Optional path glob.")},
                    ["pattern"]),
    "apply_patch": ("Apply a unified diff to the working tree.",
                    {"diff": _p("string", "Unified diff text."), "check_only": _p("boolean", "Validate without writing.")},
                    ["diff"]),
    "git_status": ("Show the working tree status, the branch and the last commits.",
                   {"commits": _p("integer", "How many recent commits to list.", minimum=0, maximum=20)}, []),
    "open_pull_request": ("Open a pull request from the current branch.",
                          {"title": _p("string", "Title."), "body": _p("string", "Description in markdown."),
                           "reviewers": _p("array", "Reviewer handles.", items={"type": "string"}),
                           "draft": _p("boolean", "Open as draft.")}, ["title"]),
    "get_ci_logs": ("Fetch the logs of a CI job.",
                    {"pipeline": _p("integer", "Pipeline number."), "job": _p("string", "Job name."),
                     "tail": _p("integer", "Lines from the end.", minimum=10, maximum=5000)}, ["pipeline", "job"]),
    "query_metrics": ("Query service metrics.",
                      {"expr": _p("string", "PromQL expression."),
                       "range": _p("object", "Time range.", properties={"minutes": _p("integer", "Look-back."),
                                                                        "step_s": _p("integer", "Resolution.")})},
                      ["expr"]),
    "dispatch_patrol": ("Send a patrol or recovery truck to a breakdown.",
                        {"job_id": _p("string", "Breakdown job reference."),
                         "priority": _p("string", "Dispatch priority.", enum=["standard", "high", "vulnerable", "motorway"]),
                         "vehicle": _p("object", "Vehicle details.", properties={
                             "registration": _p("string", "Number plate."),
                             "fuel": _p("string", "Fuel type.", enum=["petrol", "diesel", "electric", "hybrid", "lpg"])})},
                        ["job_id", "priority"]),
    "lookup_membership": ("Find a membership by number, plate or postcode.",
                          {"query": _p("string", "Membership number, plate or postcode."),
                           "include": _p("array", "Extras.", items={"type": "string", "enum": ["history", "vehicles",
                                                                                               "payments"]})},
                          ["query"]),
    "send_sms_link": ("Text the caller a link to share their location or track the patrol.",
                      {"phone": _p("string", "Mobile number in E.164 format."),
                       "kind": _p("string", "Link type.", enum=["locate", "track", "survey"])}, ["phone", "kind"]),
    "transfer_call": ("Transfer the call to a team.",
                      {"team": _p("string", "Destination team.", enum=["recovery", "welfare", "claims", "membership"]),
                       "note": _p("string", "Whisper note for the receiving agent.")}, ["team"]),
    "get_order": ("Return an order with its items, payment and delivery state.",
                  {"order_id": _p("string", "Order number."),
                   "expand": _p("array", "Related records.", items={"type": "string",
                                                                    "enum": ["items", "payments", "shipments", "messages"]})},
                  ["order_id"]),
    "refund_item": ("Refund one item of an order, fully or in part.",
                    {"order_id": _p("string", "Order number."), "item_id": _p("string", "Line item."),
                     "amount": _p("object", "Refund amount.", properties={"value": _p("number", "Amount."),
                                                                          "currency": _p("string", "ISO 4217 code.")}),
                     "reason": _p("string", "Reason.", enum=["damaged", "late", "not as described", "changed mind"])},
                    ["order_id", "item_id", "reason"]),
    "track_parcel": ("Track a parcel with the carrier.",
                     {"carrier": _p("string", "Carrier code."), "tracking": _p("string", "Tracking number.")},
                     ["carrier", "tracking"]),
    "get_store_config": ("Return the storefront configuration and policies for this session.",
                         {"storefront": _p("string", "Storefront code.")}, ["storefront"]),
    "search_listings": ("Search marketplace listings.",
                        {"text": _p("string", "Search text."),
                         "price": _p("object", "Price range.", properties={"min": _p("number", "Lowest."),
                                                                           "max": _p("number", "Highest.")}),
                         "ships_to": _p("string", "ISO country code.")}, ["text"]),
    "message_seller": ("Send a message to a shop on the shopper's behalf.",
                       {"shop": _p("string", "Shop handle."), "body": _p("string", "Message text.")}, ["shop", "body"]),
    "get_terminal_rules": ("Return the terminal's operating rules in force at a time.",
                           {"terminal": _p("string", "Terminal code."), "as_of": _p("string", "ISO 8601 time.")},
                           ["terminal"]),
    "get_container_status": ("Return a container's location, holds and release state.",
                             {"container": _p("string", "ISO 6346 container number."),
                              "include": _p("array", "Extras.", items={"type": "string",
                                                                       "enum": ["holds", "moves", "reefer", "charges"]})},
                             ["container"]),
    "book_truck_slot": ("Book a truck appointment at the gate.",
                        {"container": _p("string", "Container number."),
                         "window": _p("object", "Slot.", properties={"date": _p("string", "YYYY-MM-DD."),
                                                                     "hour": _p("integer", "Hour 0-23.")},
                                      required=["date", "hour"]),
                         "haulier": _p("string", "Haulier code.")}, ["container", "window"]),
    "release_container": ("Request release of an import container.",
                          {"container": _p("string", "Container number."), "pin": _p("string", "Release PIN.")},
                          ["container", "pin"]),
    "get_world_state": ("Return the world state the character can perceive.",
                        {"region": _p("string", "Map region id."),
                         "fields": _p("array", "Which parts.", items={"type": "string",
                                                                      "enum": ["weather", "time", "events", "prices"]})},
                        ["region"]),
    "give_item": ("Give the player an item from the character's inventory.",
                  {"item": _p("string", "Item id."), "count": _p("integer", "How many.", minimum=1, maximum=99)},
                  ["item"]),
    "start_quest": ("Offer the player a quest.", {"quest": _p("string", "Quest id."),
                                                  "stage": _p("integer", "Starting stage.")}, ["quest"]),
    "set_npc_flag": ("Set a dialogue flag on this character.",
                     {"flag": _p("string", "Flag name."), "value": _p("boolean", "New value.")}, ["flag", "value"]),
    "get_label_register": ("Return the register of approved crop protection products and their label limits.",
                           {"crop": _p("string", "Crop."), "format": _p("string", "Output format.", enum=["yaml", "json"])},
                           ["crop"]),
    "get_field_record": ("Return a field's cropping, soil and spray history.",
                         {"field_id": _p("string", "Field identifier."),
                          "seasons": _p("integer", "How many seasons back.", minimum=1, maximum=10)}, ["field_id"]),
    "log_spray": ("Record a spray application.",
                  {"field_id": _p("string", "Field identifier."),
                   "products": _p("array", "Products and rates.", items={"type": "object", "properties": {
                       "product": _p("string", "Product name."), "rate_l_ha": _p("number", "Litres per hectare.")}}),
                   "applied_at": _p("string", "ISO 8601 time.")}, ["field_id", "products"]),
    "get_reservation": ("Return a reservation by confirmation number or guest surname.",
                        {"query": _p("string", "Confirmation number or surname."),
                         "hotel": _p("string", "Hotel code.")}, ["query"]),
    "request_housekeeping": ("Send a housekeeping request to a room.",
                             {"room": _p("string", "Room number."),
                              "items": _p("array", "What is needed.", items={"type": "string"}),
                              "when": _p("string", "Time or 'now'.")}, ["room", "items"]),
    "book_table": ("Book a table in a hotel restaurant.",
                   {"outlet": _p("string", "Restaurant code."), "covers": _p("integer", "Guests.", minimum=1, maximum=20),
                    "time": _p("string", "HH:MM.")}, ["outlet", "covers", "time"]),
    "get_site_diary": ("Return site diary entries for a work package.",
                       {"package": _p("string", "Work package code."),
                        "days": _p("integer", "How many days back.", minimum=1, maximum=60)}, ["package"]),
    "raise_rfi": ("Raise a request for information to the designer.",
                  {"package": _p("string", "Work package code."), "question": _p("string", "The question."),
                   "drawings": _p("array", "Drawing numbers.", items={"type": "string"}),
                   "urgency": _p("string", "Urgency.", enum=["routine", "programme-critical", "safety"])},
                  ["package", "question"]),
    "get_drawing": ("Return the current revision of a drawing.",
                    {"number": _p("string", "Drawing number."), "revision": _p("string", "Optional revision letter.")},
                    ["number"]),
    "log_delivery": ("Book or record a material delivery to site.",
                     {"package": _p("string", "Work package code."), "material": _p("string", "What."),
                      "quantity": _p("object", "How much.", properties={"value": _p("number", "Amount."),
                                                                        "unit": _p("string", "Unit.", enum=["m3", "t", "no", "m"])})},
                     ["package", "material"]),
}
TOOL_NAMES = sorted(TOOLS)

CZECH = [
    "Hostům odpovídejte zdvořile a vykejte jim.",
    "Před sdělením údajů o rezervaci ověřte jméno a číslo potvrzení.",
    "Nikdy neposílejte číslo platební karty do chatu.",
    "Žádosti o pozdní odjezd potvrzuje vedoucí recepce.",
    "Ztracené věci uchováváme devadesát dní.",
]
CZECH_ASKS = ["Můžu se ubytovat dřív?", "Kde je nejbližší parkoviště?", "Je snídaně v ceně pokoje?",
              "Můžete mi poslat fakturu na firmu?"]
SWAHILI = [
    "Jibu wakulima kwa heshima na kwa lugha rahisi.",
    "Kabla ya kupendekeza dawa, hakikisha zao na hatua ya ukuaji.",
    "Usipendekeze dawa ambayo haijasajiliwa nchini.",
    "Mvua ikitarajiwa ndani ya saa sita, shauri mkulima asinyunyizie.",
    "Andika kila ushauri kwenye rekodi ya shamba.",
]
SWAHILI_ASKS = ["Ni lini nipulizie dawa ya viwavi jeshi?", "Mbolea gani inafaa kwa mahindi yangu?",
                "Majani ya nyanya yanageuka manjano, nifanye nini?", "Bei ya mbegu imepanda, kuna mbadala?"]
UKRAINIAN = [
    "Звертайтеся до абонента ввічливо і на «ви».",
    "Спершу з'ясуйте, чи людина в безпечному місці.",
    "Не диктуйте номер картки вголос і не просіть його повторити.",
    "Якщо дзвінок обірвався, передзвоніть протягом п'яти хвилин.",
    "Про затримку евакуатора повідомляйте одразу.",
]
UKRAINIAN_ASKS = ["Скільки ще чекати на евакуатор?", "Чи можна поїхати разом з машиною?",
                  "У мене розрядився акумулятор на трасі.", "Чи покриває страховка заміну колеса?"]
FINNISH = [
    "Vastaa hakijalle ystävällisesti ja selkeästi.",
    "Älä kysy hakijan ikää, uskontoa tai terveydentilaa.",
    "Palkkatoiveet kirjataan aina bruttona kuukaudessa.",
    "Suosittelijoihin otetaan yhteyttä vain hakijan luvalla.",
]
DUTCH = [
    "Spreek de gast aan met u, tenzij de gast zelf je zegt.",
    "Bevestig een kamerwissel pas als housekeeping de kamer heeft vrijgegeven.",
    "Deel nooit het kamernummer van een andere gast.",
    "Een aanbetaling wordt binnen vijf werkdagen vrijgegeven.",
]
DUTCH_ASKS = ["Kan ik mijn kamer een dag verlengen?", "Is er een oplaadpunt voor mijn auto?",
              "Hoe laat gaat het ontbijt open?", "Kunnen jullie een taxi naar Schiphol regelen?"]
PORTUGUESE = [
    "Responda ao hóspede com cordialidade e sem gírias.",
    "Confirme o número da reserva antes de alterar qualquer dado.",
    "Pedidos de cancelamento sem multa seguem a tarifa contratada.",
    "Nunca informe o número do quarto de outro hóspede.",
]
PORTUGUESE_ASKS = ["Posso fazer o check-in mais cedo?", "O hotel tem estacionamento?",
                   "Quero trocar de quarto, é possível?", "Vocês aceitam pets?"]


@dataclass
class Scribe:
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
        s = make()
        for _ in range(80):
            if s not in self._seen:
                break
            s = make()
        self._seen.add(s)
        return str(s)

    def rule(self) -> str:
        r, o = self.rng, self.org

        def make() -> str:
            owner = r.choice(o.owners)
            return r.choice(_RULES).format(topic=r.choice(o.topics), owner=owner, Owner=owner[0].upper() + owner[1:],
                                           wait=r.choice(_WAITS), cond=r.choice(_CONDS), style=r.choice(_STYLES),
                                           unit=o.unit)
        return self._fresh(make)

    def fact(self) -> str:
        r = self.rng

        def make() -> str:
            fill = {k: r.choice(v) for k, v in _FILL.items()}
            thing = r.choice(self.org.things)
            fill.update(thing=thing, Thing=thing[0].upper() + thing[1:], code=f"{r.choice('BDGHKMPT')}-{r.randint(100, 999)}")
            return r.choice(_FACTS).format(**fill)
        return self._fresh(make)

    def paragraph(self, n: int = 5) -> str:
        return " ".join(self.rule() if self.rng.random() < 0.5 else self.fact() for _ in range(n))

    def preface(self) -> str:
        o = self.org
        return (f"You are the assistant of {o.name}'s {o.role}s. {o.name} runs {o.does}. Messages come from "
                f"{o.asker}s and from staff. Use the tools you are given for look-ups and changes, say so when you "
                f"are unsure, and never make up a reference.")

    def guide(self, sections: int, per: int = 6, start: int = 0) -> str:
        """Headed sections of rules and facts, about 150 tokens each."""
        heads = self.org.heads
        out = []
        for k in range(start, start + sections):
            head = heads[k % len(heads)] + ("" if k < len(heads) else f", part {k // len(heads) + 1}")
            out.append(f"### {head}\n{self.paragraph(per)}")
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
        r, o = self.rng, self.org
        return (r.choice(_ASKS).format(unit=o.unit, weekday=r.choice(_FILL["weekday"]), thing=r.choice(o.things))
                + r.choice(_TAILS) + f" (ref {self.ref()})")

    def long_question(self) -> str:
        """A question with pasted context: request sizes vary in real logs."""
        return self.question() + "\n\n" + " ".join(self.fact() for _ in range(self.rng.randint(1, 6)))

    def answer(self) -> str:
        r = self.rng
        return r.choice(_REPLIES).format(unit=self.unit, hh=f"{r.randint(8, 18):02d}", mm=r.choice(["00", "20", "40"]),
                                         days=r.randint(2, 9))

    def ref(self) -> str:
        return "".join(self.rng.choice("BCDFGHJKMNPQRSTVWXZ346789") for _ in range(7))

    def person(self) -> str:
        return f"{self.rng.choice(FIRST_NAMES)} {self.rng.choice(LAST_NAMES)}"


def compact(value: object) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def pretty(value: object, indent: int = 2) -> str:
    return json.dumps(value, indent=indent, ensure_ascii=False)
