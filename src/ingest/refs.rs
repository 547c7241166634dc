//! Local `$ref` resolution.
