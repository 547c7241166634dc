//! Arazzo runtime expressions as graph-tool-call 0.47.0 reads them when it turns workflow
//! steps into relations: references to earlier steps' outputs (`$steps.ID.outputs.NAME`,
//! `$workflows.WF.steps.ID.outputs.NAME`, each with an optional `#/pointer` suffix) found
//! anywhere inside a string, the JSON path a step output names (`$response.body#/a/0` →
//! `$.a[0]`, `$response.header.X` → `$.headers.X`), and the field a request-body position
//! names (`requestBody.payload.user.id` → `id`).

use std::sync::LazyLock;

use regex::Regex;

/// One reference to a step output inside a string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputRef {
    /// `Some(workflow)` for `$workflows.WF.steps…`, `None` for `$steps…` (this workflow).
    pub workflow: Option<String>,
    pub step: String,
    pub output: String,
    /// The `#…` suffix, `#` included (empty when there is none).
    pub suffix: String,
    /// The whole matched expression.
    pub expression: String,
}

/// A step or workflow id as expressions spell it (ASCII letters, digits, `_`, `-`); an
/// output name may also hold dots; a suffix runs to whitespace (Python's `str.isspace`),
/// a quote or `}`.
const SUFFIX: &str = r#"(#[^\s\x1c-\x1f"'}]+)?"#;

static STEP_REF: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(
        r"\$steps\.([A-Za-z0-9_-]+)\.outputs\.([A-Za-z0-9._-]+){SUFFIX}"
    ))
    .expect("step reference pattern")
});

static WORKFLOW_REF: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(
        r"\$workflows\.([A-Za-z0-9_-]+)\.steps\.([A-Za-z0-9_-]+)\.outputs\.([A-Za-z0-9._-]+){SUFFIX}"
    ))
    .expect("workflow step reference pattern")
});

/// Every output reference in `s`: first the `$steps…` ones, then the `$workflows…` ones,
/// each kind left to right.
pub fn output_refs(s: &str) -> Vec<OutputRef> {
    let mut out = Vec::new();
    if s.contains("$steps.") {
        for c in STEP_REF.captures_iter(s) {
            out.push(OutputRef {
                workflow: None,
                step: c[1].to_string(),
                output: c[2].to_string(),
                suffix: c.get(3).map_or("", |m| m.as_str()).to_string(),
                expression: c[0].to_string(),
            });
        }
    }
    if s.contains("$workflows.") {
        for c in WORKFLOW_REF.captures_iter(s) {
            out.push(OutputRef {
                workflow: Some(c[1].to_string()),
                step: c[2].to_string(),
                output: c[3].to_string(),
                suffix: c.get(4).map_or("", |m| m.as_str()).to_string(),
                expression: c[0].to_string(),
            });
        }
    }
    out
}

/// A JSON pointer as a JSON path: `""` → `$`, `/a/0/b` → `$.a[0].b` (leading slashes are
/// dropped, `~1` and `~0` decoded, all-digit segments in brackets).
pub fn pointer_to_path(pointer: &str) -> String {
    if pointer.is_empty() {
        return "$".into();
    }
    let mut out = String::from("$");
    for seg in pointer.trim_start_matches('/').split('/') {
        let seg = seg.replace("~1", "/").replace("~0", "~");
        if !seg.is_empty() && seg.chars().all(crate::pytext::is_digit) {
            out.push('[');
            out.push_str(&seg);
            out.push(']');
        } else {
            out.push('.');
            out.push_str(&seg);
        }
    }
    out
}

/// The JSON path a step output expression names: `$response.body…` (an optional `#`,
/// then a pointer) or `$response.header.NAME`; anything else (a status code, a request
/// value, an input, a non-string output) names none (`""`). A reference's `#…` suffix
/// continues the path.
pub fn response_path(output: Option<&serde_json::Value>, suffix: &str) -> String {
    let Some(serde_json::Value::String(v)) = output else {
        return String::new();
    };
    let v = crate::pytext::strip(v);
    let base = if let Some(rest) = v.strip_prefix("$response.body") {
        pointer_to_path(rest.strip_prefix('#').unwrap_or(rest))
    } else if let Some(name) = v.strip_prefix("$response.header.") {
        format!("$.headers.{name}")
    } else {
        return String::new();
    };
    match suffix.strip_prefix('#') {
        Some(p) => base + &pointer_to_path(p)[1..],
        None => base,
    }
}

/// The field a request-body position names: its last segment that is not a bracketed
/// index, empty, or one of the request body's own keys (`requestBody`, `payload`,
/// `contentType`, `replacements`); `""` when there is none.
pub fn request_body_field(path: &str) -> String {
    static INDEX: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"\.|\[\d+\]").expect("index pattern"));
    INDEX
        .split(path)
        .filter(|s| {
            !s.is_empty()
                && !matches!(
                    *s,
                    "requestBody" | "payload" | "contentType" | "replacements"
                )
        })
        .last()
        .unwrap_or("")
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn paths_of_response_expressions() {
        let p = |v: &str, s: &str| response_path(Some(&json!(v)), s);
        assert_eq!(p("$response.body", ""), "$");
        assert_eq!(p("$response.body#/items/0/id", ""), "$.items[0].id");
        assert_eq!(p("$response.body#/", ""), "$.");
        assert_eq!(p("$response.body#//x", ""), "$.x");
        assert_eq!(p("$response.body##/x", ""), "$.#.x");
        assert_eq!(p("$response.body #/x", ""), "$. #.x");
        assert_eq!(p("$response.body#/a~1b/c~0d/~01", ""), "$.a/b.c~d.~1");
        assert_eq!(p("$response.body#/items/²", ""), "$.items[²]");
        assert_eq!(p(" $response.header.X-Rate ", ""), "$.headers.X-Rate");
        assert_eq!(p("$response.header.", "#/x"), "$.headers..x");
        assert_eq!(p("$response.headers.X", ""), "");
        assert_eq!(p("$statusCode", "#/x"), "");
        assert_eq!(p("$response.body", "#0"), "$[0]");
        assert_eq!(p("$response.body#/data", "#/id/0"), "$.data.id[0]");
        assert_eq!(response_path(Some(&json!(5)), ""), "");
        assert_eq!(response_path(None, ""), "");
    }

    #[test]
    fn references_in_strings() {
        let r = output_refs(
            "$workflows.w.steps.a.outputs.h and {$steps.a.outputs.x} $steps.b.outputs.y.#/z'q",
        );
        let got: Vec<(Option<&str>, &str, &str, &str)> = r
            .iter()
            .map(|r| {
                (
                    r.workflow.as_deref(),
                    r.step.as_str(),
                    r.output.as_str(),
                    r.suffix.as_str(),
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                (None, "a", "x", ""),
                (None, "b", "y.", "#/z"),
                (Some("w"), "a", "h", "")
            ]
        );
        assert!(output_refs("$Steps.a.outputs.x $steps..outputs.x").is_empty());
    }

    #[test]
    fn request_body_fields() {
        assert_eq!(request_body_field("requestBody.payload"), "");
        assert_eq!(request_body_field("requestBody.payload.a[1]x"), "x");
        assert_eq!(request_body_field("requestBody.payload.x3.[0]"), "x3");
        assert_eq!(
            request_body_field("requestBody.replacements[0].value"),
            "value"
        );
        assert_eq!(request_body_field("requestBody.payload.x7.a[b]"), "a[b]");
        assert_eq!(request_body_field("requestBody.payload.x12.a.payload"), "a");
        assert_eq!(request_body_field("requestBody.payload.1.5"), "5");
    }
}
