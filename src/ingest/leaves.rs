//! Leaf fields of a resolved JSON Schema (the io contract walker of graph-tool-call 0.47.0,
//! `extract_leaves`): every primitive (or opaque) field reachable from the root with its
//! JSONPath (`$.items[*].id`), and the row layout the OpenAPI metadata stores for it.
//!
//! Rules reproduced here:
//! * the walk stops below depth 8 (properties and array items count one level each, a
//!   `oneOf`/`anyOf` branch one more); a property whose subtree yields nothing is kept as one
//!   opaque leaf typed from its own schema (`object` when untyped);
//! * `allOf` is merged first (properties, `required`, nested `oneOf`/`anyOf` branches,
//!   `readOnly`/`writeOnly`/`deprecated`/`nullable`, `additionalProperties`); a merge that
//!   yields no properties leaves the schema untyped (so its leaf is a `string`);
//! * a nullable union (`anyOf: [X, {type: null}]`) is X marked nullable;
//! * `oneOf`/`anyOf` branches are unioned: every branch's leaves are tagged with the
//!   combinator, branch index and count; a branch's `required` becomes `required_in_branch`;
//!   duplicate (path, name) leaves are merged (branches, enums and hints combined);
//!   discriminators add their property (values from `const`, single `enum` or `mapping`);
//! * `additionalProperties` objects become map leaves under `<path>.*`.

use super::row::Row;
use serde_json::{Map, Value};

use super::refs::REF_MARKER;
use crate::pytext::truthy;

const MAX_DEPTH: usize = 8;
const MAX_VALUE_CHARS: usize = 2_000;

#[derive(Clone, Debug, Default)]
pub struct Leaf {
    pub json_path: String,
    pub field_name: String,
    pub field_type: String,
    pub required: bool,
    pub description: String,
    pub enum_values: Vec<Value>,
    pub format: String,
    pub default: Option<Value>,
    pub example: Option<Value>,
    pub nullable: bool,
    pub pattern: String,
    pub minimum: Option<Value>,
    pub maximum: Option<Value>,
    pub min_length: Option<Value>,
    pub max_length: Option<Value>,
    pub min_items: Option<Value>,
    pub max_items: Option<Value>,
    pub min_properties: Option<Value>,
    pub max_properties: Option<Value>,
    pub multiple_of: Option<Value>,
    pub const_value: Option<Value>,
    pub exclusive_minimum: Option<Value>,
    pub exclusive_maximum: Option<Value>,
    pub read_only: bool,
    pub write_only: bool,
    pub deprecated: bool,
    pub schema_ref: String,
    pub schema_combinator: String,
    pub schema_branch: Option<i64>,
    pub schema_branch_count: Option<i64>,
    pub schema_branches: Vec<i64>,
    pub required_in_branch: bool,
    pub discriminator_property: String,
    pub discriminator_value: Option<Value>,
    pub discriminator_values: Vec<Value>,
    pub additional_properties: bool,
    pub map_value: bool,
    pub map_key_placeholder: String,
}

/// What a parent passes down the walk.
#[derive(Clone, Debug, Default)]
struct Inherit {
    read_only: bool,
    write_only: bool,
    deprecated: bool,
    combinator: String,
    branch: Option<i64>,
    branch_count: Option<i64>,
    alternative: bool,
    disc_property: String,
    disc_value: Option<Value>,
    schema_ref: String,
}

fn get<'a>(schema: &'a Map<String, Value>, k: &str) -> Option<&'a Value> {
    look(schema, k).filter(|v| !v.is_null())
}

/// `m.get(k)`: a property schema has a handful of keys, and comparing them in order is
/// cheaper than hashing the key (the map's hasher is SipHash).
pub fn look<'a>(m: &'a Map<String, Value>, k: &str) -> Option<&'a Value> {
    if m.len() <= 8 {
        m.iter().find(|(x, _)| x.as_str() == k).map(|(_, v)| v)
    } else {
        m.get(k)
    }
}

/// Python `str(x or "")`.
fn py_str_or_empty(v: Option<&Value>) -> String {
    match v {
        Some(x) if truthy(x) => match x {
            Value::String(s) => s.clone(),
            o => crate::pytext::py_str(o),
        },
        _ => String::new(),
    }
}

fn first_chars(s: &str, n: usize) -> String {
    match s.char_indices().nth(n) {
        Some((i, _)) => s[..i].to_string(),
        None => s.to_string(),
    }
}

/// JSON Schema `type` (string or list): the first non-null entry, else "".
pub fn normalize_type(t: Option<&Value>) -> String {
    match t {
        Some(Value::Array(a)) => a
            .iter()
            .find(|x| truthy(x) && x.as_str() != Some("null"))
            .map(|x| match x {
                Value::String(s) => s.clone(),
                o => crate::pytext::py_str(o),
            })
            .unwrap_or_default(),
        Some(Value::String(s)) => s.clone(),
        Some(x) if truthy(x) => crate::pytext::py_str(x),
        _ => String::new(),
    }
}

