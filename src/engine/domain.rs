//! Domain-specific lexical rules inside the BM25 scorer (spec Appendix A): query-side
//! predicates that append tokens, and per-document phrase multipliers.
//!
//! All query-side predicates are evaluated once per query; a document only pays for the
//! multipliers whose query side fired.

use super::rx::LazyRegex;

use crate::model::Tool;
use crate::pytext;

macro_rules! rx {
    ($name:ident, $p:expr) => {
        static $name: LazyRegex = LazyRegex::new($p);
    };
}

rx!(HYPOTENUSE, r"\bhypotenuse\b");
rx!(GEO_PHRASE, r"\bgeo(?:graphic|graphical)?\s+distance\b");
rx!(FIB, r"\bfibonacci\s+series\b");
rx!(EXCHANGE_RATE, r"\bexchange\s+rate\b");
rx!(
    CUR_A,
    r"\b(dollars?|euros?|yen|usd|eur|jpy|cad|canadian\s+dollars?|british\s+pounds?|pounds?\s+sterling)\b"
);
rx!(CUR_B1, r"\b(convert|conversion|exchange|exchanged)\b");
rx!(CUR_B2, r"\bhow\s+(much|many)\b.*\b(be|in|get|for)\b");
rx!(CUR_B3, r"\bwould\s+be\s+in\b");
rx!(CUR_B4, r"\bcan\s+i\s+get\b");
rx!(CUR_B5, r"\bcurrent\s+cost\b");
rx!(BRITISH_POUNDS, r"\bbritish\s+pounds?\b");
rx!(
    PHYS_UNIT,
    r"\b(ounces?|cups?|tablespoons?|teaspoons?|grams?|kilograms?|inches?|centimeters?|metres?|meters?|feet|foot)\b"
);
rx!(
    ANY_UNIT,
    r"\b(ounces?|pounds?|cups?|tablespoons?|teaspoons?|grams?|kilograms?|inches?|centimeters?|metres?|meters?|feet|foot)\b"
);
rx!(UNIT_B1, r"\b(convert|conversion|equivalent|equivalents?)\b");
rx!(UNIT_B2, r"\bhow\s+many\b");
rx!(UNIT_B3, r"\bhow\s+tall\b.*\b(inches?|centimeters?)\b");
rx!(CARD_A, r"\b(cards?|deck|king|queen|ace|spades?|hearts?)\b");
rx!(CARD_B, r"\b(probability|chance|odds|drawing|draw)\b");
rx!(ROUTE_WORD, r"\broute\b");
rx!(
    ROUTE_B1,
    r"\b(fastest|quickest|best|optimal|shortest)\s+route\b"
);
rx!(
    ROUTE_B2,
    r"\broute\b.*\b(fastest|quickest|best|optimal|shortest)\b"
);
rx!(ROUTE_B3, r"\bfrom\b.+\bto\b");
rx!(FAST_WORD, r"\b(fastest|quickest)\b");
rx!(SHORTEST_WORD, r"\bshortest\b");
rx!(DISTANCE_WORD, r"\bdistance\b");
rx!(
    GEO_NOT1,
    r"\b(driving|traffic|route|shortest|fastest|quickest|duration)\b"
);
rx!(
    GEO_NOT2,
    r#"\b(euclidean|point|points|2d|coordinate|coordinates|plate|plates|capacitance|capacitor|charged|charge|electrostatic|coulomb|terrain|celestial|planet|planets|mars|venus|jupiter|function\s+['"]?calculate_distance)\b"#
);
rx!(
    GEO_NOT3,
    r"\b[a-z]\s*\(\s*-?\d+(?:\.\d+)?\s*,\s*-?\d+(?:\.\d+)?\s*\)"
);
rx!(GEO_APPROX, r"\bapprox(?:imate|imately)?\b");
rx!(GEO_UNITS, r"\b(kilometers?|km|miles?|mi)\b");
rx!(
    GEO_LOC1,
    r"\b(cit(?:y|ies)|locations?|places?|addresses?)\b"
);
rx!(GEO_LOC2, r"\b[a-z][a-z]+,\s*(?:[a-z]{2}|[a-z]\.)\b");
rx!(COORD_UNITS, r"\b(kilometers?|km|miles?)\b");
rx!(
    COORD_PAIR,
    r"\(\s*-?\d+(?:\.\d+)?\s*°?\s*[ns]?\s*,\s*-?\d+(?:\.\d+)?\s*°?\s*[ew]?\s*\)"
);
rx!(COORD_LAT, r"\blat(?:itude)?\b");
rx!(COORD_LON, r"\blon(?:gitude)?\b");
rx!(USH_A, r"\b(american|u\.?s\.?|united\s+states)\b");
rx!(
    USH_B,
    r"\b(civil\s+war|war|battle|president|histor(?:y|ic|ical)|event)\b"
);
rx!(
    USH_C,
    r"\b(date|start|began|begin|when|info|information|fact)\b"
);
rx!(
    REL_A,
    r"\b(christianity|christian|islam|muslim|buddhism|religion)\b"
);
rx!(
    REL_B,
    r"\b(histor(?:y|ic|ical)|rise|fall|dates?|facts?|between|from)\b"
);
rx!(REL_C, r"\b\d{2,4}\s*(?:a\.?d\.?|bc|b\.?c\.?)?\b");
rx!(
    NUT_A,
    r"\b(protein|calories?|carbs?|carbohydrates?|fat|sugar|nutrients?|nutrition(?:al)?)\b"
);
rx!(
    NUT_B,
    r"\b(avocado|apple|banana|food|grocery|groceries|supermarket|walmart|whole\s+foods)\b"
);
rx!(INS_A, r"\b(guitar|piano|violin|fender|instrument)\b");
rx!(
    INS_B,
    r"\b(buy|buying|purchase|find|within|budget|price|cost|available)\b"
);
rx!(SCALE_A, r"\b(scale|notes?)\b");
rx!(SCALE_B, r"\b(music|musical|guitar|piano|song|key\s+of)\b");
rx!(
    SPORT_A,
    r"\b(sports?|basketball|nba|football|soccer|player|athlete|team)\b"
);
rx!(
    SPORT_B,
    r"\b(top|rank(?:ing)?|best|female|current(?:ly)?)\b"
);
rx!(
    DISP_A,
    r"\b(object|projectile|velocity|accelerat|physics)\b"
);
rx!(
    DISP_B,
    r"\b(how\s+far|distance|displacement|travel(?:led|ed)?|covered)\b"
);
rx!(DISP_C, r"\b(seconds?|time|velocity|m/s|accelerat)\b");
rx!(REST_A, r"\brestaurant");
rx!(
    REST_B,
    r"\b(options?|serves?|cuisine|food|lunch|dinner|vegan|italian)\b"
);
rx!(REST_C, r"\b(find|looking|show|see|nearby|in\s+[a-z])\b");
rx!(RECIPE_A, r"\brecipe");
rx!(
    RECIPE_B,
    r"\b(find|looking|main\s+course|prepared|within|minutes?|vegan)\b"
);
rx!(
    SCHED_A,
    r"\b(match|matches|game|games|schedule|schedules|fixture|fixtures)\b"
);
rx!(SCHED_B, r"\b(schedule|schedules|fixtures?|upcoming|next)\b");
rx!(
    SCHED_C,
    r"\b(next|upcoming)\b.+\b(match|matches|game|games)\b"
);
rx!(STOCK_A, r"\bstocks?\b");
rx!(
    STOCK_B,
    r"\b(info|information|detailed|market|nasdaq|apple|inc|price)\b"
);
rx!(HOSP_A, r"\bhospitals?\b");
rx!(
    HOSP_B,
    r"\b(nearby|radius|emergency|department|locate|within)\b"
);
rx!(LAWYER, r"\blawyers?\b");
rx!(OPEN_WORD, r"\bopen\b");
rx!(
    POPULATION,
    r"\bpopulation\s+of\s+[a-z][a-z\s.'-]*\s+in\s+\d{4}\b"
);
rx!(HYPOT_TOKEN, r"(^|[._\s-])hypot($|[._\s-])");
rx!(HCF_TOKEN, r"(^|[._\s-])hcf($|[._\s-])");
rx!(FIND_FENDER, r"\b(fender|guitar|budget)\b");

