//! Concurrent requests that compete for one thing: exactly one wins.

use crate::helpers::{registration, TestApp};

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn of_eight_concurrent_sign_ups_for_one_username_exactly_one_wins() {
    let app = TestApp::spawn().await;
    let mut forms = Vec::new();
    for i in 0..8 {
        let mail = format!("racer{i}@example.com");
        let code = app.fresh_code(&mail, "register").await;
        forms.push((mail.clone(), registration("racer", &mail, &code)));
    }

    let tasks: Vec<_> = forms
        .iter()
        .map(|(_, body)| {
            let (app, body) = (app.clone(), body.clone());
            tokio::spawn(async move { app.post_register(&body).await })
        })
        .collect();
    let mut winners = Vec::new();
    for (task, (mail, _)) in tasks.into_iter().zip(&forms) {
        let res = task.await.unwrap();
        if res.status == 201 {
            winners.push((
                mail.clone(),
                res.json()["userId"].as_str().unwrap().to_owned(),
            ));
        } else {
            res.error(409, "USERNAME_EXIST");
            assert_eq!(app.owner_of(mail).await, None, "{mail} left behind");
        }
    }
    assert_eq!(winners.len(), 1, "{winners:?}");
    let (mail, id) = &winners[0];
    assert_eq!(app.owner_of("racer").await.as_ref(), Some(id));
    assert_eq!(app.owner_of(mail).await.as_ref(), Some(id));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_code_consumed_by_concurrent_sign_ups_creates_one_account() {
    let app = TestApp::spawn().await;
    let mail = "ann@example.com";
    let code = app.fresh_code(mail, "register").await;

    let tasks: Vec<_> = (0..8)
        .map(|i| {
            let app = app.clone();
            let body = registration(&format!("ann{i}"), mail, &code);
            tokio::spawn(async move { app.post_register(&body).await })
        })
        .collect();
    let mut created = 0;
    for task in tasks {
        let res = task.await.unwrap();
        match res.status.as_u16() {
            201 => created += 1,
            _ => assert!(
                ["VERIFYCODE_NOT_FOUND", "MAIL_EXIST"].contains(&res.reason().as_str()),
                "{}",
                res.text
            ),
        }
    }
    assert_eq!(created, 1);
    let mut owners = 0;
    for i in 0..8 {
        owners += usize::from(app.owner_of(&format!("ann{i}")).await.is_some());
    }
    assert_eq!(owners, 1, "exactly one username was taken");
}
