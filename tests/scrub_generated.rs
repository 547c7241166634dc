//! Scrubbing that holds, on a generated set: secrets and personal data of every category the
//! reliability trial planted are generated from a fixed seed (values the scrubber was never
//! tuned on), planted in every stored field of a suite — case id, query, expected tools,
//! history and LLM target — captured with `lab capture`, and every written file is searched
//! for any 6-character substring of any planted value.

use assert_cmd::Command;
use std::collections::BTreeMap;

/// A small deterministic generator (xorshift64*), so a failure reproduces exactly.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[self.below(xs.len() as u64) as usize]
    }
    fn chars(&mut self, alphabet: &str, n: usize) -> String {
        let a: Vec<char> = alphabet.chars().collect();
        (0..n)
            .map(|_| a[self.below(a.len() as u64) as usize])
            .collect()
    }
    fn digits(&mut self, n: usize) -> String {
        self.chars("0123456789", n)
    }
}

const UPPER: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const ALNUM: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const HEX: &str = "0123456789abcdef";
const B64: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const NAMES: &[&str] = &[
    "olivia", "mateo", "hyejin", "farouk", "ingrid", "tomasz", "priya", "kwame",
];
const DOMAINS: &[&str] = &["mailbox", "corpmail", "inbox", "postbox", "webmail"];
const TLDS: &[&str] = &["com", "net", "org", "io", "de", "co.kr"];
const STREETS: &[&str] = &["Maple", "Juniper", "Harbor", "Linden", "Orchard"];

fn luhn_complete(prefix: &str) -> String {
    // the check digit that makes `prefix` + digit pass the Luhn test
    let sum: u32 = prefix
        .chars()
        .rev()
        .enumerate()
        .map(|(i, c)| {
            let d = c.to_digit(10).unwrap();
            if i % 2 == 0 {
                let x = d * 2;
                if x > 9 { x - 9 } else { x }
            } else {
                d
            }
        })
        .sum();
    format!("{prefix}{}", (10 - sum % 10) % 10)
}

