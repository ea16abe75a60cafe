//! `GET /auth/username` (issue 34 item 1), on both engines: a free name is said free, a taken
//! one (whatever its case or width) taken with a free suggestion close to it, a name the rules
//! refuse INVALID_PARAMETER on `userName` with the rule's message, and the answer names no
//! account. A space between words is allowed ("Zhang Wei"), one at a time (docs/validation.md).

use crate::helpers::{url_encode, TestApp};
use ciam_store::dynamo_local::DynamoLocal;
use std::sync::Arc;

async fn availability(app: &TestApp) {
    let ask = |name: &str| {
        let p = format!("/auth/username?userName={}", url_encode(name));
        async move { app.get(&p, None).await }
    };
    let free = ask("zhangwei").await.ok(200);
    assert_eq!(free["available"], true, "{free}");
    assert_eq!(free["suggestion"], serde_json::Value::Null);
    assert_eq!(free["userName"], "zhangwei");

    let id = app.sign_up("zhangwei", "zw@example.com").await;
    for typed in ["zhangwei", "ZhangWei", " zhangwei "] {
        let taken = ask(typed).await.ok(200);
        assert_eq!(taken["available"], false, "{typed}: {taken}");
        let s = taken["suggestion"].as_str().expect("a suggestion");
        assert!(
            s.to_lowercase().starts_with("zhangwei") && s.len() > 8,
            "{s}"
        );
        assert!(
            !taken.to_string().contains(&id),
            "no account named: {taken}"
        );
        assert!(!taken.to_string().contains("zw@"), "{taken}");
        // The suggestion is free.
        assert_eq!(ask(s).await.ok(200)["available"], true, "{s}");
    }
    // A long name's suggestion still fits 32 characters.
    let long = "a".repeat(32);
    app.sign_up(&long, "long@example.com").await;
    let taken = ask(&long).await.ok(200);
    let s = taken["suggestion"].as_str().expect("a suggestion");
    assert_eq!(s.chars().count(), 32, "{s}");

    for bad in ["", "z", "zhang/wei", &"x".repeat(33)] {
        let e = ask(bad).await.error(400, "INVALID_PARAMETER");
        assert_eq!(e["field"], "userName", "{bad}: {e}");
    }

    // A person's name with a space between words is a username; its case-folded twin is taken.
    assert_eq!(ask("Zhang Wei").await.ok(200)["available"], true);
    app.sign_up(" Zhang Wei ", "zhang.wei@example.com").await;
    let taken = ask("zhang wei").await.ok(200);
    assert_eq!(taken["available"], false, "{taken}");
    let s = taken["suggestion"].as_str().expect("a suggestion");
    assert!(s.starts_with("zhang wei"), "{s}");
    // A tab is a control character (refused as invisible).
    let e = ask("Zhang\tWei").await.error(400, "INVALID_PARAMETER");
    assert_eq!(e["field"], "userName", "{e}");
    // Doubled, or another space (no-break, ideographic), is refused with the rule's words.
    for bad in ["Zhang  Wei", "Zhang\u{a0}Wei", "张\u{3000}伟"] {
        let e = ask(bad).await.error(400, "INVALID_PARAMETER");
        assert_eq!(e["field"], "userName", "{bad:?}: {e}");
        assert_eq!(
            e["message"], "用户名需 2 到 32 个字符，词之间只能有一个空格",
            "{bad:?}: {e}"
        );
    }
}

#[tokio::test]
async fn a_username_is_said_free_or_taken_with_a_suggestion_on_sqlite() {
    availability(&TestApp::spawn().await).await;
}

#[tokio::test]
async fn a_username_is_said_free_or_taken_with_a_suggestion_on_dynamodb() {
    let local = Arc::new(DynamoLocal::start().await);
    availability(&TestApp::on_dynamo(&local, "usernames").await).await;
}
