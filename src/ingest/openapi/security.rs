//! An operation's security: the declared schemes as the `openapi.security` block and one
//! auth row per credential in the api-contract consumes (spec §1.5).

use serde_json::{Map, Value, json};

use super::{Ctx, s};
use crate::ingest::refs::Resolver;
use crate::ingest::row::Row;

/// `openapi.security`: the requirements (the operation's, else the spec's) and the declared
/// schemes; the auth rows join `consumes` (the api-contract consumes). None when the spec
/// has neither requirements nor schemes.
pub(super) fn security_block(ctx: &Ctx, op: &Value, consumes: &mut Vec<Row>) -> Option<Value> {
    let requirements: Option<&Vec<Value>> = op
        .get("security")
        .or_else(|| ctx.spec.get("security"))
        .and_then(Value::as_array);
    let schemes: Option<&Map<String, Value>> = if ctx.swagger {
        ctx.spec.get("securityDefinitions")
    } else {
        ctx.spec.pointer("/components/securitySchemes")
    }
    .and_then(Value::as_object);
    if !(requirements.is_some() || schemes.is_some_and(|m| !m.is_empty())) {
        return None;
    }
    let sch = declared_schemes(ctx.res, schemes);
    let reqs = requirements.cloned().unwrap_or_default();
    let rows = auth_rows(ctx.res, &reqs, schemes, consumes);
    // built in the reference's key order (merged scopes come last)
    consumes.extend(rows);
    Some(json!({"requirements": reqs, "schemes": sch}))
}

/// `openapi.security.schemes`: each declared scheme's type, name, location, HTTP scheme,
/// bearer format, OpenID Connect URL, OAuth flow names and description.
fn declared_schemes(res: &Resolver, schemes: Option<&Map<String, Value>>) -> Map<String, Value> {
    let mut sch = Map::new();
    for (name, sdef) in schemes.into_iter().flatten() {
        let sdef = res.deref(sdef);
        let mut m = Map::new();
        let o = sdef.as_object();
        let get = |k: &str| o.and_then(|o| o.get(k));
        for k in [
            "type",
            "name",
            "in",
            "scheme",
            "bearerFormat",
            "openIdConnectUrl",
        ] {
            if let Some(v) = get(k) {
                let key = if k == "bearerFormat" {
                    "bearer_format"
                } else {
                    k
                };
                let key = if key == "openIdConnectUrl" {
                    "openid_connect_url"
                } else {
                    key
                };
                m.insert(key.into(), v.clone());
            }
        }
        if let Some(f) = get("flows").and_then(Value::as_object) {
            m.insert(
                "oauth_flows".into(),
                Value::Array(f.keys().map(|x| json!(x)).collect()),
            );
        }
        // a Swagger 2.0 `flow` is not listed (the reference keeps only OpenAPI 3 flows)
        if let Some(d) = get("description") {
            m.insert("description".into(), d.clone());
        }
        sch.insert(name.clone(), Value::Object(m));
    }
    sch
}

/// One requirement's credential: the scheme, its requirement index and scopes.
struct Credential<'v> {
    scheme: &'v str,
    index: usize,
    scopes: &'v Value,
    def: &'v Value,
    ty: &'v str,
    /// the header, query or cookie name (`Authorization` for every scheme but apiKey)
    name: String,
    location: String,
    /// no requirement is the empty one (`{}`: anonymous access)
    required: bool,
}

/// The new auth rows: one per credential (name and location) that neither an earlier auth
/// row nor a declared parameter already is. A declared parameter that is a credential
/// becomes its auth row in place, in `consumes`.
fn auth_rows(
    res: &Resolver,
    reqs: &[Value],
    schemes: Option<&Map<String, Value>>,
    consumes: &mut [Row],
) -> Vec<Row> {
    let optional = reqs
        .iter()
        .any(|r| r.as_object().is_some_and(|m| m.is_empty()));
    let mut rows: Vec<Row> = Vec::new();
    for (i, r) in reqs.iter().enumerate() {
        for (name, scopes) in r.as_object().into_iter().flatten() {
            let Some(def) = schemes.and_then(|m| m.get(name)).map(|d| res.deref(d)) else {
                continue;
            };
            let ty = s(def.get("type")).unwrap_or("");
            let (cred, loc) = match ty {
                "apiKey" => (
                    s(def.get("name")).unwrap_or(name).to_string(),
                    s(def.get("in")).unwrap_or("header").to_string(),
                ),
                _ => ("Authorization".to_string(), "header".to_string()),
            };
            let c = Credential {
                scheme: name,
                index: i,
                scopes,
                def,
                ty,
                name: cred,
                location: loc,
                required: !optional,
            };
            if let Some(row) = rows
                .iter_mut()
                .find(|r| is_credential(r, "credential_name", &c))
            {
                join_auth_row(row, c.scheme, c.index, c.scopes);
                continue;
            }
            // a declared parameter that is this credential becomes its auth row, in place
            if let Some(row) = consumes
                .iter_mut()
                .find(|r| is_credential(r, "field_name", &c))
            {
                if row.get("kind").and_then(Value::as_str) == Some("auth") {
                    join_auth_row(row, c.scheme, c.index, c.scopes);
                } else {
                    make_auth_row(row, &c);
                }
                continue;
            }
            rows.push(new_auth_row(&c));
        }
    }
    rows
}

