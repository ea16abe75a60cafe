//! The console's numbers (docs/console-design.md §3, `ciam_core::numbers`) as the API writes
//! them: every sign-in counted by method and outcome on its day, the day's and month's active
//! accounts once each, registrations and deactivations on the total, the lock once, and a
//! counter that cannot be written never changing an answer, on SQLite and DynamoDB Local.

use crate::faults::{app_with, dynamo_app_with};
use crate::helpers::{json_request, TestApp, NEW_PASSWORD, PASSWORD, START};
use crate::two_factor::enrolled_in;
use axum::http::Method;
use ciam_core::numbers::{overview, sums, week_keys, Day, Overview};
use ciam_store::dynamo_local::DynamoLocal;
use ciam_store::faults::{Fault, Faults, Op};
use ciam_store::{Item, Store};
use serde_json::json;
use std::sync::Arc;

const DAY: i64 = 86_400;

/// The week's item of today (START is a Friday: weekday 5).
async fn week(app: &TestApp) -> Item {
    sums(&app.ciam, &week_keys(Day::of(app.now())))
        .await
        .expect("get")
        .unwrap_or_else(|| panic!("no numbers this week"))
}

async fn numbers(app: &TestApp) -> Overview {
    overview(&app.ciam, app.now()).await.expect("overview")
}

#[tokio::test]
async fn each_sign_in_is_counted_by_method_and_outcome_and_a_second_step_once() {
    let app = TestApp::spawn().await;
    let mail = "ann@example.com";
    app.sign_up("ann", mail).await;
    app.sign_in(mail, PASSWORD).await;
    app.login_password(mail, NEW_PASSWORD)
        .await
        .error(401, "PASSWORD_ERROR");
    app.login_password("nobody@example.com", NEW_PASSWORD)
        .await
        .error(401, "PASSWORD_ERROR");
    let code = app.fresh_code(mail, "login").await;
    app.login_code(mail, "000000")
        .await
        .error(400, "CODE_ERROR");
    app.login_code(mail, &code).await.ok(200);
    let odd = json!({ "account": mail, "password": PASSWORD, "remember": true });
    let r = app
        .call(json_request(
            Method::POST,
            "/auth/login/password",
            None,
            &odd,
        ))
        .await;
    assert_eq!(r.status, 400, "{}", r.text);
    let w = week(&app).await;
    let n = |a: &str| w.n(a).unwrap_or(0);
    assert_eq!(
        (n("5pS"), n("5pW"), n("5cW"), n("5cS"), n("5pO")),
        (1, 2, 1, 1, 1)
    );
    assert_eq!((n("5n"), n("5a")), (1, 1), "one new account, active once");

    // Two-factor: the first step is no verdict; the second is counted as `totp`.
    let e = enrolled_in(app).await;
    let before = week(&e.app).await;
    let challenge = e.challenge().await;
    assert_eq!(
        week(&e.app).await,
        before,
        "NEED_TOTP_VERIFY is not counted"
    );
    e.app
        .login_totp(&challenge, "000000")
        .await
        .error(400, "TOTP_VERIFY_FAILED");
    e.next_step();
    let challenge = e.challenge().await;
    e.app.login_totp(&challenge, &e.code()).await.ok(200);
    let w = week(&e.app).await;
    assert_eq!((w.n("5tF"), w.n("5tS")), (Some(1), Some(1)));
    let today = numbers(&e.app).await.days.pop().expect("today");
    assert_eq!(today.sign_ins.by_method["totp"], 2);
    assert_eq!(today.sign_ins.by_outcome["secondStepFailed"], 1);
    assert_eq!(today.active, 2, "ann and tfa");
}

#[tokio::test]
async fn the_lock_is_counted_once_and_the_refusals_it_causes_as_locked() {
    let app = TestApp::spawn().await;
    let mail = "lock@example.com";
    app.sign_up("lock", mail).await;
    for _ in 0..4 {
        app.login_password(mail, NEW_PASSWORD)
            .await
            .error(401, "PASSWORD_ERROR");
    }
    app.login_password(mail, NEW_PASSWORD)
        .await
        .error(423, "VERIFICATION_ATTEMPT_CODE_LIMIT");
    // A second later, the lock is met, not made.
    app.clock.advance(1);
    app.login_password(mail, PASSWORD)
        .await
        .error(423, "VERIFICATION_ATTEMPT_CODE_LIMIT");
    let w = week(&app).await;
    assert_eq!(
        (w.n("5pW"), w.n("5pL"), w.n("5l")),
        (Some(4), Some(2), Some(1))
    );
    assert_eq!(numbers(&app).await.days[29].lockouts, 1);
}

