//! Partner events (issue 23, docs/events-design.md §1-§2): every kind is written by its cause
//! over HTTP, in the change's transaction, and only then (a refused change, a wrong code, an idle
//! expiry write none); what an app hears is cut to its consent (`Event::payload_for`); a user
//! without a consented app writes no event at all. On SQLite and DynamoDB Local.

use crate::apps::{world_on, World, SERVICE};
use crate::helpers::{TestApp, NEW_PASSWORD, PASSWORD};
use axum::http::Method;
use ciam_core::console::Role;
use ciam_core::events::{self, Event, Kind};
use ciam_core::totp::{code_at, STEP_SECS};
use ciam_store::dynamo_local::DynamoLocal;
use ciam_store::Store;
use serde_json::{json, Value};
use std::sync::Arc;

/// Factory's scopes (`apps::new_app`).
fn factory_scopes() -> Vec<String> {
    ["company", "email", "nickname"].map(String::from).to_vec()
}

/// A small PNG to upload as an avatar.
fn png(side: u32) -> Vec<u8> {
    let img = image::RgbImage::from_fn(side, side, |x, y| image::Rgb([x as u8, y as u8, 128]));
    let mut out = std::io::Cursor::new(Vec::new());
    image::DynamicImage::ImageRgb8(img)
        .write_to(&mut out, image::ImageFormat::Png)
        .expect("png");
    out.into_inner()
}

async fn all_events(app: &TestApp, user_id: &str) -> Vec<Event> {
    events::list(&app.ciam, user_id).await.expect("events")
}

/// The events written since those in `seen` were looked at (events of one second have no order
/// among them: their sort keys end in random ids); `seen` takes them in.
async fn new_events(app: &TestApp, user_id: &str, seen: &mut Vec<String>) -> Vec<Event> {
    let fresh: Vec<Event> = all_events(app, user_id)
        .await
        .into_iter()
        .filter(|e| !seen.contains(&e.id))
        .collect();
    seen.extend(fresh.iter().map(|e| e.id.clone()));
    fresh
}

/// The one event a change wrote (of `kind`).
async fn one(app: &TestApp, user_id: &str, seen: &mut Vec<String>, kind: Kind) -> Event {
    let fresh = new_events(app, user_id, seen).await;
    assert_eq!(
        fresh.iter().map(|e| e.kind).collect::<Vec<_>>(),
        vec![kind],
        "{fresh:?}"
    );
    fresh.into_iter().next().expect("one event")
}

async fn none(app: &TestApp, user_id: &str, seen: &mut Vec<String>, what: &str) {
    let fresh = new_events(app, user_id, seen).await;
    assert!(fresh.is_empty(), "{what} wrote {fresh:?}");
}

fn data(e: &Event) -> Value {
    Value::Object(e.data.clone())
}

async fn consents_count(app: &TestApp, user_id: &str) -> Option<i64> {
    app.user_item(user_id)
        .await
        .expect("user item")
        .n("consents")
}

/// Ann's consent to Factory (a ticket), and nothing announced before it.
async fn consented(app: TestApp) -> World {
    let w = world_on(app).await;
    assert_eq!(consents_count(&w.app, &w.user_id).await, Some(0));
    w.app
        .patch_info(&w.user, &json!({ "displayName": "Before" }))
        .await
        .ok(200);
    assert!(all_events(&w.app, &w.user_id).await.is_empty());
    w.app
        .issue_ticket(&w.user, &w.app_id, SERVICE)
        .await
        .ok(200);
    assert_eq!(consents_count(&w.app, &w.user_id).await, Some(1));
    // A second ticket: the consent held, not counted twice.
    w.app
        .issue_ticket(&w.user, &w.app_id, SERVICE)
        .await
        .ok(200);
    assert_eq!(consents_count(&w.app, &w.user_id).await, Some(1));
    assert!(all_events(&w.app, &w.user_id).await.is_empty());
    w
}

