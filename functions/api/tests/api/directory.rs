//! The account directory behind the console's lists (issue 21): accounts by company prefix and
//! by sign-up day, newest first, paged, one query each; kept up to date by registration, a
//! company change and deactivation. On SQLite and DynamoDB Local.

use crate::helpers::{registration, TestApp, PASSWORD};
use ciam_core::directory::{by_company, by_day, day_of, Page};
use ciam_store::dynamo_local::DynamoLocal;
use ciam_store::Store;
use serde_json::json;
use std::sync::Arc;

fn names(p: &Page) -> Vec<&str> {
    p.accounts.iter().map(|a| a.user_name.as_str()).collect()
}

async fn sign_up_at(app: &TestApp, name: &str, company: &str) -> String {
    let mail = format!("{name}@example.com");
    let code = app.fresh_code(&mail, "register").await;
    let mut body = registration(name, &mail, &code);
    body["company"] = json!(company);
    let id = app.post_register(&body).await.ok(201)["userId"]
        .as_str()
        .expect("userId")
        .to_owned();
    app.clock.advance(61);
    id
}

async fn the_directory_lists_and_pages(app: TestApp) {
    let today = day_of(app.now());
    for (name, company) in [
        ("ann", "Acme Robotics"),
        ("bob", "ACME Tools"),
        ("cyd", "Beta Works"),
        ("dan", "Ａｃｍｅ Robotics"),
        ("eve", "acme robotics"),
    ] {
        sign_up_at(&app, name, company).await;
    }
    let ciam = &app.ciam;
    // By company prefix, folded: by company, then newest first; two a page.
    let first = by_company(ciam, "acme", None, 2).await.unwrap();
    assert_eq!(names(&first), ["eve", "dan"]);
    let second = by_company(ciam, "ACME", first.next.as_deref(), 2)
        .await
        .unwrap();
    assert_eq!(names(&second), ["ann", "bob"]);
    let third = by_company(ciam, "acme", second.next.as_deref(), 2)
        .await
        .unwrap();
    assert!(third.accounts.is_empty() && third.next.is_none());
    assert_eq!(
        names(&by_company(ciam, "acme t", None, 50).await.unwrap()),
        ["bob"]
    );
    assert_eq!(
        names(&by_company(ciam, "b", None, 50).await.unwrap()),
        ["cyd"]
    );
    by_company(ciam, "  ", None, 50).await.unwrap_err();
    by_company(ciam, "acme", Some("beta#x"), 50)
        .await
        .unwrap_err();

    // By sign-up day, newest first.
    let day = by_day(ciam, &today, None, 3).await.unwrap();
    assert_eq!(names(&day), ["eve", "dan", "cyd"]);
    let rest = by_day(ciam, &today, day.next.as_deref(), 3).await.unwrap();
    assert_eq!(names(&rest), ["bob", "ann"]);
    by_day(ciam, "2026-13", None, 3).await.unwrap_err();

    // A company change moves the entry; deactivation removes it.
    let token = app.sign_in("bob@example.com", PASSWORD).await;
    app.patch_info(&token, &json!({ "company": "Beta Tools" }))
        .await
        .ok(200);
    assert_eq!(
        names(&by_company(ciam, "beta", None, 50).await.unwrap()),
        ["bob", "cyd"]
    );
    assert!(!names(&by_company(ciam, "acme", None, 50).await.unwrap()).contains(&"bob"));
    let token = app.sign_in("cyd@example.com", PASSWORD).await;
    app.deactivate(&token, &json!({ "password": PASSWORD }))
        .await
        .ok(200);
    assert_eq!(
        names(&by_company(ciam, "beta", None, 50).await.unwrap()),
        ["bob"]
    );
    assert!(!names(&by_day(ciam, &today, None, 50).await.unwrap()).contains(&"cyd"));
}

#[tokio::test]
async fn accounts_are_listed_by_company_prefix_and_sign_up_day_newest_first_and_paged() {
    the_directory_lists_and_pages(TestApp::spawn().await).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn on_dynamodb_accounts_are_listed_by_company_and_day() {
    let local = Arc::new(DynamoLocal::start().await);
    let server = local.clone();
    let app = TestApp::spawn_on(move |clock| {
        Box::pin(async move {
            let store: Arc<dyn Store> = Arc::new(local.store("directory", Arc::new(clock)).await);
            store
        })
    })
    .await;
    the_directory_lists_and_pages(app).await;
    drop(server);
}
