//! The contract check itself (`helpers/contract.rs`): it passes a true exchange and fails each
//! kind of drift from docs/openapi.json, saying where. Without these it could pass vacuously.

use crate::helpers::contract::{check_uncounted, Exchange};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, Uri};
use serde_json::{json, Value};

fn json_headers() -> HeaderMap {
    let mut h = HeaderMap::new();
    h.insert("content-type", HeaderValue::from_static("application/json"));
    h
}

/// Checks `method path` sending `sent` and answered `status` with `answer`, both as JSON.
fn exchange(method: Method, path: &str, sent: &Value, status: u16, answer: &Value) {
    let uri: Uri = format!("/ciam/v1{path}").parse().unwrap();
    let (sent, answer) = (sent.to_string(), answer.to_string());
    check_uncounted(&Exchange {
        method: &method,
        uri: &uri,
        request_headers: &json_headers(),
        request_body: sent.as_bytes(),
        status: StatusCode::from_u16(status).unwrap(),
        response_headers: &json_headers(),
        response_body: answer.as_bytes(),
    });
}

fn login() -> Value {
    json!({ "account": "ann@example.com", "password": "x" })
}

#[test]
fn a_true_exchange_passes() {
    let signed_in = json!({ "token": "t", "userId": "u", "expiresAt": 1 });
    exchange(
        Method::POST,
        "/auth/login/password",
        &login(),
        200,
        &signed_in,
    );
    let error = json!({ "reason": "PASSWORD_ERROR", "message": "m", "code": 401 });
    exchange(Method::POST, "/auth/login/password", &login(), 401, &error);
}

#[test]
#[should_panic(
    expected = "POST /auth/login/password (loginPassword): the 200 answer does not \
                           match docs/openapi.json:\n  at \"/expiresAt\""
)]
fn an_answer_off_its_schema_fails_with_the_operation_status_and_pointer() {
    let wrong = json!({ "token": "t", "userId": "u", "expiresAt": "soon" });
    exchange(Method::POST, "/auth/login/password", &login(), 200, &wrong);
}

#[test]
#[should_panic(expected = "(schema #/components/schemas/SignedIn/additionalProperties)")]
fn an_undocumented_answer_field_fails_with_the_schemas_pointer() {
    let more = json!({ "token": "t", "userId": "u", "expiresAt": 1, "extra": true });
    exchange(Method::POST, "/auth/login/password", &login(), 200, &more);
}

#[test]
#[should_panic(expected = "answered 418, which the document does not list")]
fn an_undocumented_status_fails() {
    exchange(
        Method::POST,
        "/auth/login/password",
        &login(),
        418,
        &json!({}),
    );
}

#[test]
#[should_panic(expected = "to a request body the document refuses")]
fn a_request_the_document_refuses_but_the_server_accepts_fails() {
    let signed_in = json!({ "token": "t", "userId": "u", "expiresAt": 1 });
    let body = json!({ "account": "ann@example.com" });
    exchange(Method::POST, "/auth/login/password", &body, 200, &signed_in);
}

#[test]
fn a_request_the_document_refuses_may_be_refused() {
    let error = json!({ "reason": "INVALID_PARAMETER", "message": "m", "code": 400 });
    exchange(
        Method::POST,
        "/auth/login/password",
        &json!({}),
        400,
        &error,
    );
}

#[test]
#[should_panic(expected = "GET /ciam/v1/auth/undocumented: no operation in docs/openapi.json")]
fn a_path_with_no_operation_fails_unless_the_router_refused_it() {
    let error = json!({ "reason": "NOT_FOUND", "message": "m", "code": 404 });
    exchange(Method::GET, "/auth/undocumented", &json!({}), 404, &error);
    exchange(
        Method::GET,
        "/auth/undocumented",
        &json!({}),
        200,
        &json!({}),
    );
}

#[test]
fn a_literal_segment_is_not_taken_for_a_parameter() {
    // `POST /auth/passkeys/options` is its own operation beside `/auth/passkeys/{id}`.
    let error = json!({ "reason": "INVALID_PARAMETER", "message": "m", "code": 400 });
    exchange(
        Method::POST,
        "/auth/passkeys/options",
        &json!({}),
        400,
        &error,
    );
}