/// The account's own changes: profile, avatar, mail, phone, two-factor, sessions, password,
/// the consent's revocation.
async fn the_customers_own_changes(app: TestApp) {
    let w = consented(app).await;
    let (app, token, uid) = (&w.app, w.user.clone(), w.user_id.as_str());
    let mut seen = Vec::new();
    let scopes = factory_scopes();

    // Profile: fields under no scope alone announce nothing; a nickname does, to the app.
    app.patch_info(&token, &json!({ "duty": "Buyer", "address": "1 Road" }))
        .await
        .ok(200);
    none(app, uid, &mut seen, "a change of duty and address").await;
    app.patch_info(&token, &json!({ "displayName": "x".repeat(51) }))
        .await
        .error(400, "INVALID_PARAMETER");
    none(app, uid, &mut seen, "a refused PATCH").await;
    app.patch_info(&token, &json!({ "displayName": "Before" }))
        .await
        .ok(200);
    none(app, uid, &mut seen, "the same nickname again").await;
    app.patch_info(&token, &json!({ "displayName": "安妮", "duty": "Chief" }))
        .await
        .ok(200);
    let e = one(app, uid, &mut seen, Kind::UserUpdated).await;
    assert_eq!(data(&e), json!({ "nickname": "安妮" }));
    assert_eq!(e.user_id, uid);
    assert!(e.id.starts_with("msg_") && e.id.len() == 28, "{}", e.id);
    // A profile change is its window's event (issue 30: coalesced), stamped with its start.
    assert_eq!(e.at, app.now() - app.now() % events::COALESCE_SECS);
    // A second change in the window is the same event, holding the last value of each field.
    app.patch_info(&token, &json!({ "displayName": "安妮2", "company": "Co" }))
        .await
        .ok(200);
    none(app, uid, &mut seen, "a change in the same window").await;
    let merged = events::list(&app.ciam, uid)
        .await
        .expect("events")
        .into_iter()
        .find(|x| x.id == e.id)
        .expect("the window's event");
    assert_eq!(
        data(&merged),
        json!({ "nickname": "安妮2", "company": "Co" })
    );
    app.clock.advance(events::COALESCE_SECS);
    let heard = e.payload_for(&w.app_id, &scopes).expect("the app hears it");
    assert_eq!(heard["type"], "user.updated");
    assert_eq!(heard["data"], json!({ "nickname": "安妮", "userId": uid }));
    // An app with only `email` hears nothing of a nickname.
    assert_eq!(e.payload_for(&w.app_id, &["email".into()]), None);
    app.patch_info(&token, &json!({ "company": "New Co" }))
        .await
        .ok(200);
    let e = one(app, uid, &mut seen, Kind::UserUpdated).await;
    assert_eq!(data(&e), json!({ "company": "New Co" }));
    app.clock.advance(events::COALESCE_SECS);

    // The avatar: the picture as OpenID Connect gives it (absolute); Factory has no `avatar`.
    let png = png(64);
    let path = app
        .patch_avatar(Some(&token), png, Some("image/png"))
        .await
        .ok(200)["avatar"]
        .as_str()
        .expect("avatar")
        .to_owned();
    let e = one(app, uid, &mut seen, Kind::UserUpdated).await;
    assert_eq!(
        data(&e),
        json!({ "picture": format!("{}{path}", app.ciam.config.public_url) })
    );
    assert_eq!(e.payload_for(&w.app_id, &scopes), None);
    assert!(e.payload_for(&w.app_id, &["avatar".into()]).is_some());

    // The mail: a wrong code writes nothing; the new mail, under `email`.
    let code = app.fresh_code("new@example.com", "bind").await;
    app.patch_mail(
        &token,
        "new@example.com",
        &crate::helpers::wrong_code(&code),
    )
    .await
    .error(400, "CODE_ERROR");
    none(app, uid, &mut seen, "a wrong bind code").await;
    app.patch_mail(&token, "new@example.com", &code)
        .await
        .ok(200);
    let e = one(app, uid, &mut seen, Kind::MailChanged).await;
    assert_eq!(
        data(&e),
        json!({ "email": "new@example.com", "email_verified": true })
    );
    let heard = e.payload_for(&w.app_id, &scopes).expect("heard");
    assert_eq!(heard["data"]["email"], "new@example.com");
    // Without `email` the app hears only that it changed.
    let bare = e
        .payload_for(&w.app_id, &["nickname".into()])
        .expect("heard");
    assert_eq!(bare["data"], json!({ "userId": uid }));

    // The phone: E.164, under `phone` (Factory does not have it: the kind alone).
    let code = app.fresh_code("13800138000", "bind").await;
    app.patch_phone(&token, "13800138000", &code).await.ok(200);
    let e = one(app, uid, &mut seen, Kind::PhoneChanged).await;
    assert_eq!(
        data(&e),
        json!({ "phone_number": "+8613800138000", "phone_number_verified": true })
    );
    assert_eq!(
        e.payload_for(&w.app_id, &scopes).expect("heard")["data"],
        json!({ "userId": uid })
    );

    // Two-factor: a wrong code writes nothing; on, new backup codes, off.
    let url = app.get_totp_url(&token).await.ok(200)["url"]
        .as_str()
        .expect("url")
        .to_owned();
    none(app, uid, &mut seen, "an enrolment's start").await;
    let secret = crate::two_factor::secret_of(&url);
    let code = code_at(&secret, app.now().div_euclid(STEP_SECS));
    let wrong = crate::helpers::wrong_code(&code);
    app.totp_enable(&token, &wrong)
        .await
        .error(400, "TOTP_SECRET_ERROR");
    none(app, uid, &mut seen, "a wrong authenticator code").await;
    app.totp_enable(&token, &code).await.ok(200);
    let e = one(app, uid, &mut seen, Kind::TwoFactorChanged).await;
    assert_eq!(data(&e), json!({ "enabled": true }));
    // Two-factor changes need no scope: every consented app hears them.
    assert!(e.payload_for(&w.app_id, &[]).is_some());
    app.totp_backup_codes(&token).await.ok(200);
    let e = one(app, uid, &mut seen, Kind::TwoFactorChanged).await;
    assert_eq!(data(&e), json!({ "enabled": true }));
    app.totp_disable(&token).await.ok(200);
    let e = one(app, uid, &mut seen, Kind::TwoFactorChanged).await;
    assert_eq!(data(&e), json!({ "enabled": false }));

    // Sessions: ending another from the list (its sid), an idle expiry (nothing), a sign-out.
    let mail = "new@example.com";
    let other = app.sign_in(mail, PASSWORD).await;
    let list = app.get_sessions(&token).await.ok(200);
    let other_id = list["sessions"]
        .as_array()
        .expect("sessions")
        .iter()
        .find(|s| s["current"] == false)
        .expect("the other session")["id"]
        .as_str()
        .expect("id")
        .to_owned();
    app.delete_session(&token, &other_id).await.ok(200);
    let e = one(app, uid, &mut seen, Kind::SessionEnded).await;
    assert_eq!(e.data["reason"], "signed_out");
    let ended: Vec<String> = app
        .sessions_of(uid)
        .await
        .iter()
        .filter(|i| i.n("endedAt").is_some())
        .map(|i| ciam_core::sessions::sid(&i.key))
        .collect();
    assert_eq!(ended, vec![e.data["sid"].as_str().expect("sid").to_owned()]);
    app.get_info(&other)
        .await
        .error(401, "AUTHORIZATION_FAILED");
    app.delete_session(&token, &other_id)
        .await
        .error(404, "NOT_FOUND");
    none(app, uid, &mut seen, "ending an ended session").await;

    let idle = app.sign_in(mail, PASSWORD).await;
    app.clock.advance(ciam_core::sessions::IDLE_SECS + 1);
    app.get_info(&idle).await.error(401, "AUTHORIZATION_FAILED");
    none(app, uid, &mut seen, "an idle expiry").await;

    // The password: a wrong current one writes nothing; a change ends the others (no sid).
    let token = app.sign_in(mail, PASSWORD).await;
    let change = |old: &str| json!({ "oldPassword": old, "password": NEW_PASSWORD, "confirmPassword": NEW_PASSWORD });
    app.patch_pwd(Some(&token), &change("Wr0ng!Passw0rd"))
        .await
        .error(401, "PASSWORD_ERROR");
    none(app, uid, &mut seen, "a wrong current password").await;
    app.patch_pwd(Some(&token), &change(PASSWORD)).await.ok(200);
    let e = one(app, uid, &mut seen, Kind::SessionEnded).await;
    assert_eq!(data(&e), json!({ "reason": "all_sessions" }));

    // Sign-out: the session's sid.
    app.logout(&token).await.ok(200);
    let e = one(app, uid, &mut seen, Kind::SessionEnded).await;
    assert_eq!(e.data["reason"], "signed_out");
    assert_eq!(e.data["sid"].as_str().map(str::len), Some(32));

    // The consent revoked: only that app hears it, and from then on nothing is written.
    let token = app.sign_in(mail, NEW_PASSWORD).await;
    app.delete_consent(&token, &w.app_id).await.ok(200);
    let e = one(app, uid, &mut seen, Kind::ConsentRevoked).await;
    assert_eq!(e.app_id.as_deref(), Some(w.app_id.as_str()));
    let heard = e.payload_for(&w.app_id, &[]).expect("the app hears it");
    assert_eq!(heard["type"], "consent.revoked");
    assert_eq!(e.payload_for("0123456789abcdef", &scopes), None);
    assert_eq!(consents_count(app, uid).await, Some(0));
    // The fan-out's audience: that app alone, its consent gone.
    let to = ciam_core::consents::audience(&app.ciam, &e)
        .await
        .expect("audience");
    assert_eq!(
        to.iter().map(|c| c.app_id.as_str()).collect::<Vec<_>>(),
        vec![w.app_id.as_str()]
    );
    app.delete_consent(&token, &w.app_id).await.ok(200);
    none(app, uid, &mut seen, "revoking twice").await;
    app.patch_info(&token, &json!({ "displayName": "After" }))
        .await
        .ok(200);
    app.logout(&token).await.ok(200);
    none(
        app,
        uid,
        &mut seen,
        "changes after the last consent is gone",
    )
    .await;
}

