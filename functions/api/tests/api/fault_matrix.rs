//! Every store fault on the writes issue 20 lists that `faults.rs` does not already walk: sign-in
//! by code, the fresh proof, tickets (issued and verified), app secrets (created and rotated):
//! each fault answers 503 `{reason, message, code}` with `Retry-After`, and the same request then
//! goes through. And an outage window over every write: everything answers 503 while it lasts,
//! and works again after it.

use crate::apps::{new_app, SERVICE};
use crate::faults::app_with;
use crate::helpers::{registration, PASSWORD};
use crate::two_factor::enrolled_in;
use crate::unavailable::assert_retry_later;
use ciam_core::once::SENDS;
use ciam_store::faults::{Fault, Faults, Op};
use serde_json::json;

/// How many faults make a write of `op` fail for the client: a write with a token is sent twice.
fn lasting(op: Op) -> u32 {
    if op == Op::Update {
        SENDS as u32
    } else {
        1
    }
}

#[tokio::test]
async fn sign_in_by_code_tickets_and_app_secrets_meeting_any_store_fault_answer_503_then_work() {
    let faults = Faults::new();
    let app = app_with(&faults).await;
    let admin = app.admin_token().await;
    app.sign_up("ann", "ann@example.com").await;
    let user = app.sign_in("ann@example.com", PASSWORD).await;
    for (i, fault) in Fault::ALL.into_iter().enumerate() {
        // Sign-in by code: the attempt, then the session's transaction.
        let code = app.fresh_code("ann@example.com", "login").await;
        for op in [Op::Update, Op::Transact] {
            faults.inject(op, fault, lasting(op));
            assert_retry_later(&app.login_code("ann@example.com", &code).await);
        }
        app.login_code("ann@example.com", &code).await.ok(200);
        app.clock.advance(61);

        // An app: created (one transaction), then its secret rotated (one transaction, with
        // its audit entry), by an admin with a fresh proof.
        app.fresh_proof(&admin).await;
        let body = new_app(&format!("Plant{i}"));
        faults.inject(Op::Transact, fault, 1);
        assert_retry_later(&app.create_app(&admin, &body).await);
        let created = app.create_app(&admin, &body).await.ok(201);
        let app_id = created["app"]["appId"].as_str().expect("appId").to_owned();
        let rotate = json!({ "rotateSecret": true });
        faults.inject(Op::Transact, fault, 1);
        assert_retry_later(&app.patch_app(&admin, &app_id, &rotate).await);
        let rotated = app.patch_app(&admin, &app_id, &rotate).await.ok(200);
        let secret = rotated["appSecret"].as_str().expect("secret").to_owned();

        // A ticket: issued (one transaction), then verified (its burn).
        faults.inject(Op::Transact, fault, 1);
        assert_retry_later(&app.issue_ticket(&user, &app_id, SERVICE).await);
        let t = app.issue_ticket(&user, &app_id, SERVICE).await.ok(200);
        let ticket = t["cTicket"].as_str().expect("cTicket");
        faults.inject(Op::Update, fault, lasting(Op::Update));
        assert_retry_later(&app.verify_ticket(&app_id, &secret, ticket, SERVICE).await);
        app.verify_ticket(&app_id, &secret, ticket, SERVICE)
            .await
            .ok(200);
    }
}

#[tokio::test]
async fn a_fresh_proof_meeting_any_store_fault_answers_503_then_works() {
    let faults = Faults::new();
    let e = enrolled_in(app_with(&faults).await).await;
    for fault in Fault::ALL {
        e.next_step();
        // The session's idle deadline is written now, so the proof's own write meets the fault.
        e.app.get_info(&e.token).await.ok(200);
        faults.inject(Op::Update, fault, lasting(Op::Update));
        assert_retry_later(
            &e.app
                .totp_verify(&e.token, &json!({ "code": e.code() }))
                .await,
        );
        assert!(faults.fired().last() == Some(&(Op::Update, fault)));
        e.app
            .totp_verify(&e.token, &json!({ "code": e.code() }))
            .await
            .ok(200);
    }
}

#[tokio::test]
async fn during_an_outage_every_write_answers_503_and_after_it_everything_works() {
    let faults = Faults::new();
    let app = app_with(&faults).await;
    app.sign_up("ann", "ann@example.com").await;
    let token = app.sign_in("ann@example.com", PASSWORD).await;
    let code = app.fresh_code("new@example.com", "register").await;

    faults.outage(Op::AnyWrite, "", Fault::ServerError);
    assert_retry_later(&app.login_password("ann@example.com", PASSWORD).await);
    assert_retry_later(&app.send_code("other@example.com", "register").await);
    assert_retry_later(
        &app.post_register(&registration("newcomer", "new@example.com", &code))
            .await,
    );
    assert_retry_later(
        &app.totp_verify(&token, &json!({ "password": "Wr0ng!Password" }))
            .await,
    );
    assert_retry_later(&app.logout(&token).await);
    let during = faults.fired().len();
    assert!(during >= 5, "every request met the outage: {during}");

    faults.clear();
    app.post_register(&registration("newcomer", "new@example.com", &code))
        .await
        .ok(201);
    app.sign_in("new@example.com", PASSWORD).await;
    // Nothing was counted during the outage: four wrong passwords are still allowed.
    for _ in 0..4 {
        app.login_password("ann@example.com", "Wr0ng!Password")
            .await
            .error(401, "PASSWORD_ERROR");
    }
    app.logout(&token).await.ok(200);
}

/// Passkeys: a registration and a sign-in meeting any store fault on their transaction answer
/// 503, and a new ceremony then goes through (a finished challenge is single-use).
#[tokio::test]
async fn passkey_registration_and_sign_in_meeting_any_store_fault_answer_503_then_work() {
    use crate::passkeys::{add, assertion, soft};
    let faults = Faults::new();
    let config = ciam_core::Config {
        public_url: "http://localhost:8080".to_owned(),
        ..ciam_core::Config::default()
    };
    let app = crate::faults::app_with_config(&faults, config).await;
    let user_id = app.sign_up("pk", "pk@example.com").await;
    let token = app.sign_in("pk@example.com", PASSWORD).await;
    let mut auth = soft(7);
    faults.inject(Op::Transact, Fault::TxThrottled, 1);
    assert_retry_later(&add(&app, &token, &mut auth).await);
    assert_eq!(
        faults.fired().last(),
        Some(&(Op::Transact, Fault::TxThrottled))
    );
    add(&app, &token, &mut auth).await.ok(200);
    for fault in Fault::ALL {
        let body = assertion(&app, &mut auth, &user_id).await;
        faults.inject(Op::Transact, fault, 1);
        assert_retry_later(&app.passkey_login(&body).await);
        assert_eq!(faults.fired().last(), Some(&(Op::Transact, fault)));
        let body = assertion(&app, &mut auth, &user_id).await;
        app.passkey_login(&body).await.ok(200);
    }
}
