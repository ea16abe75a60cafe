//! The owner's view: privacy choices with history, sessions, security activity, apps.

use crate::helpers::{TestApp, NEW_PASSWORD, PASSWORD};
use ciam_core::me::seed_demo_app;
use serde_json::json;

const CHROME_WIN: &str = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36";

async fn signed_in() -> (TestApp, String) {
    let app = TestApp::spawn().await;
    app.sign_up("ann", "ann@example.com").await;
    let token = app.sign_in("ann@example.com", PASSWORD).await;
    (app, token)
}

/// The owner sees their own mail and phone whole (`fullMail`, `fullPhone`) beside the masked
/// display values, in `GET /auth/info` and in the answer of a profile change; nobody else does.
async fn the_owner_sees_their_own_address_whole(app: TestApp) {
    app.sign_up("ann", "ann.lee@example.com").await;
    let token = app.sign_in("ann.lee@example.com", PASSWORD).await;
    let info = app.get_info(&token).await.ok(200);
    assert_eq!(info["mail"], "an***@example.com", "{info}");
    assert_eq!(info["fullMail"], "ann.lee@example.com", "{info}");
    assert_eq!(info["phone"], json!(null));
    assert_eq!(info["fullPhone"], json!(null));
    let after = app
        .patch_info(&token, &json!({ "duty": "Engineer" }))
        .await
        .ok(200);
    assert_eq!(after["fullMail"], "ann.lee@example.com", "{after}");

    app.sign_up("wangfang", "13800138000").await;
    let code = app.fresh_code("13800138000", "login").await;
    let signed_in = app.login_code("13800138000", &code).await.ok(200);
    let token = signed_in["token"].as_str().unwrap().to_owned();
    let info = app.get_info(&token).await.ok(200);
    assert_eq!(info["phone"], "138****8000", "{info}");
    assert_eq!(info["fullPhone"], "13800138000", "{info}");
    assert_eq!(info["fullMail"], json!(null));
}

#[tokio::test]
async fn the_owner_sees_their_own_mail_and_phone_whole() {
    the_owner_sees_their_own_address_whole(TestApp::spawn().await).await;
}

#[tokio::test]
async fn on_dynamodb_the_owner_sees_their_own_mail_and_phone_whole() {
    let local = std::sync::Arc::new(ciam_store::dynamo_local::DynamoLocal::start().await);
    the_owner_sees_their_own_address_whole(TestApp::on_dynamo(&local, "owner-whole").await).await;
}

#[tokio::test]
async fn privacy_choices_start_off_and_every_change_is_kept_in_the_history() {
    let (app, token) = signed_in().await;
    let p = app.get_privacy(&token).await.ok(200);
    assert_eq!(
        p["settings"],
        json!({ "analytics": false, "marketing": false })
    );
    assert_eq!(p["history"], json!([]));
    let p = app
        .patch_privacy(&token, &json!({ "analytics": true }))
        .await
        .ok(200);
    assert_eq!(p["settings"]["analytics"], true);
    app.clock.advance(60);
    // Unchanged choices add nothing; a real change adds one entry naming only what changed.
    app.patch_privacy(&token, &json!({ "analytics": true }))
        .await
        .ok(200);
    let p = app
        .patch_privacy(&token, &json!({ "analytics": false, "marketing": true }))
        .await
        .ok(200);
    let history = p["history"].as_array().expect("history");
    assert_eq!(history.len(), 2, "{p}");
    assert_eq!(
        history[0]["changes"],
        json!({ "analytics": false, "marketing": true })
    );
    assert_eq!(history[0]["at"], app.now());
    assert_eq!(history[1]["changes"], json!({ "analytics": true }));
    assert_eq!(history[1]["at"], app.now() - 60);
    let v = app
        .patch_privacy(&token, &json!({ "tracking": true }))
        .await
        .error(400, "INVALID_PARAMETER");
    assert!(
        v["message"].as_str().unwrap_or("").contains("tracking"),
        "{v}"
    );
    app.patch_privacy(&token, &json!({ "analytics": "yes" }))
        .await
        .error(400, "INVALID_PARAMETER");
}