#[tokio::test]
async fn each_change_of_the_customer_writes_its_event_and_only_then() {
    the_customers_own_changes(TestApp::spawn().await).await;
}

#[tokio::test]
async fn on_dynamodb_each_change_of_the_customer_writes_its_event_and_only_then() {
    let local = Arc::new(DynamoLocal::start().await);
    the_customers_own_changes(TestApp::on_dynamo(&local, "events").await).await;
}

async fn act(app: &TestApp, token: &str, user_id: &str, action: &str) {
    let p = format!("/admin/accounts/{user_id}/{action}");
    app.admin_call(
        Method::POST,
        &p,
        Some(token),
        Some(&json!({ "reason": "ticket 7" })),
    )
    .await
    .ok(200);
}

/// The support desk's changes, then the deactivation.
async fn the_support_desks_changes(app: TestApp) {
    let w = consented(app).await;
    let (app, uid) = (&w.app, w.user_id.as_str());
    let (_, admin) = app.staffer("helper", Some(Role::Admin)).await;
    let mut seen = Vec::new();

    act(app, &admin, uid, "unlock").await;
    none(app, uid, &mut seen, "an unlock").await;
    act(app, &admin, uid, "end-sessions").await;
    let e = one(app, uid, &mut seen, Kind::SessionEnded).await;
    assert_eq!(data(&e), json!({ "reason": "support" }));

    act(app, &admin, uid, "suspend").await;
    let mut fresh = new_events(app, uid, &mut seen).await;
    fresh.sort_by_key(|e| e.kind != Kind::Suspended);
    let kinds: Vec<Kind> = fresh.iter().map(|e| e.kind).collect();
    assert_eq!(kinds, vec![Kind::Suspended, Kind::SessionEnded]);
    // Never the support desk's reason.
    assert_eq!(data(&fresh[0]), json!({}));
    assert!(!format!("{fresh:?}").contains("ticket 7"));
    assert_eq!(data(&fresh[1]), json!({ "reason": "support" }));
    act(app, &admin, uid, "suspend").await;
    none(app, uid, &mut seen, "suspending a suspended account").await;
    act(app, &admin, uid, "reactivate").await;
    let e = one(app, uid, &mut seen, Kind::Reactivated).await;
    assert_eq!(
        e.payload_for(&w.app_id, &factory_scopes()).expect("heard")["data"],
        json!({ "userId": uid })
    );
    act(app, &admin, uid, "reset-two-factor").await;
    none(app, uid, &mut seen, "resetting two-factor that is off").await;

    // The identity replaced by an admin: the new mail, under `email`.
    let p = format!("/admin/accounts/{uid}/identity");
    let body = json!({ "reason": "lost access", "mail": "ann.new@example.com" });
    app.admin_call(Method::PUT, &p, Some(&admin), Some(&body))
        .await
        .ok(200);
    let e = one(app, uid, &mut seen, Kind::MailChanged).await;
    assert_eq!(
        data(&e),
        json!({ "email": "ann.new@example.com", "email_verified": true })
    );

    // The support desk turns the customer's authenticator off.
    let mail = "ann.new@example.com";
    let token = app.sign_in(mail, PASSWORD).await;
    let url = app.get_totp_url(&token).await.ok(200)["url"]
        .as_str()
        .expect("url")
        .to_owned();
    let secret = crate::two_factor::secret_of(&url);
    let code = code_at(&secret, app.now().div_euclid(STEP_SECS));
    app.totp_enable(&token, &code).await.ok(200);
    one(app, uid, &mut seen, Kind::TwoFactorChanged).await;
    act(app, &admin, uid, "reset-two-factor").await;
    let e = one(app, uid, &mut seen, Kind::TwoFactorChanged).await;
    assert_eq!(data(&e), json!({ "enabled": false }));

    // A password reset by code ends every session: a wrong code writes nothing.
    let code = app.fresh_code(mail, "resetPassword").await;
    let reset = |code: &str| json!({ "account": mail, "code": code, "password": NEW_PASSWORD, "confirmPassword": NEW_PASSWORD });
    app.patch_pwd(None, &reset(&crate::helpers::wrong_code(&code)))
        .await
        .error(400, "CODE_ERROR");
    none(app, uid, &mut seen, "a wrong reset code").await;
    app.patch_pwd(None, &reset(&code)).await.ok(200);
    let e = one(app, uid, &mut seen, Kind::SessionEnded).await;
    assert_eq!(data(&e), json!({ "reason": "all_sessions" }));

    // Deactivation: a wrong password writes nothing; the event names its audience, as the
    // consents are deleted after it.
    let token = app.sign_in(mail, NEW_PASSWORD).await;
    app.deactivate(&token, &json!({ "password": "Wr0ng!Passw0rd" }))
        .await
        .error(401, "PASSWORD_ERROR");
    none(app, uid, &mut seen, "a refused deactivation").await;
    app.deactivate(&token, &json!({ "password": NEW_PASSWORD }))
        .await
        .ok(200);
    let e = one(app, uid, &mut seen, Kind::Deactivated).await;
    let to = ciam_core::consents::audience(&app.ciam, &e)
        .await
        .expect("audience");
    assert_eq!(to.len(), 1);
    assert_eq!(
        (to[0].app_id.as_str(), &to[0].scopes),
        (w.app_id.as_str(), &factory_scopes())
    );
    // The consent itself is gone.
    assert!(app
        .store
        .get(&ciam_core::consents::consent_key(uid, &w.app_id))
        .await
        .expect("get")
        .is_none());
}

