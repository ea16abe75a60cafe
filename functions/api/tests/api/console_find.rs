//! The console's find box and its lists of locked and suspended accounts (issue 34,
//! docs/console-design.md §3): every kind of query (a phone's last four digits, a whole phone
//! with and without +86, a user name's, a display name's and a company's beginning, an exact
//! mail), the index items moved by a profile edit and a new phone and removed by a deactivation,
//! the locked list after five failed sign-ins (gone after an unlock, and when the lock's time is
//! past), the suspended list; a prefix in the middle of a large partition and a one-character
//! prefix over many second characters, paged to the end. On SQLite and DynamoDB Local.

use crate::helpers::{registration, TestApp, NEW_PASSWORD, PASSWORD};
use ciam_core::console::Role;
use ciam_core::directory;
use ciam_core::user::User;
use ciam_store::dynamo_local::DynamoLocal;
use ciam_store::{Store, TxOp};
use serde_json::{json, Value};
use std::sync::Arc;

/// `s` as a query string value (every byte but letters and digits escaped).
fn enc(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

impl TestApp {
    async fn find(&self, token: &str, q: &str) -> Value {
        self.admin_get(&format!("/admin/search?q={}", enc(q)), token)
            .await
            .ok(200)
    }

    /// The user names each group of `q` found, as `kind: [names]` pairs.
    async fn found(&self, token: &str, q: &str) -> Vec<(String, Vec<String>)> {
        let body = self.find(token, q).await;
        body["groups"]
            .as_array()
            .expect("groups")
            .iter()
            .map(|g| {
                let names = g["accounts"]
                    .as_array()
                    .expect("accounts")
                    .iter()
                    .map(|a| a["userName"].as_str().expect("userName").to_owned())
                    .collect();
                (g["matched"].as_str().expect("matched").to_owned(), names)
            })
            .collect()
    }

    async fn held_names(&self, token: &str, status: &str) -> Vec<String> {
        self.admin_get(&format!("/admin/held?status={status}"), token)
            .await
            .ok(200)["accounts"]
            .as_array()
            .expect("accounts")
            .iter()
            .map(|a| a["userName"].as_str().expect("userName").to_owned())
            .collect()
    }

    /// Signs up `name` at `name@example.com` with `company` and a phone bound; its token.
    async fn customer(&self, name: &str, company: &str, phone: &str) -> String {
        let mail = format!("{name}@example.com");
        let code = self.fresh_code(&mail, "register").await;
        let mut body = registration(name, &mail, &code);
        body["company"] = json!(company);
        self.post_register(&body).await.ok(201);
        let token = self.sign_in(&mail, PASSWORD).await;
        let code = self.fresh_code(phone, "bind").await;
        self.patch_phone(&token, phone, &code).await.ok(200);
        self.clock.advance(61);
        token
    }
}

fn group(kind: &str, names: &[&str]) -> (String, Vec<String>) {
    (
        kind.to_owned(),
        names.iter().map(|n| (*n).to_owned()).collect(),
    )
}

async fn the_find_box_and_the_held_lists(app: TestApp) {
    let (_, op) = app.staffer("helper", Some(Role::Operator)).await;
    let zhang = app
        .customer("zhangwei", "Zenith Robotics", "13800138000")
        .await;
    app.customer("zhaolei", "Beta Works", "13700001234").await;
    let ann = app
        .customer("annlee", "ZENITH Tools", "+86 139 0000 8000")
        .await;
    app.patch_info(&zhang, &json!({ "displayName": "张伟" }))
        .await
        .ok(200);

    // The last four digits: newest first (a user name's beginning too: none here).
    assert_eq!(
        app.found(&op, "8000").await,
        [group("phoneEnd", &["annlee", "zhangwei"])]
    );
    // A whole phone, with and without +86: masked as the account page masks it.
    for q in ["13800138000", "+86 138 0013 8000", "+8613800138000"] {
        assert_eq!(
            app.found(&op, q).await,
            [group("phone", &["zhangwei"])],
            "{q}"
        );
    }
    let body = app.find(&op, "13800138000").await;
    let account = &body["groups"][0]["accounts"][0];
    assert_eq!(account["phone"], "138****8000");
    assert_eq!(account["mail"], "zh***@example.com");
    assert_eq!(account["displayName"], "张伟");
    assert_eq!(account["status"], "active");
    assert!(!body.to_string().contains("13800138000"));
    // An exact mail (any case).
    assert_eq!(
        app.found(&op, "ZhangWei@Example.com").await,
        [group("mail", &["zhangwei"])]
    );
    assert!(app.found(&op, "nobody@example.com").await.is_empty());
    // A user name's beginning, folded.
    assert_eq!(
        app.found(&op, "ZHA").await,
        [group("userName", &["zhangwei", "zhaolei"])]
    );
    // A display name's beginning.
    assert_eq!(
        app.found(&op, "张").await,
        [group("displayName", &["zhangwei"])]
    );
    // A company's beginning, folded: by company, then newest first.
    assert_eq!(
        app.found(&op, "ｚｅｎ").await,
        [group("company", &["zhangwei", "annlee"])]
    );
    // One kind asked for.
    let only = app
        .admin_get("/admin/search?q=zen&kind=userName", &op)
        .await
        .ok(200);
    assert_eq!(only["groups"], json!([]));
    app.admin_get("/admin/search?q=acme&kind=phoneEnd", &op)
        .await
        .error(400, "INVALID_PARAMETER");
    app.admin_get("/admin/search?q=%20", &op)
        .await
        .error(400, "INVALID_PARAMETER");
    app.admin_get("/admin/search?q=acme&after=acme%23x", &op)
        .await
        .error(400, "INVALID_PARAMETER");

    // A new display name and a new phone move the items.
    app.patch_info(&zhang, &json!({ "displayName": "Wei Zhang" }))
        .await
        .ok(200);
    assert!(app.found(&op, "张").await.is_empty());
    assert_eq!(
        app.found(&op, "wei").await,
        [group("displayName", &["zhangwei"])]
    );
    let code = app.fresh_code("13700005678", "bind").await;
    app.patch_phone(&zhang, "13700005678", &code).await.ok(200);
    assert_eq!(
        app.found(&op, "8000").await,
        [group("phoneEnd", &["annlee"])]
    );
    assert_eq!(
        app.found(&op, "5678").await,
        [group("phoneEnd", &["zhangwei"])]
    );
    // A deactivation removes them.
    app.deactivate(&ann, &json!({ "password": PASSWORD }))
        .await
        .ok(200);
    assert!(app.found(&op, "8000").await.is_empty());
    assert!(app.found(&op, "ann").await.is_empty());
    assert_eq!(
        app.found(&op, "zen").await,
        [group("company", &["zhangwei"])]
    );

    // Five failed sign-ins: in the locked list, with the unlock time; out after an unlock.
    assert!(app.held_names(&op, "locked").await.is_empty());
    let lock = || async {
        for _ in 1..=5 {
            app.login_password("zhaolei@example.com", NEW_PASSWORD)
                .await;
        }
    };
    lock().await;
    let page = app
        .admin_get("/admin/held?status=locked", &op)
        .await
        .ok(200);
    assert_eq!(page["accounts"][0]["userName"], "zhaolei");
    assert_eq!(page["accounts"][0]["status"], "locked");
    assert_eq!(page["accounts"][0]["lockedUntil"], app.now() + 900);
    let zhao = page["accounts"][0]["userId"]
        .as_str()
        .expect("userId")
        .to_owned();
    app.fresh_proof(&op).await;
    app.act(&op, &zhao, "unlock", "called the desk")
        .await
        .ok(200);
    assert!(app.held_names(&op, "locked").await.is_empty());
    // Locked again: gone from the list once the lock's time is past.
    lock().await;
    assert_eq!(app.held_names(&op, "locked").await, ["zhaolei"]);
    // (The console's idle time is 15 minutes too: it is used in between.)
    app.clock.advance(450);
    assert_eq!(app.held_names(&op, "locked").await, ["zhaolei"]);
    app.clock.advance(451);
    assert!(app.held_names(&op, "locked").await.is_empty());

    // Suspended, newest first; out when reactivated.
    assert!(app.held_names(&op, "suspended").await.is_empty());
    let zhang_id = app.owner_of("zhangwei@example.com").await.expect("owner");
    app.fresh_proof(&op).await;
    app.act(&op, &zhang_id, "suspend", "a fraud report")
        .await
        .ok(200);
    app.clock.advance(5);
    app.act(&op, &zhao, "suspend", "a fraud report")
        .await
        .ok(200);
    assert_eq!(
        app.held_names(&op, "suspended").await,
        ["zhaolei", "zhangwei"]
    );
    let found = app.find(&op, "zhangwei").await;
    assert_eq!(found["groups"][0]["accounts"][0]["status"], "suspended");
    app.act(&op, &zhang_id, "reactivate", "cleared up")
        .await
        .ok(200);
    assert_eq!(app.held_names(&op, "suspended").await, ["zhaolei"]);
    app.admin_get("/admin/held?status=gone", &op)
        .await
        .error(400, "INVALID_PARAMETER");
}

#[tokio::test]
async fn the_console_finds_by_any_kind_and_lists_locked_and_suspended_accounts() {
    the_find_box_and_the_held_lists(TestApp::spawn().await).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn on_dynamodb_the_console_finds_by_any_kind_and_lists_held_accounts() {
    let local = Arc::new(DynamoLocal::start().await);
    let app = TestApp::on_dynamo(&local, "find").await;
    the_find_box_and_the_held_lists(app).await;
}

/// The user names of `q`'s `userName` group, page after page to the end (`kind`, `after`), and
/// the number of pages.
async fn user_names_paged(app: &TestApp, token: &str, q: &str) -> (Vec<String>, usize) {
    let (mut names, mut pages, mut after) = (Vec::new(), 0, String::new());
    loop {
        let body = app
            .admin_get(
                &format!("/admin/search?q={}&kind=userName{after}", enc(q)),
                token,
            )
            .await
            .ok(200);
        let Some(group) = body["groups"].as_array().and_then(|g| g.first()) else {
            return (names, pages);
        };
        pages += 1;
        for a in group["accounts"].as_array().expect("accounts") {
            names.push(a["userName"].as_str().expect("userName").to_owned());
        }
        match group["next"].as_str() {
            Some(next) => after = format!("&after={}", enc(next)),
            None => return (names, pages),
        }
    }
}

/// Accounts whose user names share their first letters (`zhang000`…`zhang119`, with neighbours
/// that sort just before and after `zhang`, and `zoe…`), put as registration puts their user and
/// directory items: a prefix in the middle of the `z` partition finds exactly its accounts, and a
/// one-character prefix (every second character) pages through all of them in name order.
async fn prefixes_in_a_large_partition(app: TestApp) {
    let (_, op) = app.staffer("helper", Some(Role::Operator)).await;
    let mut names: Vec<String> = (0..120).map(|n| format!("zhang{n:03}")).collect();
    names.extend(["zhan", "zhanh1", "zoe1", "zoe2", "zz"].map(str::to_owned));
    for (n, name) in names.iter().enumerate() {
        let user = User {
            id: format!("{n:032x}"),
            user_name: name.clone(),
            created_at: app.now(),
            ..User::default()
        };
        app.store.put(user.to_item(), None).await.expect("user");
        for op in directory::puts(&user) {
            if let TxOp::Put { item, .. } = op {
                app.store.put(item, None).await.expect("directory");
            }
        }
    }
    let ten: Vec<String> = (100..110).map(|n| format!("zhang{n:03}")).collect();
    assert_eq!(
        app.found(&op, "ZHANG10").await,
        [("userName".to_owned(), ten)]
    );
    let (zhang, pages) = user_names_paged(&app, &op, "zhang").await;
    assert_eq!(zhang, names[..120]);
    assert_eq!(pages, 6);
    let (all, _) = user_names_paged(&app, &op, "z").await;
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(all, sorted);
    assert_eq!(
        app.found(&op, "zo").await,
        [group("userName", &["zoe1", "zoe2"])]
    );
}

#[tokio::test]
async fn a_prefix_deep_in_a_large_partition_is_found_and_paged() {
    prefixes_in_a_large_partition(TestApp::spawn().await).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn on_dynamodb_a_prefix_deep_in_a_large_partition_is_found_and_paged() {
    let local = Arc::new(DynamoLocal::start().await);
    let app = TestApp::on_dynamo(&local, "find-deep").await;
    prefixes_in_a_large_partition(app).await;
}