fn is_null_schema(v: &Value) -> bool {
    v.get("type").and_then(Value::as_str) == Some("null")
}

pub fn schema_nullable(schema: &Value) -> bool {
    schema.as_object().is_some_and(schema_nullable_map)
}

/// `enum` values plus `const` when not already listed.
pub fn schema_enum(schema: &Value) -> Vec<Value> {
    match schema.as_object() {
        Some(m) => schema_enum_map(m),
        None => Vec::new(),
    }
}

fn schema_enum_map(m: &Map<String, Value>) -> Vec<Value> {
    let mut values: Vec<Value> = match look(m, "enum") {
        Some(Value::Array(a)) => a.clone(),
        _ => Vec::new(),
    };
    if let Some(c) = look(m, "const")
        && !values.contains(c)
    {
        values.push(c.clone());
    }
    values
}

fn merge_list(left: &mut Vec<Value>, right: &[Value]) {
    for v in right {
        if !left.contains(v) {
            left.push(v.clone());
        }
    }
}

fn merge_ints(left: &mut Vec<i64>, right: &[i64]) {
    for v in right {
        if !left.contains(v) {
            left.push(*v);
        }
    }
}

/// `allOf` merged into one object schema (recursively).
fn resolve_combinators(schema: &Map<String, Value>) -> Option<Map<String, Value>> {
    merge_all_of(schema, true)
}

/// `allOf` merged into one object schema, recursively: properties, required, nested unions,
/// the readOnly/writeOnly/deprecated/nullable flags and, with `additional`, the first object
/// `additionalProperties`. `None` when there is no `allOf`.
pub fn merge_all_of(schema: &Map<String, Value>, additional: bool) -> Option<Map<String, Value>> {
    let Some(Value::Array(all)) = schema.get("allOf") else {
        return None;
    };
    let mut merged_props: Map<String, Value> = schema
        .get("properties")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let mut merged_required: Vec<Value> = match schema.get("required") {
        Some(Value::Array(a)) => a.clone(),
        _ => Vec::new(),
    };
    let mut out: Map<String, Value> = schema
        .iter()
        .filter(|(k, _)| *k != "allOf")
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    for sub in all {
        let Some(sub) = sub.as_object() else { continue };
        let owned;
        let sub = match merge_all_of(sub, additional) {
            Some(m) => {
                owned = m;
                &owned
            }
            None => sub,
        };
        if let Some(Value::Object(p)) = sub.get("properties") {
            for (k, v) in p {
                merged_props.insert(k.clone(), v.clone());
            }
        }
        if let Some(Value::Array(r)) = sub.get("required") {
            for x in r {
                if !merged_required.contains(x) {
                    merged_required.push(x.clone());
                }
            }
        }
        for key in ["oneOf", "anyOf"] {
            if let Some(Value::Array(c)) = sub.get(key)
                && !c.is_empty()
            {
                let e = out
                    .entry(key.to_string())
                    .or_insert_with(|| Value::Array(Vec::new()));
                if let Value::Array(a) = e {
                    a.extend(c.iter().cloned());
                }
            }
        }
        for key in ["readOnly", "writeOnly", "deprecated", "nullable"] {
            if let Some(v) = sub.get(key)
                && truthy(v)
                && !out.contains_key(key)
            {
                out.insert(key.to_string(), v.clone());
            }
        }
        if additional
            && let Some(ap @ Value::Object(_)) = sub.get("additionalProperties")
            && !out.contains_key("additionalProperties")
        {
            out.insert("additionalProperties".into(), ap.clone());
        }
    }
    if !merged_props.is_empty() {
        out.insert("type".into(), Value::String("object".into()));
        out.insert("properties".into(), Value::Object(merged_props));
    }
    if !merged_required.is_empty() {
        out.insert("required".into(), Value::Array(merged_required));
    }
    Some(out)
}

/// A union with `{type: null}` branches: the null branches dropped and the schema marked
/// nullable; a single remaining branch replaces the union.
fn flatten_nullable_union(schema: Map<String, Value>) -> Map<String, Value> {
    let mut out = schema;
    let mut nullable = schema_nullable_map(&out);
    for key in ["anyOf", "oneOf"] {
        let Some(Value::Array(c)) = out.get(key) else {
            continue;
        };
        let non_null: Vec<Value> = c.iter().filter(|x| !is_null_schema(x)).cloned().collect();
        if non_null.len() == c.len() {
            continue;
        }
        nullable = true;
        if non_null.len() == 1
            && let Value::Object(only) = &non_null[0]
        {
            let mut merged: Map<String, Value> = out
                .iter()
                .filter(|(k, _)| *k != "anyOf" && *k != "oneOf")
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            for (k, v) in only {
                merged.insert(k.clone(), v.clone());
            }
            merged.insert("nullable".into(), Value::Bool(true));
            return merged;
        }
        out.insert(key.to_string(), Value::Array(non_null));
    }
    if nullable {
        out.insert("nullable".into(), Value::Bool(true));
    }
    out
}

