//! Sign-in by the numbers: the store calls a sign-in makes, counted on the wire to DynamoDB
//! Local (an SDK interceptor sees every request the engine sends), the attempt taken before the
//! hash under bursts of parallel guesses on both engines, the sign-in record kept in step with
//! the account, and the lock shared by the account's names.

use crate::helpers::{password_hash, TestApp, NEW_PASSWORD, PASSWORD};
use aws_sdk_dynamodb::config::interceptors::BeforeTransmitInterceptorContextRef;
use aws_sdk_dynamodb::config::{ConfigBag, Intercept, RuntimeComponents};
use aws_sdk_dynamodb::error::BoxError;
use ciam_core::user::{unique_key, User};
use ciam_core::validate::Identity;
use ciam_store::dynamo_local::DynamoLocal;
use ciam_store::dynamodb::DynamoStore;
use ciam_store::Store;
use serde_json::json;
use std::sync::{Arc, Mutex};

/// The DynamoDB operations sent, in order (`GetItem`, `UpdateItem`, ...), retries included.
#[derive(Clone, Debug, Default)]
struct Wire(Arc<Mutex<Vec<String>>>);

impl Wire {
    fn take(&self) -> Vec<String> {
        std::mem::take(&mut *self.0.lock().expect("wire lock"))
    }
}

impl Intercept for Wire {
    fn name(&self) -> &'static str {
        "CountOperations"
    }

    fn read_before_transmit(
        &self,
        ctx: &BeforeTransmitInterceptorContextRef<'_>,
        _rc: &RuntimeComponents,
        _cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let target = ctx
            .request()
            .headers()
            .get("x-amz-target")
            .unwrap_or_default();
        let op = target.rsplit('.').next().unwrap_or_default().to_owned();
        self.0.lock().expect("wire lock").push(op);
        Ok(())
    }
}

/// A test app over DynamoDB Local whose client reports every operation to `Wire`.
async fn counted(local: &Arc<DynamoLocal>, table: &str) -> (TestApp, Wire) {
    let wire = Wire::default();
    let (local, table, w) = (local.clone(), table.to_owned(), wire.clone());
    let app = TestApp::spawn_on(move |clock| {
        Box::pin(async move {
            let clock = Arc::new(clock);
            let plain = local.store(&table, clock.clone()).await;
            let conf = plain.client().config().to_builder().interceptor(w).build();
            let client = aws_sdk_dynamodb::Client::from_conf(conf);
            let store: Arc<dyn Store> = Arc::new(DynamoStore::new(client, table, clock));
            store
        })
    })
    .await;
    wire.take();
    (app, wire)
}

async fn app_on(local: &Arc<DynamoLocal>, table: &str) -> TestApp {
    counted(local, table).await.0
}

#[tokio::test]
async fn on_dynamodb_a_sign_in_is_two_calls_and_an_unknown_account_costs_what_a_wrong_password_does(
) {
    let local = Arc::new(DynamoLocal::start().await);
    let (app, wire) = counted(&local, "calls").await;
    let mail = "ann@example.com";
    app.sign_up("annlee", mail).await;
    // The day's first sign-in counts the account among the day's and month's active ones.
    app.sign_in(mail, PASSWORD).await;
    wire.take();

    let token = app.sign_in(mail, PASSWORD).await;
    let mut calls = wire.take();
    assert_eq!(calls.len(), 4, "{calls:?}");
    calls[1..3].sort();
    assert_eq!(
        calls,
        ["UpdateItem", "PutItem", "UpdateItem", "UpdateItem"],
        "password sign-in: the attempt, then the reset and the session side by side (no \
         transaction: 1 write unit each); then the numbers (after the answer is decided): the \
         week's counters only (the identity's actDay says the account already counted today: \
         no read of the user item)"
    );

    app.get_info(&token).await.ok(200);
    assert_eq!(wire.take().len(), 1, "a session read is one call");

    app.login_password(mail, NEW_PASSWORD)
        .await
        .error(401, "PASSWORD_ERROR");
    let wrong = wire.take();
    app.login_password("nobody@example.com", NEW_PASSWORD)
        .await
        .error(401, "PASSWORD_ERROR");
    let unknown = wire.take();
    assert_eq!(
        wrong,
        ["UpdateItem", "UpdateItem"],
        "a wrong password: the attempt, then the week's counter"
    );
    assert_eq!(
        unknown,
        ["UpdateItem", "UpdateItem", "UpdateItem"],
        "an unknown name: the same attempt, then its own budget is counted (the lock reveals \
         nothing), then the week's counter"
    );

    // A code sign-in: the attempt and the code read together, then one transaction.
    let code = app.fresh_code(mail, "login").await;
    wire.take();
    app.login_code(mail, &code).await.ok(200);
    let mut calls = wire.take();
    let numbers = calls.split_off(calls.len() - 2);
    assert_eq!(numbers, ["GetItem", "UpdateItem"], "the activity, the week");
    assert_eq!(calls.pop().as_deref(), Some("TransactWriteItems"));
    calls.sort();
    assert_eq!(calls, ["GetItem", "UpdateItem"], "read side by side");
}

