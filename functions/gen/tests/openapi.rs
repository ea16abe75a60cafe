//! docs/openapi.json is generated (functions/gen/src/openapi.rs, docs/api-document.md §3): the
//! handler's doc comment gives the prose and reasons, its types the bodies, the row the rest,
//! and a piece written both by hand and by the code is an error naming it.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use ciam_core::Reason;
use ciam_gen::openapi::{doc_comment, document, prose, Prose, SOURCE};
use ciam_gen::root;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn lines(text: &str) -> Vec<String> {
    text.lines().map(str::to_owned).collect()
}

#[test]
fn the_doc_comment_is_the_summary_the_description_and_the_reasons() {
    let source = "
/// Sign in with a password.
///
/// PASSWORD_ERROR alike for unknown and wrong.
/// A second line of the same paragraph.
///
/// Another paragraph.
///
/// Reasons: PASSWORD_ERROR, NEED_TOTP_VERIFY.
///
/// Round trips: 2 (ours, not published).
#[allow(dead_code)]
pub async fn login_password(
";
    let doc = doc_comment(source, "login_password").unwrap();
    let p = prose(&doc).unwrap().unwrap();
    assert_eq!(
        p,
        Prose {
            summary: "Sign in with a password".into(),
            description: "PASSWORD_ERROR alike for unknown and wrong. A second line of the same \
                          paragraph.\n\nAnother paragraph."
                .into(),
            reasons: vec![Reason::PASSWORD_ERROR, Reason::NEED_TOTP_VERIFY],
            oauth: false,
        }
    );
    assert!(!p.description.contains("Round trips"));
}

#[test]
fn a_handler_written_by_a_macro_is_found_by_its_name_line() {
    let source = "
action_handler!(
    /// Unlock an account
    ///
    /// Reasons: none.
    unlock,
    Action::Unlock
);
";
    let p = prose(&doc_comment(source, "unlock").unwrap())
        .unwrap()
        .unwrap();
    assert_eq!(p.summary, "Unlock an account");
    assert!(p.reasons.is_empty());
}

#[test]
fn without_a_reasons_paragraph_the_prose_is_still_the_sources() {
    let doc = lines("`POST /auth/logout`. Round trips: 1.");
    assert_eq!(prose(&doc).unwrap(), None);
}

#[test]
fn an_oauth_endpoint_has_its_prose_from_the_doc_comment_and_its_errors_from_the_source() {
    let p = prose(&lines("The token endpoint\n\nRFC 6749.\n\nReasons: OAuth."))
        .unwrap()
        .unwrap();
    assert!(p.oauth && p.reasons.is_empty());
    let doc = document(&root()).unwrap();
    let token = &doc["paths"]["/oidc/token"]["post"];
    assert_eq!(token["summary"], "OpenID Connect token endpoint");
    assert!(token.get("x-reasons").is_none(), "{token}");
    assert_eq!(
        token["responses"]["400"]["content"]["application/json"]["schema"]["$ref"],
        "#/components/schemas/OAuthError"
    );
}

#[test]
fn a_name_that_is_no_reason_is_an_error_naming_it() {
    let doc = lines("Sign in\n\nReasons: PASSWORD_ERROR, PASWORD_EROR.");
    let e = prose(&doc).unwrap_err();
    assert!(e.contains("PASWORD_EROR"), "{e}");
}

/// A copy of what the generator reads (the source and the route files) to change one of them.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ciam-gen-{name}-{}", std::process::id()));
    let routes = dir.join("functions/api/src/routes");
    std::fs::create_dir_all(&routes).unwrap();
    std::fs::create_dir_all(dir.join("docs/openapi")).unwrap();
    let from = root().join("functions/api/src/routes");
    for entry in std::fs::read_dir(&from).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), routes.join(entry.file_name())).unwrap();
    }
    std::fs::copy(root().join(SOURCE), dir.join(SOURCE)).unwrap();
    dir
}