#[tokio::test]
async fn the_support_desks_changes_and_a_deactivation_write_their_events() {
    the_support_desks_changes(TestApp::spawn().await).await;
}

#[tokio::test]
async fn on_dynamodb_the_support_desks_changes_and_a_deactivation_write_their_events() {
    let local = Arc::new(DynamoLocal::start().await);
    the_support_desks_changes(TestApp::on_dynamo(&local, "support").await).await;
}

/// Passkeys: added and removed (the second factor left: the authenticator's), the console's
/// reset.
async fn passkey_changes(app: TestApp) {
    let w = consented(app).await;
    let (app, uid, token) = (&w.app, w.user_id.as_str(), w.user.as_str());
    let mut seen = Vec::new();
    let mut first = crate::passkeys::soft(1);
    let id = crate::passkeys::add(app, token, &mut first).await.ok(200)["id"]
        .as_str()
        .expect("id")
        .to_owned();
    let e = one(app, uid, &mut seen, Kind::TwoFactorChanged).await;
    assert_eq!(data(&e), json!({ "enabled": true }));
    let mut second = crate::passkeys::soft(2);
    crate::passkeys::add(app, token, &mut second).await.ok(200);
    one(app, uid, &mut seen, Kind::TwoFactorChanged).await;
    let r = app.delete_passkey(token, &id).await;
    assert_eq!(r.status, 204, "{}", r.text);
    let e = one(app, uid, &mut seen, Kind::TwoFactorChanged).await;
    assert_eq!(data(&e), json!({ "enabled": true }), "one passkey is left");
    app.delete_passkey(token, &id)
        .await
        .error(404, "PASSKEY_NOT_FOUND");
    none(app, uid, &mut seen, "removing a removed passkey").await;
    let (_, admin) = app.staffer("helper", Some(Role::Operator)).await;
    act(app, &admin, uid, "reset-passkeys").await;
    let e = one(app, uid, &mut seen, Kind::TwoFactorChanged).await;
    assert_eq!(data(&e), json!({ "enabled": false }));
    act(app, &admin, uid, "reset-passkeys").await;
    none(app, uid, &mut seen, "a reset with no passkey").await;
}

