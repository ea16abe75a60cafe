//! Passkeys over HTTP (docs/passkeys-design.md §5.2), with the test-only software authenticator
//! standing in for the browser: registration, sign-in, the rules the server keeps (single-use
//! challenges, RP ID and origin, the signature counter, unique credential ids, the limit, the
//! lock, deactivation) and the race of one challenge used 20 times at once, on both engines.

use crate::helpers::{TestApp, PASSWORD};
use ciam_core::testing::passkey::{SoftAuthenticator, BE, BS, UP, UV};
use ciam_core::Config;
use ciam_store::dynamo_local::DynamoLocal;
use ciam_store::sqlite::SqliteStore;
use ciam_store::{Key, Store};
use serde_json::{json, Value};
use std::sync::Arc;

const ORIGIN: &str = "http://localhost:8080";
const MAIL: &str = "pk@example.com";

fn config() -> Config {
    Config {
        public_url: ORIGIN.to_owned(),
        ..Config::default()
    }
}

pub(crate) async fn app() -> TestApp {
    TestApp::spawn_with(
        |clock| {
            Box::pin(async move {
                let store: Arc<dyn Store> =
                    Arc::new(SqliteStore::in_memory(Arc::new(clock)).expect("in-memory store"));
                store
            })
        },
        config(),
    )
    .await
}

pub(crate) async fn app_on(local: &Arc<DynamoLocal>, table: &str) -> TestApp {
    let (local, table) = (local.clone(), table.to_owned());
    TestApp::spawn_with(
        move |clock| {
            Box::pin(async move {
                let store: Arc<dyn Store> = Arc::new(local.store(&table, Arc::new(clock)).await);
                store
            })
        },
        config(),
    )
    .await
}

pub(crate) fn soft(seed: u8) -> SoftAuthenticator {
    SoftAuthenticator::new(seed, "localhost", ORIGIN)
}

pub(crate) fn handle(user_id: &str) -> Vec<u8> {
    (0..user_id.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&user_id[i..i + 2], 16).expect("hex userId"))
        .collect()
}

/// Registers `auth`'s credential on the account of `token`; the answer.
pub(crate) async fn add(
    app: &TestApp,
    token: &str,
    auth: &mut SoftAuthenticator,
) -> crate::helpers::TestResponse {
    let o = app.passkey_register_options(token).await.ok(200);
    let credential = auth.create(&o["publicKey"]);
    app.passkey_register(
        token,
        &json!({ "passkeyChallenge": o["passkeyChallenge"], "credential": credential }),
    )
    .await
}

/// Options, then the assertion of `auth` for `user_id`: the body of the finish.
pub(crate) async fn assertion(app: &TestApp, auth: &mut SoftAuthenticator, user_id: &str) -> Value {
    let o = app.passkey_login_options(&json!({})).await.ok(200);
    let credential = auth.get(&o["publicKey"], &handle(user_id));
    json!({ "passkeyChallenge": o["passkeyChallenge"], "credential": credential })
}

struct Account {
    app: TestApp,
    user_id: String,
    token: String,
}

async fn account_in(app: TestApp) -> Account {
    let user_id = app.sign_up("pk", MAIL).await;
    let token = app.sign_in(MAIL, PASSWORD).await;
    Account {
        app,
        user_id,
        token,
    }
}

async fn account() -> Account {
    account_in(app().await).await
}