/// Whether `flatten_nullable_union` would change the schema.
fn needs_null_flatten(m: &Map<String, Value>) -> bool {
    if !schema_nullable_map(m) {
        return false;
    }
    let has_null_branch = ["anyOf", "oneOf"].iter().any(|k| {
        m.get(*k)
            .and_then(Value::as_array)
            .is_some_and(|c| c.iter().any(is_null_schema))
    });
    has_null_branch || m.get("nullable") != Some(&Value::Bool(true))
}

fn schema_nullable_map(m: &Map<String, Value>) -> bool {
    if look(m, "nullable").is_some_and(truthy) || look(m, "x-nullable").is_some_and(truthy) {
        return true;
    }
    if let Some(Value::Array(t)) = look(m, "type")
        && t.iter().any(|x| x.as_str() == Some("null"))
    {
        return true;
    }
    for k in ["anyOf", "oneOf"] {
        if let Some(Value::Array(c)) = look(m, k)
            && c.iter().any(is_null_schema)
        {
            return true;
        }
    }
    false
}

/// The trailing field name of a JSONPath (`$.a.b[*]` → `b`); "" at the root.
pub fn last_path_segment(path: &str) -> &str {
    if path.is_empty() || path == "$" {
        return "";
    }
    let last = path.rsplit('.').next().unwrap_or(path);
    last.strip_suffix("[*]").unwrap_or(last)
}

/// A leaf described by `schema` itself (primitive, opaque or map value).
fn leaf_from(
    schema: &Map<String, Value>,
    json_path: String,
    field_name: String,
    field_type: String,
    required: bool,
    inh: &Inherit,
) -> Leaf {
    let g = |k: &str| get(schema, k).cloned();
    Leaf {
        json_path,
        field_name,
        field_type,
        required: required && !inh.alternative,
        description: first_chars(&py_str_or_empty(look(schema, "description")), 200),
        enum_values: schema_enum_map(schema),
        format: py_str_or_empty(look(schema, "format")),
        default: g("default"),
        example: g("example"),
        nullable: schema_nullable_map(schema),
        pattern: py_str_or_empty(look(schema, "pattern")),
        minimum: g("minimum"),
        maximum: g("maximum"),
        const_value: g("const"),
        exclusive_minimum: g("exclusiveMinimum"),
        exclusive_maximum: g("exclusiveMaximum"),
        min_length: g("minLength"),
        max_length: g("maxLength"),
        min_items: g("minItems"),
        max_items: g("maxItems"),
        min_properties: g("minProperties"),
        max_properties: g("maxProperties"),
        multiple_of: g("multipleOf"),
        read_only: inh.read_only,
        write_only: inh.write_only,
        deprecated: inh.deprecated,
        schema_ref: inh.schema_ref.clone(),
        schema_combinator: inh.combinator.clone(),
        schema_branch: inh.branch,
        schema_branch_count: inh.branch_count,
        schema_branches: inh.branch.into_iter().collect(),
        required_in_branch: if inh.alternative { required } else { false },
        discriminator_property: inh.disc_property.clone(),
        discriminator_value: inh.disc_value.clone(),
        discriminator_values: inh.disc_value.clone().into_iter().collect(),
        additional_properties: false,
        map_value: false,
        map_key_placeholder: String::new(),
    }
}

/// All leaves of `schema` (already `$ref`-resolved) from the JSON root `$`.
pub fn extract_leaves(schema: &Value) -> Vec<Leaf> {
    extract_leaves_at(schema, "$")
}

/// All leaves of `schema` with paths under `base`.
pub fn extract_leaves_at(schema: &Value, base: &str) -> Vec<Leaf> {
    let mut out = Vec::new();
    walk(schema, base, false, 0, &Inherit::default(), &mut out);
    out
}

/// The walkers append the leaves they find to `out` (a leaf moves once, not once per
/// level); a caller that needs to know whether a subtree had leaves compares lengths.
fn walk(
    schema: &Value,
    base: &str,
    parent_required: bool,
    depth: usize,
    inh: &Inherit,
    out: &mut Vec<Leaf>,
) {
    if let Some(m) = schema.as_object() {
        walk_map(m, base, parent_required, depth, inh, out)
    }
}