/// Query-side facts of Appendix A, evaluated once per query on the lower-cased query.
#[derive(Debug, Default, Clone)]
pub struct DomainQuery {
    q: String,
    geo: bool,
    coord: bool,
    route: bool,
    fast: bool,
    ushist: bool,
    religion: bool,
    nutrition: bool,
    instrument: bool,
    scale: bool,
    sportrank: bool,
    displacement: bool,
    restaurant: bool,
    recipe: bool,
    schedule: bool,
    stock: bool,
    hospital: bool,
    /// Some multiplier of A.2 or A.3 may fire for some document.
    any_multiplier: bool,
    /// Tokens appended by A.1, with the rule that fired them.
    pub appended: Vec<(&'static str, Vec<&'static str>)>,
}

fn currency(q: &str) -> bool {
    CUR_A.is_match(q)
        && (CUR_B1.is_match(q)
            || CUR_B2.is_match(q)
            || CUR_B3.is_match(q)
            || CUR_B4.is_match(q)
            || CUR_B5.is_match(q))
}

fn unit(q: &str) -> bool {
    if BRITISH_POUNDS.is_match(q) && !PHYS_UNIT.is_match(q) {
        return false;
    }
    ANY_UNIT.is_match(q) && (UNIT_B1.is_match(q) || UNIT_B2.is_match(q) || UNIT_B3.is_match(q))
}

