//! `ciam admin grant <mail> [--role viewer|operator|admin]`: the role (admin by default) lands
//! on the account found by its mail, and in the role index.

// Test code: a panic is the failure report, so unwrap and expect are allowed here
// (the workspace denies them in the product, Cargo.toml [workspace.lints]).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use ciam_core::user::{profile_key, unique_key, User};
use ciam_core::validate::Identity;
use ciam_store::sqlite::SqliteStore;
use ciam_store::{Item, Store, SystemClock};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ciam-admin-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn store_in(data: &Path) -> SqliteStore {
    SqliteStore::open(&data.join("ciam.db"), Arc::new(SystemClock)).unwrap()
}

async fn seed(data: &Path, id: &str, mail: &str) {
    let store = store_in(data);
    store.ensure_schema().await.unwrap();
    let user = User {
        id: id.to_owned(),
        user_name: "ann".into(),
        mail: Some(mail.to_owned()),
        ..Default::default()
    };
    store.put(user.to_item(), None).await.unwrap();
    let pk = Identity::parse(mail).unwrap().unique_pk();
    store
        .put(Item::new(unique_key(pk)).with("userId", id), None)
        .await
        .unwrap();
}

fn grant(data: &Path, mail: &str) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_ciam"))
        .args(["admin", "grant", mail, "--data"])
        .arg(data)
        .output()
        .expect("ciam runs")
}

async fn roles(data: &Path, id: &str) -> Vec<String> {
    let item = store_in(data).get(&profile_key(id)).await.unwrap().unwrap();
    User::from_item(&item).unwrap().roles
}

#[tokio::test]
async fn granting_admin_adds_the_role_to_the_account_with_that_mail_once() {
    let data = temp_dir("grant");
    let id = "0123456789abcdef0123456789abcdef";
    seed(&data, id, "ann@example.com").await;
    assert!(roles(&data, id).await.is_empty());

    let out = grant(&data, "Ann@Example.com");
    assert!(out.status.success(), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stdout).contains(id));
    assert_eq!(roles(&data, id).await, vec!["admin".to_owned()]);

    // Granting again changes nothing.
    assert!(grant(&data, "ann@example.com").status.success());
    assert_eq!(roles(&data, id).await, vec!["admin".to_owned()]);
    let _ = std::fs::remove_dir_all(&data);
}

#[tokio::test]
async fn granting_admin_to_an_unknown_or_malformed_mail_fails() {
    let data = temp_dir("unknown");
    seed(&data, "0123456789abcdef0123456789abcdef", "ann@example.com").await;
    for mail in ["bob@example.com", "not-a-mail"] {
        let out = grant(&data, mail);
        assert!(!out.status.success(), "{mail}: {out:?}");
        assert!(!String::from_utf8_lossy(&out.stderr).is_empty());
    }
    let _ = std::fs::remove_dir_all(&data);
}

#[tokio::test]
async fn granting_a_role_replaces_the_console_role_and_lists_it_in_the_index() {
    let data = temp_dir("role");
    let id = "0123456789abcdef0123456789abcdef";
    seed(&data, id, "ann@example.com").await;
    let with_role = |role: &str| {
        Command::new(env!("CARGO_BIN_EXE_ciam"))
            .args([
                "admin",
                "grant",
                "ann@example.com",
                "--role",
                role,
                "--data",
            ])
            .arg(&data)
            .output()
            .expect("ciam runs")
    };
    let out = with_role("viewer");
    assert!(out.status.success(), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("viewer"));
    assert_eq!(roles(&data, id).await, vec!["viewer".to_owned()]);
    assert!(with_role("operator").status.success());
    assert_eq!(roles(&data, id).await, vec!["operator".to_owned()]);
    let index = store_in(&data)
        .get(&ciam_core::console::roles::index_key(id))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(index.s("role"), Some("operator"));
    // The command line's actor (`cli:<os user>`), also in the audit entry of the grant.
    assert!(index
        .s("grantedBy")
        .is_some_and(|by| by.starts_with("cli:")));
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64;
    let day = ciam_core::console::audit::day_name(now.div_euclid(86_400));
    let grants = store_in(&data)
        .query(ciam_store::Query::partition(format!("AUDIT#{day}")))
        .await
        .unwrap()
        .into_iter()
        .filter(|e| e.s("action") == Some("role.grant") && e.s("target") == Some(id))
        .count();
    assert!(grants >= 1, "ciam admin grant is in the audit log");
    assert_eq!(index.s("mail"), Some("ann@example.com"));
    assert!(!with_role("root").status.success());
    assert_eq!(roles(&data, id).await, vec!["operator".to_owned()]);
    let _ = std::fs::remove_dir_all(&data);
}
