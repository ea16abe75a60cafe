//! The races of the two-factor, binding and ticket work, run again over DynamoDB Local: the domain's
//! single-use guarantees must hold on the production engine, not only on SQLite.

use crate::helpers::{TestApp, PASSWORD};
use crate::two_factor::enrolled_in;
use ciam_store::dynamo_local::DynamoLocal;
use std::sync::Arc;

async fn app_on(local: &Arc<DynamoLocal>, table: &str) -> TestApp {
    TestApp::on_dynamo(local, table).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn on_dynamodb_one_backup_code_one_totp_code_one_address_and_one_folded_name_each_have_exactly_one_winner(
) {
    let local = Arc::new(DynamoLocal::start().await);

    // 20 concurrent redemptions of one backup code.
    let e = enrolled_in(app_on(&local, "races-backup").await).await;
    let mut challenges = Vec::new();
    for _ in 0..20 {
        challenges.push(e.challenge().await);
    }
    let code = e.backup[0].clone();
    let results =
        futures_util::future::join_all(challenges.iter().map(|ch| e.app.unlock_code(ch, &code)))
            .await;
    let wins = results.iter().filter(|r| r.status == 200).count();
    assert_eq!(
        wins,
        1,
        "backup code: {:?}",
        results.iter().map(|r| r.reason()).collect::<Vec<_>>()
    );

    // The same TOTP code submitted twice, at once: the second is rejected. The race's losers
    // presented a used code, and those that arrived after the winner count on the account lock
    // (how many depends on timing): wait out a lock so the next sign-in is not refused for it.
    e.app.clock.advance(16 * 60);
    e.next_step();
    let (c1, c2) = (e.challenge().await, e.challenge().await);
    let code = e.code();
    let (a, b) = tokio::join!(e.app.login_totp(&c1, &code), e.app.login_totp(&c2, &code));
    let wins = [&a, &b].iter().filter(|r| r.status == 200).count();
    assert_eq!(wins, 1, "totp code: {} / {}", a.text, b.text);

    // Two users binding one address.
    let app = app_on(&local, "races-bind").await;
    app.sign_up("ann", "ann@example.com").await;
    app.sign_up("bob", "bob@example.com").await;
    let ann = app.sign_in("ann@example.com", PASSWORD).await;
    let bob = app.sign_in("bob@example.com", PASSWORD).await;
    let code = app.fresh_code("shared@example.com", "bind").await;
    let (a, b) = tokio::join!(
        app.patch_mail(&ann, "shared@example.com", &code),
        app.patch_mail(&bob, "shared@example.com", &code)
    );
    let wins = [&a, &b].iter().filter(|r| r.status == 200).count();
    assert_eq!(wins, 1, "binding: {} / {}", a.text, b.text);
    assert!(app.owner_of("shared@example.com").await.is_some());

    // "ann" and fullwidth "ＡＮＮ" signing up at once: one key, one account.
    crate::input::folded_names_race_has_one_winner(app_on(&local, "races-names").await).await;

    // 50 concurrent verifications of one partner-app ticket.
    crate::apps::fifty_verifications_one_winner(app_on(&local, "races-ticket").await).await;
    crate::consents::consent_life_cycle(app_on(&local, "consents").await).await;
    // Staff federation: the first sign-in creates the account, the second links the same one,
    // a replayed state is refused.
    let staff = crate::staff::Staff::spawn_with(app_on(&local, "staff").await).await;
    crate::staff::staff_linking(staff).await;
}
