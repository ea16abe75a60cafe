//! What the busiest writes cost, in DynamoDB write units as on-demand bills them
//! (`ciam_core::testing::billing`: per started KB of the larger of the item before and after, a
//! failed condition billed all the same, a transaction's item twice), on both engines: a
//! password sign-in of an account with no recent failures (at most 3, issue 22), its two-factor
//! first step, a ticket whose consent is held (the put alone), and the routes that write a
//! partner event, with and without a consented app (docs/events-design.md §2). docs/cost.md
//! prices these.

use crate::apps::SERVICE;
use crate::helpers::{TestApp, PASSWORD};
use ciam_core::testing::billing::{total, Billed};
use ciam_store::dynamo_local::DynamoLocal;
use std::sync::Arc;

/// An account with an 81-character mail (the items' sizes are the largest a sign-in writes).
fn long_mail() -> String {
    format!("{}@{}.example.com", "a".repeat(40), "b".repeat(40))
}

/// The bill split into the sign-in's own writes and the console's numbers (the week's and
/// month's counters, `STATS#...`, and the user item's `activeDay`).
fn split(bill: Vec<Billed>, user_id: &str) -> (Vec<Billed>, Vec<Billed>) {
    let user = ciam_core::user::profile_key(user_id);
    bill.into_iter()
        .partition(|b| !b.key.pk.starts_with("STATS") && b.key != user)
}

fn show(bill: &[Billed]) -> Vec<(String, &'static str, u64)> {
    bill.iter()
        .map(|b| (format!("{} / {}", b.key.pk, b.key.sk), b.op, b.units))
        .collect()
}

async fn a_password_sign_in(app: &TestApp) {
    let mail = long_mail();
    let user_id = app.sign_up("annlee", &mail).await;
    app.store.bill_writes();

    // The account's first sign-in of the day.
    app.store.take_bill();
    app.sign_in(&mail, PASSWORD).await;
    let (own, numbers) = split(app.store.take_bill(), &user_id);
    println!("first of the day: {:?} + {:?}", show(&own), show(&numbers));
    assert_eq!(
        total(&own),
        3,
        "the attempt, the reset, the session: {:?}",
        show(&own)
    );
    assert!(own.iter().all(|b| b.op != "transact"), "{:?}", show(&own));
    assert_eq!(
        total(&numbers),
        3,
        "the user item's day, the week's and the month's counters (first of a month too): {:?}",
        show(&numbers)
    );

    // A repeat sign-in of the day: 3 units, the week's counter, and no read of the user item.
    app.clock.advance(120);
    app.store.take_calls();
    app.sign_in(&mail, PASSWORD).await;
    let (own, numbers) = split(app.store.take_bill(), &user_id);
    println!("repeat: {:?} + {:?}", show(&own), show(&numbers));
    assert_eq!(total(&own), 3, "{:?}", show(&own));
    assert_eq!(
        total(&numbers),
        1,
        "the week's counter: {:?}",
        show(&numbers)
    );
    let calls = app.store.take_calls();
    let reads = calls
        .iter()
        .filter(|(op, _)| *op == "get" || *op == "get_many")
        .count();
    assert_eq!(
        reads, 1,
        "a repeat sign-in of the day reads nothing but the mail's domain (one GetItem beside \
         the attempt: does it require its company's sign-in?): {calls:?}"
    );

    // The next day: the identity's day is past, the user item decides (one conditional write).
    app.clock.advance(86_400);
    app.sign_in(&mail, PASSWORD).await;
    let (own, numbers) = split(app.store.take_bill(), &user_id);
    println!("next day: {:?} + {:?}", show(&own), show(&numbers));
    assert_eq!(total(&own), 3, "{:?}", show(&own));
    assert_eq!(
        total(&numbers),
        2,
        "the day, the week: {:?}",
        show(&numbers)
    );

    // A wrong password: the attempt (1), its line in the failed attempts (1, `attempts`) and
    // the week's counter (1).
    app.login_password(&mail, "Wr0ng!password")
        .await
        .error(401, "PASSWORD_ERROR");
    let (own, numbers) = split(app.store.take_bill(), &user_id);
    assert_eq!((total(&own), total(&numbers)), (2, 1), "{:?}", show(&own));
}

#[tokio::test]
async fn a_password_sign_in_bills_three_write_units_and_a_repeat_of_the_day_reads_nothing() {
    a_password_sign_in(&TestApp::spawn().await).await;
}