fn edit_source(dir: &Path, f: impl FnOnce(&mut Value)) {
    let path = dir.join(SOURCE);
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    f(&mut v);
    std::fs::write(&path, serde_json::to_string(&v).unwrap()).unwrap();
}

#[test]
fn a_request_body_written_by_hand_beside_the_handlers_type_is_an_error() {
    let dir = scratch("body");
    edit_source(&dir, |v| {
        v["paths"]["/auth/login/password"]["post"]["requestBody"] =
            serde_json::json!({"content": {"application/json": {"schema": {"type": "object"}}}});
    });
    let e = document(&dir).unwrap_err();
    assert!(
        e.contains("POST /auth/login/password (loginPassword)") && e.contains("requestBody"),
        "{e}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn an_operation_of_the_source_that_no_row_has_is_an_error() {
    let dir = scratch("stray");
    edit_source(&dir, |v| {
        v["paths"]["/auth/nothing"] = serde_json::json!({"get": {"summary": "x"}});
    });
    let e = document(&dir).unwrap_err();
    assert!(e.contains("get /auth/nothing is no row's route"), "{e}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn the_operations_carry_the_rows_facts_and_the_handlers_request_types() {
    let doc = document(&root()).unwrap();
    for row in ciam_api::all_routes() {
        let op = &doc["paths"][row.path][row.method.to_ascii_lowercase()];
        assert_eq!(op["operationId"], row.operation_id, "{}", row.id);
        assert!(
            op["summary"].as_str().is_some_and(|s| !s.is_empty()),
            "{}",
            row.id
        );
        let params = op["parameters"].as_array().unwrap();
        assert_eq!(params[0]["$ref"], "#/components/parameters/RequestId");
        for seg in row.path.split('/').filter(|s| s.starts_with('{')) {
            let name = seg.trim_matches(|c| c == '{' || c == '}');
            assert!(
                params
                    .iter()
                    .any(|p| p["in"] == "path" && p["name"] == name),
                "{}: path parameter {name}",
                row.id
            );
        }
    }
    // The password sign-in's body is its handler's `Json<PasswordLogin>`: closed, both fields.
    let body = &doc["paths"]["/auth/login/password"]["post"]["requestBody"]["content"]
        ["application/json"]["schema"];
    assert_eq!(body["additionalProperties"], false);
    let mut required: Vec<&str> = body["required"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    required.sort_unstable();
    assert_eq!(required, ["account", "password"]);
    // The Reason enum is the catalogue.
    let listed = doc["components"]["schemas"]["Reason"]["enum"]
        .as_array()
        .unwrap();
    assert_eq!(listed.len(), Reason::ALL.len());
}

#[test]
fn an_operation_with_reasons_lists_the_rows_own_and_its_error_statuses() {
    let doc = document(&root()).unwrap();
    let mut with_reasons = 0;
    for row in ciam_api::all_routes() {
        let op = &doc["paths"][row.path][row.method.to_ascii_lowercase()];
        let Some(reasons) = op["x-reasons"].as_array() else {
            continue;
        };
        with_reasons += 1;
        assert!(
            reasons.iter().any(|r| r == "INTERNAL_SERVER_ERROR"),
            "{}",
            row.id
        );
        if row.auth.needs_session() {
            assert!(
                reasons.iter().any(|r| r == "AUTHORIZATION_FAILED"),
                "{}",
                row.id
            );
        }
        for r in reasons {
            let reason = Reason::ALL
                .iter()
                .find(|x| x.code() == r.as_str().unwrap())
                .unwrap();
            let answer = &op["responses"][reason.status().to_string()];
            assert!(
                answer["description"]
                    .as_str()
                    .unwrap()
                    .contains(reason.code()),
                "{}: the {} answer names {}",
                row.id,
                reason.status(),
                reason.code()
            );
        }
    }
    println!("{with_reasons} operations list their reasons");
}
