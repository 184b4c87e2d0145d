"""Text for the thirteenth held-out set: eight teams' instructions, questions, documents and tools.

Every sentence is built here from each team's own vocabulary (no earlier set's prose): a
mountain observatory's telescope-time desk, a philatelic auction house's lot-description desk, a
wildfire dispatch centre, a cheese-ageing cave, a satellite ground station's pass scheduler, a
typeface foundry's licensing desk, a seismic network's bulletin desk and a green-coffee importer's
cupping lab; with lines in Georgian, Catalan, Romanian, Tamil, Tagalog and Estonian.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Sequence

Param = tuple[str, str]  # (name, JSON type: string | integer | number | boolean | array | object)


@dataclass(frozen=True)
class Team:
    key: str
    name: str
    trade: str
    sections: tuple[str, ...]
    subjects: tuple[str, ...]
    actions: tuple[str, ...]
    conditions: tuple[str, ...]
    reasons: tuple[str, ...]
    asks: tuple[str, ...]
    fills: dict[str, tuple[str, ...]]
    tools: dict[str, tuple[str, tuple[Param, ...]]]
    language: tuple[str, tuple[str, ...]] = ("", ())
    facts: tuple[str, ...] = field(default=())


MODALS = ("must", "should", "may only", "is expected to", "needs to", "has to")
JOINERS = ("", " Where in doubt, ask the duty lead.", " Record the outcome in the shift log.",
           " Say so plainly in the reply.", " Do not guess a figure you cannot check.")


OBSERVATORY = Team(
    key="obs", name="Tskhratskaro Ridge Observatory", trade="telescope-time allocation desk",
    sections=("Proposal intake", "Scheduling blocks", "Weather closures", "Dome safety", "Instrument changes",
              "Calibration frames", "Target-of-opportunity triggers", "Data rights", "Visitor nights", "Night log"),
    subjects=("the night assistant", "a visiting observer", "the duty astronomer", "a queue-mode block",
              "the time allocation committee", "a calibration plan", "a remote observer", "the dome operator"),
    actions=("confirm the pointing limits before booking", "close the dome slit", "hand the block back to the queue",
             "log the seeing estimate from the guide camera", "swap the filter wheel only between blocks",
             "take twilight flats in the listed filters", "defer to the target-of-opportunity rule",
             "release proprietary frames after twelve months", "quote the airmass at the start of the block",
             "report a lost block with its reason code"),
    conditions=("when the relative humidity passes 85 percent", "if the wind at the dome exceeds 15 metres per second",
                "before astronomical twilight ends", "once the Moon is within 30 degrees of the target",
                "if the guider loses the star twice", "while the spectrograph is being cooled",
                "when a proposal runs past its allocation", "after the last science frame of the night"),
    reasons=(", so the night log stays complete", ", because the mirror cannot be recoated this season",
             ", which keeps the queue fair across programmes", ", since the committee audits every lost hour", ""),
    asks=("Can proposal {prop} still get {hours} hours in the {band} band this week?",
          "Is target {target} above airmass 1.5 for long enough tonight to take {n} exposures?",
          "Why was block {block} of programme {prop} marked as lost?",
          "Which calibration frames do I need before switching to the {inst}?",
          "How do I hand my remaining {hours} hours back to the queue?",
          "The guider dropped {target} twice; should I abort block {block}?"),
    fills={"prop": tuple(f"TRO-2026B-{k:03d}" for k in range(4, 90, 7)), "hours": ("1.5", "2", "3", "4.5", "6"),
           "band": ("V", "R", "I", "H-alpha", "[OIII]"), "target": ("NGC 7331", "M 33", "SN 2026abf", "HD 189733",
                                                                       "Abell 2151", "WASP-12"),
           "n": ("6", "12", "20", "40"), "block": ("B3", "B7", "B12", "B15"),
           "inst": ("echelle spectrograph", "wide-field imager", "polarimeter", "infrared camera")},
    tools={"check_visibility": ("Altitude, airmass and Moon distance of a target over tonight.",
                                (("target", "string"), ("date", "string"), ("min_altitude", "number"))),
           "book_block": ("Book a scheduling block for a proposal on a telescope.",
                          (("proposal_id", "string"), ("telescope", "string"), ("start", "string"), ("hours", "number"))),
           "get_seeing": ("Seeing and transparency from the site monitor.", (("window_minutes", "integer"),)),
           "lookup_proposal": ("Allocation, used time and priority grade of a proposal.", (("proposal_id", "string"),)),
           "release_block": ("Give a booked block back to the queue.", (("block_id", "string"), ("reason", "string"))),
           "list_instruments": ("Instruments mounted on each telescope tonight.", ())},
    language=("Georgian", ("უპასუხეთ ქართულად, თუ დამკვირვებელი ქართულად წერს.",
                           "ტელესკოპის დრო მხოლოდ ჯავშნით ნაწილდება.",
                           "ამინდის გამო დაკარგული დრო ჟურნალში ჩაიწერება.",
                           "გუმბათი იხურება, როცა ქარი ძლიერია.")),
)

STAMPS = Team(
    key="stamps", name="Harwell & Quist Philatelic Auctions", trade="lot-description desk",
    sections=("Describing condition", "Perforation and gauge", "Watermarks", "Gum and hinging", "Certificates",
              "Estimates", "Postal history covers", "Forgeries and repairs", "Bidder questions", "Catalogue numbers"),
    subjects=("the describer", "a consignor", "the expertising committee", "a telephone bidder", "the sale manager",
              "a lot description", "the photographer", "a commission bid"),
    actions=("state the perforation gauge to the nearest quarter", "mention every thin or tear on the back",
             "quote the catalogue number with its edition year", "flag a regummed stamp as such",
             "send the lot for a certificate before the sale", "round the estimate to the house's steps",
             "photograph the back of every stamp over the reserve", "describe a cover's postmarks in order",
             "withdraw the lot until the consignor confirms", "note the watermark position"),
    conditions=("when the stamp is catalogued above five hundred pounds", "if the perforations are trimmed on any side",
                "before the catalogue goes to print", "when the gum shows hinge remnants",
                "if a certificate is older than twenty years", "once a bidder disputes the description",
                "when a cover carries a censor mark", "if the colour shade is not certain"),
    reasons=(", so buyers can bid on the description alone", ", because returns are accepted only on description",
             ", which the auction rules require", ", since the committee reads every description", ""),
    asks=("How should I describe lot {lot}, a {item} with {fault}?",
          "What estimate steps apply to a {item} catalogued at £{value}?",
          "Does lot {lot} need a fresh certificate if its last one is from {year}?",
          "A bidder says lot {lot} is a forgery; what do I tell them?",
          "Which catalogue edition do we quote for the {item}?",
          "Can I combine lots {lot} and {lot2} into one postal-history lot?"),
    fills={"lot": tuple(str(k) for k in range(1012, 1990, 37)), "lot2": tuple(str(k) for k in range(2003, 2400, 41)),
           "item": ("Penny Black plate 6", "Twopenny Blue", "Cape triangular", "Inverted Swan", "Zeppelin cover",
                    "Hawaiian Missionary reprint", "Basel Dove"),
           "fault": ("a small thin", "short perfs at top", "a light crease", "toned gum", "a repaired corner"),
           "value": ("180", "450", "1,200", "3,800", "12,000"), "year": ("1987", "1994", "2003", "2011")},
    tools={"lookup_lot": ("The consignment record, photographs and draft description of a lot.", (("lot_number", "integer"),)),
           "estimate_value": ("A house estimate band for a stamp from its catalogue value and condition.",
                              (("catalogue_value", "number"), ("grade", "string"), ("currency", "string"))),
           "check_certificate": ("Whether a certificate number is on file with the expertising bodies.",
                                 (("certificate_number", "string"), ("issuer", "string"))),
           "register_bidder": ("Register a bidder for the sale with a credit limit.",
                               (("name", "string"), ("email", "string"), ("limit", "number"))),
           "record_commission_bid": ("Record an absentee bid on a lot.", (("lot_number", "integer"), ("amount", "number"),
                                                                          ("bidder_id", "string")))},
)

WILDFIRE = Team(
    key="fire", name="Serra Alta Wildfire Dispatch", trade="wildfire dispatch centre",
    sections=("Initial attack", "Resource ordering", "Fire weather", "Aircraft", "Evacuation messages",
              "Spot reports", "Crew safety", "Mutual aid", "Radio discipline", "Demobilisation"),
    subjects=("the dispatcher", "an engine crew", "the incident commander", "a lookout", "the air attack supervisor",
              "a hand crew", "the duty officer", "a water tender"),
    actions=("confirm the crew's escape route before assignment", "log the spot report with its grid reference",
             "order aircraft through the coordination centre only", "read back every resource order",
             "pass evacuation wording from the incident commander unchanged", "record the fire's rate of spread",
             "hold engines at the staging area", "release resources in the order they arrived",
             "check the red-flag status before sending hand crews", "note the relative humidity with each report"),
    conditions=("when the wind shifts more than forty-five degrees", "if a lookout reports a new smoke column",
                "before sunset on a red-flag day", "when relative humidity drops below fifteen percent",
                "if radio contact is lost for ten minutes", "once the fire crosses a control line",
                "while aircraft are over the fire", "when a mutual-aid engine arrives"),
    reasons=(", so that no crew is left without a way out", ", because the coordination centre audits every order",
             ", which keeps the radio channel clear", ", since conditions can change within minutes", ""),
    asks=("Lookout {lookout} reports smoke at grid {grid}; what do I send first?",
          "Can engine {engine} be released from the {fire} fire yet?",
          "How do I order a {aircraft} for the {fire} fire?",
          "Relative humidity at {lookout} is {rh} percent; does that change the crew assignments?",
          "Which wording do I use for an evacuation warning in {zone}?",
          "Crew {crew} has worked {hours} hours; when must they stand down?"),
    fills={"lookout": ("Puig Roig", "Coll de Mores", "Serrat Gran", "Tossal Blanc", "Pic de l'Àliga"),
           "grid": tuple(f"{a}{b}" for a in ("31TCG", "31TDG") for b in ("4412", "4587", "5021", "5316")),
           "engine": ("E-21", "E-34", "E-40", "E-57", "E-63"), "fire": ("Vall Fosca", "Rocallisa", "Canal Seca", "Ermita"),
           "aircraft": ("water-scooping plane", "helicopter with bucket", "air attack platform"),
           "rh": ("9", "12", "17", "22"), "zone": ("zone A", "zone B3", "the campsite sector", "the valley road"),
           "crew": ("H-2", "H-5", "H-8"), "hours": ("10", "12", "14", "16")},
    tools={"get_fire_weather": ("Wind, humidity and fuel moisture at a weather station.", (("station", "string"),)),
           "dispatch_resource": ("Assign an engine, crew or aircraft to an incident.",
                                 (("resource_id", "string"), ("incident", "string"), ("priority", "integer"))),
           "list_resources": ("Resources available, committed or out of service.", (("status", "string"), ("area", "string"))),
           "log_spot_report": ("Record a spot report from a lookout or crew.",
                               (("grid", "string"), ("size_ha", "number"), ("behaviour", "string"), ("reporter", "string"))),
           "issue_warning": ("Send an approved warning message to a zone.", (("zone", "string"), ("level", "string"))),
           "request_mutual_aid": ("Ask a neighbouring region for resources.", (("kind", "string"), ("count", "integer")))},
    language=("Catalan", ("Respon en català si qui truca escriu en català.",
                          "No donis mai ordres d'evacuació; només el comandament d'incident les pot donar.",
                          "Indica sempre l'hora en format de vint-i-quatre hores.",
                          "Dona la velocitat del vent en quilòmetres per hora.")),
)

CHEESE = Team(
    key="cheese", name="Pivnița Bucegi Affinage", trade="cheese-ageing cave",
    sections=("Brining", "Turning schedule", "Washing rinds", "Cave climate", "Mould control", "Grading wheels",
              "Lot records", "Dispatch", "Allergen labelling", "Cleaning"),
    subjects=("the cellar hand", "a new wheel", "the affineur", "a washed-rind batch", "the quality lead",
              "a dispatch order", "the night cellar check", "a wheel under grading"),
    actions=("turn the wheel and note its lot number", "wash the rind with the brine listed for its recipe",
             "move the wheel to the drier cave", "hold the batch until the grader has tasted it",
             "record the cave humidity with one decimal", "brush off blue mould before it reaches the paste",
             "reject a wheel with a cracked rind", "label the wheel with its make date",
             "quote the maturation in months", "clean the boards with hot water only"),
    conditions=("when the cave humidity falls below 88 percent", "if the rind shows grey mould",
                "before a wheel reaches six months", "once the paste springs back under the thumb",
                "when the cave temperature rises above 13 degrees", "if a batch misses two turnings",
                "after a wheel is washed for the last time", "when an order asks for a named maturation"),
    reasons=(", so each lot can be traced back to its milk", ", because the rind sets in the first weeks",
             ", which the inspector checks every spring", ", since a cracked rind lets moisture in", ""),
    asks=("Wheel {wheel} has {fault}; should it stay in cave {cave}?",
          "How many more turnings does batch {batch} need before grading?",
          "Can we ship {n} wheels of {recipe} at {months} months?",
          "Cave {cave} reads {rh} percent humidity; what do I change?",
          "Which brine is used to wash {recipe}?",
          "What do I write on the label of batch {batch}?"),
    fills={"wheel": tuple(f"W-{k:04d}" for k in range(112, 990, 53)), "cave": ("A", "B", "C", "D"),
           "batch": tuple(f"L26-{k:03d}" for k in range(14, 300, 19)),
           "fault": ("grey mould spots", "a hairline crack", "a soft side", "a sticky rind", "uneven colour"),
           "n": ("6", "12", "24", "48"), "recipe": ("Caşcaval de Bucegi", "Telemea afumată", "Brânză de burduf",
                                                    "the washed-rind Mioriţa", "the alpine tomme"),
           "months": ("3", "6", "9", "14"), "rh": ("84", "86", "91", "95")},
    tools={"read_cave_sensors": ("Temperature and humidity of a cave over the last hours.", (("cave", "string"), ("hours", "integer"))),
           "log_turning": ("Record that wheels of a batch were turned.", (("batch", "string"), ("count", "integer"))),
           "grade_wheel": ("Store the grader's score and notes for a wheel.",
                           (("wheel_id", "string"), ("score", "number"), ("notes", "string"))),
           "schedule_washing": ("Plan rind washes for a batch.", (("batch", "string"), ("brine", "string"), ("days", "array"))),
           "reserve_for_order": ("Set wheels aside for a customer order.", (("order_id", "string"), ("wheels", "array")))},
    language=("Romanian", ("Răspunde în limba română dacă maestrul de pivniță scrie în română.",
                           "Temperatura se notează în grade Celsius, cu o zecimală.",
                           "Roțile se întorc după programul afișat în pivniță.",
                           "Nu recomanda vânzarea unei roți înainte de evaluare.")),
)

GROUND = Team(
    key="ground", name="Nordvik Ground Station", trade="satellite pass scheduling desk",
    sections=("Pass planning", "Antenna limits", "Link budgets", "Telemetry handling", "Command windows",
              "Conflicts between missions", "Maintenance outages", "Space weather", "Customer reports", "Handover"),
    subjects=("the pass scheduler", "a customer mission", "the antenna controller", "a command window",
              "the flight dynamics team", "a telemetry dump", "the station engineer", "a low-elevation pass"),
    actions=("check the antenna's keyhole before accepting the pass", "confirm the frequency plan with the customer",
             "give the higher-priority mission the pass", "hold commanding until the link is locked",
             "store the raw telemetry before decoding", "quote the maximum elevation of the pass",
             "report a missed pass within the hour", "use the latest orbit elements only",
             "cap the downlink at the licensed rate", "book the backup antenna"),
    conditions=("when two passes overlap by more than a minute", "if the pass peaks below ten degrees",
                "before a maintenance outage", "once the orbit elements are older than two days",
                "if the geomagnetic index passes six", "while the radome is being inspected",
                "when a customer asks for an emergency pass", "after a failed uplink"),
    reasons=(", so that contracts are honoured in order", ", because the keyhole cannot be tracked",
             ", which the licence requires", ", since the customer pays per successful pass", ""),
    asks=("Can we take the {sat} pass at {time} UTC on antenna {ant}?",
          "Why did the {sat} pass on {day} fail to lock?",
          "The orbit elements for {sat} are {age} days old; may I schedule on them?",
          "How much data can {sat} dump at {el} degrees maximum elevation?",
          "Two missions want antenna {ant} at {time}; who gets it?",
          "What do I tell the {sat} team about tomorrow's outage?"),
    fills={"sat": ("AURORA-3", "KestrelSat", "TundraSAR-2", "Polar Cube 7", "OceanEye", "Fjordsat-1"),
           "time": ("02:14", "05:48", "09:31", "13:02", "17:45", "22:19"), "ant": ("N1", "N2", "N3 (7.3 m)"),
           "day": ("Monday", "Tuesday", "Wednesday", "Thursday"), "age": ("1", "3", "5"), "el": ("8", "24", "57", "81")},
    tools={"predict_pass": ("Upcoming passes of a satellite over the station.", (("norad_id", "integer"), ("hours", "integer"))),
           "reserve_antenna": ("Reserve an antenna for a pass.", (("antenna", "string"), ("aos", "string"), ("los", "string"),
                                                                  ("mission", "string"))),
           "get_link_budget": ("Expected margin and data volume for a pass.", (("norad_id", "integer"), ("max_elevation", "number"))),
           "fetch_telemetry": ("Raw telemetry frames of a past pass.", (("pass_id", "string"), ("format", "string"))),
           "get_space_weather": ("Current Kp index and alerts.", ()),
           "open_ticket": ("Open a ticket for a missed or degraded pass.", (("pass_id", "string"), ("summary", "string")))},
)

FOUNDRY = Team(
    key="foundry", name="Lettergieterij Vos & Raaf", trade="typeface licensing desk",
    sections=("Desktop licences", "Web licences", "App embedding", "Broadcast and film", "Seat counts",
              "Upgrades", "Education discounts", "Modifications", "Trial fonts", "Invoices"),
    subjects=("the licensing assistant", "a customer's designer", "an agency", "a web licence", "the account manager",
              "a trial download", "an app developer", "an education customer"),
    actions=("count seats per person who installs the fonts", "quote web licences by monthly page views",
             "ask for the app's install base before quoting", "offer the upgrade price only to current licensees",
             "refuse to send font files before payment", "allow modifications only under the extended licence",
             "send the invoice in the customer's currency", "confirm the styles needed before quoting",
             "point trial users to the watermark terms", "record the licensee's legal name"),
    conditions=("when an agency works for several clients", "if the page views exceed one million a month",
                "before a broadcast campaign starts", "once a trial has run for thirty days",
                "if the customer asks for a custom weight", "when the fonts are embedded in a PDF form",
                "after a company changes its name", "when a student licence is renewed"),
    reasons=(", so the licence matches the use", ", because seat counts are audited yearly",
             ", which the end-user licence sets out", ", since the files carry the licensee's name", ""),
    asks=("How much is a {kind} licence for {family} with {seats} seats?",
          "Our site gets {views} page views a month; which tier of {family} do we need?",
          "Can we modify the {glyph} in {family} for our logo?",
          "We licensed {family} in {year}; what does the upgrade cost?",
          "Is embedding {family} in our {app} covered by the desktop licence?",
          "Which invoice address goes on licence {lic}?"),
    fills={"kind": ("desktop", "web", "app", "broadcast"), "family": ("Kade Grotesk", "Meerval Serif", "Duinroos Mono",
                                                                      "Ijssel Display", "Havik Sans"),
           "seats": ("3", "10", "25", "120"), "views": ("50,000", "400,000", "2 million"),
           "glyph": ("ampersand", "lowercase g", "numeral 7"), "year": ("2017", "2020", "2023"),
           "app": ("iOS app", "kiosk software", "e-book reader"), "lic": tuple(f"VR-{k:05d}" for k in range(1204, 9000, 611))},
    tools={"quote_license": ("Price of a licence for a family, use and size.",
                             (("family", "string"), ("use", "string"), ("size", "integer"), ("styles", "array"))),
           "lookup_family": ("Styles, formats and glyph coverage of a typeface family.", (("family", "string"),)),
           "check_seats": ("Seats licensed and installed for a customer.", (("customer_id", "string"),)),
           "issue_invoice": ("Create an invoice for an accepted quote.", (("quote_id", "string"), ("currency", "string"),
                                                                          ("vat_number", "string"))),
           "send_trial": ("Send watermarked trial fonts.", (("email", "string"), ("family", "string")))},
)

SEISMO = Team(
    key="seismo", name="Baltic Shield Seismic Network", trade="seismic bulletin desk",
    sections=("Event location", "Magnitudes", "Station quality", "Felt reports", "Explosions and quarry blasts",
              "Bulletin release", "Media questions", "Aftershock sequences", "Data requests", "Duty handover"),
    subjects=("the duty seismologist", "an automatic location", "a felt report", "the bulletin", "a station operator",
              "a reviewed event", "a journalist", "a quarry"),
    actions=("review the automatic location before publishing", "quote the magnitude with one decimal",
             "mark a quarry blast as such", "give times in UTC only", "drop a station with clipped records",
             "wait for three stations before locating", "compare the event with the blasting log",
             "describe the depth as poorly constrained when it is", "answer the media with the reviewed figures only",
             "attach the station list to the bulletin"),
    conditions=("when the magnitude is 3.0 or larger", "if fewer than four stations picked the event",
                "before the hourly bulletin is released", "once a felt report arrives",
                "when the event falls inside a quarry's licence area", "if a station's clock is off by more than a second",
                "during an aftershock sequence", "when the location lies offshore"),
    reasons=(", so the bulletin can be trusted", ", because automatic depths are often wrong",
             ", which the agreement with the civil defence requires", ", since blasts are common on weekdays", ""),
    asks=("Was the event at {time} UTC near {place} a quarry blast?",
          "What magnitude do we publish for the {place} event, automatic M{mag}?",
          "Station {sta} looks clipped; can I drop it and relocate?",
          "A journalist asks whether {place} will have more shaking; what do I say?",
          "How many felt reports do we need before a {place} event goes in the bulletin?",
          "Can I release the {hour}:00 bulletin without reviewing event {ev}?"),
    fills={"time": ("01:22:07", "04:51:33", "09:14:58", "12:03:11", "17:40:26", "23:08:45"),
           "place": ("Paldiski", "Narva", "Kunda", "Rakvere", "Sillamäe", "Haapsalu"), "mag": ("1.8", "2.4", "3.1", "3.6"),
           "sta": ("EE.SLIT", "EE.MTSE", "EE.PKSE", "EE.VSU", "EE.TRTE"), "hour": ("06", "09", "12", "15"),
           "ev": tuple(f"bsn2026x{k:03d}" for k in range(11, 400, 29))},
    tools={"locate_event": ("Relocate an event from reviewed picks.", (("event_id", "string"), ("fixed_depth_km", "number"))),
           "get_station_status": ("Latency, clock and clipping flags of a station.", (("station", "string"),)),
           "fetch_waveform": ("Waveform snippet of a station around a time.",
                              (("station", "string"), ("start", "string"), ("seconds", "integer"))),
           "publish_bulletin": ("Publish the reviewed events of an hour.", (("hour", "string"), ("events", "array"))),
           "check_blasting_log": ("Licensed blasts near a place and time.", (("place", "string"), ("time", "string")))},
    language=("Estonian", ("Vasta eesti keeles, kui küsija kirjutab eesti keeles.",
                           "Magnituud esitatakse ühe komakohaga.",
                           "Aeg märgitakse alati UTC järgi.",
                           "Ära avalda sündmust enne, kui seismoloog on selle üle vaadanud.")),
)

COFFEE = Team(
    key="coffee", name="Kaapi & Kape Green Coffee", trade="cupping lab",
    sections=("Sample intake", "Moisture and density", "Sample roasting", "Cupping protocol", "Defect counts",
              "Lot approval", "Contracts", "Shipping", "Warehouse", "Supplier feedback"),
    subjects=("the Q grader", "an offer sample", "the lab technician", "a pre-shipment sample", "the trader",
              "a supplier", "a roaster customer", "a lot under approval"),
    actions=("measure the moisture before roasting", "roast the sample within eight to twelve minutes",
             "score the cups blind", "count primary and secondary defects in 350 grams",
             "reject a lot above twelve and a half percent moisture", "send the supplier the full score sheet",
             "hold the contract until the pre-shipment sample passes", "quote prices per pound free on board",
             "store samples in sealed bags", "log the roast colour reading"),
    conditions=("when the water activity passes 0.62", "if two cups of five taste different",
                "before the container is booked", "once the supplier disputes a score",
                "when the sample arrives without a lot number", "if the density is below 650 grams per litre",
                "after a lot fails cupping twice", "when the offer expires within a day"),
    reasons=(", so scores stay comparable", ", because wet coffee moulds in the container",
             ", which the contract terms require", ", since roasters buy on the score sheet", ""),
    asks=("Offer sample {lot} from {origin} scored {score}; can we approve it?",
          "Moisture on {lot} reads {moist} percent; do we roast it?",
          "How many defects are allowed in a {grade} {origin} lot?",
          "The supplier of {lot} disputes our score of {score}; what do we send them?",
          "Can we book a container for {bags} bags of {origin} before the pre-shipment sample passes?",
          "What roast profile do we use for {origin} {process} samples?"),
    fills={"lot": tuple(f"GC-{k:04d}" for k in range(301, 9000, 577)),
           "origin": ("Chikmagalur", "Batangas Barako", "Benguet", "Coorg", "Sidama", "Huila"),
           "score": ("81.5", "83.25", "84.0", "86.75"), "moist": ("10.2", "11.8", "12.6", "13.1"),
           "grade": ("AA", "Plantation A", "specialty"), "bags": ("80", "160", "320"),
           "process": ("washed", "natural", "honey", "monsooned")},
    tools={"get_lot_scores": ("Cupping scores and notes of a lot.", (("lot_id", "string"),)),
           "check_moisture": ("Moisture, water activity and density of a sample.", (("sample_id", "string"),)),
           "book_sample_roast": ("Book a sample roast slot.", (("sample_id", "string"), ("profile", "string"),
                                                               ("slot", "string"))),
           "quote_container": ("Freight quote for a container of bags.", (("origin_port", "string"), ("bags", "integer"))),
           "send_score_sheet": ("Email the score sheet to a supplier.", (("lot_id", "string"), ("supplier_email", "string")))},
    language=("Tamil and Tagalog", ("வாடிக்கையாளர் தமிழில் எழுதினால் தமிழில் பதிலளிக்கவும்.",
                                    "ஈரப்பதத்தை சதவீதத்தில் குறிப்பிடவும்.",
                                    "Sumagot sa Tagalog kung Tagalog ang gamit ng supplier.",
                                    "Isulat ang timbang sa kilo.",
                                    "Huwag mangako ng presyo bago ang cupping.")),
)

TEAMS = (OBSERVATORY, STAMPS, WILDFIRE, CHEESE, GROUND, FOUNDRY, SEISMO, COFFEE)

PYTHON_TYPES = ("string", "integer", "number", "boolean", "array", "object")


class Writer:
    """One workload's text for one team, drawn from ``rng`` (the same rng, the same text)."""

    def __init__(self, rng: random.Random, team: Team) -> None:
        self.rng, self.team = rng, team

    def rule(self) -> str:
        t, r = self.team, self.rng
        s = r.choice(t.subjects)
        return (f"{s[0].upper()}{s[1:]} {r.choice(MODALS)} {r.choice(t.actions)} {r.choice(t.conditions)}"
                f"{r.choice(t.reasons)}.{r.choice(JOINERS)}")

    def rules(self, n: int) -> list[str]:
        return [self.rule() for _ in range(n)]

    def paragraph(self, n: int) -> str:
        return " ".join(self.rules(n))

    def section(self, title: str, n: int = 6) -> str:
        return f"## {title}\n{self.paragraph(n)}"

    def opening(self) -> str:
        t = self.team
        return (f"You are the assistant of the {t.trade} at {t.name}. You answer the staff's questions from the "
                f"procedures below and the tools you are given. {self.rule()}")

    def handbook(self, k: int, n: int = 6) -> str:
        titles = list(self.team.sections)
        return "\n\n".join(self.section(titles[j % len(titles)] + ("" if j < len(titles) else f" ({j // len(titles) + 1})"), n)
                           for j in range(k))

    def system(self, k: int, n: int = 6) -> str:
        """An opening and ``k`` sections of ``n`` rules: about 25 + 150 k tokens for n = 6."""
        parts = [self.opening(), self.handbook(k, n)]
        lang, lines = self.team.language
        if lines:
            parts.append(f"Language rules ({lang}):\n" + "\n".join(f"- {x}" for x in lines))
        return "\n\n".join(parts)

    def question(self) -> str:
        t, r = self.team, self.rng
        q = r.choice(t.asks)
        for key, values in t.fills.items():
            while "{" + key + "}" in q:
                q = q.replace("{" + key + "}", r.choice(values), 1)
        roll = r.random()
        if roll < 0.25:
            q = f"{q} This came up with {r.choice(t.subjects)}."
        elif roll < 0.4:
            q = f"Quick one. {q}"
        elif roll < 0.5:
            q = f"{q} Context: {self.rule()}"
        return q

    def answer(self) -> str:
        return " ".join(self.rules(self.rng.randint(2, 4)))

    def fewshot(self, k: int) -> list[tuple[str, str]]:
        return [(self.question(), self.answer()) for _ in range(k)]

    def document(self, n: int, title: str | None = None) -> str:
        head = title or f"{self.rng.choice(self.team.sections)} note {self.rng.randint(10, 99)}"
        return f"{head}\n{self.paragraph(n)}"

    def tool(self, name: str) -> dict[str, Any]:
        desc, params = self.team.tools[name]
        props = {p: {"type": kind, "description": f"The {p.replace('_', ' ')}."} for p, kind in params}
        for p, kind in params:
            if kind == "array":
                props[p]["items"] = {"type": "string"}
        return {"type": "function", "function": {"name": name, "description": desc,
                                                 "parameters": {"type": "object", "properties": props,
                                                                "required": [p for p, _ in params[:1]]}}}

    def tools(self, names: Sequence[str] | None = None) -> list[dict[str, Any]]:
        return [self.tool(n) for n in (names if names is not None else list(self.team.tools))]
