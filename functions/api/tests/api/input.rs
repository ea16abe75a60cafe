//! Input hardening: invisible and bidi characters refused in every name and profile text field,
//! user names unique by their folded form, both through the API as a client sees it.

use crate::helpers::{registration, TestApp, PASSWORD};
use serde_json::{json, Value};

/// The adversarial run's characters: a right-to-left override, a zero-width space, a left-to-right
/// isolate, a byte-order mark, a Hangul filler and a tag character.
const INVISIBLE: &[&str] = &[
    "\u{202E}",
    "\u{200B}",
    "\u{2066}",
    "\u{FEFF}",
    "\u{3164}",
    "\u{E0041}",
];

#[tokio::test]
async fn sign_up_refuses_invisible_characters_in_the_user_name_and_company_and_writes_nothing() {
    let app = TestApp::spawn().await;
    let mail = "ann@example.com";
    let code = app.fresh_code(mail, "register").await;
    let writes = app.store.written().len();
    for c in INVISIBLE {
        for (field, body) in [
            ("userName", registration(&format!("ann{c}lee"), mail, &code)),
            ("company", {
                let mut b = registration("annlee", mail, &code);
                b["company"] = json!(format!("Acme{c} Robotics"));
                b
            }),
        ] {
            let v = app
                .post_register(&body)
                .await
                .error(400, "INVALID_PARAMETER");
            assert_eq!(v["field"], field, "{c:?}: {v}");
        }
    }
    assert_eq!(app.store.written().len(), writes, "nothing was written");
    // The same form without the character goes through, with the code still good.
    app.post_register(&registration("annlee", mail, &code))
        .await
        .ok(201);
}

#[tokio::test]
async fn the_profile_refuses_invisible_characters_in_every_text_field() {
    let app = TestApp::spawn().await;
    app.sign_up("annlee", "ann@example.com").await;
    let token = app.sign_in("ann@example.com", PASSWORD).await;
    for field in ["displayName", "company", "duty", "address"] {
        for c in INVISIBLE {
            let v = app
                .patch_info(&token, &json!({ field: format!("Ann{c} Lee") }))
                .await
                .error(400, "INVALID_PARAMETER");
            assert_eq!(v["field"], field, "{c:?}: {v}");
        }
    }
    let info = app.get_info(&token).await.ok(200);
    assert_eq!(info["displayName"], Value::Null, "nothing was stored");
    // A heart emoji keeps its variation selector; decomposed text is stored composed (NFC).
    let info = app
        .patch_info(
            &token,
            &json!({ "displayName": "Zoe\u{308} \u{2764}\u{FE0F}" }),
        )
        .await
        .ok(200);
    assert_eq!(info["displayName"], "Zoë \u{2764}\u{FE0F}");
}

#[tokio::test]
async fn a_user_name_in_another_case_or_width_is_taken_and_the_first_keeps_its_spelling() {
    let app = TestApp::spawn().await;
    let first = app.sign_up("Ann", "ann@example.com").await;
    for other in ["ann", "ANN", "ＡＮＮ", "ａｎｎ"] {
        let mail = "bob@example.com";
        let code = app.fresh_code(mail, "register").await;
        let v = app
            .post_register(&registration(other, mail, &code))
            .await
            .error(409, "USERNAME_EXIST");
        assert_eq!(v["field"], "userName", "{other}");
        app.clock.advance(61);
    }
    assert_eq!(
        app.owner_of("ＡＮＮ").await.as_deref(),
        Some(first.as_str())
    );
    let token = app.sign_in("ann@example.com", PASSWORD).await;
    assert_eq!(app.get_info(&token).await.ok(200)["userName"], "Ann");
}

#[tokio::test]
async fn a_deactivated_user_name_stays_reserved_in_every_width() {
    let app = TestApp::spawn().await;
    app.sign_up("ann", "ann@example.com").await;
    let token = app.sign_in("ann@example.com", PASSWORD).await;
    app.deactivate(&token, &json!({ "password": PASSWORD }))
        .await
        .ok(200);
    let code = app.fresh_code("new@example.com", "register").await;
    app.post_register(&registration("ＡＮＮ", "new@example.com", &code))
        .await
        .error(409, "USERNAME_EXIST");
}