/// Sets the account's `activeDay` back to yesterday and its sessions' start to 23:00
/// yesterday, as if it last signed in then and kept its session past midnight (a session made
/// today was counted by its sign-in; moving the clock a day would end this one).
async fn active_yesterday(app: &TestApp, user_id: &str) {
    let ops = vec![ciam_store::Update::Set(
        "activeDay".into(),
        "2027-01-14".into(),
    )];
    app.store
        .update(&ciam_core::user::profile_key(user_id), ops, None)
        .await
        .expect("update");
    let mut q = ciam_store::Query::partition(format!("USER#{user_id}"));
    q.sk_prefix = Some("SESSION#".into());
    let last_night = app.now() - app.now() % DAY - 3600;
    for session in app.store.query(q).await.expect("query") {
        let ops = vec![ciam_store::Update::Set(
            "createdAt".into(),
            last_night.into(),
        )];
        app.store
            .update(&session.key, ops, None)
            .await
            .expect("update");
    }
}

#[tokio::test]
async fn a_session_or_access_token_used_on_a_new_day_counts_the_account_active_once() {
    let app = TestApp::spawn().await;
    let mail = "kept@example.com";
    let user_id = app.sign_up("kept", mail).await;
    let token = app.sign_in(mail, PASSWORD).await;
    assert_eq!(week(&app).await.n("5a"), Some(1), "the sign-in counted it");
    // Already counted today: using the session costs no store call for the numbers.
    app.store.take_calls();
    app.get_info(&token).await.ok(200);
    assert_eq!(
        app.store.take_calls(),
        [("get_many", 2)],
        "one read, as before"
    );
    active_yesterday(&app, &user_id).await;
    app.get_info(&token).await.ok(200);
    app.get_info(&token).await.ok(200);
    let user = app.user_item(&user_id).await.expect("user");
    assert_eq!(user.s("activeDay"), Some("2027-01-15"));
    assert_eq!(
        week(&app).await.n("5a"),
        Some(2),
        "counted once more, not twice"
    );
}

#[tokio::test]
async fn an_account_is_active_once_a_day_and_once_a_month_however_often_it_signs_in() {
    let app = TestApp::spawn().await;
    let mail = "often@example.com";
    let user_id = app.sign_up("often", mail).await;
    for _ in 0..3 {
        app.sign_in(mail, PASSWORD).await;
    }
    let user = app.user_item(&user_id).await.expect("user");
    assert_eq!(user.s("activeDay"), Some("2027-01-15"));
    // Saturday, then Monday of the next ISO week.
    app.clock.advance(DAY);
    app.sign_in(mail, PASSWORD).await;
    app.sign_in(mail, PASSWORD).await;
    app.clock.advance(2 * DAY);
    app.sign_in(mail, PASSWORD).await;
    assert_eq!(week(&app).await.key.pk, "STATS#2027-W03");
    let o = numbers(&app).await;
    let active: Vec<i64> = o.days[26..].iter().map(|d| d.active).collect();
    assert_eq!(active, [1, 1, 0, 1], "Friday, Saturday, Sunday, Monday");
    let signed: Vec<i64> = o.days[26..]
        .iter()
        .map(|d| d.sign_ins.by_outcome["success"])
        .collect();
    assert_eq!(signed, [3, 2, 0, 1]);
    assert_eq!(
        (o.months[0].month.as_str(), o.months[0].active),
        ("2027-01", 1)
    );
    // February: once more in the month's count.
    app.clock.set(START + 20 * DAY);
    app.sign_in(mail, PASSWORD).await;
    let o = numbers(&app).await;
    assert_eq!(
        (
            o.months[0].month.as_str(),
            o.months[0].active,
            o.months[1].active
        ),
        ("2027-02", 1, 1)
    );
}

