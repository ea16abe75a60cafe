//! Store faults on the writes of a request (issue 20, first part): a throttle (either exception),
//! a transaction cancelled for a throttle or a conflict, a 500, a busy database each answer 503
//! SERVICE_UNAVAILABLE with `Retry-After`, never the refusal of a wrong secret or of a stale
//! session, never a 500; and the same request succeeds when it is sent again. The faults are
//! injected by `ciam_store::faults` over SQLite, and over DynamoDB Local for sign-in and
//! registration.

use crate::helpers::{registration, TestApp, PASSWORD};
use crate::two_factor::{enrolled_in, secret_of};
use crate::unavailable::assert_retry_later;
use ciam_core::totp::{code_at, STEP_SECS};
use ciam_core::Config;
use ciam_store::dynamo_local::DynamoLocal;
use ciam_store::faults::{Fault, Faults, Op};
use ciam_store::sqlite::SqliteStore;
use ciam_store::Key;
use ciam_store::Store;
use std::sync::Arc;
use std::time::{Duration, Instant};

pub(crate) async fn app_with(faults: &Faults) -> TestApp {
    app_with_config(faults, Config::default()).await
}

pub(crate) async fn app_with_config(faults: &Faults, config: Config) -> TestApp {
    let faults = faults.clone();
    TestApp::spawn_with(
        move |clock| {
            Box::pin(async move {
                let inner: Arc<dyn Store> =
                    Arc::new(SqliteStore::in_memory(Arc::new(clock)).expect("in-memory store"));
                let store: Arc<dyn Store> = Arc::new(faults.wrap(inner));
                store
            })
        },
        config,
    )
    .await
}

pub(crate) async fn dynamo_app_with(
    local: &Arc<DynamoLocal>,
    table: &str,
    faults: &Faults,
) -> TestApp {
    let (local, table, faults) = (local.clone(), table.to_owned(), faults.clone());
    TestApp::spawn_on(move |clock| {
        Box::pin(async move {
            let inner: Arc<dyn Store> = Arc::new(local.store(&table, Arc::new(clock)).await);
            let store: Arc<dyn Store> = Arc::new(faults.wrap(inner));
            store
        })
    })
    .await
}

/// Asserts that the last fault injected was `fault` on `op`: the request met it.
#[track_caller]
pub(crate) fn met(faults: &Faults, op: Op, fault: Fault) {
    assert_eq!(
        faults.fired().last(),
        Some(&(op, fault)),
        "the fault was met"
    );
}

/// Every fault on the sign-in's attempt and on its session's write (beside the reset, no
/// transaction since issue 22): 503, then the same right password signs in; a wrong one is
/// still told so. (The attempt is a write with a token,
/// which the product sends a second time after a retryable fault: the fault must last for both
/// sends to reach the client.)
async fn a_right_password_meeting_a_fault_is_told_to_retry(app: &TestApp, faults: &Faults) {
    let account = "right@example.com";
    app.sign_up("right", account).await;
    for fault in Fault::ALL {
        for op in [Op::Update, Op::Put] {
            let sends = if op == Op::Update {
                ciam_core::once::SENDS as u32
            } else {
                1
            };
            faults.inject(op, fault, sends);
            assert_retry_later(&app.login_password(account, PASSWORD).await);
            met(faults, op, fault);
            app.sign_in(account, PASSWORD).await;
        }
    }
    app.login_password(account, "Wr0ng!Password")
        .await
        .error(401, "PASSWORD_ERROR");
}

/// Every fault on the code's transaction and on the registration's: 503, then the same request
/// goes through.
async fn a_sign_up_meeting_a_fault_is_told_to_retry(app: &TestApp, faults: &Faults) {
    for (i, fault) in Fault::ALL.into_iter().enumerate() {
        let account = format!("new{i}@example.com");
        faults.inject(Op::Transact, fault, 1);
        assert_retry_later(&app.send_code(&account, "register").await);
        met(faults, Op::Transact, fault);
        let code = app.fresh_code(&account, "register").await;
        let body = registration(&format!("newcomer{i}"), &account, &code);
        faults.inject(Op::Transact, fault, 1);
        assert_retry_later(&app.post_register(&body).await);
        met(faults, Op::Transact, fault);
        app.post_register(&body).await.ok(201);
    }
}

#[tokio::test]
async fn a_right_password_meeting_a_store_fault_answers_503_never_password_error() {
    let faults = Faults::new();
    let app = app_with(&faults).await;
    a_right_password_meeting_a_fault_is_told_to_retry(&app, &faults).await;
}