fn walk_map(
    m: &Map<String, Value>,
    base: &str,
    parent_required: bool,
    depth: usize,
    inh: &Inherit,
    out: &mut Vec<Leaf>,
) {
    if depth > MAX_DEPTH {
        return;
    }
    use std::borrow::Cow;
    let resolved: Cow<'_, Map<String, Value>> = match resolve_combinators(m) {
        Some(r) => Cow::Owned(r),
        None => Cow::Borrowed(m),
    };
    let schema: Cow<'_, Map<String, Value>> = if needs_null_flatten(&resolved) {
        Cow::Owned(flatten_nullable_union(resolved.into_owned()))
    } else {
        resolved
    };
    let schema: &Map<String, Value> = &schema;
    let schema_ref = if inh.schema_ref.is_empty() {
        py_str_or_empty(schema.get(REF_MARKER))
    } else {
        inh.schema_ref.clone()
    };
    let read_only = inh.read_only || schema.get("readOnly").is_some_and(truthy);
    let write_only = inh.write_only || schema.get("writeOnly").is_some_and(truthy);
    let deprecated = inh.deprecated || schema.get("deprecated").is_some_and(truthy);
    let here = Inherit {
        read_only,
        write_only,
        deprecated,
        schema_ref,
        ..inh.clone()
    };
    if let Some(alt) = alternatives(schema, base, parent_required, depth, &here) {
        out.extend(alt);
        return;
    }
    let ty = normalize_type(schema.get("type"));
    if ty == "object" || schema.contains_key("properties") {
        return walk_object(schema, base, parent_required, depth, &here, out);
    }
    if ty == "array" {
        let empty = Value::Object(Map::new());
        let items = schema.get("items").filter(|v| truthy(v)).unwrap_or(&empty);
        return walk(
            items,
            &format!("{base}[*]"),
            parent_required,
            depth + 1,
            &here,
            out,
        );
    }
    let name = last_path_segment(base);
    if name.is_empty() {
        return;
    }
    let ty = if ty.is_empty() { "string".into() } else { ty };
    out.push(leaf_from(
        schema,
        base.to_string(),
        name.to_string(),
        ty,
        parent_required,
        &here,
    ));
}

fn walk_object(
    schema: &Map<String, Value>,
    base: &str,
    parent_required: bool,
    depth: usize,
    inh: &Inherit,
    leaves: &mut Vec<Leaf>,
) {
    let required: Vec<&Value> = match schema.get("required") {
        Some(Value::Array(a)) => a.iter().collect(),
        _ => Vec::new(),
    };
    if let Some(Value::Object(props)) = schema.get("properties") {
        for (name, prop) in props {
            let child = format!("{base}.{name}");
            let is_required = required.iter().any(|r| r.as_str() == Some(name.as_str()));
            let before = leaves.len();
            walk(prop, &child, is_required, depth + 1, inh, leaves);
            if leaves.len() > before {
                continue;
            }
            // an object/array without resolvable children stays one opaque leaf
            let empty = Map::new();
            let pm = prop.as_object().unwrap_or(&empty);
            let mut ty = normalize_type(pm.get("type"));
            if ty.is_empty() {
                ty = "object".into();
            }
            let own = Inherit {
                read_only: inh.read_only || pm.get("readOnly").is_some_and(truthy),
                write_only: inh.write_only || pm.get("writeOnly").is_some_and(truthy),
                deprecated: inh.deprecated || pm.get("deprecated").is_some_and(truthy),
                schema_ref: if inh.schema_ref.is_empty() {
                    py_str_or_empty(pm.get(REF_MARKER))
                } else {
                    inh.schema_ref.clone()
                },
                ..inh.clone()
            };
            leaves.push(leaf_from(pm, child, name.clone(), ty, is_required, &own));
        }
    }
    walk_additional(schema, base, parent_required, depth, inh, leaves);
}

fn walk_additional(
    schema: &Map<String, Value>,
    base: &str,
    parent_required: bool,
    depth: usize,
    inh: &Inherit,
    out: &mut Vec<Leaf>,
) {
    let Some(additional) = schema
        .get("additionalProperties")
        .and_then(Value::as_object)
        .filter(|a| !a.is_empty())
    else {
        return;
    };
    let map_path = format!("{base}.*");
    let own_ref = if inh.schema_ref.is_empty() {
        py_str_or_empty(additional.get(REF_MARKER))
    } else {
        inh.schema_ref.clone()
    };
    let child = Inherit {
        schema_ref: own_ref.clone(),
        ..inh.clone()
    };
    let start = out.len();
    walk_map(
        additional,
        &map_path,
        parent_required,
        depth + 1,
        &child,
        out,
    );
    let parent = last_path_segment(base);
    if out.len() == start && !parent.is_empty() {
        let mut ty = normalize_type(additional.get("type"));
        if ty.is_empty() {
            ty = "object".into();
        }
        let own = Inherit {
            read_only: inh.read_only || additional.get("readOnly").is_some_and(truthy),
            write_only: inh.write_only || additional.get("writeOnly").is_some_and(truthy),
            deprecated: inh.deprecated || additional.get("deprecated").is_some_and(truthy),
            schema_ref: own_ref.clone(),
            ..inh.clone()
        };
        out.push(leaf_from(
            additional,
            map_path.clone(),
            parent.to_string(),
            ty,
            parent_required,
            &own,
        ));
    }
    // this map's leaves: a `*` name is the map's own name (dropped when it has none)
    let mut i = start;
    while i < out.len() {
        if out[i].field_name == "*" && parent.is_empty() {
            out.remove(i);
            continue;
        }
        let leaf = &mut out[i];
        i += 1;
        if leaf.field_name == "*" {
            leaf.field_name = parent.to_string();
        }
        leaf.required = false;
        leaf.required_in_branch = false;
        leaf.additional_properties = true;
        leaf.map_value = true;
        leaf.map_key_placeholder = "*".into();
        if leaf.schema_ref.is_empty() {
            leaf.schema_ref = own_ref.clone();
        }
    }
}

