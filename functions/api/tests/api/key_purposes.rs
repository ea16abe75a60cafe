//! Keys with smaller reach (docs/operations.md §1): what was made under the root's keys
//! verifies with the per-purpose keys a function reads in AWS, and a route that reaches for a
//! key its function was not given answers 503 and touches the store no more: never a verdict
//! made with a wrong key. That every row declares the purposes its handler uses is proved by
//! the whole suite: the router runs each route with its row's purposes only, and in tests an
//! undeclared key panics.

use crate::helpers::{TestApp, PASSWORD};
use ciam_core::{KeyPurpose, Keys};

/// The per-purpose keys of `app`'s root for `purposes`, as the distributor writes them and a
/// function reads them.
fn distributed(app: &TestApp, purposes: &[KeyPurpose]) -> Keys {
    let pairs: Vec<(&str, String)> = purposes
        .iter()
        .flat_map(|p| app.ciam.keys.purpose_keys(*p))
        .collect();
    Keys::with_labels(pairs.iter().map(|(l, k)| (*l, k.as_str()))).expect("hex keys")
}

#[tokio::test]
async fn a_session_made_under_the_root_works_with_the_per_purpose_keys() {
    let app = TestApp::spawn().await;
    app.sign_up("annlee", "ann@example.com").await;
    let token = app.sign_in("ann@example.com", PASSWORD).await;
    let per_purpose = app.clone().with_keys(distributed(&app, &KeyPurpose::ALL));
    per_purpose.get_info(&token).await.ok(200);
    // And the other way: made with the per-purpose keys, it works under the root.
    let again = per_purpose.sign_in("ann@example.com", PASSWORD).await;
    app.get_info(&again).await.ok(200);
}

#[tokio::test]
async fn a_route_without_its_key_answers_503_and_stops_touching_the_store() {
    let app = TestApp::spawn().await;
    app.sign_up("annlee", "ann@example.com").await;
    let token = app.sign_in("ann@example.com", PASSWORD).await;
    // A function given the captcha's key only (the production path: no panic, a log line).
    let captcha_only = app
        .clone()
        .with_keys(distributed(&app, &[KeyPurpose::Captcha]).without_panics());
    captcha_only.get_captcha().await.ok(200);
    app.store.take_calls();
    let res = captcha_only.get_info(&token).await;
    res.error(503, "SERVICE_UNAVAILABLE");
    assert!(
        app.store.take_calls().is_empty(),
        "the session is never looked up with a wrong key"
    );
    app.get_info(&token).await.ok(200);
}
