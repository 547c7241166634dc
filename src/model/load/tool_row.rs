//! A parsed tool row → [`Tool`]: its parameters and annotations, its `metadata` kept as a
//! range of the loaded text, and the engine's typed view of that metadata ([`ToolFacts`]).
//! Shared by both load paths.

use serde::Deserialize;
use serde_json::value::RawValue;
use std::sync::Arc;

use super::serde_rows::{MetaView, ToolRow, pointer_escape};
use crate::error::InputError;
use crate::model::scan::object_member;
use crate::model::text::SourceText;
use crate::model::tool::{
    AiFacts, Annotations, LazyRows, OpenApiFacts, Param, RawJson, Tool, ToolFacts,
};

/// Mapped texts from this size on let their parsed pages go (the 4.5 MB demo graph: peak
/// RSS 14 MiB when kept, 10 MiB when let go).
const RELEASE_FROM_BYTES: usize = 1 << 20;

/// Whether the load lets the pages of `text` go once parsed: a mapped text of at least
/// [`RELEASE_FROM_BYTES`]. A smaller one keeps them; dropping them and faulting them back
/// costs more time than the few hundred KiB are worth.
pub(super) fn lets_pages_go(text: &SourceText) -> bool {
    text.is_mapped() && text.len() >= RELEASE_FROM_BYTES
}

pub(super) fn build_tool(
    file: &str,
    text: &Arc<SourceText>,
    key: &str,
    row_text: &str,
    metadata: Option<Option<&str>>,
    row: ToolRow<'_>,
) -> Result<Tool, InputError> {
    // the metadata's text: known from the quick walk, else found by a structural scan of the
    // already-validated row
    let metadata = match metadata.unwrap_or_else(|| object_member(row_text, "metadata")) {
        Some(m) if !m.starts_with('n') => RawJson::within(text, m),
        Some(_) => RawJson::owned("{}".into()),
        None => {
            // a key written with escapes: let serde find it
            #[derive(Deserialize)]
            struct OnlyMeta<'a> {
                #[serde(default, borrow)]
                metadata: Option<&'a RawValue>,
            }
            match serde_json::from_str::<OnlyMeta<'_>>(row_text)
                .ok()
                .and_then(|m| m.metadata)
            {
                Some(m) => RawJson::within(text, m.get()),
                None => RawJson::owned("{}".into()),
            }
        }
    };
    let facts = match row.metadata {
        Some(view) => facts_from_view(text, view),
        None => ToolFacts::default(),
    };
    let parameters = row
        .parameters
        .unwrap_or_default()
        .into_iter()
        .map(|p| Param {
            name: p.name,
            ty: p.ty.unwrap_or_else(|| "string".into()),
            description: p.description.unwrap_or_default(),
            required: p.required.unwrap_or(false),
            enum_values: p.enum_values.map(|r| RawJson::within(text, r)),
        })
        .collect();
    let name = match row.name {
        Some(n) => n,
        None => {
            return Err(InputError::new(
                file,
                &format!("/tools/{}", pointer_escape(key)),
                "tool row has no \"name\"".into(),
            ));
        }
    };
    Ok(Tool {
        name,
        description: row.description.unwrap_or_default(),
        parameters,
        tags: row.tags.unwrap_or_default(),
        domain: row.domain,
        metadata,
        annotations: row.annotations.map(|a| Annotations {
            read_only: a.read_only_hint,
            destructive: a.destructive_hint,
            idempotent: a.idempotent_hint,
            open_world: a.open_world_hint,
        }),
        facts: Box::new(facts),
        compact: Default::default(),
    })
}

/// Parses the engine's view of a tool's `metadata` text. Never fails: values of an
/// unexpected type are treated as absent, as the reference's `isinstance` checks do.
pub fn parse_facts(text: &Arc<SourceText>, metadata: &str) -> ToolFacts {
    match serde_json::from_str::<Option<MetaView<'_>>>(metadata) {
        Ok(Some(v)) => facts_from_view(text, v),
        _ => ToolFacts::default(),
    }
}

fn facts_from_view(text: &Arc<SourceText>, view: MetaView<'_>) -> ToolFacts {
    let has_metadata = view.nonempty;
    // ranges of the loaded text: a mapped text's are read back with a positioned read when
    // asked for ([`RawJson::with_str`]), so reading them never pages the map back in
    let raw = |r: Option<&str>| LazyRows::from_raw(r.map(|r| RawJson::within(text, r)));
    let (api_produces, api_consumes) = match view.api_contract {
        Some(c) => (raw(c.produces), raw(c.consumes)),
        None => (LazyRows::default(), LazyRows::default()),
    };
    ToolFacts {
        has_metadata,
        method: view.method,
        path: view.path,
        source_label: view.source_label,
        ai: view.ai_metadata.map(|a| AiFacts {
            canonical_action: a.canonical_action,
            primary_resource: a.primary_resource,
            result_shape: a.result_shape,
            one_line_summary: a.one_line_summary,
            when_to_use: a.when_to_use,
            when_not_to_use: a.when_not_to_use,
            produces_semantics: a.produces_semantics,
            consumes_semantics: a.consumes_semantics,
            pairs_well_with: a.pairs_well_with,
        }),
        openapi: view.openapi.map(|o| OpenApiFacts {
            operation_id: o.operation_id,
            summary: o.summary,
            description: o.description,
            path: o.path,
            path_module: o.path_module,
        }),
        produces: raw(view.produces),
        consumes: raw(view.consumes),
        api_produces,
        api_consumes,
        example_queries: view.example_queries,
    }
}