fn has_extractable_shape(schema: &Map<String, Value>, base: &str) -> bool {
    if schema.is_empty() {
        return false;
    }
    if schema
        .get("properties")
        .and_then(Value::as_object)
        .is_some_and(|p| !p.is_empty())
    {
        return true;
    }
    if schema
        .get("additionalProperties")
        .and_then(Value::as_object)
        .is_some_and(|p| !p.is_empty())
    {
        return true;
    }
    let ty = normalize_type(schema.get("type"));
    if ty == "array" && schema.get("items").is_some_and(Value::is_object) {
        return true;
    }
    base != "$"
        && (!matches!(ty.as_str(), "" | "object" | "array")
            || schema.get("enum").is_some_and(truthy))
}

pub fn discriminator_property(schema: &Map<String, Value>) -> String {
    match schema.get("discriminator") {
        Some(Value::Object(d)) => py_str_or_empty(d.get("propertyName")).trim().to_string(),
        _ => String::new(),
    }
}

pub fn branch_discriminator_value(
    schema: &Map<String, Value>,
    candidate: &Map<String, Value>,
    index: usize,
    branch_count: usize,
    property: &str,
) -> Option<Value> {
    if property.is_empty() {
        return None;
    }
    if let Some(Value::Object(props)) = candidate.get("properties")
        && let Some(Value::Object(p)) = props.get(property)
    {
        if let Some(c) = p.get("const") {
            return Some(c.clone());
        }
        if let Some(Value::Array(e)) = p.get("enum")
            && e.len() == 1
        {
            return Some(e[0].clone());
        }
    }
    if let Some(Value::Object(d)) = schema.get("discriminator")
        && let Some(Value::Object(mapping)) = d.get("mapping")
        && !mapping.is_empty()
    {
        let sref = py_str_or_empty(candidate.get(REF_MARKER));
        for (value, r) in mapping {
            let rs = match r {
                Value::String(s) => s.clone(),
                o => crate::pytext::py_str(o),
            };
            if !sref.is_empty() && rs == sref {
                return Some(Value::String(value.clone()));
            }
        }
        if mapping.len() == branch_count {
            return mapping.keys().nth(index).map(|k| Value::String(k.clone()));
        }
    }
    None
}

fn alternatives(
    schema: &Map<String, Value>,
    base: &str,
    parent_required: bool,
    depth: usize,
    inh: &Inherit,
) -> Option<Vec<Leaf>> {
    for key in ["oneOf", "anyOf"] {
        let Some(Value::Array(raw)) = schema.get(key) else {
            continue;
        };
        let candidates: Vec<&Map<String, Value>> = raw
            .iter()
            .filter(|c| !is_null_schema(c))
            .filter_map(Value::as_object)
            .collect();
        if candidates.is_empty() {
            continue;
        }
        let mut leaves = Vec::new();
        // the schema without its unions (only built when it has a shape of its own)
        let only_unions = schema.keys().all(|k| k == "oneOf" || k == "anyOf");
        if !only_unions && has_extractable_shape(schema, base) {
            let base_schema: Map<String, Value> = schema
                .iter()
                .filter(|(k, _)| *k != "oneOf" && *k != "anyOf")
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            let b = Inherit {
                disc_property: String::new(),
                disc_value: None,
                ..inh.clone()
            };
            walk_map(&base_schema, base, parent_required, depth, &b, &mut leaves);
        }
        let count = candidates.len();
        let disc = discriminator_property(schema);
        let mut disc_values: Vec<Value> = Vec::new();
        for (i, cand) in candidates.iter().enumerate() {
            let cref = match cand.get(REF_MARKER) {
                Some(v) if truthy(v) => py_str_or_empty(Some(v)),
                _ => inh.schema_ref.clone(),
            };
            let dv = branch_discriminator_value(schema, cand, i, count, &disc);
            if let Some(v) = &dv {
                disc_values.push(v.clone());
            }
            let b = Inherit {
                combinator: key.to_string(),
                branch: Some(i as i64),
                branch_count: Some(count as i64),
                alternative: true,
                disc_property: disc.clone(),
                disc_value: dv,
                schema_ref: cref,
                ..inh.clone()
            };
            walk_map(cand, base, parent_required, depth + 1, &b, &mut leaves);
        }
        if !disc.is_empty() {
            apply_discriminator(&mut leaves, base, &disc, &disc_values, key, count);
        }
        return Some(merge_duplicates(leaves));
    }
    None
}