#[tokio::test]
async fn registrations_and_deactivations_move_the_total() {
    let app = TestApp::spawn().await;
    for n in 0..3 {
        app.sign_up(&format!("user{n}"), &format!("user{n}@example.com"))
            .await;
    }
    let token = app.sign_in("user0@example.com", PASSWORD).await;
    app.deactivate(&token, &json!({ "password": PASSWORD }))
        .await
        .ok(200);
    let o = numbers(&app).await;
    assert_eq!(o.accounts, 2);
    assert_eq!(o.days[29].new_accounts, 3);
    assert_eq!(
        (o.months[0].new_accounts, o.months[0].deactivations),
        (3, 1)
    );
}

#[tokio::test]
async fn the_overview_is_one_read_of_at_most_73_items_for_5_or_50_accounts() {
    let app = TestApp::spawn().await;
    let mut reads = Vec::new();
    let mut made = 0;
    for total in [5, 50] {
        while made < total {
            let mail = format!("n{made}@example.com");
            app.sign_up(&format!("n{made}"), &mail).await;
            app.sign_in(&mail, PASSWORD).await;
            made += 1;
        }
        app.store.take_calls();
        let o = numbers(&app).await;
        let calls = app.store.take_calls();
        assert_eq!(o.accounts, total);
        assert_eq!(o.days[29].active, total);
        assert_eq!(calls.len(), 1, "{calls:?}");
        assert_eq!(calls[0].0, "get_many");
        assert!(
            calls[0].1 <= ciam_core::numbers::MAX_KEYS,
            "the total, 6 weeks and 2 months of 8 shards and 1 item each: {calls:?}"
        );
        reads.push(calls);
    }
    assert_eq!(reads[0], reads[1], "the same read whatever the accounts");
}

/// Every counter write fails: each answer is the one it would have been.
async fn counters_failing_change_no_answer(app: &TestApp, faults: &Faults) {
    faults.outage(Op::Update, "STATS", Fault::Throttling);
    let mail = "calm@example.com";
    app.sign_up("calm", mail).await;
    let token = app.sign_in(mail, PASSWORD).await;
    app.get_info(&token).await.ok(200);
    app.login_password(mail, NEW_PASSWORD)
        .await
        .error(401, "PASSWORD_ERROR");
    app.deactivate(&token, &json!({ "password": PASSWORD }))
        .await
        .ok(200);
    assert!(
        faults.fired().iter().filter(|f| f.0 == Op::Update).count() >= 4,
        "the counters met the fault: {:?}",
        faults.fired()
    );
    faults.clear();
    let o = overview(&app.ciam, app.now()).await.expect("overview");
    assert_eq!(o.accounts, 0, "nothing was counted");
}

#[tokio::test]
async fn a_counter_that_cannot_be_written_changes_no_answer() {
    let faults = Faults::new();
    counters_failing_change_no_answer(&app_with(&faults).await, &faults).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn on_dynamodb_the_numbers_are_written_and_read_and_their_failure_changes_no_answer() {
    let local = Arc::new(DynamoLocal::start().await);
    let faults = Faults::new();
    let app = dynamo_app_with(&local, "numbers", &faults).await;
    let mail = "dyn@example.com";
    app.sign_up("dyn", mail).await;
    app.sign_in(mail, PASSWORD).await;
    app.sign_in(mail, PASSWORD).await;
    app.login_password(mail, NEW_PASSWORD)
        .await
        .error(401, "PASSWORD_ERROR");
    let w = week(&app).await;
    assert_eq!(
        (w.n("5pS"), w.n("5pW"), w.n("5a"), w.n("5n")),
        (Some(2), Some(1), Some(1), Some(1))
    );
    assert_eq!(w.expires_at, Some(app.now() + 400 * DAY));
    app.store.take_calls();
    let o = numbers(&app).await;
    assert_eq!(app.store.take_calls().len(), 1);
    assert_eq!(
        (o.accounts, o.months[0].active, o.days[29].active),
        (1, 1, 1)
    );

    let app = dynamo_app_with(&local, "numbers-faults", &faults).await;
    counters_failing_change_no_answer(&app, &faults).await;
}
