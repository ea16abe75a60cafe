//! Sessions: 30 minutes idle, 12 hours at most, and a refresh that writes at most once a minute.

use crate::helpers::{TestApp, PASSWORD};

async fn signed_in(app: &TestApp) -> (String, String) {
    let id = app.sign_up("annlee", "ann@example.com").await;
    (id, app.sign_in("ann@example.com", PASSWORD).await)
}

#[tokio::test]
async fn a_session_idle_for_thirty_minutes_is_over() {
    let app = TestApp::spawn().await;
    let (_, token) = signed_in(&app).await;
    let other = app.sign_in("ann@example.com", PASSWORD).await;

    app.clock.advance(1799);
    app.get_info(&token).await.ok(200);
    app.clock.advance(1);
    app.get_info(&other)
        .await
        .error(401, "AUTHORIZATION_FAILED");
    app.get_info(&token).await.ok(200);
}

#[tokio::test]
async fn activity_every_twenty_minutes_keeps_a_session_alive_for_twelve_hours_and_no_longer() {
    let app = TestApp::spawn().await;
    let (_, token) = signed_in(&app).await;
    let start = app.now();
    for _ in 0..35 {
        app.clock.advance(1200);
        let res = app.get_info(&token).await;
        assert_eq!(
            res.status,
            200,
            "after {} s: {}",
            app.now() - start,
            res.text
        );
    }
    app.clock.advance(1199);
    app.get_info(&token).await.ok(200);
    assert_eq!(app.now() - start, 12 * 3600 - 1);
    app.clock.advance(1);
    app.get_info(&token)
        .await
        .error(401, "AUTHORIZATION_FAILED");
}

#[tokio::test]
async fn the_idle_deadline_is_written_at_most_once_a_minute() {
    let app = TestApp::spawn().await;
    let (id, token) = signed_in(&app).await;
    let signed_in_at = app.now();
    let last_seen = |items: Vec<ciam_store::Item>| {
        assert_eq!(items.len(), 1, "one session");
        (items[0].n("lastSeen").unwrap(), items[0].n("ends").unwrap())
    };
    let session_writes = |app: &TestApp| {
        app.store
            .written()
            .iter()
            .filter(|k| k.sk.starts_with("SESSION#"))
            .count()
    };
    let writes = session_writes(&app);

    for secs in [1, 30, 28] {
        app.clock.advance(secs);
        app.get_info(&token).await.ok(200);
    }
    assert_eq!(app.now() - signed_in_at, 59);
    assert_eq!(
        last_seen(app.sessions_of(&id).await),
        (signed_in_at, signed_in_at + 1800)
    );
    assert_eq!(
        session_writes(&app),
        writes,
        "three requests within the minute wrote nothing"
    );

    app.clock.advance(1);
    app.get_info(&token).await.ok(200);
    let now = app.now();
    assert_eq!(last_seen(app.sessions_of(&id).await), (now, now + 1800));
    assert_eq!(session_writes(&app), writes + 1);

    app.clock.advance(30);
    app.get_info(&token).await.ok(200);
    assert_eq!(last_seen(app.sessions_of(&id).await), (now, now + 1800));
    assert_eq!(session_writes(&app), writes + 1);
}