fn geo(q: &str) -> bool {
    if !DISTANCE_WORD.is_match(q)
        || GEO_NOT1.is_match(q)
        || GEO_NOT2.is_match(q)
        || GEO_NOT3.is_match(q)
    {
        return false;
    }
    GEO_PHRASE.is_match(q)
        || ((GEO_APPROX.is_match(q) || GEO_UNITS.is_match(q))
            && (GEO_LOC1.is_match(q) || GEO_LOC2.is_match(q)))
}

fn coord(q: &str) -> bool {
    DISTANCE_WORD.is_match(q)
        && COORD_UNITS.is_match(q)
        && (COORD_PAIR.is_match(q) || (COORD_LAT.is_match(q) && COORD_LON.is_match(q)))
}

fn route(q: &str) -> bool {
    ROUTE_WORD.is_match(q) && (ROUTE_B1.is_match(q) || ROUTE_B2.is_match(q) || ROUTE_B3.is_match(q))
}

fn distance_covered(q: &str) -> bool {
    q.contains("distance covered")
        || q.contains("distance travelled")
        || q.contains("distance traveled")
}

fn area_curve(q: &str) -> bool {
    q.contains("area under the curve") || q.contains("area under curve")
}

/// The running product of the A.2 multipliers that fired, with the rules in firing order.
struct Product {
    m: f64,
    log: Vec<(&'static str, f64)>,
}

impl Product {
    /// Multiplies in one rule's factor and logs it.
    fn mul(&mut self, rule: &'static str, f: f64) {
        self.m *= f;
        self.log.push((rule, f));
    }
}

impl DomainQuery {
    /// Evaluates the query side of Appendix A once: the topic facts, the A.1 tokens they
    /// append, and whether any A.2/A.3 multiplier could fire for some document.
    pub fn new(ql: &str) -> DomainQuery {
        let mut d = DomainQuery::facts(ql);
        let mut appended = Vec::new();
        d.append_phrase_tokens(&mut appended);
        d.append_topic_tokens(&mut appended);
        d.appended = appended;
        d.any_multiplier = d.some_multiplier_may_fire();
        d
    }