#[tokio::test]
async fn register_list_rename_sign_in_remove_and_be_refused() {
    let a = account().await;
    let mut auth = soft(1);
    auth.flags = UP | UV | BE | BS;
    let added = add(&a.app, &a.token, &mut auth).await.ok(200);
    let id = added["id"].as_str().expect("id").to_owned();
    assert_eq!(id.len(), 43);

    let list = a.app.list_passkeys(&a.token).await.ok(200);
    let p = &list["passkeys"][0];
    assert_eq!(p["id"], id);
    assert_eq!(p["backupEligible"], true);
    assert_eq!(p["backupState"], true);
    assert_eq!(p["transports"], json!(["internal"]));
    assert!(p.get("lastUsedAt").is_none());

    let renamed = a
        .app
        .rename_passkey(&a.token, &id, "  Work laptop ")
        .await
        .ok(200);
    assert_eq!(renamed["name"], "Work laptop");
    a.app
        .rename_passkey(&a.token, &id, "")
        .await
        .error(400, "INVALID_PARAMETER");
    a.app
        .rename_passkey(&a.token, &"A".repeat(43), "x")
        .await
        .error(404, "PASSKEY_NOT_FOUND");

    let body = assertion(&a.app, &mut auth, &a.user_id).await;
    let signed_in = a.app.passkey_login(&body).await.ok(200);
    assert_eq!(signed_in["userId"], a.user_id.as_str());
    let token = signed_in["token"].as_str().expect("token");
    a.app.get_info(token).await.ok(200);
    let p = &a.app.list_passkeys(token).await.ok(200)["passkeys"][0];
    assert_eq!(p["lastUsedAt"], a.app.now());

    let activity = a.app.get_activity(&a.token).await.ok(200);
    let kinds: Vec<&str> = activity
        .as_array()
        .or(activity["events"].as_array())
        .expect("events")
        .iter()
        .filter_map(|e| e["kind"].as_str())
        .collect();
    assert!(kinds.contains(&"passkeyAdded"), "{activity}");

    // Removal needs a fresh proof: 5 minutes after the sign-in it is refused.
    a.app.clock.advance(301);
    a.app
        .delete_passkey(&a.token, &id)
        .await
        .error(403, "REAUTH_REQUIRED");
    let fresh = a.app.sign_in(MAIL, PASSWORD).await;
    let r = a.app.delete_passkey(&fresh, &id).await;
    assert_eq!(r.status, 204, "{}", r.text);
    assert_eq!(
        a.app.list_passkeys(&fresh).await.ok(200)["passkeys"],
        json!([])
    );
    let body = assertion(&a.app, &mut auth, &a.user_id).await;
    a.app
        .passkey_login(&body)
        .await
        .error(404, "PASSKEY_NOT_FOUND");
    a.app
        .delete_passkey(&fresh, &id)
        .await
        .error(404, "PASSKEY_NOT_FOUND");
}

#[tokio::test]
async fn a_challenge_is_single_use_bound_to_its_ceremony_and_lives_five_minutes() {
    let a = account().await;
    let mut auth = soft(2);
    add(&a.app, &a.token, &mut auth).await.ok(200);

    let body = assertion(&a.app, &mut auth, &a.user_id).await;
    a.app.passkey_login(&body).await.ok(200);
    // The same challenge with a fresh assertion over it.
    let o = json!({ "challenge": challenge_of(&body) });
    let replay = json!({
        "passkeyChallenge": body["passkeyChallenge"],
        "credential": auth.get(&o, &handle(&a.user_id)),
    });
    a.app
        .passkey_login(&replay)
        .await
        .error(400, "PASSKEY_CHALLENGE_EXPIRED");

    // Expired: 301 seconds later.
    let body = assertion(&a.app, &mut auth, &a.user_id).await;
    a.app.clock.advance(301);
    a.app
        .passkey_login(&body)
        .await
        .error(400, "PASSKEY_CHALLENGE_EXPIRED");

    // A registration challenge does not finish a sign-in.
    let fresh = a.app.sign_in(MAIL, PASSWORD).await;
    let reg = a.app.passkey_register_options(&fresh).await.ok(200);
    let o = json!({ "challenge": reg["publicKey"]["challenge"] });
    let crossed = json!({
        "passkeyChallenge": reg["passkeyChallenge"],
        "credential": auth.get(&o, &handle(&a.user_id)),
    });
    a.app
        .passkey_login(&crossed)
        .await
        .error(400, "PASSKEY_CHALLENGE_EXPIRED");
    // Nor does garbage.
    let mut junk = assertion(&a.app, &mut auth, &a.user_id).await;
    junk["passkeyChallenge"] = json!("AAAA");
    a.app
        .passkey_login(&junk)
        .await
        .error(400, "PASSKEY_CHALLENGE_EXPIRED");
}

/// The challenge inside a finish body's credential (what the authenticator signed).
fn challenge_of(body: &Value) -> String {
    let cd = body["credential"]["response"]["clientDataJSON"]
        .as_str()
        .expect("clientDataJSON");
    let cd = data_encoding::BASE64URL_NOPAD
        .decode(cd.as_bytes())
        .expect("base64url");
    let cd: Value = serde_json::from_slice(&cd).expect("json");
    cd["challenge"].as_str().expect("challenge").to_owned()
}