#[tokio::test]
async fn adding_and_removing_passkeys_writes_two_factor_changed() {
    passkey_changes(crate::passkeys::app().await).await;
}

#[tokio::test]
async fn on_dynamodb_adding_and_removing_passkeys_writes_two_factor_changed() {
    let local = Arc::new(DynamoLocal::start().await);
    passkey_changes(crate::passkeys::app_on(&local, "pkevents").await).await;
}

/// An account that never consented to an app writes no event, whatever it changes.
async fn no_consent_no_event(app: TestApp) {
    let uid = app.sign_up("bob", "bob@example.com").await;
    let token = app.sign_in("bob@example.com", PASSWORD).await;
    assert_eq!(consents_count(&app, &uid).await, Some(0));
    app.patch_info(&token, &json!({ "displayName": "Bob", "company": "Solo" }))
        .await
        .ok(200);
    let code = app.fresh_code("bob2@example.com", "bind").await;
    app.patch_mail(&token, "bob2@example.com", &code)
        .await
        .ok(200);
    let url = app.get_totp_url(&token).await.ok(200)["url"]
        .as_str()
        .expect("url")
        .to_owned();
    let secret = crate::two_factor::secret_of(&url);
    let code = code_at(&secret, app.now().div_euclid(STEP_SECS));
    app.totp_enable(&token, &code).await.ok(200);
    app.logout(&token).await.ok(200);
    assert!(all_events(&app, &uid).await.is_empty());
}

#[tokio::test]
async fn an_account_without_a_consent_writes_no_event() {
    no_consent_no_event(TestApp::spawn().await).await;
}

#[tokio::test]
async fn on_dynamodb_an_account_without_a_consent_writes_no_event() {
    let local = Arc::new(DynamoLocal::start().await);
    no_consent_no_event(TestApp::on_dynamo(&local, "noconsent").await).await;
}

/// An account from before the consent count (no `consents` on its item) is announced: nothing
/// says it has no consent.
#[tokio::test]
async fn an_account_from_before_the_count_is_announced() {
    let app = TestApp::spawn().await;
    let uid = app.sign_up("old", "old@example.com").await;
    let token = app.sign_in("old@example.com", PASSWORD).await;
    let mut item = app.user_item(&uid).await.expect("user");
    item.attrs.remove("consents");
    app.store.put(item, None).await.expect("put");
    app.logout(&token).await.ok(200);
    let got = all_events(&app, &uid).await;
    assert_eq!(
        got.iter().map(|e| e.kind).collect::<Vec<_>>(),
        vec![Kind::SessionEnded]
    );
}