#[tokio::test]
async fn on_dynamodb_a_password_sign_in_bills_three_write_units_and_a_repeat_of_the_day_reads_nothing(
) {
    let local = Arc::new(DynamoLocal::start().await);
    a_password_sign_in(&TestApp::on_dynamo(&local, "units").await).await;
}

async fn a_two_factor_first_step(app: TestApp) {
    let e = crate::two_factor::enrolled_in(app).await;
    let app = &e.app;
    app.clock.advance(120);
    app.store.bill_writes();
    app.store.take_bill();
    app.login_password(crate::two_factor::MAIL, PASSWORD)
        .await
        .error(403, "NEED_TOTP_VERIFY");
    let bill = app.store.take_bill();
    let own: Vec<Billed> = bill
        .into_iter()
        .filter(|b| !b.key.pk.starts_with("STATS"))
        .collect();
    assert_eq!(
        total(&own),
        3,
        "the attempt, the reset, the challenge: {:?}",
        show(&own)
    );
}

#[tokio::test]
async fn a_two_factor_first_step_bills_three_write_units() {
    a_two_factor_first_step(TestApp::spawn().await).await;
}

#[tokio::test]
async fn on_dynamodb_a_two_factor_first_step_bills_three_write_units() {
    let local = Arc::new(DynamoLocal::start().await);
    a_two_factor_first_step(TestApp::on_dynamo(&local, "tfa").await).await;
}

async fn tickets(app: TestApp) {
    let w = crate::apps::world_on(app).await;
    let app = &w.app;
    app.store.bill_writes();
    app.store.take_bill();
    let first = app.issue_ticket(&w.user, &w.app_id, SERVICE).await.ok(200);
    let bill = app.store.take_bill();
    assert_eq!(
        total(&bill),
        8,
        "the first ticket: ticket, recent app, consent and the profile's consent count (from \
         now on the account's changes are announced, docs/events-design.md §2) in one \
         transaction: {:?}",
        show(&bill)
    );

    // The consent held, the app already used today: the ticket's put alone (within the
    // session's minute, so no idle refresh is billed with it).
    app.clock.advance(30);
    let again = app.issue_ticket(&w.user, &w.app_id, SERVICE).await.ok(200);
    assert_ne!(first["cTicket"], again["cTicket"]);
    let bill = app.store.take_bill();
    assert_eq!(total(&bill), 1, "{:?}", show(&bill));
    assert_eq!(bill[0].op, "put");
    assert!(bill[0].key.pk.starts_with("TICKET#"));
    // And it redeems as any ticket.
    let c = again["cTicket"].as_str().expect("ticket");
    let claims = app
        .verify_ticket(&w.app_id, &w.secret, c, SERVICE)
        .await
        .ok(200);
    assert_eq!(claims["userId"], w.user_id.as_str());
    app.store.take_bill();

    // The app widens its scopes: the consent grows, written with the ticket.
    app.patch_app(
        &w.admin,
        &w.app_id,
        &serde_json::json!({ "scopes": ["nickname", "email", "company", "avatar"] }),
    )
    .await
    .ok(200);
    app.store.take_bill();
    app.issue_ticket(&w.user, &w.app_id, SERVICE).await.ok(200);
    let bill = app.store.take_bill();
    assert_eq!(total(&bill), 4, "ticket + consent: {:?}", show(&bill));
    assert!(bill.iter().any(|b| b.key.sk.starts_with("CONSENT#")));
    // The next day: the recent app's day moves with the ticket (2 items, 4 units); the consent
    // still held.
    app.clock.advance(86_400);
    let user = app.sign_in("ann@example.com", PASSWORD).await;
    app.store.take_bill();
    app.issue_ticket(&user, &w.app_id, SERVICE).await.ok(200);
    let bill = app.store.take_bill();
    assert_eq!(total(&bill), 4, "{:?}", show(&bill));
    assert!(bill.iter().any(|b| b.key.sk.starts_with("APPLOGIN#")));
    assert!(bill.iter().all(|b| !b.key.sk.starts_with("CONSENT#")));
}

#[tokio::test]
async fn a_ticket_with_the_consent_held_bills_one_write_unit() {
    tickets(TestApp::spawn().await).await;
}

#[tokio::test]
async fn on_dynamodb_a_ticket_with_the_consent_held_bills_one_write_unit() {
    let local = Arc::new(DynamoLocal::start().await);
    tickets(TestApp::on_dynamo(&local, "tickets").await).await;
}