#[tokio::test]
async fn another_rp_id_or_origin_is_refused_and_counts_on_the_lock() {
    let a = account().await;
    let mut auth = soft(3);
    add(&a.app, &a.token, &mut auth).await.ok(200);

    auth.rp_id = "evil.example".into();
    let body = assertion(&a.app, &mut auth, &a.user_id).await;
    a.app
        .passkey_login(&body)
        .await
        .error(401, "PASSKEY_VERIFY_FAILED");
    auth.rp_id = "localhost".into();
    auth.origin = "https://evil.example".into();
    let body = assertion(&a.app, &mut auth, &a.user_id).await;
    a.app
        .passkey_login(&body)
        .await
        .error(401, "PASSKEY_VERIFY_FAILED");
    // A framed assertion with no app bound to the challenge.
    auth.origin = ORIGIN.into();
    auth.top_origin = Some("https://factory.example.com".into());
    let body = assertion(&a.app, &mut auth, &a.user_id).await;
    a.app
        .passkey_login(&body)
        .await
        .error(401, "PASSKEY_VERIFY_FAILED");
    // Without user verification.
    auth.top_origin = None;
    auth.flags = UP;
    let body = assertion(&a.app, &mut auth, &a.user_id).await;
    a.app
        .passkey_login(&body)
        .await
        .error(401, "PASSKEY_VERIFY_FAILED");
    // The fifth failure locks the account: passkeys and passwords alike.
    let body = assertion(&a.app, &mut auth, &a.user_id).await;
    a.app
        .passkey_login(&body)
        .await
        .error(423, "VERIFICATION_ATTEMPT_CODE_LIMIT");
    auth.flags = UP | UV;
    let body = assertion(&a.app, &mut auth, &a.user_id).await;
    a.app
        .passkey_login(&body)
        .await
        .error(423, "VERIFICATION_ATTEMPT_CODE_LIMIT");
    a.app
        .login_password(MAIL, PASSWORD)
        .await
        .error(423, "VERIFICATION_ATTEMPT_CODE_LIMIT");
    // After the lock, a good assertion signs in.
    a.app.clock.advance(15 * 60 + 1);
    let body = assertion(&a.app, &mut auth, &a.user_id).await;
    a.app.passkey_login(&body).await.ok(200);
}

#[tokio::test]
async fn a_counter_going_back_is_refused_and_recorded_unless_it_is_always_zero() {
    let a = account().await;
    let mut auth = soft(4);
    auth.counter = 10;
    add(&a.app, &a.token, &mut auth).await.ok(200);
    let body = assertion(&a.app, &mut auth, &a.user_id).await;
    a.app.passkey_login(&body).await.ok(200);
    auth.counter = 5;
    let body = assertion(&a.app, &mut auth, &a.user_id).await;
    a.app
        .passkey_login(&body)
        .await
        .error(401, "PASSKEY_VERIFY_FAILED");
    let activity = a.app.get_activity(&a.token).await.ok(200);
    assert!(
        activity.to_string().contains("passkeyCloneSuspected"),
        "{activity}"
    );

    let b = account_in(app().await).await;
    let mut zero = soft(5);
    zero.counter = 0;
    zero.counting = false;
    add(&b.app, &b.token, &mut zero).await.ok(200);
    for _ in 0..3 {
        let body = assertion(&b.app, &mut zero, &b.user_id).await;
        b.app.passkey_login(&body).await.ok(200);
    }
}

#[tokio::test]
async fn two_factor_on_a_passkey_sign_in_needs_no_second_step() {
    let e = crate::two_factor::enrolled_in(app().await).await;
    let user_id = e.app.owner_of("tfa@example.com").await.expect("owner");
    let mut auth = soft(6);
    add(&e.app, &e.token, &mut auth).await.ok(200);
    e.challenge().await;
    let body = assertion(&e.app, &mut auth, &user_id).await;
    assert!(e.app.passkey_login(&body).await.ok(200)["token"].is_string());
}