/// One generated value per category; the key names the category in failure messages.
fn plant(r: &mut Rng, category: usize) -> (&'static str, String) {
    // a personal name with a random tail, so no two plants share a 6-character window
    // by construction (the host of a URL, kept on purpose, is the same for all)
    let name = format!(
        "{}{}",
        r.pick(NAMES),
        r.chars("abcdefghijklmnopqrstuvwxyz", 3)
    );
    match category {
        0 => (
            "aws key",
            format!("AKIA{}", r.chars(&(UPPER.to_string() + "234567"), 16)),
        ),
        1 => ("github token", format!("ghp_{}", r.chars(ALNUM, 36))),
        2 => (
            "slack token",
            format!(
                "xoxb-{}-{}-{}",
                r.digits(12),
                r.digits(13),
                r.chars(ALNUM, 24)
            ),
        ),
        3 => ("openai key", format!("sk-proj-{}", r.chars(ALNUM, 40))),
        4 => ("stripe key", format!("sk_live_{}", r.chars(ALNUM, 24))),
        5 => ("google key", format!("AIza{}", r.chars(B64, 35))),
        6 => (
            "jwt",
            format!(
                "eyJhbGciOiJIUzI1NiJ9.eyJ{}.{}",
                r.chars(B64, 30),
                r.chars(B64, 43)
            ),
        ),
        7 => (
            "private key",
            format!(
                "-----BEGIN RSA PRIVATE KEY-----\n{}\n{}\n-----END RSA PRIVATE KEY-----",
                r.chars(ALNUM, 64),
                r.chars(ALNUM, 40)
            ),
        ),
        8 => (
            "email",
            format!(
                "{name}.{}@{}.{}",
                r.chars("abcdefghijklmnopqrstuvwxyz", 5),
                r.pick(DOMAINS),
                r.pick(TLDS)
            ),
        ),
        9 => (
            "obfuscated email",
            format!("{name}{} [at] {} [dot] com", r.digits(3), r.pick(DOMAINS)),
        ),
        10 => (
            "percent-encoded email",
            format!("{name}{}%40{}.net", r.digits(2), r.pick(DOMAINS)),
        ),
        11 => (
            "phone +44",
            format!("+44 20 {} {}", r.digits(4), r.digits(4)),
        ),
        12 => (
            "phone (us)",
            format!("({}) {}-{}", 200 + r.below(700), r.digits(3), r.digits(4)),
        ),
        13 => (
            "phone dotted",
            format!("{}.{}.{}", 200 + r.below(700), r.digits(3), r.digits(4)),
        ),
        14 => ("phone kr", format!("010-{}-{}", r.digits(4), r.digits(4))),
        15 => (
            "ipv4",
            format!(
                "{}.{}.{}.{}",
                11 + r.below(200),
                r.below(256),
                r.below(256),
                1 + r.below(254)
            ),
        ),
        16 => (
            "ipv6",
            format!(
                "2001:db8:{}:{}::{}",
                r.chars(HEX, 4),
                r.chars(HEX, 4),
                r.chars(HEX, 4)
            ),
        ),
        17 => (
            "uuid",
            format!(
                "{}-{}-4{}-a{}-{}",
                r.chars(HEX, 8),
                r.chars(HEX, 4),
                r.chars(HEX, 3),
                r.chars(HEX, 3),
                r.chars(HEX, 12)
            ),
        ),
        18 => (
            "mac",
            (0..6)
                .map(|_| r.chars(HEX, 2))
                .collect::<Vec<_>>()
                .join(":"),
        ),
        19 => (
            "ssn",
            format!("{}-{}-{}", 100 + r.below(600), r.digits(2), r.digits(4)),
        ),
        20 => (
            "korean rrn",
            format!(
                "{}{}-{}{}",
                70 + r.below(30),
                r.digits(4),
                1 + r.below(4),
                r.digits(6)
            ),
        ),
        21 => (
            "passport",
            format!("passport {}{}", r.chars(UPPER, 1), r.digits(8)),
        ),
        22 => ("card", {
            let n = luhn_complete(&format!("4{}", r.digits(14)));
            format!("{} {} {} {}", &n[0..4], &n[4..8], &n[8..12], &n[12..16])
        }),
        23 => ("iban", format!("GB{}WEST{}", r.digits(2), r.digits(14))),
        24 => ("password kv", format!("password={}", r.chars(ALNUM, 14))),
        25 => ("session kv", format!("session_id={}", r.chars(ALNUM, 24))),
        26 => ("user id kv", format!("user_id={}", r.digits(7))),
        27 => (
            "url credentials",
            format!("https://{name}:{}@api.example.com/v1", r.chars(ALNUM, 12)),
        ),
        28 => (
            "cookie header",
            format!(
                "Cookie: sid={}; pref={}",
                r.chars(ALNUM, 20),
                r.chars(ALNUM, 16)
            ),
        ),
        29 => ("random token", r.chars(ALNUM, 32)),
        30 => (
            "street address",
            format!(
                "{} {} Street, Springfield, IL {}",
                10 + r.below(9000),
                r.pick(STREETS),
                r.digits(5)
            ),
        ),
        31 => (
            "bearer header",
            format!("Authorization: Bearer {}", r.chars(ALNUM, 28)),
        ),
        _ => unreachable!(),
    }
}

const CATEGORIES: usize = 32;

/// The planted part that must not survive: the value without the context word or header
/// name that introduces it (those are ordinary words).
fn secret_part(category: &str, value: &str) -> String {
    let strip = [
        "passport ",
        "password=",
        "session_id=",
        "user_id=",
        "Cookie: ",
        "Authorization: Bearer ",
        "-----BEGIN RSA PRIVATE KEY-----\n",
    ];
    let mut v = value.to_string();
    for s in strip {
        if let Some(rest) = v.strip_prefix(s) {
            v = rest.to_string();
        }
    }
    if category == "private key" {
        v = v.replace("\n-----END RSA PRIVATE KEY-----", "");
    }
    if category == "url credentials" {
        // the host is not personal data; the user name and password are
        v = v
            .trim_start_matches("https://")
            .split('@')
            .next()
            .unwrap()
            .to_string();
    }
    if category == "street address" {
        // "Springfield, IL" is a city; the number, street and postcode are the address
        v = v.split(", ").next().unwrap().to_string();
    }
    v
}

