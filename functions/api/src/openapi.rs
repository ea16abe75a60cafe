//! The OpenAPI document, kept in docs/openapi.json and served as it is. A test checks it
//! against the route table and the Reason catalogue.

pub const DOCUMENT: &str = include_str!("../../../docs/openapi.json");
