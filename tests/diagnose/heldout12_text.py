"""Text of the twelfth held-out set: eight teams that serve Llama 3.1 Instruct on SGLang.

Each team has its own vocabulary (nouns, actions, conditions, questions, tools, handbook
sections); ``Desk`` strings them into handbooks of 1-4k tokens, questions, answers, tool schemas
and documents, all drawn from a seeded generator so the set is deterministic.
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
    nouns: tuple[str, ...]
    actions: tuple[str, ...]
    conditions: tuple[str, ...]
    asks: tuple[str, ...]
    tools: dict[str, tuple[str, tuple[Param, ...]]]
    sections: tuple[str, ...]


AVALANCHE = Team(
    "avalanche", "Cairnmoor Snow Observatory", "DangerScale", "avalanche bulletin drafting assistant",
    ("wind slab", "persistent weak layer", "cornice", "surface hoar", "depth hoar", "loose wet release",
     "glide crack", "aspect rose", "elevation band", "danger level", "stability test result", "snow pit profile",
     "extended column test", "field observer", "remote trigger", "natural release"),
    ("downgrade", "raise", "flag", "log", "cross-check", "publish", "withhold", "annotate", "map", "confirm"),
    ("when two observers report shooting cracks on the same aspect", "if rain falls above 2,400 metres",
     "when the extended column test propagates on the first tap", "if the wind loads lee slopes overnight",
     "when a natural release is reported below the treeline", "if the bulletin region has no fresh field data",
     "when temperatures stay above freezing through the night", "if the snowpack settles by more than 10 cm"),
    ("Should the north-east aspects above {n} m go to level 4 tomorrow?",
     "An observer logged a remote trigger at grid {p}; does that change the wind slab wording?",
     "How do I phrase the loose wet problem for the afternoon of a warm day?",
     "Is an ECTP {k} result on a 38 degree slope enough to flag a persistent weak layer?",
     "Which regions still lack a snow pit profile from the last 48 hours?",
     "Can I publish the bulletin before the morning observation from station {p} comes in?",
     "What does the glide crack near the {n} m road cut mean for the danger level?",
     "How should the bulletin treat surface hoar buried by {k} cm of new snow?"),
    {"get_station_obs": ("Latest automatic weather station readings for a station code.",
                         (("station", "string", "Station code such as CM-07"), ("hours", "integer", "How many hours back"))),
     "get_field_report": ("Field observer reports for a bulletin region.",
                          (("region", "string", "Bulletin region name"), ("since", "string", "ISO date-time lower bound"))),
     "draft_problem": ("Add an avalanche problem to the draft bulletin.",
                       (("problem", "string", "wind slab, persistent, wet, glide or new snow"),
                        ("aspects", "array", "Compass aspects affected"), ("elevation", "string", "Elevation band"))),
     "set_danger": ("Set the danger level of a region and elevation band.",
                    (("region", "string", "Bulletin region name"), ("level", "integer", "1 to 5"),
                     ("band", "string", "below, near or above treeline"))),
     "publish_bulletin": ("Publish the reviewed bulletin to the public site.",
                          (("bulletin_id", "string", "Draft identifier"), ("reviewer", "string", "Forecaster initials")))},
    ("Observations", "Danger levels", "Wind slab", "Persistent problems", "Wet snow", "Glide", "Wording",
     "Regions", "Publishing", "Corrections"))

TRANSPLANT = Team(
    "transplant", "Northgate Transplant Coordination Unit", "MatchRota", "organ-offer scheduling assistant",
    ("donor offer", "crossmatch slot", "HLA typing run", "cold ischaemia window", "retrieval team",
     "recipient call-in", "theatre list", "courier leg", "tissue typing laboratory", "virtual crossmatch",
     "on-call surgeon", "organ allocation sequence", "perfusion machine", "bed manager", "anaesthetic review"),
    ("book", "hold", "release", "escalate", "confirm", "reschedule", "page", "log", "notify", "re-sequence"),
    ("when the cold ischaemia window falls under six hours", "if the crossmatch laboratory is closed overnight",
     "when two offers arrive within the same hour", "if the recipient cannot reach the unit within three hours",
     "when the retrieval team is already deployed", "if the perfusion machine is in use",
     "when a theatre list overruns past midnight", "if the courier flight is delayed"),
    ("Can we hold crossmatch slot {n} until the courier lands at {p}?",
     "The donor offer {n} came in at {k}:40; which theatre list can take it?",
     "Who is the on-call surgeon for kidney offers tonight, and how do I page them?",
     "Is there time to run a virtual crossmatch before the cold ischaemia window closes?",
     "How do I re-sequence the call-in list when recipient {n} is unreachable?",
     "The perfusion machine is booked until {k}:00; can the second offer wait?",
     "Which bed manager signs off an overnight admission for a pancreas recipient?",
     "What do I log when the retrieval team declines offer {n}?"),
    {"book_crossmatch": ("Reserve a crossmatch slot at the tissue typing laboratory.",
                         (("offer_id", "string", "Donor offer reference"), ("slot", "string", "ISO date-time of the slot"))),
     "page_oncall": ("Page an on-call clinician through the switchboard.",
                     (("rota", "string", "surgery, anaesthesia, nephrology or coordination"),
                      ("message", "string", "Short page text"))),
     "theatre_availability": ("Free theatre sessions in the next 24 hours.",
                              (("site", "string", "Hospital site code"), ("minutes", "integer", "Length of case"))),
     "courier_status": ("Where a courier leg is and when it lands.",
                        (("leg_id", "string", "Courier leg identifier"),)),
     "recipient_contact": ("Contact state of a recipient on the call-in list.",
                           (("recipient_id", "string", "Call-in list number"), ("channel", "string", "phone or text")))},
    ("Offers", "Crossmatch", "Theatre", "Couriers", "Call-in", "Paging", "Beds", "Declines", "Audit", "Handover"))

CIRCUS = Team(
    "circus", "Valmont Brothers Travelling Circus", "RoadBook", "touring logistics planner",
    ("big top", "king pole", "tent master", "rigging crew", "animal-free ring", "wagon convoy", "site licence",
     "ground survey", "generator truck", "box office cabin", "load-in window", "tear-down night",
     "performer caravan", "water bowser", "stake driver", "grandstand section"),
    ("route", "stage", "book", "survey", "hold", "release", "load", "anchor", "re-plan", "notify"),
    ("when wind gusts exceed 40 km/h at the site", "if the ground survey finds buried cables",
     "when the convoy crosses a low bridge", "if the council withholds the site licence",
     "when the load-in window overlaps a market day", "if rain turns the site to mud",
     "when a performer's caravan breaks down", "if the generator truck fails its inspection"),
    ("Can the convoy reach {p} before the {k}:00 load-in window closes?",
     "The ground survey at {p} shows soft soil; how many extra stakes does the king pole need?",
     "Which route avoids the 3.8 m bridge on the way to {p}?",
     "How do we stage tear-down night if the last show ends at {k}:30?",
     "Is a site licence from {p} council valid for a two-week run?",
     "How many water bowsers does a {n}-seat grandstand need in July?",
     "Who signs off the rigging when the tent master is on leave?",
     "What do we tell ticket holders if the big top cannot go up by show time?"),
    {"plan_route": ("Plan a convoy route between two sites with height and weight limits.",
                    (("from_site", "string", "Site code of departure"), ("to_site", "string", "Site code of arrival"),
                     ("max_height_m", "number", "Tallest vehicle in metres"))),
     "site_survey": ("Ground survey results for a site.", (("site", "string", "Site code"),)),
     "book_pitch": ("Book a pitch and its load-in window with a venue.",
                    (("site", "string", "Site code"), ("arrive", "string", "ISO date"), ("nights", "integer", "Run length"))),
     "weather_window": ("Wind and rain forecast for rigging at a site.",
                        (("site", "string", "Site code"), ("day", "string", "ISO date"))),
     "crew_roster": ("Who is on the rigging and driving rota.", (("week", "string", "ISO week such as 2026-W49"),))},
    ("Routing", "Sites", "Rigging", "Weather", "Licences", "Crew", "Box office", "Utilities", "Tear-down", "Safety"))

LIGHTHOUSE = Team(
    "lighthouse", "Skerrow Lighthouse Heritage Trust", "Lampkeeper", "heritage trust visitor and archive assistant",
    ("Fresnel lens", "lantern room", "keeper's cottage", "fog signal house", "foghorn diaphone", "optic pedestal",
     "clockwork rotation machine", "gallery rail", "archive logbook", "restoration grant", "tower climb",
     "volunteer guide", "listed building consent", "brass lamp", "paraffin vapour burner"),
    ("restore", "catalogue", "book", "lend", "photograph", "condition-check", "digitise", "guide", "close", "insure"),
    ("when sea spray reaches the gallery rail", "if the tower climb exceeds forty visitors an hour",
     "when a logbook page is too fragile to handle", "if listed building consent is still pending",
     "when the grant deadline falls inside the closed season", "if the fog signal is demonstrated to a group",
     "when a loan request comes from another trust", "if the lantern room glazing shows a crack"),
    ("Can a school group of {n} climb the tower on a Tuesday in March?",
     "Which keeper wrote the logbook entry for the storm of {k} January 1898?",
     "Is the Fresnel lens at {p} first order or second order?",
     "How do I book the keeper's cottage for a wedding photograph session?",
     "Can the clockwork rotation machine be wound for visitors on open days?",
     "What does listed building consent cover for repainting the gallery rail?",
     "How many volunteer guides are needed when the fog signal house is open?",
     "Can we lend the brass lamp from {p} to a museum for {n} days?"),
    {"archive_search": ("Search the digitised logbooks and letters.",
                        (("query", "string", "Words to search for"), ("year_from", "integer", "Earliest year"),
                         ("year_to", "integer", "Latest year"))),
     "book_visit": ("Book a tower climb or cottage visit.",
                    (("date", "string", "ISO date"), ("party_size", "integer", "Number of visitors"),
                     ("kind", "string", "climb, cottage or fog signal"))),
     "condition_report": ("Latest condition report for an object in the collection.",
                          (("object_id", "string", "Accession number"),)),
     "volunteer_rota": ("Volunteer guides on duty for a date.", (("date", "string", "ISO date"),)),
     "tide_times": ("High and low water at the lighthouse for a date.", (("date", "string", "ISO date"),))},
    ("Visiting", "Tower climbs", "Archive", "Collection", "Restoration", "Grants", "Volunteers", "Events",
     "Conservation", "Access"))

CHESS = Team(
    "chess", "Federation of Baltic Chess Clubs", "ArbiterDesk", "chess arbiter's rules assistant",
    ("illegal move", "touch-move rule", "increment", "flag fall", "threefold repetition", "fifty-move claim",
     "scoresheet", "pairing card", "Swiss round", "tiebreak", "rating report", "appeals committee",
     "mobile phone rule", "default time", "insufficient material", "zero tolerance start"),
    ("penalise", "award", "adjourn", "pair", "record", "check", "forfeit", "warn", "restart", "report"),
    ("when a player's flag falls with insufficient material on the board", "if both scoresheets disagree on the move count",
     "when a phone rings in the playing hall", "if a player claims threefold repetition without writing the move",
     "when the pairing program produces a colour clash", "if a player arrives after the default time",
     "when an illegal move is completed in a blitz game", "if the arbiter did not witness the incident"),
    ("In round {k}, Black touched the knight on {p} and then moved the bishop; what is the penalty?",
     "Player {n} claims a fifty-move draw but the scoresheet is incomplete; how do I check?",
     "With a 30-second increment, does a second illegal move lose the game?",
     "How are tiebreaks ordered for the Swiss open with {n} players?",
     "A spectator's phone rang near board {k}; can the player be penalised?",
     "Is king and knight against king and pawn insufficient material after a flag fall?",
     "What goes into the rating report when a game is forfeited in round {k}?",
     "How do I restart a game after the clock was set to the wrong increment on board {k}?"),
    {"pairings": ("Pairings of a round with colours and boards.",
                  (("tournament", "string", "Tournament code"), ("round", "integer", "Round number"))),
     "record_result": ("Record the result of a game.",
                       (("board", "integer", "Board number"), ("result", "string", "1-0, 0-1, 1/2-1/2 or forfeit"))),
     "player_lookup": ("A player's federation ID, rating and title.", (("fide_id", "string", "FIDE identifier"),)),
     "rules_article": ("Text of an article of the laws of chess.", (("article", "string", "Article number such as 6.9"),)),
     "incident_log": ("Write an incident to the arbiter's log.",
                      (("board", "integer", "Board number"), ("summary", "string", "What happened"),
                       ("decision", "string", "The arbiter's decision")))},
    ("Clocks", "Touch-move", "Illegal moves", "Draw claims", "Pairings", "Tiebreaks", "Electronic devices",
     "Scoresheets", "Appeals", "Rating reports"))

CUSTOMS = Team(
    "customs", "Al-Noor Crossborder Brokerage", "TariffLine", "customs brokerage assistant",
    ("commodity code", "certificate of origin", "bonded warehouse", "duty deferment account", "import licence",
     "anti-dumping duty", "inward processing relief", "transit declaration", "air waybill", "bill of lading",
     "valuation method", "excise stamp", "phytosanitary certificate", "inspection hold", "release note"),
    ("classify", "declare", "hold", "release", "value", "amend", "file", "appeal", "deposit", "inspect"),
    ("when the invoice currency differs from the declaration currency", "if the certificate of origin is unsigned",
     "when goods arrive before the import licence is issued", "if the shipment mixes dutiable and free goods",
     "when an inspection hold lasts more than 48 hours", "if the consignee has no duty deferment account",
     "when the bill of lading names a different port", "if anti-dumping duty applies to the origin"),
    ("Which commodity code fits carved olive-wood boxes shipped from {p}?",
     "Can shipment {n} leave the bonded warehouse before the release note is issued?",
     "How is duty valued on samples worth {m} dirham with no commercial invoice?",
     "The certificate of origin for {n} lists Korea but the goods came through Busan and Jebel Ali; is preference lost?",
     "What documents does a phytosanitary check need for basmati rice from India?",
     "How do I amend a transit declaration after the truck left {p}?",
     "Is inward processing relief available for {n} kg of silk to be re-exported?",
     "Who pays storage while shipment {n} is on inspection hold?"),
    {"classify_goods": ("Suggest commodity codes for a goods description.",
                        (("description", "string", "Plain description of the goods"),
                         ("origin", "string", "ISO country code of origin"))),
     "duty_estimate": ("Estimate duty and tax for a consignment.",
                       (("code", "string", "Commodity code"), ("value", "number", "Customs value"),
                        ("currency", "string", "ISO currency code"))),
     "shipment_status": ("Customs status of a shipment.", (("reference", "string", "Shipment reference"),)),
     "file_declaration": ("File an import or transit declaration.",
                          (("reference", "string", "Shipment reference"), ("procedure", "string", "import, transit or export"))),
     "licence_check": ("Whether an import licence is needed and held.",
                       (("code", "string", "Commodity code"), ("importer", "string", "Importer EORI")))},
    ("Classification", "Valuation", "Origin", "Licences", "Transit", "Warehousing", "Inspections", "Excise",
     "Amendments", "Appeals"))

REEF = Team(
    "reef", "Tanjung Biru Reef Monitoring Network", "TransectLog", "coral-reef survey data assistant",
    ("belt transect", "photo quadrat", "bleaching index", "coral recruit", "crown-of-thorns starfish", "rugosity chain",
     "dive buddy pair", "survey site buoy", "sea surface temperature logger", "fish count", "benthic cover",
     "coral colony tag", "sediment trap", "permit number", "dive log"),
    ("record", "tag", "photograph", "count", "upload", "flag", "recalibrate", "resurvey", "validate", "archive"),
    ("when visibility drops below five metres", "if the temperature logger reads above 30.5 °C for three days",
     "when more than ten crown-of-thorns starfish are seen on one transect", "if a dive buddy pair separates",
     "when the survey site buoy has drifted", "if a photo quadrat is out of focus",
     "when bleaching covers more than half of a colony", "if the permit expires during the survey week"),
    ("How do I score bleaching on a colony that is {k}0% pale?",
     "Site {p} had a crown-of-thorns count of {n}; does that trigger a cull request?",
     "Can I upload photo quadrats from dive {n} without the depth log?",
     "Which rugosity chain length do we use on the reef slope at {p}?",
     "What do I record when a tagged coral colony is missing?",
     "Is a fish count valid if the belt transect was only {k}0 metres long?",
     "How often should the temperature logger at {p} be recalibrated?",
     "Can we resurvey a site the week after a storm?"),
    {"log_transect": ("Record a belt transect survey.",
                      (("site", "string", "Survey site code"), ("depth_m", "number", "Depth in metres"),
                       ("observer", "string", "Diver code"))),
     "upload_quadrats": ("Upload photo quadrats for a dive.", (("dive_id", "string", "Dive log number"),
                                                                ("count", "integer", "Number of photos"))),
     "sst_series": ("Sea surface temperature series from a logger.",
                    (("logger", "string", "Logger serial"), ("days", "integer", "How many days back"))),
     "site_info": ("Coordinates, depth range and permit of a site.", (("site", "string", "Survey site code"),)),
     "cots_report": ("Report a crown-of-thorns starfish sighting.",
                     (("site", "string", "Survey site code"), ("count", "integer", "Starfish seen")))},
    ("Transects", "Quadrats", "Bleaching", "Starfish", "Loggers", "Diving safety", "Permits", "Data entry",
     "Validation", "Reporting"))

PIANO = Team(
    "piano", "Hartley & Quell Piano Care", "TuneBook", "piano-tuning booking assistant",
    ("pitch raise", "concert tuning", "regulation", "voicing", "hammer felt", "pin block", "soundboard crack",
     "humidity control system", "upright piano", "grand piano", "damper pedal", "key bushing", "tuning stability",
     "travel zone", "technician's van"),
    ("book", "quote", "reschedule", "tune", "regulate", "voice", "inspect", "decline", "remind", "invoice"),
    ("when the piano has not been tuned for over three years", "if the room humidity is below 35%",
     "when the customer needs a concert tuning before 9 am", "if the pin block no longer holds the strings",
     "when the address is outside the travel zone", "if two pianos are at the same address",
     "when a venue asks for a tuning between rehearsals", "if a pitch raise is needed before fine tuning"),
    ("Can a technician tune a grand piano at {p} before the {k}:00 recital?",
     "How much is a pitch raise for an upright that sits {k}0 cents flat?",
     "My piano was moved last week; should I wait before booking a tuning?",
     "Do you service pianos outside the travel zone near {p}?",
     "Can the voicing of a {n} Steinway be done on the same visit as the tuning?",
     "Why does the damper pedal squeak after the tuning on booking {n}?",
     "How often does a school piano in a heated hall need tuning?",
     "Can I move my booking {n} to a Saturday morning?"),
    {"find_slot": ("Free technician slots in a travel zone.",
                   (("zone", "string", "Travel zone code"), ("date_from", "string", "ISO date"),
                    ("minutes", "integer", "Length of visit"))),
     "book_tuning": ("Book a tuning visit.",
                     (("customer_id", "string", "Customer number"), ("slot_id", "string", "Slot identifier"),
                      ("service", "string", "tuning, pitch raise, regulation or voicing"))),
     "quote_service": ("Quote a price for a service on a piano.",
                       (("service", "string", "Service name"), ("piano", "string", "upright or grand"))),
     "customer_pianos": ("Pianos on record for a customer.", (("customer_id", "string", "Customer number"),)),
     "zone_for_postcode": ("Travel zone of a postcode.", (("postcode", "string", "Postcode"),))},
    ("Bookings", "Services", "Pricing", "Travel zones", "Humidity", "Venues", "Schools", "Repairs", "Cancellations",
     "Aftercare"))

TEAMS = (AVALANCHE, TRANSPLANT, CIRCUS, LIGHTHOUSE, CHESS, CUSTOMS, REEF, PIANO)

PLACES = ("Kestrel Gap", "Drumlaig", "Ostvik", "Harrowby", "Lochan Mor", "Pennick", "Sundholm", "Varrow",
          "Ellanmore", "Brackwater", "Ruthwell", "Tarnside")

# Right-to-left and Indic lines the customs broker keeps for its Arabic-, Hindi- and Korean-speaking clients.
ARABIC = ("يرجى إرفاق شهادة المنشأ الموقعة مع كل شحنة.", "لا يمكن الإفراج عن البضائع قبل سداد الرسوم الجمركية.",
          "تخضع الشحنات الغذائية لفحص الصحة النباتية عند الوصول.", "يجب أن تطابق قيمة الفاتورة قيمة البيان الجمركي.")
HINDI = ("कृपया हर खेप के साथ हस्ताक्षरित मूल प्रमाणपत्र संलग्न करें।", "शुल्क भुगतान से पहले माल जारी नहीं किया जा सकता।",
         "खाद्य खेपों की आगमन पर पादप-स्वच्छता जाँच होती है।", "चालान का मूल्य सीमा शुल्क घोषणा से मेल खाना चाहिए।")
KOREAN = ("모든 화물에는 서명된 원산지 증명서를 첨부해 주십시오.", "관세를 납부하기 전에는 물품을 반출할 수 없습니다.",
          "식품 화물은 도착 시 식물 검역을 받습니다.", "송장 금액은 세관 신고 금액과 일치해야 합니다.")


class Desk:
    """One team's text, drawn from a seeded generator."""

    def __init__(self, rng: random.Random, team: Team) -> None:
        self.rng = rng
        self.team = team

    def fill(self, ask: str) -> str:
        r = self.rng
        return ask.format(n=r.randint(1000, 99999), p=r.choice(PLACES), k=r.randint(2, 9), m=f"{r.randint(2, 90) * 50:,}")

    def sentence(self) -> str:
        r, t = self.rng, self.team
        shape = r.randrange(4)
        a, b = r.sample(t.nouns, 2)
        verb, cond = r.choice(t.actions), r.choice(t.conditions)
        if shape == 0:
            return f"{cond[0].upper()}{cond[1:]}, {verb} the {a} and note it against the {b}."
        if shape == 1:
            return f"Always {verb} the {a} before anyone touches the {b}, {cond}."
        if shape == 2:
            return f"The {a} is never {verb}ed on a guess; {cond}, ask for the {b} first."
        return f"Staff who {verb} a {a} record who did it and why, and {cond} they also check the {b}."

    def paragraph(self, n: int = 4) -> str:
        return " ".join(self.sentence() for _ in range(n))

    def rule(self) -> str:
        return self.sentence()

    def rules(self, n: int) -> list[str]:
        return [self.sentence() for _ in range(n)]

    def section(self, title: str, paragraphs: int = 2) -> str:
        return f"## {title}\n\n" + "\n\n".join(self.paragraph(self.rng.randint(3, 5)) for _ in range(paragraphs))

    def opening(self) -> str:
        t = self.team
        return (f"You are {t.product}, the {t.role} of {t.org}. Answer staff and members plainly, quote the "
                f"handbook when it settles a question, and say so when it does not.")

    def system(self, sections: int, paragraphs: int = 2) -> str:
        titles = [self.team.sections[k % len(self.team.sections)] for k in range(sections)]
        return "\n\n".join([self.opening()] + [self.section(s, paragraphs) for s in titles])

    def question(self) -> str:
        q = self.fill(self.rng.choice(self.team.asks))
        if self.rng.random() < 0.35:
            q = f"{q} {self.rng.choice(self.team.conditions).capitalize()}, what changes?"
        if self.rng.random() < 0.2:
            q = f"{self.paragraph(2)}\n\n{q}"
        return q

    def answer(self) -> str:
        return f"{self.sentence()} {self.sentence()}"

    def document(self, n: int = 3) -> str:
        return f"[{self.rng.choice(self.team.sections)} note {self.rng.randint(100, 999)}] {self.paragraph(n)}"

    def tool(self, name: str) -> dict[str, Any]:
        desc, params = self.team.tools[name]
        props: dict[str, Any] = {}
        for pname, ptype, pdesc in params:
            props[pname] = {"type": ptype, "description": pdesc}
            if ptype == "array":
                props[pname]["items"] = {"type": "string"}
        return {"type": "function", "function": {"name": name, "description": desc, "parameters": {
            "type": "object", "properties": props, "required": [params[0][0]]}}}

    def tools(self, names: list[str] | None = None) -> list[dict[str, Any]]:
        return [self.tool(n) for n in (names or list(self.team.tools))]