fn apply_discriminator(
    leaves: &mut Vec<Leaf>,
    base: &str,
    field: &str,
    values: &[Value],
    combinator: &str,
    count: usize,
) {
    let mut any = false;
    for leaf in leaves.iter_mut().filter(|l| l.field_name == field) {
        any = true;
        leaf.discriminator_property = field.to_string();
        merge_list(&mut leaf.discriminator_values, values);
        merge_list(&mut leaf.enum_values, values);
        if leaf.schema_combinator.is_empty() {
            leaf.schema_combinator = combinator.to_string();
        }
        if leaf.schema_branch_count.is_none() {
            leaf.schema_branch_count = Some(count as i64);
        }
        if leaf.schema_branches.is_empty() {
            leaf.schema_branches = (0..count as i64).collect();
        }
    }
    if !any {
        let mut v = Vec::new();
        merge_list(&mut v, values);
        leaves.push(Leaf {
            json_path: format!("{base}.{field}"),
            field_name: field.to_string(),
            field_type: "string".into(),
            enum_values: v.clone(),
            schema_combinator: combinator.to_string(),
            schema_branch_count: Some(count as i64),
            schema_branches: (0..count as i64).collect(),
            required_in_branch: true,
            discriminator_property: field.to_string(),
            discriminator_values: v,
            ..Leaf::default()
        });
    }
}

/// Python `x in (None, "", [], False)` (0 == False too).
fn opt_emptyish(v: &Option<Value>) -> bool {
    match v {
        None | Some(Value::Null) => true,
        Some(Value::String(s)) => s.is_empty(),
        Some(Value::Array(a)) => a.is_empty(),
        Some(Value::Bool(b)) => !b,
        Some(Value::Number(n)) => n.as_f64() == Some(0.0),
        Some(Value::Object(_)) => false,
    }
}

/// Python `x not in (None, "", [])`.
fn opt_present(v: &Option<Value>) -> bool {
    match v {
        None | Some(Value::Null) => false,
        Some(Value::String(s)) => !s.is_empty(),
        Some(Value::Array(a)) => !a.is_empty(),
        _ => true,
    }
}

fn merge_duplicates(leaves: Vec<Leaf>) -> Vec<Leaf> {
    let mut merged: Vec<Leaf> = Vec::with_capacity(leaves.len());
    let mut by_key: rustc_hash::FxHashMap<(String, String), usize> = Default::default();
    for leaf in leaves {
        let key = (leaf.json_path.clone(), leaf.field_name.clone());
        let Some(&i) = by_key.get(&key) else {
            by_key.insert(key, merged.len());
            merged.push(leaf);
            continue;
        };
        let e = &mut merged[i];
        e.required = e.required || leaf.required;
        e.required_in_branch = e.required_in_branch || leaf.required_in_branch;
        merge_list(&mut e.enum_values, &leaf.enum_values);
        merge_ints(&mut e.schema_branches, &leaf.schema_branches);
        merge_list(&mut e.discriminator_values, &leaf.discriminator_values);
        if e.schema_branch != leaf.schema_branch {
            e.schema_branch = None;
        }
        if e.discriminator_value != leaf.discriminator_value {
            e.discriminator_value = None;
        }
        macro_rules! s_attr {
            ($f:ident) => {
                if e.$f.is_empty() && !leaf.$f.is_empty() {
                    e.$f = leaf.$f.clone();
                }
            };
        }
        macro_rules! o_attr {
            ($f:ident) => {
                if opt_emptyish(&e.$f) && opt_present(&leaf.$f) {
                    e.$f = leaf.$f.clone();
                }
            };
        }
        macro_rules! b_attr {
            ($f:ident) => {
                if !e.$f {
                    e.$f = leaf.$f;
                }
            };
        }
        s_attr!(description);
        s_attr!(format);
        o_attr!(default);
        o_attr!(example);
        b_attr!(nullable);
        s_attr!(pattern);
        o_attr!(minimum);
        o_attr!(maximum);
        o_attr!(const_value);
        o_attr!(exclusive_minimum);
        o_attr!(exclusive_maximum);
        o_attr!(min_length);
        o_attr!(max_length);
        o_attr!(min_items);
        o_attr!(max_items);
        o_attr!(min_properties);
        o_attr!(max_properties);
        o_attr!(multiple_of);
        b_attr!(read_only);
        b_attr!(write_only);
        b_attr!(deprecated);
        s_attr!(schema_ref);
        s_attr!(schema_combinator);
        if e.schema_branch_count.is_none_or(|c| c == 0) && leaf.schema_branch_count.is_some() {
            e.schema_branch_count = leaf.schema_branch_count;
        }
        s_attr!(discriminator_property);
    }
    merged
}

/// Python `json.dumps(v, ensure_ascii=False, sort_keys=True)`.
pub fn py_json_sorted(v: &Value, out: &mut String) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => {
            if let Some(f) = n.as_f64().filter(|_| n.is_f64()) {
                out.push_str(&crate::pytext::float_repr(f));
            } else {
                out.push_str(&n.to_string());
            }
        }
        Value::String(s) => {
            out.push_str(&serde_json::to_string(s).unwrap_or_default());
        }
        Value::Array(a) => {
            out.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                py_json_sorted(x, out);
            }
            out.push(']');
        }
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            out.push('{');
            for (i, k) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str(&serde_json::to_string(k).unwrap_or_default());
                out.push_str(": ");
                py_json_sorted(&m[k], out);
            }
            out.push('}');
        }
    }
}