#[tokio::test]
async fn sessions_are_listed_with_their_device_and_one_can_be_ended() {
    let (app, token) = signed_in().await;
    let other = app
        .sign_in_from("ann@example.com", PASSWORD, CHROME_WIN, "de")
        .await;
    app.clock.advance(120);
    app.get_info(&other).await.ok(200);
    let list = app.get_sessions(&token).await.ok(200);
    let sessions = list["sessions"].as_array().expect("sessions");
    assert_eq!(sessions.len(), 2, "{list}");
    assert_eq!(
        sessions[0]["current"], true,
        "the current session comes first"
    );
    let theirs = &sessions[1];
    assert_eq!(
        (theirs["device"].as_str(), theirs["country"].as_str()),
        (Some("Chrome on Windows"), Some("DE"))
    );
    assert_eq!(theirs["lastSeen"], app.now());
    let id = theirs["id"].as_str().expect("id");
    app.delete_session(&token, id).await.ok(200);
    app.get_info(&other)
        .await
        .error(401, "AUTHORIZATION_FAILED");
    app.get_info(&token).await.ok(200);
    app.delete_session(&token, id).await.error(404, "NOT_FOUND");
    assert_eq!(
        app.get_sessions(&token).await.ok(200)["sessions"]
            .as_array()
            .map(Vec::len),
        Some(1)
    );
    // Revoked sessions (older generation) are not listed: a password change ends the others.
    let third = app.sign_in("ann@example.com", PASSWORD).await;
    app.patch_pwd(Some(&token), &json!({ "oldPassword": PASSWORD, "password": NEW_PASSWORD, "confirmPassword": NEW_PASSWORD })).await.ok(200);
    app.get_info(&third)
        .await
        .error(401, "AUTHORIZATION_FAILED");
    assert_eq!(
        app.get_sessions(&token).await.ok(200)["sessions"]
            .as_array()
            .map(Vec::len),
        Some(1)
    );
}

