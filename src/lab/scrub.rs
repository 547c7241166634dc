//! Scrubbing evidence before it is persisted (the seed's persistence policy, building on the
//! reference's `scrub_trace_payload`): secrets, credentials, personal data and raw bodies
//! never reach a written file.

use regex::Regex;
use serde_json::{Map, Value};
use std::sync::LazyLock;

pub const MAX_STRING: usize = 240;

fn re(p: &str) -> Regex {
    Regex::new(p).expect("static pattern")
}

static SENSITIVE_KEY: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)authorization|cookie|token|api[ _-]?key|apikey|secret|password|passwd|session|x[-_]?user[-_]?id|user[-_]?id|credential|private[-_]?key|ssn|card[-_]?number|account[-_]?(number|no)|iban|phone|email|e-mail|address",
    )
});
static BODY_KEY: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?i)^(raw[-_]?)?((request|response)[-_]?)?body$|^(raw|payload|output|result|headers?)$")
});
static BEARER: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)\b(bearer|basic|token)\s+[A-Za-z0-9._~+/=-]{8,}"));
static JWT: LazyLock<Regex> =
    LazyLock::new(|| re(r"eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}"));
static EMAIL: LazyLock<Regex> = LazyLock::new(|| re(r"[\w.+-]+@[\w-]+(\.[\w-]+)+"));
static KEYLIKE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"\b(sk|pk|rk)[-_](live|test)?[-_]?[A-Za-z0-9]{12,}\b|\bgh[pousr]_[A-Za-z0-9]{20,}\b|\bAKIA[0-9A-Z]{16}\b|\bxox[abpr]-[A-Za-z0-9-]{10,}\b|\bAIza[0-9A-Za-z_-]{30,}\b",
    )
});
static KV_SECRET: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(password|passwd|pwd|secret|token|api[_-]?key|session(?:[_-]?id)?|sid|cookie|user[_-]?id|uid|auth)\s*[:=]\s*\S+",
    )
});
static IBAN: LazyLock<Regex> =
    LazyLock::new(|| re(r"\b[A-Z]{2}\d{2}(?:\s?[A-Z0-9]{4}){2,7}(?:\s?[A-Z0-9]{1,4})?\b"));
static CARD: LazyLock<Regex> = LazyLock::new(|| re(r"\b(?:\d[ -]?){13,19}\b"));
static ACCOUNT: LazyLock<Regex> = LazyLock::new(|| re(r"\b\d{2,6}-\d{2,6}-\d{2,8}(?:-\d{1,6})?\b"));
static PHONE: LazyLock<Regex> = LazyLock::new(|| re(r"\+?\d[\d -]{7,}\d"));
static HEX: LazyLock<Regex> = LazyLock::new(|| re(r"\b[0-9a-fA-F]{32,}\b"));
static STREET: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b\d{1,6}\s+(?:[a-z0-9.'-]+\s+){0,4}(street|st|avenue|ave|road|rd|boulevard|blvd|lane|ln|drive|dr|court|ct|way|place|pl|terrace|parkway)\b\.?",
    )
});
static KO_ADDRESS: LazyLock<Regex> = LazyLock::new(|| {
    re(r"[가-힣]+(?:시|도)\s*[가-힣]+(?:구|군|시)\s*[가-힣0-9]+(?:로|길|동)\s*\d+(?:-\d+)?")
});
static KO_ROAD: LazyLock<Regex> =
    LazyLock::new(|| re(r"[가-힣0-9]+(?:로|길)\s*\d+(?:-\d+)?(?:번길)?"));
static RRN: LazyLock<Regex> = LazyLock::new(|| re(r"\b\d{6}-[1-4]\d{6}\b"));
static USER_REF: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?i)\b(user|member|customer|account|회원|고객)[-_ ]?(id|no|번호)?[-_ #:=]*\d{4,}\b")
});