/// Examples and defaults longer than 2 000 characters of JSON become a cut JSON string.
pub fn compact_value(v: &Value) -> Value {
    match v {
        Value::Null | Value::Bool(_) | Value::Number(_) => return v.clone(),
        Value::String(s) if s.len() <= 300 => return v.clone(),
        _ => {}
    }
    let mut enc = String::new();
    py_json_sorted(v, &mut enc);
    if enc.chars().count() <= MAX_VALUE_CHARS {
        return v.clone();
    }
    Value::String(format!("{}...", first_chars(&enc, MAX_VALUE_CHARS - 3)))
}

/// The metadata row of a leaf (`openapi.*.fields[]`), keys in the reference's order.
pub fn leaf_row(leaf: &Leaf, location: &str) -> Row {
    let mut row = Row::with_capacity(16);
    row.push_new("field_name".into(), Value::String(leaf.field_name.clone()));
    row.push_new("json_path".into(), Value::String(leaf.json_path.clone()));
    row.push_new("field_type".into(), Value::String(leaf.field_type.clone()));
    row.push_new("required".into(), Value::Bool(leaf.required));
    row.push_new("location".into(), Value::String(location.into()));
    if !leaf.description.is_empty() {
        row.push_new(
            "description".into(),
            Value::String(leaf.description.clone()),
        );
    }
    if !leaf.enum_values.is_empty() {
        row.push_new("enum".into(), Value::Array(leaf.enum_values.clone()));
    }
    let put_s = |row: &mut Row, k: &'static str, v: &str| {
        if !v.is_empty() {
            row.push_new(k.into(), compact_value(&Value::String(v.into())));
        }
    };
    let put_o = |row: &mut Row, k: &'static str, v: &Option<Value>| {
        if opt_present(v) {
            row.push_new(k.into(), compact_value(v.as_ref().unwrap()));
        }
    };
    put_s(&mut row, "format", &leaf.format);
    put_o(&mut row, "default", &leaf.default);
    put_o(&mut row, "example", &leaf.example);
    row.push_new("nullable".into(), Value::Bool(leaf.nullable));
    put_s(&mut row, "pattern", &leaf.pattern);
    put_o(&mut row, "minimum", &leaf.minimum);
    put_o(&mut row, "maximum", &leaf.maximum);
    put_o(&mut row, "const", &leaf.const_value);
    put_o(&mut row, "exclusive_minimum", &leaf.exclusive_minimum);
    put_o(&mut row, "exclusive_maximum", &leaf.exclusive_maximum);
    put_o(&mut row, "min_length", &leaf.min_length);
    put_o(&mut row, "max_length", &leaf.max_length);
    put_o(&mut row, "min_items", &leaf.min_items);
    put_o(&mut row, "max_items", &leaf.max_items);
    put_o(&mut row, "min_properties", &leaf.min_properties);
    put_o(&mut row, "max_properties", &leaf.max_properties);
    put_o(&mut row, "multiple_of", &leaf.multiple_of);
    row.push_new("read_only".into(), Value::Bool(leaf.read_only));
    row.push_new("write_only".into(), Value::Bool(leaf.write_only));
    row.push_new("deprecated".into(), Value::Bool(leaf.deprecated));
    put_s(&mut row, "schema_combinator", &leaf.schema_combinator);
    if let Some(b) = leaf.schema_branch {
        row.push_new("schema_branch".into(), Value::from(b));
    }
    if let Some(b) = leaf.schema_branch_count {
        row.push_new("schema_branch_count".into(), Value::from(b));
    }
    if !leaf.schema_branches.is_empty() {
        row.push_new(
            "schema_branches".into(),
            Value::Array(
                leaf.schema_branches
                    .iter()
                    .map(|b| Value::from(*b))
                    .collect(),
            ),
        );
    }
    row.push_new(
        "required_in_branch".into(),
        Value::Bool(leaf.required_in_branch),
    );
    put_s(&mut row, "schema_ref", &leaf.schema_ref);
    row.push_new(
        "additional_properties".into(),
        Value::Bool(leaf.additional_properties),
    );
    row.push_new("map_value".into(), Value::Bool(leaf.map_value));
    put_s(&mut row, "map_key_placeholder", &leaf.map_key_placeholder);
    put_s(
        &mut row,
        "discriminator_property",
        &leaf.discriminator_property,
    );
    put_o(&mut row, "discriminator_value", &leaf.discriminator_value);
    if !leaf.discriminator_values.is_empty() {
        row.push_new(
            "discriminator_values".into(),
            compact_value(&Value::Array(leaf.discriminator_values.clone())),
        );
    }
    row
}