#[tokio::test]
async fn a_deactivated_accounts_passkeys_go_with_it() {
    let a = account().await;
    let mut auth = soft(7);
    let id = add(&a.app, &a.token, &mut auth).await.ok(200)["id"]
        .as_str()
        .expect("id")
        .to_owned();
    let r = a
        .app
        .deactivate(&a.token, &json!({ "password": PASSWORD }))
        .await;
    assert!(r.status.is_success(), "{}", r.text);
    let body = assertion(&a.app, &mut auth, &a.user_id).await;
    a.app
        .passkey_login(&body)
        .await
        .error(404, "PASSKEY_NOT_FOUND");
    let items = a
        .app
        .store
        .get_many(&[
            Key::new(format!("USER#{}", a.user_id), format!("PASSKEY#{id}")),
            Key::new(format!("PASSKEYID#{id}"), "UNIQUE"),
        ])
        .await
        .expect("read");
    assert!(items.iter().all(Option::is_none), "{items:?}");
}

#[tokio::test]
async fn two_accounts_cannot_register_one_credential_and_ten_is_the_limit() {
    let app = app().await;
    app.sign_up("ann", "ann@example.com").await;
    app.sign_up("bob", "bob@example.com").await;
    let ann = app.sign_in("ann@example.com", PASSWORD).await;
    let bob = app.sign_in("bob@example.com", PASSWORD).await;
    let mut auth = soft(8);
    add(&app, &ann, &mut auth).await.ok(200);
    add(&app, &bob, &mut auth)
        .await
        .error(409, "PASSKEY_EXISTS");
    add(&app, &ann, &mut auth)
        .await
        .error(409, "PASSKEY_EXISTS");
    for seed in 9..18 {
        add(&app, &ann, &mut soft(seed)).await.ok(200);
    }
    app.passkey_register_options(&ann)
        .await
        .error(409, "PASSKEY_LIMIT");
    assert_eq!(
        app.list_passkeys(&ann).await.ok(200)["passkeys"]
            .as_array()
            .map(Vec::len),
        Some(10)
    );
}

#[tokio::test]
async fn registration_needs_a_fresh_proof_and_a_usable_rp_id() {
    let a = account().await;
    a.app.clock.advance(301);
    a.app
        .passkey_register_options(&a.token)
        .await
        .error(403, "REAUTH_REQUIRED");

    // `ciam serve`'s default public URL is an IP address: no passkeys there.
    let ip = TestApp::spawn().await;
    ip.passkey_login_options(&json!({}))
        .await
        .error(503, "PASSKEY_UNAVAILABLE");
    ip.passkey_login_options(&json!({ "appId": "not an id!" }))
        .await
        .error(503, "PASSKEY_UNAVAILABLE");
    a.app
        .passkey_login_options(&json!({ "appId": "not an id!" }))
        .await
        .error(400, "INVALID_PARAMETER");
}