/// "ann" and "ＡＮＮ" signing up at once: one account, the other USERNAME_EXIST and nothing of it
/// left behind. Run on SQLite here and on DynamoDB Local in `dynamo.rs`.
pub(crate) async fn folded_names_race_has_one_winner(app: TestApp) {
    let forms: Vec<(String, Value)> = {
        let mut v = Vec::new();
        for (name, mail) in [("ann", "ann@example.com"), ("ＡＮＮ", "wide@example.com")] {
            let code = app.fresh_code(mail, "register").await;
            v.push((mail.to_owned(), registration(name, mail, &code)));
        }
        v
    };
    let tasks: Vec<_> = forms
        .iter()
        .map(|(_, body)| {
            let (app, body) = (app.clone(), body.clone());
            tokio::spawn(async move { app.post_register(&body).await })
        })
        .collect();
    let mut winners = Vec::new();
    for (task, (mail, _)) in tasks.into_iter().zip(&forms) {
        let res = task.await.expect("the task ran");
        if res.status == 201 {
            winners.push(res.json()["userId"].as_str().unwrap_or_default().to_owned());
        } else {
            res.error(409, "USERNAME_EXIST");
            assert_eq!(app.owner_of(mail).await, None, "{mail} left behind");
        }
    }
    assert_eq!(winners.len(), 1, "{winners:?}");
    assert_eq!(app.owner_of("Ann").await.as_ref(), Some(&winners[0]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn of_ann_and_fullwidth_ann_signing_up_at_once_exactly_one_wins() {
    folded_names_race_has_one_winner(TestApp::spawn().await).await;
}

#[tokio::test]
async fn the_app_registry_refuses_invisible_characters_in_names_and_descriptions() {
    let app = TestApp::spawn().await;
    let admin = app.admin_token().await;
    for c in INVISIBLE {
        for (field, patch) in [
            (
                "name.zh-CN",
                json!({ "name": { "zh-CN": format!("工厂{c}"), "en-US": "Factory" } }),
            ),
            (
                "name.en-US",
                json!({ "name": { "zh-CN": "工厂", "en-US": format!("Fac{c}tory") } }),
            ),
            (
                "description",
                json!({ "description": format!("Orders{c} and machines") }),
            ),
        ] {
            let mut body = crate::apps::new_app("Factory");
            for (k, v) in patch.as_object().into_iter().flatten() {
                body[k] = v.clone();
            }
            let v = app
                .create_app(&admin, &body)
                .await
                .error(400, "INVALID_PARAMETER");
            assert_eq!(v["field"], field, "{c:?}: {v}");
        }
    }
    let mut body = crate::apps::new_app("Factory");
    body["description"] = json!("Orders & machines!\nNew: robots?");
    let created = app.create_app(&admin, &body).await.ok(201);
    let id = created["app"]["appId"].as_str().unwrap_or_default();
    let v = app
        .patch_app(&admin, id, &json!({ "description": "\u{202E}enihcam" }))
        .await
        .error(400, "INVALID_PARAMETER");
    assert_eq!(v["field"], "description");
}

#[tokio::test]
async fn frame_origins_and_logos_refuse_the_impossible_hosts_of_service_urls() {
    let app = TestApp::spawn().await;
    let admin = app.admin_token().await;
    for bad in crate::apps::IMPOSSIBLE_HOSTS
        .iter()
        .filter_map(|u| u.strip_suffix("/cb"))
        .chain(["https://factory.example.com/cb", "https://*"])
    {
        let mut body = crate::apps::new_app("Other");
        body["frameOrigins"] = json!(["https://factory.example.com", bad]);
        let v = app
            .create_app(&admin, &body)
            .await
            .error(400, "INVALID_PARAMETER");
        assert_eq!(v["field"], "frameOrigins[1]", "{bad}: {v}");
    }
    let mut body = crate::apps::new_app("Other");
    body["logo"] = json!("https://*.example.com/logo.png");
    let v = app
        .create_app(&admin, &body)
        .await
        .error(400, "INVALID_PARAMETER");
    assert_eq!(v["field"], "logo", "{v}");
}
