//! Which cell serves whom (issue 32 item 4, docs/multi-region.md §14): in the global cell with a
//! mainland sibling (`Config::other_cell`), a phone sign-up, its code request included, is
//! refused with PHONE_MAINLAND_SERVICE_ONLY and the sibling's origin, before the captcha, any
//! store call or any text; mail sign-ups and every sign-in are unchanged, and a cell without a
//! sibling, or the mainland cell, takes phones as before. On SQLite and on DynamoDB Local.

use crate::helpers::{registration, TestApp};
use ciam_core::cell::Cell;
use ciam_store::dynamo_local::DynamoLocal;
use serde_json::json;
use std::sync::Arc;

const MAINLAND: &str = "https://id.example.cn";
const PHONE: &str = "13800138000";

fn global_with_sibling(app: TestApp) -> TestApp {
    app.configure(|c| {
        c.cell = Cell::Global;
        c.other_cell = Some(MAINLAND.into());
    })
}

async fn phone_sign_up_is_sent_to_the_mainland_service(app: TestApp) {
    app.store.take_calls();
    // The code request: no captcha needed to be told, nothing read or written, nothing sent.
    let res = app
        .post_identity(&json!({ "account": PHONE, "purpose": "register", "captcha": "x" }))
        .await;
    let body = res.error(400, "PHONE_MAINLAND_SERVICE_ONLY");
    assert_eq!(body["otherCell"], MAINLAND);
    assert_eq!(app.store.take_calls(), []);
    assert!(app.outbox.messages().is_empty());
    // A +86 number as typed with its country code is the same number.
    app.post_identity(
        &json!({ "account": "+86 138 0013 8000", "purpose": "register", "captcha": "x" }),
    )
    .await
    .error(400, "PHONE_MAINLAND_SERVICE_ONLY");
    // The registration itself, whatever code it carries.
    let res = app
        .post_register(&registration("mainlander", PHONE, "123456"))
        .await;
    assert_eq!(
        res.error(400, "PHONE_MAINLAND_SERVICE_ONLY")["otherCell"],
        MAINLAND
    );
    assert_eq!(app.store.take_calls(), []);
    // In English too, naming the service.
    let msg = res.json()["message"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(msg.contains("服务") || msg.contains("service"), "{msg}");

    // A mail sign-up here goes on as ever.
    app.sign_up("globetrotter", "trot@example.com").await;
    // Sign-in codes are not sign-ups: a phone's is answered alike (the cell holds no such
    // account, and says nothing about it).
    app.send_code(PHONE, "login").await.ok(200);
}

#[tokio::test]
async fn a_phone_sign_up_in_the_global_cell_with_a_mainland_sibling_is_sent_there() {
    phone_sign_up_is_sent_to_the_mainland_service(global_with_sibling(TestApp::spawn().await))
        .await;
}

#[tokio::test]
async fn on_dynamodb_a_phone_sign_up_in_the_global_cell_with_a_mainland_sibling_is_sent_there() {
    let local = Arc::new(DynamoLocal::start().await);
    let app = global_with_sibling(TestApp::on_dynamo(&local, "cells").await);
    phone_sign_up_is_sent_to_the_mainland_service(app).await;
}

#[tokio::test]
async fn one_cell_alone_and_the_mainland_cell_sign_phones_up() {
    // One cell: today's behaviour.
    TestApp::spawn().await.sign_up("alone", PHONE).await;
    // The mainland cell, which knows the global one.
    let cn = TestApp::spawn().await.configure(|c| {
        c.cell = Cell::Cn;
        c.other_cell = Some("https://id.example.com".into());
    });
    cn.sign_up("mainlander", PHONE).await;
}

#[tokio::test]
async fn other_answers_carry_no_other_cell() {
    let app = global_with_sibling(TestApp::spawn().await);
    let res = app
        .login_password("nobody@example.com", "Wr0ng!Passw0rd")
        .await;
    let body = res.error(401, "PASSWORD_ERROR");
    assert!(body.get("otherCell").is_none(), "{body}");
}
