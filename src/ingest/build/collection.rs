//! `build_openapi_collection_artifact`.

use serde_json::Value;

use crate::error::InputError;
use crate::ingest::source::Document;

pub fn build_collection(docs: &[Document], _built_at: &str) -> Result<Value, InputError> {
    Err(InputError::new(
        &docs[0].name,
        "",
        "OpenAPI build not implemented yet".into(),
    ))
}