/// Whether a row's `name_key` and location are the credential's.
fn is_credential(row: &Row, name_key: &str, c: &Credential) -> bool {
    row.get(name_key).and_then(Value::as_str) == Some(c.name.as_str())
        && row.get("location").and_then(Value::as_str) == Some(c.location.as_str())
}

/// A declared parameter row turned into the credential's auth row.
fn make_auth_row(row: &mut Row, c: &Credential) {
    let declared = row.get("required").cloned().unwrap_or(json!(false));
    row.insert("required".into(), json!(false));
    row.insert("kind".into(), json!("auth"));
    if declared == json!(true) {
        row.insert("parameter_required".into(), declared);
    }
    row.insert("security_scheme".into(), json!(c.scheme));
    row.insert("auth_type".into(), json!(c.ty));
    row.insert("credential_name".into(), json!(c.name));
    put_http_scheme(row, c.def);
    row.insert("security_required".into(), json!(c.required));
    row.insert("security_schemes".into(), json!([c.scheme]));
    row.insert("requirement_indices".into(), json!([c.index]));
    row.insert(
        "scopes".into(),
        c.scopes.as_array().cloned().map_or(json!([]), Value::Array),
    );
}

/// The auth row of a credential no declared parameter is.
fn new_auth_row(c: &Credential) -> Row {
    let mut m = Row::new();
    m.insert("field_name".into(), json!(c.name));
    m.insert("field_type".into(), json!("string"));
    m.insert("required".into(), json!(false));
    m.insert("location".into(), json!(c.location));
    m.insert("kind".into(), json!("auth"));
    m.insert("security_required".into(), json!(c.required));
    m.insert("security_schemes".into(), json!([c.scheme]));
    m.insert("security_scheme".into(), json!(c.scheme));
    m.insert("auth_type".into(), json!(c.ty));
    m.insert("credential_name".into(), json!(c.name));
    m.insert("requirement_indices".into(), json!([c.index]));
    put_http_scheme(&mut m, c.def);
    if let Some(a) = c.scopes.as_array().filter(|a| !a.is_empty()) {
        m.insert("scopes".into(), Value::Array(a.clone()));
    }
    if let Some(d) = c.def.get("description") {
        m.insert("description".into(), d.clone());
    }
    m
}

/// Another security requirement met by an existing auth row: its scheme and requirement
/// index join the row, and its scopes join the row's (added after the row's other keys).
fn join_auth_row(row: &mut Row, scheme: &str, index: usize, scopes: &Value) {
    if let Some(Value::Array(a)) = row.get_mut("security_schemes")
        && !a.contains(&json!(scheme))
    {
        a.push(json!(scheme));
    }
    if let Some(Value::Array(a)) = row.get_mut("requirement_indices")
        && !a.contains(&json!(index))
    {
        a.push(json!(index));
    }
    if let Some(new) = scopes.as_array().filter(|a| !a.is_empty()) {
        match row.get_mut("scopes") {
            Some(Value::Array(have)) => {
                for sc in new {
                    if !have.contains(sc) {
                        have.push(sc.clone());
                    }
                }
            }
            _ => {
                row.insert("scopes".into(), Value::Array(new.clone()));
            }
        }
    }
}

/// An HTTP security scheme's `scheme` and `bearerFormat` on its auth row.
fn put_http_scheme(row: &mut Row, def: &Value) {
    if let Some(sc) = s(def.get("scheme")) {
        row.insert("scheme".into(), json!(sc));
    }
    if let Some(bf) = s(def.get("bearerFormat")) {
        row.insert("bearer_format".into(), json!(bf));
    }
}
