//! `ciam admin unlock|suspend|reactivate|reset-two-factor <mail|phone|userId> --reason R` and
//! `ciam admin roles`: the console's actions from the command line, recorded as the console
//! records them (audit entry with the actor `cli:<os user>`, activity entry, notice).

// Test code: a panic is the failure report, so unwrap and expect are allowed here
// (the workspace denies them in the product, Cargo.toml [workspace.lints]).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use ciam_core::user::{profile_key, unique_key, user_pk, User};
use ciam_core::validate::Identity;
use ciam_store::sqlite::SqliteStore;
use ciam_store::{Item, Query, Store, SystemClock};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Arc;

const ID: &str = "0123456789abcdef0123456789abcdef";
const MAIL: &str = "ann@example.com";

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ciam-admin-act-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn store_in(data: &Path) -> SqliteStore {
    SqliteStore::open(&data.join("ciam.db"), Arc::new(SystemClock)).unwrap()
}

async fn seed(data: &Path, user: User) {
    let store = store_in(data);
    store.ensure_schema().await.unwrap();
    let mail = user.mail.clone().unwrap();
    store.put(user.to_item(), None).await.unwrap();
    let pk = Identity::parse(&mail).unwrap().unique_pk();
    store
        .put(
            Item::new(unique_key(pk)).with("userId", user.id.as_str()),
            None,
        )
        .await
        .unwrap();
}

fn ann() -> User {
    User {
        id: ID.to_owned(),
        user_name: "ann".into(),
        mail: Some(MAIL.to_owned()),
        ..Default::default()
    }
}

fn ciam(data: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ciam"))
        .arg("admin")
        .args(args)
        .arg("--data")
        .arg(data)
        .env("USER", "tester")
        .output()
        .expect("ciam runs")
}

async fn user(data: &Path) -> User {
    let item = store_in(data).get(&profile_key(ID)).await.unwrap().unwrap();
    User::from_item(&item).unwrap()
}

/// The audit entries of today with this action.
async fn audit(data: &Path, action: &str) -> Vec<Item> {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64;
    let day = ciam_core::console::audit::day_name(now.div_euclid(86_400));
    store_in(data)
        .query(Query::partition(format!("AUDIT#{day}")))
        .await
        .unwrap()
        .into_iter()
        .filter(|i| i.s("action") == Some(action))
        .collect()
}

async fn activity(data: &Path) -> Vec<String> {
    store_in(data)
        .query(Query::partition(user_pk(ID)).prefix("EVENT#"))
        .await
        .unwrap()
        .iter()
        .filter_map(|i| i.s("kind").map(str::to_owned))
        .collect()
}

#[tokio::test]
async fn suspend_and_reactivate_by_mail_or_user_id_are_audited_as_the_cli() {
    let data = temp_dir("suspend");
    seed(&data, ann()).await;

    let out = ciam(&data, &["suspend", MAIL, "--reason", "a fraud report"]);
    assert!(out.status.success(), "{out:?}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains(ID), "{stdout}");
    // The notice, through the local notifier.
    assert!(
        stdout.contains("suspendedBySupport notice for ann@example.com"),
        "{stdout}"
    );
    let u = user(&data).await;
    assert!(u.suspended_at.is_some());
    assert_eq!(u.sess_gen, 1, "the sessions end");
    // The identity item's sign-in record carries the suspension.
    let pk = Identity::parse(MAIL).unwrap().unique_pk();
    let record = store_in(&data).get(&unique_key(pk)).await.unwrap().unwrap();
    assert!(record.n("suspendedAt").is_some());
    let entries = audit(&data, "account.suspend").await;
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0].s("actor"), Some("cli:tester"));
    assert_eq!(entries[0].s("actorRole"), Some("admin"));
    assert_eq!(entries[0].s("target"), Some(ID));
    assert_eq!(entries[0].s("reason"), Some("a fraud report"));

    let out = ciam(&data, &["reactivate", ID, "--reason", "cleared up"]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(user(&data).await.suspended_at, None);
    assert_eq!(audit(&data, "account.reactivate").await.len(), 1);
    let kinds = activity(&data).await;
    for kind in ["suspendedBySupport", "reactivatedBySupport"] {
        assert!(kinds.contains(&kind.to_owned()), "{kinds:?}");
    }
    let _ = std::fs::remove_dir_all(&data);
}