type RowCache = rustc_hash::FxHashMap<(String, String), Vec<(Value, std::rc::Rc<Vec<Row>>)>>;

thread_local! {
    /// Field rows of resolved component schemas (keyed by their `$ref` marker and
    /// location; a hit must also be equal, as a cycle cut can expand one ref differently).
    static ROW_CACHE: std::cell::RefCell<RowCache> = Default::default();
}

/// Forgets the cached field rows of this thread.
pub fn clear_row_cache() {
    ROW_CACHE.with(|c| c.borrow_mut().clear());
}

fn cached_rows(schema: &Value, location: &str) -> std::rc::Rc<Vec<Row>> {
    let Some(marker) = schema.get(REF_MARKER).and_then(Value::as_str) else {
        return std::rc::Rc::new(compute_field_rows(schema, location));
    };
    let key = (marker.to_string(), location.to_string());
    let hit = ROW_CACHE.with(|c| {
        c.borrow().get(&key).and_then(|list| {
            list.iter()
                .find(|(v, _)| v == schema)
                .map(|(_, r)| r.clone())
        })
    });
    if let Some(r) = hit {
        return r;
    }
    let rows = std::rc::Rc::new(compute_field_rows(schema, location));
    ROW_CACHE.with(|c| {
        let mut c = c.borrow_mut();
        // operations on one resource come together: a bounded cache keeps their hits
        // without holding the rows of every schema of the spec
        if c.len() >= ROW_CACHE_KEYS {
            c.clear();
        }
        c.entry(key)
            .or_default()
            .push((schema.clone(), rows.clone()))
    });
    rows
}

/// The schemas (by `$ref` marker and location) a thread's row cache holds at most.
const ROW_CACHE_KEYS: usize = 1024;

/// The field rows of one operation's schemas, by identity: a response schema is counted for
/// its media type, counted again for its status and read whole for the selected response;
/// the memo walks it once. Entries borrow the schemas (`'a`, the operation's resolved tree),
/// so an address cannot be reused by another value while the memo lives.
#[derive(Default)]
pub struct FieldMemo<'a> {
    seen: std::cell::RefCell<Vec<FieldMemoEntry<'a>>>,
}

type FieldMemoEntry<'a> = (&'a Value, String, std::rc::Rc<Vec<Row>>);

impl<'a> FieldMemo<'a> {
    fn rows(&self, schema: &'a Value, location: &str) -> std::rc::Rc<Vec<Row>> {
        if let Some((_, _, r)) = self
            .seen
            .borrow()
            .iter()
            .find(|(v, l, _)| std::ptr::eq(*v, schema) && l == location)
        {
            return r.clone();
        }
        let r = if schema.as_object().is_none_or(|m| m.is_empty()) {
            std::rc::Rc::new(Vec::new())
        } else {
            cached_rows(schema, location)
        };
        self.seen
            .borrow_mut()
            .push((schema, location.to_string(), r.clone()));
        r
    }

    /// [`field_count`], walking each schema once.
    pub fn count(&self, schema: &'a Value, location: &str) -> usize {
        self.rows(schema, location).len()
    }

    /// [`schema_field_rows`], walking each schema once; the memo lets go of these rows.
    pub fn take_rows(&self, schema: &'a Value, location: &str) -> Vec<Row> {
        let rc = self.rows(schema, location);
        self.seen
            .borrow_mut()
            .retain(|(v, l, _)| !(std::ptr::eq(*v, schema) && l == location));
        std::rc::Rc::try_unwrap(rc).unwrap_or_else(|rc| (*rc).clone())
    }
}

/// The number of `schema_field_rows` of a schema.
pub fn field_count(schema: &Value, location: &str) -> usize {
    if schema.as_object().is_none_or(|m| m.is_empty()) {
        return 0;
    }
    if schema.get(REF_MARKER).is_some() {
        // a component schema: its rows are cached for the calls that want them
        return cached_rows(schema, location).len();
    }
    extract_leaves(schema)
        .iter()
        .filter(|l| kept(l, location))
        .count()
}

/// Whether a leaf is a field row at `location` (read-only leaves are not request fields,
/// write-only leaves not response fields).
fn kept(l: &Leaf, location: &str) -> bool {
    !((location == "body" || location == "request_body") && l.read_only
        || location == "response" && l.write_only)
}

/// `openapi.*.fields` rows of a schema: read-only leaves are dropped from request bodies,
/// write-only leaves from responses.
pub fn schema_field_rows(schema: &Value, location: &str) -> Vec<Row> {
    if schema.as_object().is_none_or(|m| m.is_empty()) {
        return Vec::new();
    }
    match std::rc::Rc::try_unwrap(cached_rows(schema, location)) {
        Ok(v) => v,
        Err(rc) => (*rc).clone(),
    }
}

fn compute_field_rows(schema: &Value, location: &str) -> Vec<Row> {
    extract_leaves(schema)
        .iter()
        .filter(|l| kept(l, location))
        .map(|l| leaf_row(l, location))
        .collect()
}
