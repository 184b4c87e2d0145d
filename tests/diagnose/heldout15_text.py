"""Text of the fifteenth held-out set: eight teams that serve Gemma 3 on vLLM.

Each team has its own words (who acts, what they do, when the rule changes, why, what callers
ask, the details they add, its tools, a reference table, a glossary, lines in its own language);
``Writer`` strings them into instructions of 1-3.5k tokens (prose, bullet lists, numbered
steps, tables, JSON, code), questions of varied length, replies, few-shot pairs, tool
descriptions as JSON schemas or python signatures, and retrieved passages, all from a seeded
generator so the set is deterministic. None of the earlier sets' trades: a municipal snow-plough
and gritting depot (Icelandic), a pipe-organ restoration workshop (Welsh), a regional blood
bank's inventory desk (Swahili), an inland salt works' harvest planner (Basque), a tea
co-operative's plucking roster (Vietnamese), a hot-air balloon flight desk (Hungarian), a
bell-ringers' guild's peal-booking desk (Latin inscriptions) and a shearing contractor's run-sheet
desk (te reo Māori words). Every sentence was written for this set.
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass
from typing import Any, Sequence

Param = tuple[str, str, str]  # name, JSON type, what it holds


@dataclass(frozen=True)
class Team:
    key: str
    name: str
    trade: str
    assistant: str
    sections: tuple[str, ...]
    subjects: tuple[str, ...]
    actions: tuple[str, ...]
    conditions: tuple[str, ...]
    reasons: tuple[str, ...]
    asks: tuple[str, ...]
    details: tuple[str, ...]
    fills: dict[str, tuple[str, ...]]
    tools: dict[str, tuple[str, tuple[Param, ...]]]
    table: tuple[tuple[str, ...], ...]  # the header row first
    glossary: tuple[tuple[str, str], ...]
    language: str
    lines: tuple[str, ...]
    openers: tuple[str, ...]


SNOW = Team(
    key="snow", name="Akureyri Winter Roads Depot", trade="snow-plough and gritting dispatch desk",
    assistant="Vetrarvakt",
    sections=("Call intake", "Route priorities", "Gritting rates", "Plough blade care", "Driver hours", "Road closures",
              "School and hospital routes", "Weather warnings", "Salt and sand stock", "Incident reporting",
              "Handover between shifts"),
    subjects=("The dispatcher", "A plough driver", "The shift leader", "A gritting crew", "The depot mechanic",
              "A contractor's loader", "The night patrol", "A route supervisor"),
    actions=("clear the hospital access road before any residential street",
             "spread salt at the rate set for the surface temperature", "log the blade wear in the vehicle book",
             "radio the depot before leaving an assigned route",
             "switch to grit sand once the surface is colder than minus eight degrees",
             "keep the amber beacon on while the blade is down", "hand over the route sheet at the end of the shift",
             "close a road only with the shift leader's approval", "report a stuck vehicle with its position",
             "refill the hopper at the north yard", "lift the blade over every speed table",
             "leave the windrow on the kerb side, never across a driveway"),
    conditions=("when the snow depth on the route passes ten centimetres",
                "if the road surface falls below minus eight degrees", "before the school buses start at seven",
                "when freezing rain is forecast", "if visibility drops under fifty metres",
                "once a route has been cleared twice in one shift", "while the harbour road is closed",
                "after a driver has worked ten hours", "when drifting snow refills a cleared lane"),
    reasons=(", so that ambulances always have a way through", ", because salt stops working in deep frost",
             ", which the town council audits every spring", ", since the hopper cannot be refilled on the route",
             ", as the insurers ask for it", ""),
    asks=("Route {route} has {depth} cm of fresh snow; which truck do I send first?",
          "Can {driver} take the {route} route after {hours} hours on shift?",
          "How much salt per square metre on {route} at {temp} degrees?",
          "{street} is blocked by a car in a drift; do I close it?",
          "When should the {route} route be gritted again?",
          "Is {street} on the priority list before seven?",
          "Truck {truck} lost a blade bolt on {street}; can it finish the route?",
          "What do I tell a resident on {street} who says the windrow blocks their driveway?"),
    details=("I am in truck {truck} on the {route} route.", "The forecast says {snowfall} cm more tonight.",
             "The sensor at {station} reads {temp} degrees.", "Two residents have phoned about it already.",
             "The grader is still at the north yard.", "{driver} started the shift at {start}.",
             "The bus company asked twice this morning.", "It is snowing sideways up here."),
    fills={"route": ("H1 hospital", "S2 schools", "B3 bus loop", "R4 Glerárhverfi", "R5 Naustahverfi", "H6 harbour",
                     "R7 Holtahverfi"),
           "depth": ("4", "8", "12", "18", "25", "40"), "driver": ("Jón", "Sigrún", "Ari", "Guðrún", "Einar", "Hekla"),
           "hours": ("6", "8", "9", "10", "11"), "temp": ("-2", "-4", "-7", "-9", "-12", "-15"),
           "street": ("Þingvallastræti", "Hlíðarbraut", "Glerárgata", "Drottningarbraut", "Skógarlundur",
                      "Borgarbraut"),
           "truck": ("P-11", "P-14", "P-19", "G-03", "G-07", "L-02"), "snowfall": ("5", "10", "15", "30"),
           "station": ("Súlur", "Krossanes", "Glerárdalur", "the airport"), "start": ("04:00", "05:30", "18:00")},
    tools={"get_route_status": ("Last clearing and gritting times of a route, with the driver's notes.",
                                (("route_id", "string", "Route code, e.g. H1"),
                                 ("since_hours", "integer", "How far back to look"))),
           "dispatch_truck": ("Send a plough or gritter to a route with a priority.",
                              (("truck_id", "string", "Fleet number"), ("route_id", "string", "Route code"),
                               ("priority", "integer", "1 is the most urgent"))),
           "log_spreading": ("Record salt or sand spread on a route.",
                             (("route_id", "string", "Route code"), ("material", "string", "salt, sand or brine"),
                              ("grams_per_m2", "number", "Spread rate"))),
           "report_closure": ("Close a road and tell the police and the bus company.",
                              (("road", "string", "Street name"), ("reason", "string", "Why it is closed"),
                               ("until", "string", "Expected reopening, HH:MM"))),
           "read_road_sensors": ("Surface and air temperature, dew point and grip at a weather station.",
                                 (("station", "string", "Station name"),))},
    table=(("Surface temperature", "Material", "Rate (g/m²)", "Repeat after"),
           ("0 to -3 °C", "dry salt", "10", "4 h"), ("-3 to -6 °C", "pre-wetted salt", "15", "3 h"),
           ("-6 to -8 °C", "pre-wetted salt", "20", "2 h"), ("-8 to -15 °C", "grit sand", "150", "when covered"),
           ("below -15 °C", "grit sand with 5 % salt", "200", "when covered")),
    glossary=(("hálka", "black ice"), ("ófærð", "road impassable"), ("snjómokstur", "snow clearing"),
              ("saltdreifing", "salt spreading"), ("skafrenningur", "drifting snow"), ("vaktstjóri", "shift leader"),
              ("ruðningur", "windrow"), ("krapi", "slush"), ("hálkuvörn", "anti-icing")),
    language="Icelandic",
    lines=("Svaraðu á íslensku ef ökumaðurinn skrifar á íslensku.",
           "Ekki senda bíl út í ófærð án leyfis vaktstjóra.", "Skráðu hverja ferð í dagbókina.",
           "Sjúkrahúsleiðin hefur alltaf forgang."),
    openers=("Send", "Start with", "Hold", "Before anything else,", "On that route,", "Right:"),
)

ORGAN = Team(
    key="organ", name="Gweithdy Organau Teifi", trade="pipe-organ restoration workshop", assistant="Pibydd",
    sections=("Taking instruments in", "Dismantling and labelling", "Pipe metal and repairs", "Wind system and bellows",
              "Action and trackers", "Voicing", "Tuning and temperament", "Humidity and climate", "Leather and glue",
              "Church visits", "Quotations"),
    subjects=("The voicer", "An apprentice", "The workshop foreman", "A visiting organist", "The church warden",
              "The site team", "The cabinet maker", "Whoever opens the crate"),
    actions=("label every pipe with its rank and note before it leaves the chest",
             "photograph the pallet box before it is opened", "use hot hide glue on wooden pipes and nothing else",
             "record the wind pressure in millimetres of water", "tune to the temperament written on the job sheet",
             "store reed pipes standing up, never lying down", "replace bellows leather with leather of the same weight",
             "check every tracker for warping after transport", "quote the work in stages the parish can fund",
             "keep the voicing room between 50 and 60 percent humidity", "return a pipe to its hole in the toe board",
             "mark a cracked languid in red chalk"),
    conditions=("when a pipe foot shows cracks", "if the wind chest was flooded", "before any voicing change is made",
                "when the church heating goes on for the winter", "if the organ was last restored before 1950",
                "once the stop action is back together", "while the pipes are out of the building",
                "when the case shows fresh woodworm holes", "if the parish has asked for a fixed price"),
    reasons=(", because a pipe out of place cannot be voiced back", ", so the next restorer can follow our work",
             ", which the diocesan advisory committee expects", ", since old leather tears without warning",
             ", as pipe metal creeps under its own weight", ""),
    asks=("Rank {rank} of the {organ} organ has {fault}; can it be soldered?",
          "What wind pressure should the {organ} organ's {division} run at?",
          "Which temperament do we use for the {organ} job?",
          "The warden at {church} wants a quotation for {work}; how do I stage it?",
          "Can we move the {division} pipes from {church} before the leather arrives?",
          "How long should hide glue set on a {rank} pipe before it goes back?",
          "The organist at {church} says the {note} of the {rank} ciphers; what do I check?"),
    details=("The job sheet is {job}.", "The pipes are still on bench {bench}.",
             "The church is unheated until {month}.", "The builder's plate says {builder}, {year}.",
             "We have one week before the Christmas services.", "The organist plays every Sunday at ten.",
             "The voicer is away until Thursday."),
    fills={"rank": ("Open Diapason 8", "Stopped Diapason 8", "Principal 4", "Fifteenth 2", "Trumpet 8", "Dulciana 8",
                    "Mixture III"),
           "organ": ("Llanbadarn", "Cardigan", "Lampeter", "Aberaeron", "Tregaron"),
           "fault": ("a split seam", "a crushed foot", "a loose languid", "tin pest on the mouth", "a bent tuning slide"),
           "division": ("Great", "Swell", "Pedal", "Choir"),
           "church": ("St Padarn's", "Capel Bethel", "St Mary's", "Capel Seion", "Holy Trinity"),
           "work": ("new bellows leather", "a full clean", "re-voicing the reeds", "new trackers"),
           "note": ("middle C", "tenor G", "top A", "bottom D"), "job": ("J-2231", "J-2248", "J-2252", "J-2260"),
           "bench": ("2", "3", "5"), "month": ("January", "February", "Easter"),
           "builder": ("Conacher", "Gray & Davison", "Nicholson", "Vowles"), "year": ("1868", "1887", "1902", "1911")},
    tools={"get_job_sheet": ("The job sheet of a restoration: organ, stops, agreed work, temperament and dates.",
                             (("job_id", "string", "Job number"),)),
           "log_pipe": ("Record a pipe's condition when it is taken out or returned.",
                        (("rank", "string", "Stop name"), ("note", "string", "Pitch name"),
                         ("condition", "string", "What was found"))),
           "book_site_visit": ("Book the site team into a church.",
                               (("church", "string", "Church name"), ("date", "string", "YYYY-MM-DD"),
                                ("crew", "integer", "People needed"))),
           "order_leather": ("Order bellows or pouch leather from the supplier.",
                             (("kind", "string", "Hide and finish"), ("square_feet", "number", "Area"))),
           "read_climate": ("Temperature and humidity in a workshop room or a church.",
                            (("room", "string", "Room or church"),))},
    table=(("Stop", "Pitch", "Pipes", "Metal", "Condition on arrival"),
           ("Open Diapason", "8'", "56", "spotted metal", "mouths dented at the bass"),
           ("Stopped Diapason", "8'", "56", "pine and oak", "stoppers loose"),
           ("Principal", "4'", "56", "spotted metal", "sound"),
           ("Fifteenth", "2'", "56", "common metal", "feet collapsing"),
           ("Trumpet", "8'", "56", "tin resonators", "tongues curled"),
           ("Bourdon", "16'", "30", "pine", "split at the caps")),
    glossary=(("pibell", "pipe"), ("megin", "bellows"), ("allweddell", "keyboard"), ("seinydd", "voicer"),
              ("traw", "pitch"), ("gwynt", "wind"), ("tiwnio", "tuning"), ("eglwys", "church")),
    language="Welsh",
    lines=("Atebwch yn Gymraeg os yw'r cwsmer yn ysgrifennu yn Gymraeg.",
           "Peidiwch â symud pibell heb gofnodi ei lle.", "Rhaid cadw'r gweithdy'n sych.",
           "Mae pob organ yn cael ei thiwnio yn yr eglwys, nid yn y gweithdy."),
    openers=("Yes, but", "Not yet:", "First,", "In the workshop we", "For that organ,", "The short answer:"),
)

BLOOD = Team(
    key="blood", name="Pwani Regional Blood Transfusion Centre", trade="blood bank inventory desk",
    assistant="Hifadhi",
    sections=("Receiving donations", "Testing and release", "Storage temperatures", "Stock levels by group",
              "Hospital orders", "Emergency requests", "Expiry and discard", "Cold chain in transport",
              "Mobile collection sessions", "Donor deferral", "Audit trail"),
    subjects=("The inventory officer", "A laboratory technologist", "The duty medical officer", "A courier",
              "The hospital blood bank", "A mobile team", "The quality manager", "Whoever signs the issue slip"),
    actions=("release a unit only after all four screening tests are negative",
             "issue the oldest compatible unit first", "keep red cells between two and six degrees",
             "agitate platelets for the whole of their shelf life", "log every fridge alarm with its duration",
             "scan the unit number at each hand-over", "quarantine a unit whose bag shows any leak",
             "send O negative only for emergencies and neonates", "record the reason for every discard",
             "pack plasma on dry ice for journeys over two hours", "read back the group to the caller",
             "check the courier box logger before signing"),
    conditions=("when O negative stock falls below two days", "if a fridge alarm lasts more than thirty minutes",
                "before a unit leaves the centre", "when a hospital orders more than ten units at once",
                "if the courier is delayed past the box's validated time", "once a unit reaches its expiry date",
                "while the screening analyser is down", "when a mobile session returns after dark",
                "if the donor reports illness within two weeks"),
    reasons=(", so that no unit is given twice", ", because bacterial growth rises with temperature",
             ", which the national blood service inspects", ", since a wasted unit is a donor's afternoon",
             ", as the law requires full traceability", ""),
    asks=("{hospital} needs {n} units of {group} red cells by {time}; can we cover it?",
          "How many days of {group} platelets do we hold right now?",
          "The fridge in {room} alarmed for {minutes} minutes; what happens to the units inside?",
          "Can unit {unit} still be issued if the courier box read {box} degrees?",
          "A donor at the {site} session was deferred; how do I record it?",
          "Which units expire before {day} and where should they go?",
          "Do we release plasma from the {site} session while the analyser is down?"),
    details=("The courier leaves at {time}.", "The order came in by phone from {hospital}.",
             "Stock of {group} was already low yesterday.", "The caller is the ward sister on maternity.",
             "This is the third order from them today.", "The unit number starts with {unit}."),
    fills={"hospital": ("Coast General", "Likoni Sub-County", "Malindi Referral", "Kilifi County", "Port Reitz"),
           "n": ("2", "4", "6", "10", "14"), "group": ("O negative", "O positive", "A positive", "B positive",
                                                      "AB positive", "A negative"),
           "time": ("14:00", "16:30", "19:00", "first thing tomorrow"), "room": ("store 1", "store 2", "the lab"),
           "minutes": ("12", "25", "40", "75"), "unit": ("PW26-018842", "PW26-019310", "PW26-020117", "PW26-020561"),
           "box": ("5.8", "7.2", "9.0", "10.4"), "site": ("Bamburi", "Mtwapa", "Ukunda", "Voi", "Kwale"),
           "day": ("Friday", "the weekend", "Monday")},
    tools={"check_stock": ("Units on the shelf by group and component, with expiry dates.",
                           (("group", "string", "ABO and RhD"), ("component", "string", "red cells, platelets, plasma"))),
           "reserve_units": ("Set units aside for a hospital order.",
                             (("hospital", "string", "Hospital name"), ("group", "string", "ABO and RhD"),
                              ("units", "integer", "How many"))),
           "record_donation": ("Register a donation from a collection session.",
                               (("donor_id", "string", "Donor number"), ("component", "string", "What was collected"))),
           "discard_unit": ("Take a unit out of stock with a reason code.",
                            (("unit_id", "string", "Unit number"), ("reason", "string", "Reason code"))),
           "schedule_collection": ("Plan a mobile collection session.",
                                   (("site", "string", "Town or venue"), ("date", "string", "YYYY-MM-DD")))},
    table=(("Component", "Storage", "Shelf life", "Transport"),
           ("Red cells", "2-6 °C", "35 days", "validated box, 2-10 °C"),
           ("Platelets", "20-24 °C, agitated", "5 days", "room-temperature box"),
           ("Fresh frozen plasma", "-25 °C or colder", "36 months", "dry ice"),
           ("Cryoprecipitate", "-25 °C or colder", "12 months", "dry ice"),
           ("Whole blood", "2-6 °C", "35 days", "validated box, 2-10 °C")),
    glossary=(("damu", "blood"), ("mtoaji", "donor"), ("kundi la damu", "blood group"), ("jokofu", "fridge"),
              ("hospitali", "hospital"), ("dharura", "emergency"), ("mfuko", "bag"), ("tarehe ya mwisho", "expiry date")),
    language="Swahili",
    lines=("Jibu kwa Kiswahili ikiwa anayeuliza ameandika kwa Kiswahili.",
           "Usitoe damu kabla ya kuthibitisha kundi la damu.",
           "Damu huhifadhiwa kwenye jokofu kati ya nyuzi joto mbili na sita.",
           "Kila mfuko wa damu una namba yake ya kipekee."),
    openers=("Yes:", "We can,", "Not from stock:", "Check first:", "For that order,", "Straight away:"),
)

SALT = Team(
    key="salt", name="Añanako Gatz Harana", trade="salt works' harvest planning desk", assistant="Larrain",
    sections=("Springs and channels", "Filling the platforms", "Evaporation days", "Raking and harvest",
              "Flower of salt", "Brine strength", "Storage and drying", "Visitors on the terraces",
              "Repairs to the platforms", "Lot records", "Winter shutdown"),
    subjects=("The harvest planner", "A salt maker", "The channel keeper", "The visitor guide", "The warehouse lead",
              "A seasonal raker", "The site conservator", "The quality taster"),
    actions=("open the channel gates only after the morning reading", "rake the crust towards the platform's low corner",
             "skim the flower of salt before noon", "record the brine strength in degrees Baumé",
             "cover the harvested salt before any rain", "keep visitors off the platforms that are filling",
             "repair a cracked clay bed with clay from the same terrace", "weigh each lot before it is bagged",
             "dry grey salt for two days in the store", "note which spring fed each platform",
             "sweep the platform with the wooden rake only", "close a platform whose stone edge has moved"),
    conditions=("when the brine reads below eighteen degrees Baumé", "if rain is forecast within six hours",
                "before the afternoon wind rises", "when a platform has dried for three days",
                "if the spring flow drops by a third", "once the crust is thicker than a coin",
                "while a tour group is on the terraces", "after the first autumn frost",
                "when the flower of salt turns grey"),
    reasons=(", because fresh rain dissolves a day's crust", ", so each lot can be traced to its spring",
             ", which the protected origin rules require", ", since the terraces are a listed monument",
             ", as wet salt cakes in the sacks", ""),
    asks=("Can we harvest platform {platform} {when} if the brine reads {baume} °Bé?",
          "How many rakers do I need on terrace {terrace} {when}?",
          "Lot {lot} came out {colour}; can it still be sold as flower of salt?",
          "The {spring} spring is running slow; which platforms should I stop filling?",
          "Is it safe to take the {group} group across terrace {terrace}?",
          "When do we start the winter shutdown on terrace {terrace}?"),
    details=("The forecast shows rain from {hour}.", "Platform {platform} was refilled on Monday.",
             "We have {n} rakers today.", "The crust is thin on the north side.",
             "The guide asked about it this morning.", "Lot {lot} weighed {kg} kg."),
    fills={"platform": tuple(f"{t}-{k:02d}" for t in ("G", "S", "E") for k in (3, 7, 12, 18, 24)),
           "terrace": ("Goiko", "Erdiko", "Beheko", "Santa Engrazia"), "when": ("today", "tomorrow", "this afternoon"),
           "baume": ("16", "18", "20", "22", "24"), "lot": ("GH-2611", "GH-2614", "GH-2620", "GH-2629"),
           "colour": ("grey", "pinkish", "wet", "lumpy"), "spring": ("Santa Engracia", "Hontana", "Fuentearriba"),
           "group": ("school", "cyclists'", "German-speaking", "photographers'"), "hour": ("14:00", "17:00", "21:00"),
           "n": ("4", "6", "9"), "kg": ("38", "52", "71", "94")},
    tools={"read_brine": ("Brine strength and temperature at a spring or a channel gate.",
                          (("spring", "string", "Spring name"), ("depth_cm", "integer", "Depth of the reading"))),
           "plan_harvest": ("Put a platform on the harvest plan with a crew.",
                            (("platform", "string", "Platform code"), ("date", "string", "YYYY-MM-DD"),
                             ("crew", "integer", "Rakers"))),
           "log_lot": ("Record a harvested lot.",
                       (("lot_id", "string", "Lot code"), ("kg", "number", "Weight"), ("grade", "string", "flor, grey or coarse"))),
           "close_platform": ("Take a platform out of use.", (("platform", "string", "Platform code"),
                                                              ("reason", "string", "Why"))),
           "forecast_evaporation": ("Expected evaporation per day from the weather service.",
                                    (("days", "integer", "Days ahead"),))},
    table=(("Brine (°Bé)", "Action", "Expected crust", "Harvest"),
           ("under 16", "do not fill", "none", "-"), ("16-18", "fill shallow, 2 cm", "after 4 days", "coarse only"),
           ("18-21", "fill to 3 cm", "after 3 days", "coarse and grey"),
           ("21-24", "fill to 3 cm", "after 2 days", "flower of salt before noon"),
           ("over 24", "dilute with the Hontana channel", "same day", "watch for caking")),
    glossary=(("larraina", "evaporation platform"), ("gatz-lorea", "flower of salt"), ("ubidea", "channel"),
              ("iturburua", "spring"), ("gatzagilea", "salt maker"), ("putzua", "well"), ("gazura", "brine"),
              ("eguzkia", "sun"), ("euria", "rain")),
    language="Basque",
    lines=("Erantzun euskaraz erabiltzaileak euskaraz idazten badu.", "Gatza eskuz biltzen da.",
           "Euria badator, estali gatza.", "Bisitariak ez dira larrainetara igotzen."),
    openers=("Yes, if", "Wait:", "Today,", "On that terrace,", "Better not:", "As planned,"),
)

TEA = Team(
    key="tea", name="Tân Cương Tea Co-operative", trade="plucking roster and withering desk", assistant="Búp Chè",
    sections=("Plucking standard", "Plot rotation", "Picker roster", "Weighing and grading", "Withering troughs",
              "Rolling and firing", "Spray records", "Rain days", "Truck schedule", "Payments", "Factory hygiene"),
    subjects=("The roster clerk", "A plucker", "The plot leader", "The withering supervisor", "The weigh-bridge clerk",
              "The factory manager", "A truck driver", "The spray officer"),
    actions=("pluck only the bud and two leaves", "weigh each basket before it leaves the plot",
             "spread the leaf no deeper than fifteen centimetres in the trough",
             "rest a plot for seven days between rounds", "log the spray date against the plot number",
             "pay pickers by the kilogram of fine leaf", "bring the leaf to the factory within four hours",
             "turn the leaf in the trough every two hours", "reject leaf that is bruised or wet",
             "send the truck back as soon as it is full", "keep coarse leaf apart from fine leaf",
             "write the plot number on every sack"),
    conditions=("when it rains during plucking", "if a plot was sprayed within fourteen days",
                "before the noon heat", "when the trough leaf loses a third of its weight",
                "if more than a fifth of the leaf is coarse", "once the truck has waited an hour",
                "while the rolling machine is being cleaned", "after the first flush of spring",
                "when a picker brings wet baskets"),
    reasons=(", because wet leaf ferments in the sack", ", so every kilogram can be paid to the right person",
             ", which the buyers' audit asks for", ", since coarse leaf lowers the whole lot's grade",
             ", as the spray label says", ""),
    asks=("Can plot {plot} be plucked {when} if it was sprayed on {date}?",
          "How many pickers should go to plot {plot} {when}?",
          "The leaf from plot {plot} weighed {kg} kg but {share} percent was coarse; how is it paid?",
          "Trough {trough} has been withering for {hours} hours; is it ready?",
          "Can the truck leave for {route} before the {session} baskets are weighed?",
          "Who is on the roster for plot {plot} {when}?"),
    details=("It rained until {hour} this morning.", "{picker} is the plot leader there.",
             "The buyer from {buyer} is coming on Friday.", "The rolling machine is slow today.",
             "We are short of baskets again.", "Plot {plot} is on the steep side."),
    fills={"plot": tuple(f"{a}{k}" for a in ("T", "H", "P") for k in (2, 5, 8, 11, 14)),
           "when": ("this morning", "tomorrow", "on Thursday"), "date": ("the 20th", "the 24th", "the 28th"),
           "kg": ("42", "58", "73", "96"), "share": ("10", "20", "35"), "trough": ("1", "3", "4", "6"),
           "hours": ("8", "12", "14", "18"), "route": ("Thái Nguyên", "Hà Nội", "the port"),
           "session": ("morning", "afternoon"), "hour": ("six", "eight", "nine"),
           "picker": ("Chị Lan", "Anh Hùng", "Chị Mai", "Anh Tuấn"), "buyer": ("Hà Nội", "Đà Lạt", "Osaka")},
    tools={"assign_pickers": ("Put pickers on a plot for a session.",
                              (("plot", "string", "Plot code"), ("pickers", "array", "Picker numbers"),
                               ("session", "string", "morning or afternoon"))),
           "log_weight": ("Record a basket weight and grade at the weigh-bridge.",
                          (("plot", "string", "Plot code"), ("kg", "number", "Weight"), ("grade", "string", "fine or coarse"))),
           "read_wither": ("Leaf moisture and temperature in a withering trough.", (("trough", "integer", "Trough number"),)),
           "book_truck": ("Book the truck to the buyer or the market.",
                          (("route", "string", "Where to"), ("time", "string", "HH:MM"))),
           "check_spray_record": ("Spray dates and products used on a plot.", (("plot", "string", "Plot code"),))},
    table=(("Grade", "Leaf", "Price per kg", "Use"),
           ("Special", "bud only", "120,000 ₫", "green tea for gifts"), ("Fine", "bud and two leaves", "65,000 ₫", "green tea"),
           ("Standard", "bud and three leaves", "38,000 ₫", "black tea"), ("Coarse", "older leaves", "12,000 ₫", "bulk")),
    glossary=(("búp", "bud"), ("lá", "leaf"), ("hái chè", "plucking"), ("héo", "withering"), ("sao", "firing"),
              ("vò", "rolling"), ("lô", "plot"), ("cân", "weighing")),
    language="Vietnamese",
    lines=("Trả lời bằng tiếng Việt nếu người hỏi viết bằng tiếng Việt.", "Chỉ hái một tôm hai lá.",
           "Chè phải về xưởng trong vòng bốn giờ.", "Không hái chè ở lô vừa phun thuốc."),
    openers=("Yes.", "Not yet.", "On that plot,", "By the roster,", "Hold it:", "At the factory,"),
)

BALLOON = Team(
    key="balloon", name="Hajnal Balloon Flights, Eger", trade="hot-air balloon flight desk", assistant="Kosár",
    sections=("Booking flights", "Passenger weights", "Weather minima", "Launch sites", "Pilot duty", "Chase crews",
              "Cancellations and refunds", "Landing permissions", "Safety briefing", "Gift vouchers", "Envelope checks"),
    subjects=("The flight desk", "The pilot in command", "A chase driver", "A passenger", "The crew chief",
              "The landowner", "The booking clerk", "The maintenance engineer"),
    actions=("weigh every passenger at the launch field", "cancel the flight if the surface wind passes eight knots",
             "call the landowner before the chase vehicle enters a field", "brief the passengers on the landing position",
             "check the envelope's temperature flag before each flight", "log the burner hours after landing",
             "offer a new date before any refund", "keep the basket load under the placard weight",
             "launch only after sunrise", "carry the landowners' list in the chase vehicle",
             "send the booking confirmation with the meeting point", "read the forecast from the airfield, not an app"),
    conditions=("when the cloud base is below two thousand feet", "if a passenger weighs over 120 kilograms",
                "before the sun is up", "when thermals start after ten in the morning",
                "if the field is sown with winter wheat", "once the envelope has flown five hundred hours",
                "while a thunderstorm is within fifty kilometres", "when a voucher is older than two years",
                "if the wind at two thousand feet turns south"),
    reasons=(", because a heavy basket lands hard", ", so the farmer's goodwill is kept",
             ", which the aviation authority checks", ", since calm air lasts only a few hours after dawn",
             ", as the insurer requires it", ""),
    asks=("Can we still fly the {site} launch {when} with {n} passengers?",
          "A passenger on flight {flight} weighs {kg} kg; which basket can take them?",
          "The voucher {voucher} is from {year}; is it still valid?",
          "Where do we land if the wind turns {dir} over {site}?",
          "Can pilot {pilot} fly {when} after {hours} hours yesterday?",
          "The {site} field is sown; where does the chase crew wait?"),
    details=("The family is coming from Budapest.", "Flight {flight} is fully booked.",
             "The airfield forecast was issued at {issued}.", "{pilot} has the big basket today.",
             "The chase van has a flat tyre.", "It was foggy over the lake at dawn."),
    fills={"site": ("Eger castle meadow", "Noszvaj", "Szarvaskő", "Egerszalók", "Demjén"),
           "when": ("tomorrow at dawn", "on Saturday", "this evening"), "n": ("4", "8", "12", "16"),
           "flight": ("HB-1207", "HB-1211", "HB-1219", "HB-1230"), "kg": ("104", "118", "126", "131"),
           "voucher": ("V-88213", "V-90455", "V-91720"), "year": ("2022", "2023", "2024"),
           "dir": ("south", "east", "north-west"), "pilot": ("Kovács Bence", "Szabó Réka", "Tóth Ádám", "Nagy Eszter"),
           "hours": ("3", "4", "5"), "issued": ("04:50", "05:20", "05:40")},
    tools={"get_forecast": ("Wind by altitude, cloud base and visibility for a site and hour.",
                            (("site", "string", "Launch site"), ("hour", "string", "HH:MM local"))),
           "book_passengers": ("Add passengers to a flight.",
                               (("flight_id", "string", "Flight number"), ("names", "array", "Passenger names"),
                                ("weights", "array", "Kilograms"))),
           "assign_pilot": ("Give a flight to a pilot on duty.", (("flight_id", "string", "Flight number"),
                                                                  ("pilot", "string", "Pilot name"))),
           "cancel_flight": ("Cancel a flight and offer new dates.", (("flight_id", "string", "Flight number"),
                                                                      ("reason", "string", "Why"))),
           "list_launch_sites": ("Launch and landing fields with owners and crops.", (("region", "string", "Area"),))},
    table=(("Basket", "Places", "Max load (kg)", "Envelope"),
           ("Small", "4", "520", "HA-BHE, 3,400 m³"), ("Medium", "8", "980", "HA-BHF, 6,000 m³"),
           ("Large", "12", "1,420", "HA-BHG, 8,500 m³"), ("Extra large", "16", "1,850", "HA-BHK, 10,000 m³")),
    glossary=(("hőlégballon", "hot-air balloon"), ("kosár", "basket"), ("égő", "burner"), ("szél", "wind"),
              ("leszállás", "landing"), ("felszállás", "launch"), ("utas", "passenger"), ("pilóta", "pilot")),
    language="Hungarian",
    lines=("Válaszolj magyarul, ha az utas magyarul ír.", "Szeles időben nem szállunk fel.",
           "A felszállás csak napkelte után lehetséges.", "Minden utast a starthelyen mérünk le."),
    openers=("Yes,", "Only if", "Not tomorrow:", "From the desk:", "For that flight,", "Good question:"),
)

BELLS = Team(
    key="bells", name="Guild of St Elwyn's Ringers", trade="peal and quarter-peal booking desk", assistant="Tenor",
    sections=("Booking a peal", "Tower rules", "Methods and lengths", "Conductors", "Quiet bells and sound control",
              "Weddings and services", "Recording a performance", "Visiting bands", "Bell maintenance",
              "Young ringers", "Fees and donations"),
    subjects=("The tower captain", "A conductor", "A visiting band", "The guild secretary", "The steeple keeper",
              "A learner", "The incumbent", "The ringing master"),
    actions=("ask the incumbent's permission at least four weeks ahead", "fit the sound control shutters before a practice",
             "send the footnote to the peal secretary within a week", "check the stays and sliders before ringing",
             "keep peals under three hours twenty in a town tower", "ring the wedding touch before the bride arrives",
             "record the method, changes and conductor in the peal book", "give a learner no more than twenty minutes",
             "lower the bells in peal after every performance", "name a steeple keeper for each visit",
             "pay the tower fee on the day", "leave the ringing chamber as it was found"),
    conditions=("when the neighbours have complained in the last month", "if a bell's stay is cracked",
                "before a Sunday service", "when the band includes a learner",
                "if the peal is for a funeral", "once the quarter has been rung",
                "while the tower is under scaffolding", "when a visiting band has not rung here before",
                "if the clock hammer has not been pulled off"),
    reasons=(", because the rope can catch a learner's arm", ", so the bells stay welcome in the parish",
             ", which the diocesan bell adviser asks", ", since a broken stay can throw a bell over",
             ", as the peal record is permanent", ""),
    asks=("Can we book a peal of {method} at {tower} on {day}?",
          "How many changes make a quarter peal of {method}?",
          "The band for {tower} has a learner; can they ring in the quarter on {day}?",
          "Who can conduct {method} at {tower} on {day}?",
          "What goes in the footnote for the {occasion} peal at {tower}?",
          "Is {tower} free for a practice on {day} evening?"),
    details=("The tenor at {tower} weighs {cwt} cwt.", "The vicar has already said yes.",
             "We rang there last year without trouble.", "Two of the band are from out of the guild.",
             "The footnote will mention {occasion}.", "{ringer} will be the conductor."),
    fills={"method": ("Plain Bob Doubles", "Grandsire Triples", "Stedman Caters", "Cambridge Surprise Major",
                      "Yorkshire Surprise Major", "Kent Treble Bob Minor"),
           "tower": ("St Elwyn's, Hayle", "St Ia's, St Ives", "St Piran's, Perranzabuloe", "St Hilary", "Madron"),
           "day": ("Saturday 12 December", "Sunday 20 December", "New Year's Eve", "Boxing Day"),
           "occasion": ("a golden wedding", "the centenary of the bells", "a ringer's memorial", "the new year"),
           "cwt": ("8", "12", "17", "24"), "ringer": ("Mary Trevail", "Josh Pengelly", "Anne Hocking", "Will Rowe")},
    tools={"book_peal": ("Reserve a tower for a peal or quarter peal.",
                         (("tower", "string", "Tower name"), ("method", "string", "Method name"),
                          ("date", "string", "YYYY-MM-DD"))),
           "check_tower": ("Bells, weights, restrictions and contacts of a tower.", (("tower", "string", "Tower name"),)),
           "record_peal": ("Enter a rung performance in the guild's records.",
                           (("tower", "string", "Tower name"), ("method", "string", "Method name"),
                            ("changes", "integer", "Number of changes"), ("conductor", "string", "Conductor"))),
           "find_ringers": ("Ringers who can ring a method and are free on a date.",
                            (("method", "string", "Method name"), ("date", "string", "YYYY-MM-DD"))),
           "send_notice": ("Tell the incumbent and the neighbours about a peal.",
                           (("tower", "string", "Tower name"), ("message", "string", "Text of the notice")))},
    table=(("Tower", "Bells", "Tenor", "Restrictions"),
           ("St Elwyn's, Hayle", "8", "12 cwt in G", "no peals before 14:00"),
           ("St Ia's, St Ives", "10", "24 cwt in D", "quarter peals only in summer"),
           ("St Piran's, Perranzabuloe", "6", "9 cwt in A", "sound control fitted"),
           ("St Hilary", "6", "11 cwt in G", "steeple keeper present"),
           ("Madron", "8", "17 cwt in E", "no ringing on market day")),
    glossary=(("rounds", "bells in order from treble to tenor"), ("call change", "a change called by the conductor"),
              ("touch", "a short piece of method ringing"), ("quarter peal", "1,250 changes or more"),
              ("peal", "5,000 changes or more"), ("stay", "the wooden bar that stops a bell going over"),
              ("sally", "the woollen grip on a bell rope"), ("lead", "one cycle of the treble's path")),
    language="Latin",
    lines=("Vivos voco, mortuos plango, fulgura frango.", "Laudo Deum verum, plebem voco, congrego clerum.",
           "Sancte Eluine, ora pro nobis.", "Cum voco, venite."),
    openers=("Yes:", "Probably,", "Not that day:", "From the records,", "For that tower,", "Easily:"),
)

SHEARING = Team(
    key="shear", name="Kaiwaka Shearing Gangs", trade="shearing contractor's run-sheet desk", assistant="Tally",
    sections=("Booking a run", "Gang sizes", "Stands and sheds", "Shearer tallies", "Wool handling", "Pressing and bales",
              "Wet sheep", "Health and safety", "Travel and accommodation", "Pay rates", "Farmer sign-off"),
    subjects=("The run-sheet clerk", "A shearer", "The gang boss", "A wool handler", "The presser", "The farmer",
              "The cook", "The safety lead"),
    actions=("count the sheep out of the catching pen at every run", "keep the board swept between each sheep",
             "stop shearing wet sheep until they have dried", "press bales to the weight on the stencil",
             "log each shearer's tally at the end of every run", "check the handpiece guards at smoko",
             "separate bellies and locks from the fleece", "book the gang's travel the day before",
             "report a cut sheep to the farmer at once", "sign the tally sheet with the farmer before leaving",
             "keep a first-aid kit at every stand", "rest a shearer after a back twinge"),
    conditions=("when the sheep have been rained on", "if the shed has fewer stands than shearers",
                "before the first run at five", "when a bale comes out under weight",
                "if a shearer cuts a sheep twice in a run", "once the farmer has counted the mob",
                "while the woolshed lights are out", "when the gang travels more than two hours",
                "if the fleece is cotted"),
    reasons=(", because wet wool heats in the bale", ", so pay matches the real tally",
             ", which the wool buyers check", ", since a tired shearer cuts sheep", ", as the farm's insurer asks", ""),
    asks=("Can the gang do {farm} on {day} with {n} stands?",
          "{shearer} shore {tally} on Tuesday; what is the pay?",
          "The sheep at {farm} got wet overnight; do we start at five?",
          "How many wool handlers for {n} shearers on {breed}?",
          "A bale from {farm} weighed {kg} kg; can it go to the store?",
          "Who goes to {farm} if {shearer} is off sick?"),
    details=("The farmer at {farm} wants it done before lambing.", "{shearer} is the fastest on the crew.",
             "The shed has a new board.", "The road in is gravel for ten kilometres.",
             "Last year they had {n} stands going.", "It rained on and off all night."),
    fills={"farm": ("Te Kōpuru station", "Maungaturoto", "Pouto Point", "Ruawai flats", "Tinopai"),
           "day": ("Monday", "Wednesday", "Friday", "next week"), "n": ("3", "4", "5", "6"),
           "shearer": ("Hemi", "Aroha", "Tama", "Mere", "Nikau", "Ana"), "tally": ("212", "248", "287", "330"),
           "breed": ("Romney ewes", "merino wethers", "Perendale hoggets", "Coopworth ewes"),
           "kg": ("148", "166", "181", "204")},
    tools={"get_run_sheet": ("The day's farms, sheds, mobs and gang.", (("date", "string", "YYYY-MM-DD"),)),
           "log_tally": ("Record a shearer's tally for a run.",
                         (("shearer", "string", "Name"), ("count", "integer", "Sheep shorn"),
                          ("breed", "string", "Breed and class"))),
           "book_gang": ("Book a gang into a farm's shed.",
                         (("farm", "string", "Farm"), ("date", "string", "YYYY-MM-DD"), ("stands", "integer", "Stands"))),
           "check_wool_price": ("Latest auction price by micron.", (("micron", "number", "Fibre diameter"),)),
           "report_injury": ("Record an injury to a person or a sheep.",
                             (("who", "string", "Person or sheep tag"), ("description", "string", "What happened")))},
    table=(("Class", "Rate per head", "Handlers per 2 stands", "Notes"),
           ("Ewes", "$3.40", "1", "crutched in spring"), ("Hoggets", "$3.10", "1", "watch for cotts"),
           ("Wethers", "$3.60", "1", "merino rate applies"), ("Rams", "$9.50", "2", "two people to catch"),
           ("Lambs", "$1.90", "1", "summer only")),
    glossary=(("kia ora", "hello, good health"), ("ka pai", "good, well done"), ("haere mai", "welcome"),
              ("kai", "food"), ("mahi", "work"), ("whānau", "family"), ("kia kaha", "stay strong"),
              ("smoko", "the tea break")),
    language="te reo Māori",
    lines=("Kia ora koutou.", "Ka pai te mahi.", "Haere mai ki te woolshed.", "Kia kaha, e te whānau."),
    openers=("Yep,", "Not yet:", "On the run sheet,", "Easy:", "For that shed,", "Best call:"),
)

TEAMS = (SNOW, ORGAN, BLOOD, SALT, TEA, BALLOON, BELLS, SHEARING)

MODALS = ("must", "should", "may only", "is expected to", "needs to", "has to", "will")
TYPES = {"string": "str", "integer": "int", "number": "float", "boolean": "bool", "array": "list", "object": "dict"}


class Writer:
    """A team's text, drawn from ``rng``; a writer never writes the same rule sentence twice
    (a repeated sentence would be a shared unit at two places, which no workload plants)."""

    def __init__(self, rng: random.Random, team: Team) -> None:
        self.rng, self.team = rng, team
        self.used: set[str] = set()

    # ------------------------------------------------------------ pieces

    def fill(self, template: str) -> str:
        return re.sub(r"\{(\w+)\}", lambda m: self.rng.choice(self.team.fills[m.group(1)]), template)

    def sentence(self) -> str:
        t, r = self.team, self.rng
        for _ in range(200):
            if r.random() < 0.5:
                s = f"{r.choice(t.subjects)} {r.choice(MODALS)} {r.choice(t.actions)} {r.choice(t.conditions)}"
            else:
                cond = r.choice(t.conditions)
                s = f"{cond[0].upper()}{cond[1:]}, {r.choice(t.subjects).lower()} {r.choice(MODALS)} {r.choice(t.actions)}"
            s += r.choice(t.reasons) + "."
            if s not in self.used:
                self.used.add(s)
                return s
        raise RuntimeError("out of sentences")

    def paragraph(self, n: int) -> str:
        return " ".join(self.sentence() for _ in range(n))

    def rules(self, n: int) -> list[str]:
        return [self.sentence() for _ in range(n)]

    def opening(self) -> str:
        t = self.team
        return (f"You are {t.assistant}, the assistant of the {t.trade} at {t.name}. You answer staff and callers "
                f"in plain words, you never invent a figure you cannot look up, and you say which rule of this "
                f"handbook your answer rests on. " + self.paragraph(2))

    def section(self, title: str, style: int | None = None) -> str:
        r = self.rng
        style = r.randrange(4) if style is None else style
        if style == 0:
            body = self.paragraph(r.randint(4, 6))
        elif style == 1:
            body = "\n".join(f"- {s}" for s in self.rules(r.randint(4, 7)))
        elif style == 2:
            body = self.paragraph(2) + "\n\n" + "\n".join(f"{k}. {s}" for k, s in enumerate(self.rules(r.randint(3, 5)), 1))
        else:
            body = self.paragraph(3) + "\n\n> Note: " + self.sentence()
        return f"## {title}\n{body}"

    def handbook(self, k: int, start: int = 0) -> str:
        titles = self.team.sections
        return "\n\n".join(self.section(titles[(start + j) % len(titles)] + (" (further cases)" if start + j >= len(titles) else ""))
                             for j in range(k))

    def table(self, rows: Sequence[tuple[str, ...]] | None = None) -> str:
        head, *body = self.team.table
        rows = body if rows is None else rows
        lines = ["| " + " | ".join(head) + " |", "|" + "|".join(" --- " for _ in head) + "|"]
        lines += ["| " + " | ".join(row) + " |" for row in rows]
        return "\n".join(lines)

    def glossary(self) -> str:
        return f"Glossary ({self.team.language} terms staff use):\n" + "\n".join(
            f"- {a}: {b}" for a, b in self.team.glossary)

    def language_block(self) -> str:
        return f"{self.team.language} lines you may be sent or asked to use:\n" + "\n".join(
            f"  {line}" for line in self.team.lines)

    def settings(self) -> dict[str, Any]:
        local = random.Random(f"{self.team.key}/settings")
        t = self.team
        return {"desk": t.trade, "organisation": t.name, "reply_language": "match the caller",
                "max_reply_sentences": local.choice([4, 6, 8]), "escalate_to": local.choice(t.subjects).lower(),
                "units": {"temperature": "°C", "weight": "kg", "time": "24-hour"},
                "never": [local.choice(t.actions) for _ in range(2)]}

    def code(self) -> str:
        t = self.team
        names = list(t.tools)
        first = names[0]
        params = t.tools[first][1]
        args = ", ".join(f"{p}: {TYPES[ty]}" for p, ty, _ in params)
        return ("```python\n"
                f"def checked_{first}({args}) -> dict:\n"
                f'    """Call {first} and refuse answers older than the desk allows."""\n'
                f"    result = {first}({', '.join(p for p, _, _ in params)})\n"
                "    if result.get('stale'):\n"
                f"        raise ValueError('{t.assistant}: data too old, ask the duty lead')\n"
                "    return result\n"
                "```")

    def system(self, k: int, table: bool = True, extras: bool = True) -> str:
        """An instruction text: the opening, ``k`` handbook sections, then (with ``extras``) a
        reference table, the settings, a glossary, a helper and the team's language lines."""
        parts = [self.opening(), self.handbook(k)]
        if table:
            parts.append("Reference table:\n\n" + self.table())
        if extras:
            parts.append("Desk settings:\n```json\n" + json.dumps(self.settings(), indent=2, ensure_ascii=False) + "\n```")
            parts.append(self.glossary())
            parts.append("Helper the desk's scripts use:\n" + self.code())
            parts.append(self.language_block())
        return "\n\n".join(parts)

    def question(self) -> str:
        r = self.rng
        ask = self.fill(r.choice(self.team.asks))
        roll = r.random()
        if roll < 0.3:
            return ask
        before = [self.fill(d) for d in r.sample(self.team.details, r.randint(1, 3))]
        if roll < 0.7:
            return " ".join(before + [ask])
        after = self.fill(r.choice(self.team.details))
        return " ".join(before) + "\n\n" + ask + " " + after + (" " + self.sentence() if roll > 0.9 else "")

    def answer(self) -> str:
        r = self.rng
        return f"{r.choice(self.team.openers)} " + " ".join(
            (s[0].lower() + s[1:]) if k == 0 else s for k, s in enumerate(self.rules(r.randint(1, 3))))

    def fewshot(self, n: int) -> list[tuple[str, str]]:
        out: list[tuple[str, str]] = []
        asks = list(self.team.asks)
        self.rng.shuffle(asks)
        for k in range(n):
            out.append((self.fill(asks[k % len(asks)]), self.answer()))
        return out

    # ------------------------------------------------------------ tools as text

    def schema(self, name: str) -> dict[str, Any]:
        desc, params = self.team.tools[name]
        return {"name": name, "description": desc,
                "parameters": {"type": "object",
                               "properties": {p: {"type": ty, "description": d} for p, ty, d in params},
                               "required": [p for p, _, _ in params]}}

    def tools_json(self, names: Sequence[str] | None = None, pretty: bool = True) -> str:
        names = list(self.team.tools) if names is None else names
        items = [self.schema(n) for n in names]
        if pretty:
            return json.dumps(items, indent=2, ensure_ascii=False)
        return json.dumps(items, ensure_ascii=False, separators=(",", ":"))

    def signature(self, name: str, defaults: dict[str, str] | None = None) -> str:
        desc, params = self.team.tools[name]
        defaults = defaults or {}
        args = ", ".join(f"{p}: {TYPES[ty]}" + (f" = {defaults[p]}" if p in defaults else "") for p, ty, _ in params)
        doc = "\n".join(f"        {p}: {d}" for p, _, d in params)
        return f'def {name}({args}) -> dict:\n    """{desc}\n\n    Args:\n{doc}\n    """'

    def passage(self, doc: str, title: str, n: int) -> str:
        return f"[{doc}] {title}\n{self.paragraph(n)}"


def tool_intro(style: str) -> str:
    """How a team tells Gemma about its tools (it has no tool role): the call format it expects."""
    if style == "json":
        return ("You can call the functions below. To call one, reply with only a JSON object "
                '{"name": ..., "arguments": {...}} and wait for the result, which comes back in the next user '
                "message starting with 'Tool result:'.")
    return ("You can use these python functions. To call one, write a ```tool_code``` block with a single call "
            "and stop; the output comes back in a ```tool_output``` block in the next user message.")