#[tokio::test]
async fn unlock_clears_the_lock_and_reset_two_factor_turns_it_off() {
    let data = temp_dir("unlock");
    let until = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
        + 600;
    seed(
        &data,
        User {
            locked_until: Some(until),
            fails: 0,
            enable_totp: true,
            totp_secret: Some(vec![1, 2, 3]),
            ..ann()
        },
    )
    .await;
    let out = ciam(&data, &["unlock", MAIL, "--reason", "called in"]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(user(&data).await.locked_until, None);
    let out = ciam(&data, &["reset-two-factor", MAIL, "--reason", "lost phone"]);
    assert!(out.status.success(), "{out:?}");
    let u = user(&data).await;
    assert!(!u.enable_totp && u.totp_secret.is_none());
    assert_eq!(audit(&data, "account.unlock").await.len(), 1);
    assert_eq!(audit(&data, "account.resetTwoFactor").await.len(), 1);
    let kinds = activity(&data).await;
    assert!(kinds.contains(&"unlockedBySupport".to_owned()), "{kinds:?}");
    assert!(
        kinds.contains(&"twoFactorResetBySupport".to_owned()),
        "{kinds:?}"
    );
    let _ = std::fs::remove_dir_all(&data);
}

#[tokio::test]
async fn an_unknown_account_or_a_missing_reason_fails_and_roles_lists_the_holders() {
    let data = temp_dir("roles");
    seed(&data, ann()).await;
    for args in [
        vec!["suspend", "bob@example.com", "--reason", "x"],
        vec![
            "suspend",
            "fedcba9876543210fedcba9876543210",
            "--reason",
            "x",
        ],
        vec!["suspend", MAIL, "--reason", "  "],
        vec!["suspend", MAIL],
    ] {
        let out = ciam(&data, &args);
        assert!(!out.status.success(), "{args:?}: {out:?}");
        assert!(!String::from_utf8_lossy(&out.stderr).is_empty());
    }
    assert_eq!(user(&data).await.suspended_at, None);

    let out = ciam(&data, &["roles"]);
    assert!(out.status.success(), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stdout).trim().is_empty());
    let out = ciam(&data, &["grant", MAIL, "--role", "operator"]);
    assert!(out.status.success(), "{out:?}");
    let out = ciam(&data, &["roles"]);
    assert!(out.status.success(), "{out:?}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("operator") && stdout.contains(ID) && stdout.contains(MAIL),
        "{stdout}"
    );
    let _ = std::fs::remove_dir_all(&data);
}

/// `ciam admin backfill-directory`: accounts from before the directory appear in the console's
/// lists (by company, by sign-up day), a deactivated one does not, the total is set, and running
/// it again changes nothing.
#[tokio::test]
async fn the_directory_backfill_lists_accounts_made_before_it() {
    let data = temp_dir("backfill");
    let store = store_in(&data);
    store.ensure_schema().await.unwrap();
    let day = 1_800_000_000; // 2027-01-15
    for (i, company, gone) in [
        (1, "Acme Robotics", false),
        (2, "acme tooling", false),
        (3, "Acme", true),
        (4, "Beta", false),
    ] {
        let user = User {
            id: format!("{i:032}"),
            user_name: format!("u{i}"),
            mail: Some(format!("u{i}@example.com")),
            company: Some(company.into()),
            created_at: day + i,
            deactivated: gone,
            ..Default::default()
        };
        store.put(user.to_item(), None).await.unwrap();
    }
    for _ in 0..2 {
        let out = ciam(&data, &["backfill-directory"]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.contains("3 accounts, 9 directory entries written"),
            "{text}"
        );
    }
    // The companies become suggestions for organizations (nothing merged).
    let out = ciam(&data, &["org-suggestions", "ACME"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "1\tAcme Robotics\n1\tacme tooling\n"
    );
    let acme = store
        .query(Query::partition("DIR#CO#a").prefix("acme"))
        .await
        .unwrap();
    let ids: Vec<_> = acme
        .iter()
        .map(|i| i.s("userId").unwrap().to_owned())
        .collect();
    assert_eq!(ids, [format!("{:032}", 1), format!("{:032}", 2)]);
    let on_day = store
        .query(Query::partition("DIR#DAY#2027-01-15"))
        .await
        .unwrap();
    assert_eq!(
        on_day.len(),
        3,
        "newest first, the deactivated one left out"
    );
    assert_eq!(on_day[0].s("userId"), Some(format!("{:032}", 4).as_str()));
    let total = store
        .get(&ciam_core::numbers::total_key())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(total.n("accounts"), Some(3));
    let _ = std::fs::remove_dir_all(data);
}