    /// The query-side topic predicates (the facts the A.1 and A.2 rules test).
    fn facts(q: &str) -> DomainQuery {
        let mut d = DomainQuery {
            q: q.to_string(),
            ..Default::default()
        };
        d.geo = geo(q);
        d.coord = coord(q);
        d.route = route(q);
        d.fast = FAST_WORD.is_match(q);
        d.ushist = USH_A.is_match(q) && USH_B.is_match(q) && USH_C.is_match(q);
        d.religion = REL_A.is_match(q) && (REL_B.is_match(q) || REL_C.is_match(q));
        d.nutrition = NUT_A.is_match(q) && NUT_B.is_match(q);
        d.instrument = INS_A.is_match(q) && INS_B.is_match(q);
        d.scale = SCALE_A.is_match(q) && SCALE_B.is_match(q);
        d.sportrank = SPORT_A.is_match(q) && SPORT_B.is_match(q);
        d.displacement = DISP_A.is_match(q) && DISP_B.is_match(q) && DISP_C.is_match(q);
        d.restaurant = REST_A.is_match(q) && REST_B.is_match(q) && REST_C.is_match(q);
        d.recipe = RECIPE_A.is_match(q) && RECIPE_B.is_match(q);
        d.schedule = SCHED_A.is_match(q) && (SCHED_B.is_match(q) || SCHED_C.is_match(q));
        d.stock = STOCK_A.is_match(q) && STOCK_B.is_match(q);
        d.hospital = HOSP_A.is_match(q) && HOSP_B.is_match(q);
        d
    }

    /// A.1 tokens from phrases and measures in the query (hypotenuse, areas, distances,
    /// coordinates, series, currencies, units, cards, routes), in rule order.
    fn append_phrase_tokens(&self, out: &mut Vec<(&'static str, Vec<&'static str>)>) {
        let (d, q) = (self, self.q.as_str());
        let mut add = |rule: &'static str, toks: &[&'static str]| out.push((rule, toks.to_vec()));
        if HYPOTENUSE.is_match(q) {
            add("hypotenuse", &["hypot", "norm"]);
        }
        if area_curve(q) {
            add("area_under_curve", &["integral", "integrat"]);
        }
        if distance_covered(q) {
            add("distance_covered", &["distance", "travel", "traveled"]);
        }
        if GEO_PHRASE.is_match(q) {
            add("geo_distance_phrase", &["geo", "geographic"]);
        }
        if d.geo {
            add("geo", &["geo", "geographic", "location", "locations"]);
        }
        if d.coord {
            add(
                "coordinates",
                &["gps", "coordinate", "coordinates", "latitude", "longitude"],
            );
        }
        if FIB.is_match(q) {
            add("fibonacci", &["fibonacci", "sequence"]);
        }
        if EXCHANGE_RATE.is_match(q) {
            add("exchange_rate", &["currency", "exchange", "rate", "latest"]);
        } else if currency(q) {
            add(
                "currency",
                &[
                    "currency",
                    "convert",
                    "conver",
                    "conversion",
                    "exchange",
                    "amount",
                ],
            );
        }
        if unit(q) {
            add(
                "unit",
                &["unit", "convert", "conver", "conversion", "measurement"],
            );
        }
        if CARD_A.is_match(q) && CARD_B.is_match(q) {
            add("card", &["probability", "event", "outcome", "outcomes"]);
        }
        if d.route {
            let mut t = vec!["route", "best", "optimal", "planner", "method"];
            if d.fast {
                t.extend(["fastest", "quickest"]);
            }
            if SHORTEST_WORD.is_match(q) {
                t.push("shortest");
            }
            add("route", &t);
        }
    }