async fn twenty_uses_of_one_challenge_make_one_session(a: &Account) {
    let mut auth = soft(20);
    auth.counting = false;
    auth.counter = 0;
    add(&a.app, &a.token, &mut auth).await.ok(200);
    let body = assertion(&a.app, &mut auth, &a.user_id).await;
    let results = futures_util::future::join_all((0..20).map(|_| a.app.passkey_login(&body))).await;
    let wins = results.iter().filter(|r| r.status == 200).count();
    assert_eq!(
        wins,
        1,
        "{:?}",
        results.iter().map(|r| r.reason()).collect::<Vec<_>>()
    );
    assert!(results
        .iter()
        .filter(|r| r.status != 200)
        .all(|r| r.reason() == "PASSKEY_CHALLENGE_EXPIRED"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn twenty_concurrent_uses_of_one_challenge_make_exactly_one_session() {
    twenty_uses_of_one_challenge_make_one_session(&account().await).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn on_dynamodb_sign_in_round_trips_and_one_challenge_one_session() {
    let local = Arc::new(DynamoLocal::start().await);
    let a = account_in(app_on(&local, "passkeys-race").await).await;
    twenty_uses_of_one_challenge_make_one_session(&a).await;

    // The sign-in finish is 2 round trips; the options none. Then the numbers (the account's
    // activity, already counted today: the user item read; the week's counters).
    let mut auth = soft(21);
    auth.counter = 0;
    auth.counting = false;
    add(&a.app, &a.token, &mut auth).await.ok(200);
    a.app.store.take_calls();
    let o = a.app.passkey_login_options(&json!({})).await.ok(200);
    assert_eq!(a.app.store.take_calls(), vec![]);
    let credential = auth.get(&o["publicKey"], &handle(&a.user_id));
    a.app
        .passkey_login(
            &json!({ "passkeyChallenge": o["passkeyChallenge"], "credential": credential }),
        )
        .await
        .ok(200);
    let calls: Vec<&str> = a.app.store.take_calls().iter().map(|c| c.0).collect();
    assert_eq!(calls, ["get_many", "transact", "get", "update"]);

    // Duplicates across accounts and deactivation on the production engine.
    let app = &a.app;
    app.sign_up("bob", "bob@example.com").await;
    let bob = app.sign_in("bob@example.com", PASSWORD).await;
    add(app, &bob, &mut auth).await.error(409, "PASSKEY_EXISTS");
}

#[tokio::test]
async fn a_passkey_is_the_two_factor_step_of_its_own_account_only() {
    let e = crate::two_factor::enrolled_in(app().await).await;
    let user_id = e.app.owner_of("tfa@example.com").await.expect("owner");
    // No passkey yet: the step does not offer one.
    let ch = e.challenge().await;
    e.app
        .passkey_mfa_options(&ch)
        .await
        .error(404, "PASSKEY_NOT_FOUND");
    let mut auth = soft(30);
    add(&e.app, &e.token, &mut auth).await.ok(200);

    let ch = e.challenge().await;
    let o = e.app.passkey_mfa_options(&ch).await.ok(200);
    assert_eq!(
        o["publicKey"]["allowCredentials"].as_array().map(Vec::len),
        Some(1),
        "{o}"
    );
    assert_eq!(o["publicKey"]["userVerification"], "required");
    let credential = auth.get(&o["publicKey"], &handle(&user_id));
    let finish = json!({
        "challenge": ch,
        "passkeyChallenge": o["passkeyChallenge"],
        "credential": credential,
    });
    let token = e.app.passkey_login_mfa(&finish).await.ok(200)["token"]
        .as_str()
        .expect("token")
        .to_owned();
    e.app.get_info(&token).await.ok(200);
    // The sign-in challenge is used up.
    e.app
        .passkey_login_mfa(&finish)
        .await
        .error(400, "PASSKEY_CHALLENGE_EXPIRED");

    // Another account's passkey is not this account's second factor.
    e.app.sign_up("eve", "eve@example.com").await;
    let eve = e.app.sign_in("eve@example.com", PASSWORD).await;
    let mut eves = soft(31);
    add(&e.app, &eve, &mut eves).await.ok(200);
    let ch = e.challenge().await;
    let o = e.app.passkey_mfa_options(&ch).await.ok(200);
    let finish = json!({
        "challenge": ch,
        "passkeyChallenge": o["passkeyChallenge"],
        "credential": eves.get(&o["publicKey"], &handle(&user_id)),
    });
    e.app
        .passkey_login_mfa(&finish)
        .await
        .error(404, "PASSKEY_NOT_FOUND");
    // A token of another sign-in challenge does not finish this one.
    let other = e.challenge().await;
    let finish = json!({
        "challenge": other,
        "passkeyChallenge": o["passkeyChallenge"],
        "credential": auth.get(&o["publicKey"], &handle(&user_id)),
    });
    e.app
        .passkey_login_mfa(&finish)
        .await
        .error(400, "PASSKEY_CHALLENGE_EXPIRED");
}

#[tokio::test]
async fn a_passkey_is_a_fresh_proof_for_sensitive_changes() {
    let a = account().await;
    let mut auth = soft(32);
    let id = add(&a.app, &a.token, &mut auth).await.ok(200)["id"]
        .as_str()
        .expect("id")
        .to_owned();
    a.app.clock.advance(301);
    a.app
        .delete_passkey(&a.token, &id)
        .await
        .error(403, "REAUTH_REQUIRED");

    let o = a.app.passkey_reauth_options(&a.token).await.ok(200);
    // Signed for another site: refused.
    auth.rp_id = "evil.example".into();
    let bad = json!({
        "passkeyChallenge": o["passkeyChallenge"],
        "credential": auth.get(&o["publicKey"], &handle(&a.user_id)),
    });
    a.app
        .passkey_reauth(&a.token, &bad)
        .await
        .error(401, "PASSKEY_VERIFY_FAILED");
    auth.rp_id = "localhost".into();
    let good = json!({
        "passkeyChallenge": o["passkeyChallenge"],
        "credential": auth.get(&o["publicKey"], &handle(&a.user_id)),
    });
    a.app.passkey_reauth(&a.token, &good).await.ok(200);
    a.app
        .passkey_reauth(&a.token, &good)
        .await
        .error(400, "PASSKEY_CHALLENGE_EXPIRED");
    // Another session cannot use this session's challenge.
    let other = a.app.sign_in(MAIL, PASSWORD).await;
    let o = a.app.passkey_reauth_options(&a.token).await.ok(200);
    let crossed = json!({
        "passkeyChallenge": o["passkeyChallenge"],
        "credential": auth.get(&o["publicKey"], &handle(&a.user_id)),
    });
    a.app
        .passkey_reauth(&other, &crossed)
        .await
        .error(400, "PASSKEY_CHALLENGE_EXPIRED");

    let r = a.app.delete_passkey(&a.token, &id).await;
    assert_eq!(r.status, 204, "{}", r.text);
    a.app
        .passkey_reauth_options(&a.token)
        .await
        .error(404, "PASSKEY_NOT_FOUND");
}

/// Issue 23: the passkey as second step inside a partner's frame. Options naming the embedding
/// app accept a framed assertion from that app's frameOrigins only; without the app a framed
/// assertion is refused, as for the first step.
#[tokio::test]
async fn a_framed_second_step_passkey_is_accepted_only_from_the_named_apps_frame_origins() {
    let e = crate::two_factor::enrolled_in(app().await).await;
    let user_id = e.app.owner_of("tfa@example.com").await.expect("owner");
    let mut auth = soft(33);
    add(&e.app, &e.token, &mut auth).await.ok(200);
    let admin = e.app.admin_token().await;
    let created = e
        .app
        .create_app(&admin, &crate::apps::new_app("Framed"))
        .await
        .ok(201);
    let app_id = created["app"]["appId"].as_str().expect("appId").to_owned();
    let options = |ch: &str, app: Option<&str>| {
        let mut body = json!({ "challenge": ch });
        if let Some(a) = app {
            body["appId"] = json!(a);
        }
        body
    };
    let step = |ch: &str, o: &Value, auth: &mut SoftAuthenticator| {
        json!({
            "challenge": ch,
            "passkeyChallenge": o["passkeyChallenge"],
            "credential": auth.get(&o["publicKey"], &handle(&user_id)),
        })
    };
    auth.top_origin = Some("https://factory.example.com".into());
    // Framed, options without the app: refused.
    let ch = e.challenge().await;
    let o = e
        .app
        .passkey_mfa_options_with(&options(&ch, None))
        .await
        .ok(200);
    let finish = step(&ch, &o, &mut auth);
    e.app
        .passkey_login_mfa(&finish)
        .await
        .error(401, "PASSKEY_VERIFY_FAILED");
    // A malformed app id: refused at the options.
    e.app
        .passkey_mfa_options_with(&options(&ch, Some("../x")))
        .await
        .error(400, "INVALID_PARAMETER");
    // Framed by a page the app did not register: refused.
    let ch = e.challenge().await;
    let o = e
        .app
        .passkey_mfa_options_with(&options(&ch, Some(&app_id)))
        .await
        .ok(200);
    auth.top_origin = Some("https://evil.example.com".into());
    let finish = step(&ch, &o, &mut auth);
    e.app
        .passkey_login_mfa(&finish)
        .await
        .error(401, "PASSKEY_VERIFY_FAILED");
    // Framed by the app's own origin: the session, as after an authenticator code.
    let ch = e.challenge().await;
    let o = e
        .app
        .passkey_mfa_options_with(&options(&ch, Some(&app_id)))
        .await
        .ok(200);
    auth.top_origin = Some("https://factory.example.com".into());
    let finish = step(&ch, &o, &mut auth);
    let token = e.app.passkey_login_mfa(&finish).await.ok(200)["token"]
        .as_str()
        .expect("token")
        .to_owned();
    e.app.get_info(&token).await.ok(200);
}
