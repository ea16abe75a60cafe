//! The support desk's notes on an account (`PUT /admin/accounts/{userId}/notes`,
//! docs/console-design.md §5): saved with the editor and time, shown on the account page,
//! audited, refused for a viewer and over 2,000 characters, never shown to the customer,
//! deleted with the account; on both engines.

use crate::helpers::{TestApp, PASSWORD};
use axum::http::Method;
use ciam_core::console::Role;
use ciam_store::dynamo_local::DynamoLocal;
use ciam_store::Store;
use serde_json::{json, Value};
use std::sync::Arc;

impl TestApp {
    async fn put_notes(
        &self,
        token: &str,
        user_id: &str,
        notes: &str,
    ) -> crate::helpers::TestResponse {
        let p = format!("/admin/accounts/{user_id}/notes");
        self.admin_call(
            Method::PUT,
            &p,
            Some(token),
            Some(&json!({ "notes": notes })),
        )
        .await
    }
}

async fn notes(app: TestApp) {
    let (operator_id, operator) = app.staffer("helper", Some(Role::Operator)).await;
    let (_, viewer) = app.staffer("reader", Some(Role::Viewer)).await;
    let mail = "ann@example.com";
    let ann = app.sign_up("annlee", mail).await;
    let page = format!("/admin/accounts/{ann}");
    assert_eq!(
        app.admin_get(&page, &viewer).await.ok(200)["notes"],
        Value::Null
    );

    let text = "Called 3 Dec: locked out after a phone change.\nVerified by the last order number.";
    let saved = app.put_notes(&operator, &ann, text).await.ok(200);
    let want = json!({ "text": text, "at": app.now(), "by": operator_id, "byName": "helper" });
    assert_eq!(saved["notes"], want);
    // Any role reads them on the page.
    assert_eq!(app.admin_get(&page, &viewer).await.ok(200)["notes"], want);

    // Audited, with the length as the detail.
    let day = app.today();
    let audit = app
        .admin_get(
            &format!("/admin/audit?from={day}&to={day}&action=account.notes"),
            &viewer,
        )
        .await
        .ok(200);
    let entries = audit["entries"].as_array().expect("entries");
    assert_eq!(entries.len(), 1, "{audit}");
    assert_eq!(entries[0]["target"], ann.as_str());
    assert_eq!(entries[0]["actor"], operator_id.as_str());
    let chars = text.chars().count();
    assert_eq!(entries[0]["detail"], format!("{chars} characters"));

    // A viewer cannot write them; too long is refused; exactly 2,000 characters is kept.
    app.put_notes(&viewer, &ann, "mine")
        .await
        .error(403, "PERMISSION_DENIED");
    let long = "注".repeat(2001);
    let refused = app
        .put_notes(&operator, &ann, &long)
        .await
        .error(400, "INVALID_PARAMETER");
    assert_eq!(refused["field"], "notes", "{refused}");
    let full = "注".repeat(2000);
    app.put_notes(&operator, &ann, &full).await.ok(200);
    assert_eq!(
        app.admin_get(&page, &viewer).await.ok(200)["notes"]["text"],
        full.as_str()
    );
    app.put_notes(&operator, "nobody", "x")
        .await
        .error(404, "ACCOUNT_NOT_FOUND");

    // Never shown to the customer, whatever they read about themselves.
    let token = app.sign_in(mail, PASSWORD).await;
    for own in [
        app.get_info(&token).await.ok(200),
        app.get_activity(&token).await.ok(200),
        app.get_sessions(&token).await.ok(200),
    ] {
        assert!(!own.to_string().contains('注'), "{own}");
    }

    // Emptied: gone from the page.
    app.put_notes(&operator, &ann, "  ").await.ok(200);
    assert_eq!(
        app.admin_get(&page, &viewer).await.ok(200)["notes"],
        Value::Null
    );

    // Deleted with the account.
    app.put_notes(&operator, &ann, "to go").await.ok(200);
    app.deactivate(&token, &json!({ "password": PASSWORD }))
        .await
        .ok(200);
    let key = ciam_core::console::notes::key(&ann);
    assert!(app.store.get(&key).await.expect("get").is_none());
    app.put_notes(&operator, &ann, "again")
        .await
        .error(404, "ACCOUNT_NOT_FOUND");
}

#[tokio::test]
async fn the_desk_saves_notes_audited_and_never_shown_to_the_customer() {
    notes(TestApp::spawn().await).await;
}

#[tokio::test]
async fn on_dynamodb_the_desk_saves_notes_audited_and_never_shown_to_the_customer() {
    let local = Arc::new(DynamoLocal::start().await);
    notes(TestApp::on_dynamo(&local, "notes").await).await;
}