    /// A.1 tokens from the topic facts (history, religion, nutrition, … hospitals), in
    /// table order, after the phrase tokens.
    fn append_topic_tokens(&self, out: &mut Vec<(&'static str, Vec<&'static str>)>) {
        let d = self;
        let table: [(bool, &'static str, &[&'static str]); 12] = [
            (
                d.ushist,
                "us_history",
                &["us", "history", "historical", "event", "info", "date"],
            ),
            (
                d.religion,
                "religion",
                &["religion", "religious", "history", "historical", "track"],
            ),
            (
                d.nutrition,
                "nutrition",
                &["grocery", "nutrition", "nutritional", "info"],
            ),
            (
                d.instrument,
                "instrument",
                &["instrument", "availability", "find"],
            ),
            (
                d.scale,
                "music_scale",
                &["music", "musical", "scale", "notes"],
            ),
            (
                d.sportrank,
                "sport_rank",
                &["sports", "sport", "ranking", "rank", "top", "player"],
            ),
            (
                d.displacement,
                "displacement",
                &[
                    "calculate",
                    "displacement",
                    "distance",
                    "travel",
                    "traveled",
                ],
            ),
            (
                d.restaurant,
                "restaurant",
                &["find", "restaurant", "restaurants", "options"],
            ),
            (
                d.recipe,
                "recipe",
                &["find", "recipe", "recipes", "prepared"],
            ),
            (
                d.schedule,
                "schedule",
                &["sports", "sport", "match", "schedule", "nba"],
            ),
            (
                d.stock,
                "stock",
                &["stock", "stocks", "info", "information", "market", "nasdaq"],
            ),
            (
                d.hospital,
                "hospital",
                &["hospital", "locate", "nearby", "emergency", "department"],
            ),
        ];
        for (on, rule, toks) in table {
            if on {
                out.push((rule, toks.to_vec()));
            }
        }
    }

    /// Whether some A.2 or A.3 multiplier may fire for some document (a document only
    /// pays for the multipliers when this holds).
    fn some_multiplier_may_fire(&self) -> bool {
        let (d, q) = (self, self.q.as_str());
        q.contains("hypotenuse")
            || area_curve(q)
            || distance_covered(q)
            || GEO_PHRASE.is_match(q)
            || d.geo
            || d.coord
            || q.contains("fibonacci series")
            || q.contains("current cost")
            || q.contains("genetically similar")
            || q.contains("genetic similarity")
            || q.contains("population density")
            || q.contains("highest common factor")
            || (q.contains("magnetic field") && q.contains("current") && q.contains("distance"))
            || (LAWYER.is_match(q) && q.contains("specializ"))
            || q.contains("availability")
            || q.contains("supermarket")
            || q.contains("grocery")
            || POPULATION.is_match(q)
            || q.contains("preferring")
            || q.contains("preference")
            || q.contains("museum")
            || d.ushist
            || d.religion
            || d.nutrition
            || d.instrument
            || d.scale
            || d.sportrank
            || d.displacement
            || d.restaurant
            || d.recipe
            || d.schedule
            || d.stock
            || d.hospital
            || d.route
    }

    pub fn any_multiplier(&self) -> bool {
        self.any_multiplier
    }

    /// The route-planning multiplier may apply.
    pub fn route_active(&self) -> bool {
        self.route
    }

    /// The A.2 phrase multipliers (a running product in table order), with the rules that fired.
    pub fn phrase_multiplier(
        &self,
        tool: &Tool,
        fired: Option<&mut Vec<(&'static str, f64)>>,
    ) -> f64 {
        let name_l = pytext::lower(&tool.name);
        let text = pytext::lower(&format!("{} {}", tool.name, tool.description));
        let mut p = Product {
            m: 1.0_f64,
            log: Vec::new(),
        };
        self.formula_rules(tool, &name_l, &text, &mut p);
        self.fact_rules(&name_l, &text, &mut p);
        self.topic_rules(&name_l, &text, &mut p);
        if let Some(f) = fired {
            f.extend(p.log);
        }
        p.m
    }

    /// A.2 rules for formulas and distances: hypotenuse, area under a curve, distance
    /// covered, geographic distance, coordinates and series.
    fn formula_rules(&self, tool: &Tool, name_l: &str, text: &str, p: &mut Product) {
        let q = self.q.as_str();
        let geo_tool = {
            let n = name_l.replace(['.', '-'], "_");
            n.contains("geo_distance")
                || n.replace('_', "").contains("geodistance")
                || text.contains("geographic distance")
        };
        if q.contains("hypotenuse")
            && (HYPOT_TOKEN.is_match(text) || text.contains("euclidean norm"))
        {
            p.mul("hypotenuse", 8.0);
        }
        if area_curve(q) && (text.contains("integral") || text.contains("integrate")) {
            p.mul("area_under_curve", 2.0);
            if name_l == "integral" {
                p.mul("area_under_curve_name", 2.0);
            }
        }
        if distance_covered(q)
            && (tool.name.contains("distance_traveled") || text.contains("distance traveled"))
        {
            p.mul("distance_covered", 2.0);
        }
        if GEO_PHRASE.is_match(q) && geo_tool {
            p.mul("geo_distance_phrase", 2.0);
        }
        if self.geo && geo_tool {
            p.mul("geo", 2.2);
        }
        if self.coord
            && (name_l == "calculate_distance"
                || text.contains("gps coordinates")
                || text.contains("latitude")
                || text.contains("longitude"))
        {
            p.mul("coordinates", 2.8);
        }
        if q.contains("fibonacci series") && (text.contains("sequence") || text.contains("series"))
        {
            p.mul("fibonacci", 1.6);
        }
    }

    /// A.2 rules for specific facts the query asks about (current cost, genetic
    /// similarity, population density, HCF, Biot–Savart, lawyers, stock, groceries,
    /// population history, preferences, museum hours).
    fn fact_rules(&self, name_l: &str, text: &str, p: &mut Product) {
        let q = self.q.as_str();
        if q.contains("current cost") && text.contains("current cost") {
            p.mul("current_cost", 1.6);
        }
        if (q.contains("genetically similar") || q.contains("genetic similarity"))
            && text.contains("genetic similarity")
        {
            p.mul("genetic_similarity", 3.0);
        }
        if q.contains("population density") && text.contains("population density") {
            p.mul("population_density", 3.0);
        }
        if q.contains("population density") && name_l.replace('.', "_") == "calculate_density" {
            p.mul("population_density_name", 4.0);
        }
        if q.contains("highest common factor")
            && (text.contains("highest common factor") || HCF_TOKEN.is_match(text))
        {
            p.mul("hcf", 4.0);
        }
        if q.contains("magnetic field")
            && q.contains("current")
            && q.contains("distance")
            && (text.contains("biot") || text.contains("savart"))
        {
            p.mul("biot_savart", 2.5);
        }
        if LAWYER.is_match(q) && q.contains("specializ") && text.contains("specializ") {
            p.mul("lawyer", 2.0);
        }
        if q.contains("price")
            && q.contains("stock")
            && q.contains("availability")
            && (q.contains("instrument") || q.contains("piano") || q.contains("music"))
            && text.contains("instrument")
            && text.contains("availability")
        {
            p.mul("instrument_stock", 2.5);
        }
        if (q.contains("supermarket") || q.contains("grocery"))
            && (q.contains("24 hours") || q.contains("home delivery"))
            && text.contains("grocery store")
        {
            p.mul("grocery_store", 2.5);
        }
        if POPULATION.is_match(q) && text.contains("historical population data") {
            p.mul("population_history", 2.0);
        }
        if (q.contains("preferring") || q.contains("preference"))
            && text.contains("preference between two options")
        {
            p.mul("preference", 2.0);
        }
        if (q.contains("opening hours") || OPEN_WORD.is_match(q))
            && q.contains("museum")
            && text.contains("museum")
            && (text.contains("opening hours") || text.contains("hours"))
        {
            p.mul("museum_hours", 1.8);
        }
    }

    /// A.2 rules for the topic facts (US history, religion, nutrition, instruments,
    /// scales, sport rankings, displacement, restaurants, recipes, schedules, stocks,
    /// hospitals); some add a second factor for a closer match.
    fn topic_rules(&self, name_l: &str, text: &str, p: &mut Product) {
        let q = self.q.as_str();
        if self.ushist
            && (name_l.contains("us_history")
                || text.contains("united states")
                || text.contains("american historical"))
        {
            p.mul("us_history", 2.2);
        }
        if self.religion
            && (name_l.contains("religion_history")
                || text.contains("religion history")
                || text.contains("historical dates and facts for a religion"))
        {
            p.mul("religion", 2.0);
        }
        if self.nutrition && (text.contains("nutritional") || text.contains("nutrition")) {
            p.mul("nutrition", 2.4);
            if text.contains("grocery") {
                p.mul("nutrition_grocery", 1.3);
            }
        }
        if self.instrument && text.contains("instrument") {
            p.mul("instrument", 2.0);
            if name_l == "find_instrument" && FIND_FENDER.is_match(q) {
                p.mul("instrument_name", 1.6);
            }
        }
        if self.scale && text.contains("scale") {
            p.mul("music_scale", 2.0);
            if text.contains("musical") || text.contains("music") {
                p.mul("music_scale_music", 1.3);
            }
        }
        if self.sportrank
            && (text.contains("ranking") || text.contains("rank") || text.contains("top player"))
        {
            p.mul("sport_rank", 1.8);
        }
        if self.displacement
            && (text.contains("displacement") || text.contains("distance traveled"))
        {
            p.mul("displacement", 2.4);
            if name_l.contains("calculate_displacement") {
                p.mul("displacement_name", 3.2);
            }
        }
        if self.restaurant
            && (name_l.contains("find_restaurants") || text.contains("restaurant options"))
        {
            p.mul("restaurant", 2.2);
        }
        if self.recipe && (name_l == "find_recipe" || text.contains("find recipe")) {
            p.mul("recipe", 2.2);
        }
        if self.schedule && (name_l.contains("match_schedule") || text.contains("schedule")) {
            p.mul("schedule", 2.0);
        }
        if self.stock && (name_l == "get_stock_info" || text.contains("stock info")) {
            p.mul("stock", 2.0);
        }
        if self.hospital && (name_l.contains("hospital.locate") || text.contains("hospital")) {
            p.mul("hospital", 2.0);
        }
    }

    /// The A.3 route-planning multiplier (1.0 when it does not apply).
    pub fn route_multiplier(&self, tool: &Tool) -> f64 {
        if !self.route {
            return 1.0;
        }
        let mut parts: Vec<String> = Vec::new();
        let mut push = |s: &str| {
            if !s.is_empty() {
                parts.push(s.to_string());
            }
        };
        push(&tool.name);
        push(&tool.description);
        for p in &tool.parameters {
            push(&p.name);
            push(&p.description);
            if let Some(raw) = &p.enum_values
                && let serde_json::Value::Array(vals) = raw.parse()
            {
                for v in vals {
                    let s = pytext::py_str(&v);
                    if pytext::truthy(&v) || !s.is_empty() {
                        push(&s);
                    }
                }
            }
        }
        let p = pytext::lower(&parts.join(" "));
        if !p.contains("route") {
            return 1.0;
        }
        let q = self.q.as_str();
        let mut b = 1.0_f64;
        let n = pytext::lower(&tool.name).replace(['.', '-'], "_");
        if n.contains("route_planner") || n.contains("calculate_route") {
            b *= 2.0;
        }
        if [
            "best route",
            "optimal route",
            "calculating the route",
            "route preference",
        ]
        .iter()
        .any(|s| p.contains(s))
        {
            b *= 1.5;
        }
        if self.fast && (p.contains("fastest") || p.contains("quickest")) {
            b *= 1.35;
        }
        if q.contains("shortest") && p.contains("shortest") {
            b *= 1.25;
        }
        b.min(3.0)
    }
}