/// Scrubs one string: credentials, personal data and long secrets are replaced by markers,
/// then the result is cut to [`MAX_STRING`] characters.
pub fn scrub_str(s: &str) -> String {
    let mut t = BEARER.replace_all(s, "[REDACTED]").into_owned();
    for r in [&*JWT, &*KEYLIKE, &*KV_SECRET] {
        t = r.replace_all(&t, "[REDACTED]").into_owned();
    }
    t = EMAIL.replace_all(&t, "[REDACTED_EMAIL]").into_owned();
    t = RRN.replace_all(&t, "[REDACTED_ID]").into_owned();
    t = USER_REF.replace_all(&t, "[REDACTED_ID]").into_owned();
    t = IBAN.replace_all(&t, "[REDACTED_ACCOUNT]").into_owned();
    t = ACCOUNT.replace_all(&t, "[REDACTED_ACCOUNT]").into_owned();
    t = CARD.replace_all(&t, "[REDACTED_ACCOUNT]").into_owned();
    t = PHONE.replace_all(&t, "[REDACTED_PHONE]").into_owned();
    t = HEX.replace_all(&t, "[REDACTED]").into_owned();
    t = STREET.replace_all(&t, "[REDACTED_ADDRESS]").into_owned();
    t = KO_ADDRESS
        .replace_all(&t, "[REDACTED_ADDRESS]")
        .into_owned();
    t = KO_ROAD.replace_all(&t, "[REDACTED_ADDRESS]").into_owned();
    if t.chars().count() > MAX_STRING {
        let cut: String = t.chars().take(MAX_STRING).collect();
        t = format!("{}...", cut.trim_end());
    }
    t
}

/// Scrubs a JSON value: sensitive keys and raw bodies are replaced, strings scrubbed,
/// lists cut to 100 items.
pub fn scrub_value(v: &Value) -> Value {
    match v {
        Value::String(s) => Value::String(scrub_str(s)),
        Value::Array(items) => Value::Array(items.iter().take(100).map(scrub_value).collect()),
        Value::Object(o) => {
            let mut out = Map::new();
            for (k, v) in o {
                let key_redacted = SENSITIVE_KEY.is_match(k) || BODY_KEY.is_match(k);
                out.insert(
                    scrub_str(k),
                    if key_redacted {
                        Value::String("[REDACTED]".into())
                    } else {
                        scrub_value(v)
                    },
                );
            }
            Value::Object(out)
        }
        other => other.clone(),
    }
}

/// True when the string would be changed by scrubbing (used to flag scrubbed queries).
pub fn needs_scrub(s: &str) -> bool {
    scrub_str(s) != s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plants_are_removed() {
        let planted = [
            (
                "mail kim.minsu+test@example.co.kr about it",
                "example.co.kr",
            ),
            (
                "Authorization: Bearer abcdefghijklmnop1234",
                "abcdefghijklmnop1234",
            ),
            (
                "token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N",
                "eyJhbGci",
            ),
            ("call 010-1234-5678 now", "1234-5678"),
            ("call +1 415 555 0100", "555 0100"),
            ("ship to 221 Baker Street, London", "Baker Street"),
            ("서울특별시 강남구 테헤란로 152 으로 배송", "테헤란로 152"),
            ("account 110-234-567890 refund", "567890"),
            ("card 4111 1111 1111 1111", "4111 1111"),
            ("IBAN DE89 3704 0044 0532 0130 00", "3704 0044"),
            ("user_id=88231 orders", "88231"),
            ("member 1048576 points", "1048576"),
            ("key sk-live-abcdefghijklmnopqrstu", "abcdefghijklmnopqrstu"),
            ("aws AKIAIOSFODNN7EXAMPLE here", "AKIAIOSFODNN7EXAMPLE"),
            ("password: hunter2hunter2", "hunter2"),
            ("cookie=sessionid=abc123def456", "abc123def456"),
            (
                "hash 0123456789abcdef0123456789abcdef0123",
                "0123456789abcdef0123456789abcdef",
            ),
            ("주민번호 900101-1234567", "1234567"),
        ];
        for (text, secret) in planted {
            let s = scrub_str(text);
            assert!(!s.contains(secret), "{text:?} -> {s:?}");
        }
        assert_eq!(
            scrub_str("refund approval for order list"),
            "refund approval for order list"
        );
        assert_eq!(scrub_str("주문 취소해줘"), "주문 취소해줘");
    }

    #[test]
    fn sensitive_keys_and_bodies() {
        let v = serde_json::json!({
            "Authorization": "Basic Zm9vOmJhcg==", "cookie": "a=b", "user_id": 42, "response_body": {"x": 1},
            "headers": {"x-api-key": "k"}, "name": "listOrders", "nested": [{"session": "s"}]
        });
        let s = scrub_value(&v);
        let text = s.to_string();
        for bad in ["Zm9vOmJhcg", "a=b", "42", "\"x\":1", "\"k\""] {
            assert!(!text.contains(bad), "{bad} in {text}");
        }
        assert_eq!(s["name"], "listOrders");
    }
}