#[tokio::test]
async fn sending_a_code_and_registering_meeting_a_store_fault_answer_503_never_500() {
    let faults = Faults::new();
    let app = app_with(&faults).await;
    a_sign_up_meeting_a_fault_is_told_to_retry(&app, &faults).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn on_dynamodb_sign_in_and_sign_up_meeting_a_store_fault_answer_503() {
    let local = Arc::new(DynamoLocal::start().await);
    let faults = Faults::new();
    let app = dynamo_app_with(&local, "faults-sign-in", &faults).await;
    a_right_password_meeting_a_fault_is_told_to_retry(&app, &faults).await;
    let app = dynamo_app_with(&local, "faults-sign-up", &faults).await;
    a_sign_up_meeting_a_fault_is_told_to_retry(&app, &faults).await;
}

#[tokio::test]
async fn the_second_step_meeting_a_store_fault_answers_503_never_a_wrong_code() {
    let faults = Faults::new();
    let e = enrolled_in(app_with(&faults).await).await;
    for fault in Fault::ALL {
        e.next_step();
        let challenge = e.challenge().await;
        let code = e.code();
        faults.inject(Op::Transact, fault, 1);
        assert_retry_later(&e.app.login_totp(&challenge, &code).await);
        met(&faults, Op::Transact, fault);
        e.app.login_totp(&challenge, &code).await.ok(200);

        let challenge = e.challenge().await;
        faults.inject(Op::Transact, fault, 1);
        assert_retry_later(&e.app.unlock_code(&challenge, &e.backup[0]).await);
        met(&faults, Op::Transact, fault);
    }
    let challenge = e.challenge().await;
    e.app.unlock_code(&challenge, &e.backup[0]).await.ok(200);
}

/// The faults a transaction used to be misread for (a lost race): a cancellation for a throttle
/// or a conflict. The settings' transactions hash ten backup codes each, so only these are
/// tried there; every kind is tried on sign-in and registration.
const CANCELLED: [Fault; 2] = [Fault::TxThrottled, Fault::TxConflict];

#[tokio::test]
async fn two_factor_settings_meeting_a_store_fault_answer_503_never_a_signed_out_session() {
    let faults = Faults::new();
    let e = enrolled_in(app_with(&faults).await).await;
    for fault in CANCELLED {
        faults.inject(Op::Transact, fault, 1);
        assert_retry_later(&e.app.totp_backup_codes(&e.token).await);
        met(&faults, Op::Transact, fault);
    }
    e.app.totp_backup_codes(&e.token).await.ok(200);

    // Enabling two-factor on another account.
    let app = &e.app;
    app.sign_up("other", "other@example.com").await;
    let token = app.sign_in("other@example.com", PASSWORD).await;
    let url = app.get_totp_url(&token).await.ok(200)["url"]
        .as_str()
        .expect("url")
        .to_owned();
    let code = code_at(&secret_of(&url), app.now().div_euclid(STEP_SECS));
    for fault in CANCELLED {
        faults.inject(Op::Transact, fault, 1);
        assert_retry_later(&app.totp_enable(&token, &code).await);
        met(&faults, Op::Transact, fault);
        app.get_info(&token).await.ok(200);
    }
    app.totp_enable(&token, &code).await.ok(200);
}

/// The request's deadline: a store that stalls past it is cut off; the request answers 503 with
/// Retry-After within the budget (plus a little), and nothing it would have written after the
/// deadline is written.
#[tokio::test]
async fn a_request_whose_store_stalls_answers_503_at_its_deadline_and_writes_nothing_after_it() {
    let faults = Faults::new();
    let config = Config {
        request_budget: Duration::from_secs(1),
        ..Config::default()
    };
    let app = app_with_config(&faults, config).await;
    let account = "slow@example.com";
    let user_id = app.sign_up("slow", account).await;
    let identity = Key::new(format!("MAIL#{account}"), "UNIQUE");
    let fails = || async {
        let item = app.store.get(&identity).await.expect("read");
        item.and_then(|i| i.n("fails")).unwrap_or(0)
    };

    // The attempt stalls for 3 s: cut at 1 s, never written.
    faults.inject(Op::Update, Fault::Stall(Duration::from_secs(3)), 1);
    let started = Instant::now();
    assert_retry_later(&app.login_password(account, PASSWORD).await);
    let took = started.elapsed();
    assert!(
        took < Duration::from_millis(1_500),
        "answered after {took:?}"
    );
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert_eq!(fails().await, 0, "the stalled attempt was never written");

    // The attempt in time, the session's write stalled past the deadline.
    faults.inject(Op::Put, Fault::Stall(Duration::from_secs(3)), 1);
    let started = Instant::now();
    assert_retry_later(&app.login_password(account, PASSWORD).await);
    assert!(started.elapsed() < Duration::from_millis(1_500));
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert!(
        app.sessions_of(&user_id).await.is_empty(),
        "no session was written after the deadline"
    );

    app.sign_in(account, PASSWORD).await;
}