/// Every 6-character window of `s` that is not whitespace-only and not punctuation-only.
fn windows(s: &str) -> Vec<String> {
    let c: Vec<char> = s.chars().collect();
    if c.len() < 6 {
        return vec![s.to_string()];
    }
    c.windows(6)
        .map(|w| w.iter().collect::<String>())
        .filter(|w| w.chars().filter(|c| c.is_alphanumeric()).count() >= 4)
        .collect()
}

#[test]
fn generated_plants_never_reach_a_fixture() {
    let mut r = Rng(0x5EED_2026_1201_0001);
    let dir = std::env::temp_dir().join(format!("toolscope-scrubgen-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut plants: Vec<(&'static str, String)> = Vec::new();
    let mut lines = String::new();
    let fields = ["id", "query", "expected", "history", "llm_target"];
    for i in 0..(CATEGORIES * 8) {
        let (cat, value) = plant(&mut r, i % CATEGORIES);
        let field = fields[(i / CATEGORIES) % fields.len()];
        let mut case = serde_json::json!({
            "id": format!("case {i}"),
            "query": "list orders",
            "expected_tools": ["listOrders"],
        });
        match field {
            "id" => case["id"] = format!("case {value}").into(),
            "query" => case["query"] = format!("list orders for {value} please").into(),
            "expected" => case["expected_tools"] = serde_json::json!([value.clone()]),
            "history" => case["params"] = serde_json::json!({"history": [value.clone()]}),
            _ => case["selector"] = serde_json::json!({"llm_target": value.clone()}),
        }
        lines.push_str(&case.to_string());
        lines.push('\n');
        plants.push((cat, secret_part(cat, &value)));
    }
    let suite = dir.join("planted.jsonl");
    std::fs::write(&suite, &lines).unwrap();
    let out = dir.join("fixtures");
    let o = Command::cargo_bin("toolscope")
        .unwrap()
        .args(["lab", "capture", "demo", "--cases"])
        .arg(&suite)
        .arg("-o")
        .arg(&out)
        .timeout(std::time::Duration::from_secs(120))
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let mut written = String::new();
    for e in std::fs::read_dir(&out).unwrap() {
        let p = e.unwrap().path();
        written.push_str(&p.file_name().unwrap().to_string_lossy());
        written.push('\n');
        written.push_str(&std::fs::read_to_string(&p).unwrap());
    }
    // what the console printed is stored nowhere, but it must not leak either
    let console = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    // the test's own folder (its name holds the process id, which a planted number can
    // contain: pid 11555 and the RRN 747246-1155588) is not a planted value
    let here = dir.to_string_lossy().into_owned();
    let (written, console) = (
        written.replace(&here, "<dir>"),
        console.replace(&here, "<dir>"),
    );
    // JSON escapes \n inside the private key; compare on the decoded form as well
    let decoded = written.replace("\\n", "\n");
    let mut survived: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for (cat, secret) in &plants {
        for w in windows(secret) {
            if decoded.contains(&w) || written.contains(&w) || console.contains(&w) {
                survived
                    .entry(cat)
                    .or_default()
                    .push(format!("{secret:?} ({w:?})"));
                break;
            }
        }
    }
    let total = plants.len();
    let leaked: usize = survived.values().map(Vec::len).sum();
    eprintln!(
        "scrubbing on the generated set: {} of {total} planted values fully removed ({CATEGORIES} categories x 8, in 5 fields)",
        total - leaked
    );
    assert!(
        survived.is_empty(),
        "{leaked} of {total} planted values left a 6-character trace: {survived:#?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