/// OpenID Connect codes, like tickets: the consent and the recent-app entry are written only
/// when they change, so a second code the same day writes the request (at `/authorize`) and,
/// at the Allow, the request's single-use delete and the code in one transaction: nothing else.
async fn oidc_codes(app: TestApp) {
    let w = crate::oidc::world_on(app).await;
    w.app.store.bill_writes();
    w.app.store.take_bill();
    w.code().await;
    let first = w.app.store.take_bill();
    println!("first code: {:?}", show(&first));
    assert!(first.iter().any(|b| b.key.sk.starts_with("CONSENT#")));
    assert!(first.iter().any(|b| b.key.sk.starts_with("APPLOGIN#")));

    w.app.clock.advance(30);
    w.code().await;
    let again = w.app.store.take_bill();
    println!("second code: {:?}", show(&again));
    assert!(
        again
            .iter()
            .all(|b| !b.key.sk.starts_with("CONSENT#") && !b.key.sk.starts_with("APPLOGIN#")),
        "{:?}",
        show(&again)
    );
    assert_eq!(
        total(&again),
        total(&first) - 6,
        "three transaction items (6 units) fewer: the consent, its count on the profile, the \
         recent app: {:?} against {:?}",
        show(&again),
        show(&first)
    );
}

#[tokio::test]
async fn a_code_with_the_consent_held_writes_no_consent_and_no_recent_app() {
    oidc_codes(TestApp::spawn().await).await;
}

#[tokio::test]
async fn on_dynamodb_a_code_with_the_consent_held_writes_no_consent_and_no_recent_app() {
    let local = Arc::new(DynamoLocal::start().await);
    oidc_codes(TestApp::on_dynamo(&local, "codes").await).await;
}

/// The routes that announce a change: with no consented app exactly as before (one update; a
/// display name also moves its find-box item, `DIR#NM#`, in a transaction); with one, the change
/// and its event in one transaction (each item billed twice).
async fn events(app: TestApp) {
    let w = crate::apps::world_on(app).await;
    let app = &w.app;
    app.store.bill_writes();
    app.store.take_bill();
    let nickname = |n: &str| serde_json::json!({ "displayName": n });

    // No consent yet: a nickname (the first: the user item and the find box's new item, in a
    // transaction), a sign-out.
    app.patch_info(&w.user, &nickname("One")).await.ok(200);
    let bill = app.store.take_bill();
    assert_eq!(total(&bill), 4, "the profile's update: {:?}", show(&bill));
    assert!(bill.iter().any(|b| b.key.pk.starts_with("DIR#NM#")));
    let other = app.sign_in("ann@example.com", PASSWORD).await;
    app.store.take_bill();
    app.logout(&other).await.ok(200);
    let bill = app.store.take_bill();
    assert_eq!(total(&bill), 1, "the session's end: {:?}", show(&bill));

    // With a consent: each is a transaction with its event.
    app.issue_ticket(&w.user, &w.app_id, SERVICE).await.ok(200);
    app.store.take_bill();
    app.patch_info(&w.user, &nickname("Two")).await.ok(200);
    let bill = app.store.take_bill();
    // The update, the find box's item moved (a delete and a put) and the event.
    assert_eq!(total(&bill), 8, "update + event: {:?}", show(&bill));
    assert!(bill.iter().any(|b| b.key.pk.starts_with("EVT#")));
    let other = app.sign_in("ann@example.com", PASSWORD).await;
    app.store.take_bill();
    app.logout(&other).await.ok(200);
    let bill = app.store.take_bill();
    assert_eq!(total(&bill), 4, "session + event: {:?}", show(&bill));

    // The revocation: the consent's delete, the activity entry, the event, the count.
    app.delete_consent(&w.user, &w.app_id).await.ok(200);
    let bill = app.store.take_bill();
    assert_eq!(total(&bill), 8, "{:?}", show(&bill));
    // And the consent gone, a nickname writes no event again (the update and the item moved).
    app.patch_info(&w.user, &nickname("Three")).await.ok(200);
    let bill = app.store.take_bill();
    assert_eq!(total(&bill), 6, "{:?}", show(&bill));
    assert!(!bill.iter().any(|b| b.key.pk.starts_with("EVT#")));
}

#[tokio::test]
async fn a_change_bills_its_event_only_with_a_consented_app() {
    events(TestApp::spawn().await).await;
}

#[tokio::test]
async fn on_dynamodb_a_change_bills_its_event_only_with_a_consented_app() {
    let local = Arc::new(DynamoLocal::start().await);
    events(TestApp::on_dynamo(&local, "evunits").await).await;
}
