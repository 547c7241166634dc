//! OpenAPI 3.x / Swagger 2.0 operations → ToolSchema (spec §1.6).
