//! The GraphQL endpoint (`--endpoint URL`, the reference's `endpoint_url`): an absolute
//! http(s) URL without userinfo, fragment or sensitive query parameters (`token`,
//! `api_key`, `*_token`, …) becomes `base_url` (scheme + authority), `path` (path and
//! query, `/graphql` when the path is empty) and the execution endpoint. Anything else
//! leaves the tools unbound (`base_url` and endpoint null, path `/graphql`) with a blocker
//! issue, as the reference does. Nothing is fetched.

use serde_json::{Value, json};

use super::Issue;

/// Where the tools are sent, and the blocker when they cannot be.
#[derive(Clone, Debug)]
pub struct Endpoint {
    pub base_url: Option<String>,
    pub path: String,
    pub endpoint: Option<String>,
    pub issue: Option<Issue>,
}

const SENSITIVE: &[&str] = &[
    "token",
    "access_token",
    "api_key",
    "apikey",
    "key",
    "secret",
    "password",
    "auth",
    "authorization",
    "sig",
    "signature",
    "session",
    "client_secret",
    "jwt",
    "x_api_key",
    "refresh_token",
    "id_token",
    "credential",
    "oauth_token",
];
const SENSITIVE_SUFFIXES: &[&str] = &[
    "_token",
    "_secret",
    "_password",
    "_signature",
    "_api_key",
    "_credential",
];

fn unbound(issue: Issue) -> Endpoint {
    Endpoint {
        base_url: None,
        path: "/graphql".into(),
        endpoint: None,
        issue: Some(issue),
    }
}

fn invalid(keys: Vec<String>) -> Endpoint {
    unbound(Issue {
        severity: "blocker",
        code: "graphql_endpoint_invalid",
        message: "GraphQL endpoint must be an absolute HTTP(S) URL without userinfo \
                  credentials, sensitive query parameters, or a fragment.",
        tool: None,
        evidence: json!({"sensitive_query_keys": keys}),
    })
}

/// A query key as compared: percent-decoded, lower case, runs of other characters as `_`.
fn normalized_key(raw: &str) -> String {
    let decoded = percent_decode(&raw.replace('+', " "));
    let mut out = String::new();
    for c in decoded.chars().flat_map(char::to_lowercase) {
        if c.is_alphanumeric() {
            out.push(c);
        } else if !out.ends_with('_') {
            out.push('_');
        }
    }
    out.trim_matches('_').to_string()
}

fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%'
            && i + 2 < b.len()
            && let Ok(v) =
                u8::from_str_radix(std::str::from_utf8(&b[i + 1..i + 3]).unwrap_or("x"), 16)
        {
            out.push(v);
            i += 3;
            continue;
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn sensitive(key: &str) -> bool {
    SENSITIVE.contains(&key) || SENSITIVE_SUFFIXES.iter().any(|s| key.ends_with(s))
}

/// Checks an endpoint URL (`None` or empty: not given).
pub fn check(url: Option<&str>) -> Endpoint {
    let url = url.map(crate::pytext::strip).unwrap_or("");
    if url.is_empty() {
        return unbound(Issue {
            severity: "blocker",
            code: "graphql_endpoint_required",
            message: "GraphQL introspection does not include an endpoint URL. Pass \
                      endpoint_url to make generated tools executable.",
            tool: None,
            evidence: json!({}),
        });
    }
    let Some((scheme, rest)) = url.split_once("://") else {
        return invalid(Vec::new());
    };
    let scheme = scheme.to_ascii_lowercase();
    if scheme != "http" && scheme != "https" {
        return invalid(Vec::new());
    }
    let (rest, fragment) = match rest.split_once('#') {
        Some((r, f)) => (r, Some(f)),
        None => (rest, None),
    };
    let (rest, query) = match rest.split_once('?') {
        Some((r, q)) => (r, q),
        None => (rest, ""),
    };
    let (netloc, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, ""),
    };
    let mut keys: Vec<String> = query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| normalized_key(p.split_once('=').map_or(p, |(k, _)| k)))
        .filter(|k| sensitive(k))
        .collect();
    keys.sort();
    keys.dedup();
    if netloc.is_empty() || netloc.contains('@') || fragment.is_some_and(|f| !f.is_empty()) {
        return invalid(keys);
    }
    if !keys.is_empty() {
        return invalid(keys);
    }
    let mut path = if path.is_empty() {
        "/graphql".to_string()
    } else {
        path.to_string()
    };
    if !query.is_empty() {
        path.push('?');
        path.push_str(query);
    }
    let base = format!("{scheme}://{netloc}");
    Endpoint {
        endpoint: Some(format!("{base}{path}")),
        base_url: Some(base),
        path,
        issue: None,
    }
}

/// The endpoint issue's evidence keys, for tests.
pub fn evidence_keys(e: &Endpoint) -> Vec<String> {
    e.issue
        .as_ref()
        .and_then(|i| i.evidence.get("sensitive_query_keys"))
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(String::from)
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints_as_the_reference_reads_them() {
        let ok = check(Some("https://api.example.com/graphql"));
        assert_eq!(ok.base_url.as_deref(), Some("https://api.example.com"));
        assert_eq!(ok.path, "/graphql");
        assert!(ok.issue.is_none());
        let bare = check(Some("HTTPS://h?x=1"));
        assert_eq!(bare.endpoint.as_deref(), Some("https://h/graphql?x=1"));
        assert_eq!(check(Some("https://h/g#")).path, "/g");
        assert_eq!(check(None).issue.unwrap().code, "graphql_endpoint_required");
        assert_eq!(
            check(Some("  ")).issue.unwrap().code,
            "graphql_endpoint_required"
        );
        for bad in [
            "ftp://x/y",
            "not a url",
            "/rel",
            "https://u:p@h/g",
            "https:///g",
        ] {
            assert_eq!(
                check(Some(bad)).issue.unwrap().code,
                "graphql_endpoint_invalid",
                "{bad}"
            );
        }
        let e = check(Some(
            "https://h/g?b=1&token=2&Api-Key=3&a%20token=4&token_=5",
        ));
        assert_eq!(evidence_keys(&e), ["a_token", "api_key", "token"]);
        assert!(
            check(Some("https://h/g?private_key=1&tokens=2"))
                .issue
                .is_none()
        );
    }
}