/// `n` parallel wrong passwords for one account: exactly the budget of 5 is evaluated (4 are
/// told PASSWORD_ERROR, the 5th locks), every other one is refused by the lock, unevaluated;
/// the right password is refused too until the lock ends.
async fn a_burst_of_wrong_passwords(app: &TestApp, mail: &str, n: usize) {
    app.sign_up(&format!("burst{n}"), mail).await;
    let taken_before = app.store.taken();
    let answers =
        futures_util::future::join_all((0..n).map(|_| app.login_password(mail, NEW_PASSWORD)))
            .await;
    let reasons: Vec<String> = answers.iter().map(|r| r.reason()).collect();
    let wrong = reasons.iter().filter(|r| *r == "PASSWORD_ERROR").count();
    let locked = reasons
        .iter()
        .filter(|r| *r == "VERIFICATION_ATTEMPT_CODE_LIMIT")
        .count();
    assert_eq!(app.store.taken() - taken_before, 5, "evaluated, of {n}");
    assert_eq!((wrong, locked), (4, n - 4), "{reasons:?}");
    app.login_password(mail, PASSWORD)
        .await
        .error(423, "VERIFICATION_ATTEMPT_CODE_LIMIT");
    app.clock.advance(900);
    app.sign_in(mail, PASSWORD).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn thirty_and_a_hundred_parallel_wrong_passwords_get_exactly_five_evaluations() {
    let app = TestApp::spawn().await;
    a_burst_of_wrong_passwords(&app, "thirty@example.com", 30).await;
    a_burst_of_wrong_passwords(&app, "hundred@example.com", 100).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn on_dynamodb_thirty_and_a_hundred_parallel_wrong_passwords_get_exactly_five_evaluations() {
    let local = Arc::new(DynamoLocal::start().await);
    let app = app_on(&local, "bursts").await;
    a_burst_of_wrong_passwords(&app, "thirty@example.com", 30).await;
    a_burst_of_wrong_passwords(&app, "hundred@example.com", 100).await;
}

#[tokio::test]
async fn a_lock_reached_through_one_name_locks_the_other_and_the_session_side_checks() {
    let app = TestApp::spawn().await;
    app.sign_up("ann", "ann@example.com").await;
    let token = app.sign_in("ann@example.com", PASSWORD).await;
    let code = app.fresh_code("13800138000", "bind").await;
    app.patch_phone(&token, "+86 138 0013 8000", &code)
        .await
        .ok(200);
    for _ in 0..4 {
        app.login_password("13800138000", NEW_PASSWORD)
            .await
            .error(401, "PASSWORD_ERROR");
    }
    let body = app
        .login_password("13800138000", NEW_PASSWORD)
        .await
        .error(423, "VERIFICATION_ATTEMPT_CODE_LIMIT");
    let until = body["message"].clone();
    let by_mail = app
        .login_password("ann@example.com", PASSWORD)
        .await
        .error(423, "VERIFICATION_ATTEMPT_CODE_LIMIT");
    assert_eq!(by_mail["message"], until, "one lock, one unlock time");
    // The signed-in session's password change is refused while the account is locked.
    let change = json!({ "oldPassword": PASSWORD, "password": NEW_PASSWORD, "confirmPassword": NEW_PASSWORD });
    app.patch_pwd(Some(&token), &change)
        .await
        .error(423, "VERIFICATION_ATTEMPT_CODE_LIMIT");
}

#[tokio::test]
async fn the_record_follows_a_password_change_and_a_new_phone() {
    let app = TestApp::spawn().await;
    let mail = "ann@example.com";
    app.sign_up("ann", mail).await;
    let token = app.sign_in(mail, PASSWORD).await;
    let change = json!({ "oldPassword": PASSWORD, "password": NEW_PASSWORD, "confirmPassword": NEW_PASSWORD });
    app.patch_pwd(Some(&token), &change).await.ok(200);
    app.login_password(mail, PASSWORD)
        .await
        .error(401, "PASSWORD_ERROR");
    let token = app.sign_in(mail, NEW_PASSWORD).await;
    // The session issued from the record carries the new session generation: it works.
    app.get_info(&token).await.ok(200);

    let code = app.fresh_code("13800138000", "bind").await;
    app.patch_phone(&token, "13800138000", &code).await.ok(200);
    let record = |pk: String| {
        let store = app.store.clone();
        async move { store.get(&unique_key(pk)).await.unwrap().unwrap() }
    };
    let by_mail = record(Identity::parse(mail).unwrap().unique_pk()).await;
    let by_phone = record(Identity::parse("13800138000").unwrap().unique_pk()).await;
    for item in [&by_mail, &by_phone] {
        assert_eq!(item.s("phone"), Some("13800138000"), "{item:?}");
        assert_eq!(item.s("mail"), Some(mail));
        assert_eq!(item.s("pwdHash"), by_mail.s("pwdHash"));
    }
    app.sign_in("13800138000", NEW_PASSWORD).await;
}

#[tokio::test]
async fn an_identity_item_from_before_the_record_signs_in_and_gets_its_record() {
    let app = TestApp::spawn().await;
    let user = User {
        id: crate::helpers::new_user_id(),
        user_name: "old".into(),
        mail: Some("old@example.com".into()),
        pwd_hash: Some(password_hash(PASSWORD).await),
        advertisement: "unsubscribe".into(),
        sess_gen: 3,
        created_at: 1,
        ..User::default()
    };
    // Written the way accounts were before: the identity item holds only the owner.
    app.seed_user(&user).await;
    let key = unique_key(Identity::parse("old@example.com").unwrap().unique_pk());
    assert_eq!(app.store.get(&key).await.unwrap().unwrap().n("rec"), None);

    app.login_password("old@example.com", NEW_PASSWORD)
        .await
        .error(401, "PASSWORD_ERROR");
    let item = app.store.get(&key).await.unwrap().unwrap();
    assert_eq!(item.n("rec"), Some(1), "filled in: {item:?}");
    assert_eq!(item.n("sessGen"), Some(3));
    assert_eq!(item.n("fails"), Some(1), "the failed attempt counted");
    let token = app.sign_in("old@example.com", PASSWORD).await;
    app.get_info(&token).await.ok(200);
}

/// The cost model (docs/cost.md) prices a sign-in at one write unit per item written (the
/// attempt, then the counter's reset and the session, which is also the activity entry, side by
/// side; then the numbers: the week's counters, and once a day the user item's
/// conditional update of the day's activity): each stays under 1 KB, measured as DynamoDB bills
/// it, for an account with a long mail and a phone.
#[tokio::test]
async fn the_items_a_sign_in_writes_each_bill_as_one_write_unit() {
    let app = TestApp::spawn().await;
    let mail = format!("{}@{}.example.com", "a".repeat(40), "b".repeat(40));
    app.sign_up("annlee", &mail).await;
    let token = app.sign_in(&mail, PASSWORD).await;
    let code = app.fresh_code("13800138000", "bind").await;
    app.patch_phone(&token, "13800138000", &code).await.ok(200);
    app.clock.advance(120);
    let written_before = app.store.written().len();
    app.sign_in(&mail, PASSWORD).await;
    let keys = app.store.written()[written_before..].to_vec();
    assert_eq!(
        keys.len(),
        4,
        "attempt, then reset + session, then the week's counters: {keys:?}"
    );
    assert_eq!(keys[3].pk, "STATS#2027-W02");
    let user = app.owner_of(&mail).await.expect("owner");
    for key in keys
        .into_iter()
        .chain([ciam_core::user::profile_key(&user)])
    {
        let item = app.store.get(&key).await.unwrap().expect("written");
        let size = item.billed_size();
        println!(
            "{} / {}: {size} bytes",
            key.pk.split('#').next().unwrap(),
            key.sk.split('#').next().unwrap()
        );
        assert!(size <= 1024, "{key:?} is {size} bytes: {item:?}");
    }
}

/// The success's two writes are side by side, not a transaction (docs/cost.md): when the session's
/// write fails after the reset, the answer is 503 and nothing is left that a user would see (no
/// session, no activity entry), the attempt is not counted against the account (four wrong
/// passwords are still allowed after it), and the next right password signs in.
#[tokio::test]
async fn a_session_write_that_fails_after_the_reset_answers_503_and_leaves_nothing() {
    use ciam_store::faults::{Fault, Faults, Op};
    let faults = Faults::new();
    let app = crate::faults::app_with(&faults).await;
    let mail = "ann@example.com";
    let user_id = app.sign_up("annlee", mail).await;
    let sessions = app.sessions_of(&user_id).await.len();
    faults.inject_on(Op::Put, "USER#", Fault::ServerError, 1);
    crate::unavailable::assert_retry_later(&app.login_password(mail, PASSWORD).await);
    assert_eq!(faults.fired().len(), 1);
    assert_eq!(
        app.sessions_of(&user_id).await.len(),
        sessions,
        "no session"
    );
    for _ in 0..4 {
        app.login_password(mail, NEW_PASSWORD)
            .await
            .error(401, "PASSWORD_ERROR");
    }
    let token = app.sign_in(mail, PASSWORD).await;
    app.get_info(&token).await.ok(200);
    assert_eq!(app.sessions_of(&user_id).await.len(), sessions + 1);
}
