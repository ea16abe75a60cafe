//! The OpenAPI document must stay true to the code: the same routes (`ciam_api::ROUTES`, with
//! each row's operation id and auth requirement), the same reasons, and the request fields the
//! handlers accept.

// Test code: a panic is the failure report, so unwrap and expect are allowed here
// (the workspace denies them in the product, Cargo.toml [workspace.lints]).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use ciam_api::all_routes;
use ciam_core::Reason;
use serde_json::Value;
use std::collections::BTreeSet;

fn doc() -> Value {
    serde_json::from_str(ciam_api::openapi::DOCUMENT).expect("docs/openapi.json is JSON")
}

#[test]
fn the_document_lists_exactly_the_routes_of_the_router() {
    let doc = doc();
    let mut documented = BTreeSet::new();
    for (path, item) in doc["paths"].as_object().expect("paths") {
        for method in item.as_object().expect("path item").keys() {
            documented.insert((method.to_uppercase(), path.clone()));
        }
    }
    let routed: BTreeSet<_> = all_routes()
        .map(|r| (r.method.to_owned(), r.path.to_owned()))
        .collect();
    assert_eq!(
        documented, routed,
        "docs/openapi.json and ciam_api::ROUTES disagree"
    );
}

#[test]
fn each_row_names_its_operations_id_and_security() {
    let doc = doc();
    let mut ids = BTreeSet::new();
    for r in all_routes() {
        let op = &doc["paths"][r.path][r.method.to_lowercase()];
        assert_eq!(
            op["operationId"], r.operation_id,
            "{} {}: operationId",
            r.method, r.path
        );
        assert!(ids.insert(r.operation_id), "{}: twice", r.operation_id);
        // Each alternative of `security` as its scheme names; none given is public.
        let documented: BTreeSet<Vec<String>> = match op.get("security") {
            None => [vec![]].into(),
            Some(s) => s
                .as_array()
                .expect("security is a list")
                .iter()
                .map(|alt| {
                    let mut names: Vec<String> = alt
                        .as_object()
                        .expect("scheme map")
                        .keys()
                        .cloned()
                        .collect();
                    names.sort();
                    names
                })
                .collect(),
        };
        let table: BTreeSet<Vec<String>> = r
            .auth
            .openapi_security()
            .iter()
            .map(|alt| alt.iter().map(|s| (*s).to_owned()).collect())
            .collect();
        assert_eq!(
            documented, table,
            "{} {}: the security of docs/openapi.json and the row's {:?} disagree",
            r.method, r.path, r.auth
        );
    }
}

/// A row's `Auth::Session` (or `Console`) is what the handler does: without a token it is 401
/// AUTHORIZATION_FAILED, before the body or the path is looked at; every other row answers
/// something else.
#[tokio::test]
async fn the_session_routes_and_only_they_refuse_a_request_without_a_token() {
    use tower::ServiceExt;
    let (app, _) = test_router().await;
    for r in all_routes() {
        let path = r.path.replace(['{', '}'], "");
        let req = http::Request::builder()
            .method(r.method)
            .uri(format!("/ciam/v1{path}"))
            .header("content-type", "application/json")
            .body(axum::body::Body::from("{}"))
            .expect("request");
        let res = app.clone().oneshot(req).await.expect("response");
        let status = res.status().as_u16();
        let bytes = http_body_util::BodyExt::collect(res.into_body())
            .await
            .expect("body")
            .to_bytes();
        let body = serde_json::from_slice::<Value>(&bytes).unwrap_or(Value::Null);
        let refused = status == 401 && body["reason"] == "AUTHORIZATION_FAILED";
        assert_eq!(
            refused,
            r.auth.needs_session(),
            "{} {} ({:?}) without a token: {status} {body}",
            r.method,
            r.path,
            r.auth
        );
    }
}

#[test]
fn the_document_lists_exactly_the_reason_catalogue() {
    let doc = doc();
    let documented: BTreeSet<String> = doc["components"]["schemas"]["Reason"]["enum"]
        .as_array()
        .expect("Reason enum")
        .iter()
        .filter_map(|v| v.as_str().map(str::to_owned))
        .collect();
    let code: BTreeSet<String> = Reason::ALL.iter().map(|r| r.code().to_owned()).collect();
    assert_eq!(
        documented, code,
        "docs/openapi.json Reason enum and ciam_core::Reason disagree"
    );
}

#[test]
fn every_documented_error_status_is_one_a_reason_can_have() {
    let statuses: BTreeSet<String> = Reason::ALL.iter().map(|r| r.status().to_string()).collect();
    let doc = doc();
    for (path, item) in doc["paths"].as_object().expect("paths") {
        for (method, op) in item.as_object().expect("ops") {
            for code in op["responses"].as_object().expect("responses").keys() {
                if code.starts_with('4') || code.starts_with('5') {
                    assert!(
                        statuses.contains(code),
                        "{method} {path} documents {code}, which no reason has"
                    );
                }
            }
        }
    }
}