#[tokio::test]
async fn another_account_cannot_end_my_session() {
    let (app, token) = signed_in().await;
    app.sign_up("bob", "bob@example.com").await;
    let bob = app.sign_in("bob@example.com", PASSWORD).await;
    let mine = app.get_sessions(&token).await.ok(200)["sessions"][0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    app.delete_session(&bob, &mine)
        .await
        .error(404, "NOT_FOUND");
    app.get_info(&token).await.ok(200);
}

#[tokio::test]
async fn the_activity_trail_records_sign_ins_and_password_changes_newest_first() {
    let (app, token) = signed_in().await;
    app.clock.advance(10);
    app.sign_in_from("ann@example.com", PASSWORD, CHROME_WIN, "cn")
        .await;
    app.clock.advance(10);
    app.patch_pwd(Some(&token), &json!({ "oldPassword": PASSWORD, "password": NEW_PASSWORD, "confirmPassword": NEW_PASSWORD })).await.ok(200);
    let events = app.get_activity(&token).await.ok(200)["events"]
        .as_array()
        .cloned()
        .expect("events");
    let kinds: Vec<&str> = events.iter().filter_map(|e| e["kind"].as_str()).collect();
    assert_eq!(kinds, ["passwordChanged", "signIn", "signIn"]);
    assert_eq!(events[1]["device"], "Chrome on Windows");
    assert_eq!(events[1]["country"], "CN");
    // A failed sign-in is not a sign-in.
    app.login_password("ann@example.com", "Wr0ng!Passw0rd")
        .await
        .error(401, "PASSWORD_ERROR");
    assert_eq!(
        app.get_activity(&token).await.ok(200)["events"]
            .as_array()
            .map(Vec::len),
        Some(3)
    );
}

#[tokio::test]
async fn apps_are_listed_in_the_requested_language_and_recent_apps_start_empty() {
    let (app, token) = signed_in().await;
    assert_eq!(app.get_apps("en-US").await.ok(200)["apps"], json!([]));
    seed_demo_app(&app.ciam, "http://127.0.0.1:8080/")
        .await
        .expect("seed");
    seed_demo_app(&app.ciam, "http://elsewhere/")
        .await
        .expect("seeding twice keeps the first");
    let en = app.get_apps("en-US").await.ok(200);
    assert_eq!(en["apps"][0]["name"], "Demo factory portal");
    assert_eq!(en["apps"][0]["url"], "http://127.0.0.1:8080/");
    assert_eq!(en["apps"][0]["recommended"], true);
    // No logo registered: an empty one (the sign-in pages then show the name alone).
    assert_eq!(en["apps"][0]["logo"], "");
    assert_eq!(
        app.get_apps("zh-CN").await.ok(200)["apps"][0]["name"],
        "演示工厂门户"
    );
    app.get_apps("fr-FR").await.error(400, "INVALID_PARAMETER");
    assert_eq!(app.get_recent_apps(&token).await.ok(200)["apps"], json!([]));
}

#[tokio::test]
async fn recent_apps_are_the_two_latest_newest_first() {
    use ciam_store::{Item, Key, Store};
    let app = TestApp::spawn().await;
    let uid = app.sign_up("ann", "ann@example.com").await;
    let token = app.sign_in("ann@example.com", PASSWORD).await;
    for (id, at) in [("a", 100), ("b", 300), ("c", 200)] {
        let item = Item::new(Key::new(format!("USER#{uid}"), format!("APPLOGIN#{id}")))
            .with("appId", id)
            .with("name_en-US", format!("App {id}"))
            .with("name_zh-CN", format!("应用 {id}"))
            .with("url", format!("https://{id}.example.com/"))
            .with("lastLoginTime", at);
        app.store.put(item, None).await.expect("seed");
    }
    let r = app.get_recent_apps(&token).await.ok(200);
    let ids: Vec<&str> = r["apps"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|a| a["appId"].as_str())
        .collect();
    assert_eq!(ids, ["b", "c"]);
    assert_eq!(r["apps"][0]["lastLoginTime"], 300);
    assert_eq!(
        r["apps"][0]["name"], "应用 b",
        "names follow the request's language (zh-CN by default)"
    );
}

#[tokio::test]
async fn a_session_that_ended_leaves_the_session_list_but_stays_in_the_activity() {
    let (app, token) = signed_in().await;
    app.clock.advance(10);
    let other = app.sign_in("ann@example.com", PASSWORD).await;
    app.logout(&other).await.ok(200);
    app.get_info(&other)
        .await
        .error(401, "AUTHORIZATION_FAILED");
    let sessions = app.get_sessions(&token).await.ok(200);
    assert_eq!(sessions["sessions"].as_array().map(Vec::len), Some(1));
    // Thirteen hours on, both sessions are over, and both sign-ins are still in the trail.
    app.clock.advance(13 * 3600);
    app.get_info(&token)
        .await
        .error(401, "AUTHORIZATION_FAILED");
    let third = app.sign_in("ann@example.com", PASSWORD).await;
    let events = app.get_activity(&third).await.ok(200)["events"].clone();
    let at: Vec<i64> = events
        .as_array()
        .expect("events")
        .iter()
        .filter(|e| e["kind"] == "signIn")
        .filter_map(|e| e["at"].as_i64())
        .collect();
    assert_eq!(at.len(), 3, "{events}");
    assert!(at.windows(2).all(|w| w[0] >= w[1]), "newest first: {at:?}");
    let sessions = app.get_sessions(&third).await.ok(200);
    assert_eq!(sessions["sessions"].as_array().map(Vec::len), Some(1));
}
