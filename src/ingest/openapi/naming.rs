//! Tool names of operations: the reference's generated `<method>_<path slug>` for an
//! operation without an operationId, and the suffix that tells duplicate names apart.

/// A path segment as it appears in generated names: `{id}` -> `by_id`.
fn segment_slug(seg: &str) -> String {
    match seg.strip_prefix('{').and_then(|x| x.strip_suffix('}')) {
        Some(p) => format!("by_{p}"),
        None => seg.to_string(),
    }
}

/// `slug` with each character mapped by `map` and runs of `_` collapsed to one.
fn collapse_underscores(slug: &str, map: impl Fn(char) -> char) -> String {
    let mut out = String::new();
    for c in slug.chars().map(map) {
        if c == '_' && out.ends_with('_') {
            continue;
        }
        out.push(c);
    }
    out
}

/// `"<method>_<slug>"` for operations without an operationId.
pub(super) fn generated_op_id(method: &str, path: &str) -> String {
    let slug: Vec<String> = path
        .trim_matches('/')
        .split('/')
        .map(segment_slug)
        .collect();
    let out = collapse_underscores(
        &slug.join("/"),
        |c| {
            if c == '/' || c == '-' { '_' } else { c }
        },
    );
    format!("{method}_{out}")
}

pub(super) fn dedupe_suffix(method: &str, path: &str) -> String {
    let slug: String = path
        .split('/')
        .filter(|seg| !seg.is_empty())
        .map(|seg| format!("_{}", segment_slug(seg)))
        .collect();
    let out = collapse_underscores(&slug, |c| {
        if c.is_alphanumeric() || c == '_' {
            c
        } else {
            '_'
        }
    });
    format!("{method}_{}", out.trim_matches('_'))
}
