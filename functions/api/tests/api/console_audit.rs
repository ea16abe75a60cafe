//! The audit log as a support desk reads it (issue 34 item 6), on both engines: the page names
//! the people and apps its entries point at (masked), the actor and target filters take a
//! username, a mail or a phone as well as an id, and a filter no account matches, or an action
//! no build writes, is said rather than answered with an empty list. The export takes the same
//! filters.

use crate::helpers::TestApp;
use axum::http::Method;
use ciam_core::console::Role;
use ciam_store::dynamo_local::DynamoLocal;
use serde_json::{json, Value};
use std::sync::Arc;

async fn the_log_speaks_of_people(app: &TestApp) {
    let (operator_id, operator) = app.staffer("helper", Some(Role::Operator)).await;
    let (_, admin) = app.staffer("boss", Some(Role::Admin)).await;
    let (_, viewer) = app.staffer("desk", Some(Role::Viewer)).await;
    let ann = app.sign_up("annlee", "ann@example.com").await;
    let reveal = format!("/admin/accounts/{ann}/reveal");
    app.admin_call(
        Method::POST,
        &reveal,
        Some(&operator),
        Some(&json!({ "reason": "ticket 7" })),
    )
    .await
    .ok(200);
    let (app_id, _) = app.console_app(&admin, "Mill").await;

    let day = app.today();
    let get = |query: String| {
        let path = format!("/admin/audit?from={day}&to={day}{query}");
        let viewer = viewer.clone();
        async move { app.admin_get(&path, &viewer).await }
    };
    let page = get(String::new()).await.ok(200);
    let actions: Vec<&str> = page["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .map(|e| e["action"].as_str().expect("action"))
        .collect();
    assert!(actions.contains(&"account.reveal"), "{page}");
    assert!(actions.contains(&"app.create"), "{page}");
    // The operator and the customer by name, masked; the app by its names.
    assert_eq!(page["people"][&operator_id]["userName"], "helper");
    assert_eq!(page["people"][&ann]["userName"], "annlee");
    assert_eq!(page["people"][&ann]["mail"], "an***@example.com");
    assert!(!page.to_string().contains("ann@example.com"), "{page}");
    assert_eq!(page["apps"][&app_id]["en-US"], "Mill");

    // Filters by what an agent has at hand; the same entry each time.
    let ids = |v: &Value| -> Vec<String> {
        v["entries"]
            .as_array()
            .expect("entries")
            .iter()
            .map(|e| format!("{} {}", e["action"], e["target"]))
            .collect()
    };
    let want = vec![format!("\"account.reveal\" \"{ann}\"")];
    for target in [ann.as_str(), "annlee", "AnnLee", "ann@example.com"] {
        let got = get(format!("&target={}", crate::helpers::url_encode(target)))
            .await
            .ok(200);
        assert_eq!(ids(&got), want, "{target}");
    }
    let by_actor = get("&actor=helper&action=account.reveal".into())
        .await
        .ok(200);
    assert_eq!(ids(&by_actor), want);
    let by_app = get(format!("&target={app_id}")).await.ok(200);
    assert_eq!(ids(&by_app), vec![format!("\"app.create\" \"{app_id}\"")]);

    // A mail or phone no account has, and an action no build writes: said, at the field. A word
    // that is no username is matched as an id (a deleted app's).
    let none = get("&target=nobody".into()).await.ok(200);
    assert_eq!(ids(&none), Vec::<String>::new());
    let e = get("&target=%2B8613900000000".into())
        .await
        .error(404, "ACCOUNT_NOT_FOUND");
    assert_eq!(e["field"], "target");
    let e = get("&actor=nobody%40example.com".into())
        .await
        .error(404, "ACCOUNT_NOT_FOUND");
    assert_eq!(e["field"], "actor");
    let e = get("&action=account.delete".into())
        .await
        .error(400, "INVALID_PARAMETER");
    assert_eq!(e["field"], "action");

    // The export takes the same filters.
    let csv = get("&target=annlee&format=csv".into()).await;
    assert_eq!(csv.status, 200, "{}", csv.text);
    let lines: Vec<&str> = csv.text.lines().collect();
    assert_eq!(lines.len(), 2, "{}", csv.text);
    assert!(lines[1].contains("account.reveal") && lines[1].contains(&ann));
}

#[tokio::test]
async fn the_audit_log_names_people_and_apps_and_filters_by_name_on_sqlite() {
    the_log_speaks_of_people(&TestApp::spawn().await).await;
}

#[tokio::test]
async fn the_audit_log_names_people_and_apps_and_filters_by_name_on_dynamodb() {
    let local = Arc::new(DynamoLocal::start().await);
    the_log_speaks_of_people(&TestApp::on_dynamo(&local, "audit-names").await).await;
}