#[tokio::test]
async fn the_documented_request_fields_are_the_ones_the_handlers_accept() {
    use tower::ServiceExt;
    let (app, token) = test_router().await;
    let doc = doc();
    for r in all_routes() {
        let op = &doc["paths"][r.path][r.method.to_lowercase()];
        let Some(schema) = op["requestBody"]["content"]["application/json"]["schema"].as_object()
        else {
            continue;
        };
        // A body with every documented property (as a string) must not be refused as an
        // unknown field; one undocumented property must be.
        // No `properties`: a body with none (an options request).
        let none = serde_json::Map::new();
        let props = schema
            .get("properties")
            .and_then(Value::as_object)
            .unwrap_or(&none);
        let mut body = serde_json::Map::new();
        for (name, p) in props {
            // An optional field's type is `[T, "null"]` (JSON Schema 2020-12): T.
            let ty = match &p["type"] {
                Value::Array(types) => types
                    .iter()
                    .find_map(|t| t.as_str().filter(|t| *t != "null")),
                t => t.as_str(),
            };
            let v = match ty {
                Some("boolean") => Value::Bool(true),
                Some("array") => Value::Array(Vec::new()),
                _ => Value::String("x".into()),
            };
            body.insert(name.clone(), v);
        }
        let send = |b: Value| {
            let app = app.clone();
            let token = token.clone();
            async move {
                let req = http::Request::builder()
                    .method(r.method)
                    .uri(format!("/ciam/v1{}", r.path))
                    .header("content-type", "application/json")
                    .header("authorization", format!("Bearer {token}"))
                    .body(axum::body::Body::from(b.to_string()))
                    .expect("request");
                let res = app.oneshot(req).await.expect("response");
                let bytes = http_body_util::BodyExt::collect(res.into_body())
                    .await
                    .expect("body")
                    .to_bytes();
                serde_json::from_slice::<Value>(&bytes).unwrap_or(Value::Null)
            }
        };
        let res = send(Value::Object(body.clone())).await;
        let unknown = res["message"]
            .as_str()
            .unwrap_or("")
            .contains("unknown field");
        assert!(
            !unknown,
            "{} {}: a documented field is refused: {res}",
            r.method, r.path
        );
        body.insert("notDocumented".into(), Value::String("x".into()));
        let res = send(Value::Object(body)).await;
        assert_eq!(
            res["field"], "notDocumented",
            "{} {}: an undocumented field is accepted: {res}",
            r.method, r.path
        );
    }
}

async fn test_router() -> (axum::Router, String) {
    use ciam_core::*;
    let ciam = ciam_core::testing::Builder::new(1_800_000_000)
        .keys(Keys::from_root([1; 32]))
        .build()
        .await;
    // An admin signed in with a second factor just now: the console's rows pass their gate
    // (which runs before the body is read) and answer for the body.
    let user = user::User {
        id: "0123456789abcdef0123456789abcdef".into(),
        user_name: "doc".into(),
        roles: vec![user::ADMIN.to_owned()],
        ..Default::default()
    };
    ciam.store.put(user.to_item(), None).await.expect("user");
    let (token, mut session) =
        sessions::mint_for(&ciam, &user.id, user.sess_gen, &Default::default());
    session.amr = vec!["pwd".into(), "otp".into()];
    ciam.store
        .put(session.to_item(), None)
        .await
        .expect("session");
    (ciam_api::router(ciam), token)
}

/// The `webhooks` of the document are the event kinds partners subscribe to
/// (`ciam_core::events::Kind`), one each, and each payload's `data` documents only fields an
/// event can carry: `userId` and the fields of `FIELD_SCOPES` and `FREE_FIELDS`.
#[test]
fn the_documented_webhooks_are_exactly_the_event_kinds() {
    use ciam_core::events::{Kind, FIELD_SCOPES, FREE_FIELDS};
    let doc = doc();
    let hooks = doc["webhooks"].as_object().expect("webhooks");
    let documented: BTreeSet<&str> = hooks.keys().map(String::as_str).collect();
    let kinds: BTreeSet<&str> = Kind::ALL.iter().map(|k| k.name()).collect();
    assert_eq!(
        documented, kinds,
        "docs/openapi.json webhooks and Kind::ALL"
    );
    let known: BTreeSet<&str> = FIELD_SCOPES
        .iter()
        .map(|(f, _)| *f)
        .chain(FREE_FIELDS)
        .chain(["userId"])
        .collect();
    for (name, hook) in hooks {
        let schema = &hook["post"]["requestBody"]["content"]["application/json"]["schema"];
        let schema_ref = schema["$ref"].as_str().expect("a $ref");
        let schema =
            &doc["components"]["schemas"][schema_ref.trim_start_matches("#/components/schemas/")];
        assert_eq!(
            schema["properties"]["type"]["enum"],
            serde_json::json!([name]),
            "{name}"
        );
        let data = &schema["properties"]["data"];
        assert_eq!(
            data["required"][0], "userId",
            "{name}: userId is always sent"
        );
        for field in data["properties"]
            .as_object()
            .expect("data properties")
            .keys()
        {
            assert!(
                known.contains(field.as_str()),
                "{name}: {field} is no event field"
            );
        }
        for h in ["webhook-id", "webhook-timestamp", "webhook-signature"] {
            let named = hook["post"]["parameters"]
                .as_array()
                .expect("parameters")
                .iter()
                .any(|p| {
                    let r = p["$ref"].as_str().unwrap_or("");
                    doc["components"]["parameters"]
                        [r.trim_start_matches("#/components/parameters/")]["name"]
                        == h
                });
            assert!(named, "{name}: header {h}");
        }
    }
}
