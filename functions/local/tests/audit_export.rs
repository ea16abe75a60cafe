//! `ciam admin audit export --from D --to D [--format csv|jsonl] [--out FILE]`: the console's
//! audit log of the store `ciam serve` opens, as CSV or JSON Lines, to stdout or a file.

// Test code: a panic is the failure report, so unwrap and expect are allowed here
// (the workspace denies them in the product, Cargo.toml [workspace.lints]).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use ciam_store::sqlite::SqliteStore;
use ciam_store::{Item, Key, Store, SystemClock};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ciam-audit-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Two entries on 2026-11-02 and one on 2026-11-01, as the console writes them.
async fn seed(data: &Path) {
    let store = SqliteStore::open(&data.join("ciam.db"), Arc::new(SystemClock)).unwrap();
    store.ensure_schema().await.unwrap();
    let entries = [
        ("2026-11-01", 1_793_491_200, "app.create", "a new partner"),
        (
            "2026-11-02",
            1_793_577_600,
            "app.rotateSecret",
            "yearly, \"planned\"",
        ),
        (
            "2026-11-02",
            1_793_581_200,
            "app.delete",
            "=cmd|' /C calc'!A0",
        ),
    ];
    for (day, at, action, reason) in entries {
        let item = Item::new(Key::new(
            format!("AUDIT#{day}"),
            format!("{:013}#abcdef", at * 1000),
        ))
        .with("at", at)
        .with("actor", "u1")
        .with("actorRole", "admin")
        .with("action", action)
        .with("target", "app1")
        .with("reason", reason)
        .with("requestId", "r1");
        store.put(item, None).await.unwrap();
    }
}

fn export(data: &Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_ciam"))
        .args(["admin", "audit", "export"])
        .args(args)
        .arg("--data")
        .arg(data)
        .output()
        .expect("ciam runs")
}

#[tokio::test]
async fn the_export_writes_csv_to_stdout_and_json_lines_to_a_file() {
    let data = temp_dir("export");
    seed(&data).await;
    let out = export(&data, &["--from", "2026-11-01", "--to", "2026-11-02"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let csv = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = csv.split("\r\n").collect();
    assert_eq!(
        lines[0],
        "time,actor,actorRole,action,target,reason,requestId,ip,detail"
    );
    assert_eq!(
        lines[1],
        "2026-11-02T01:00:00Z,u1,admin,app.delete,app1,'=cmd|' /C calc'!A0,r1,,"
    );
    assert_eq!(
        lines[2],
        "2026-11-02T00:00:00Z,u1,admin,app.rotateSecret,app1,\"yearly, \"\"planned\"\"\",r1,,"
    );
    assert!(lines[3].starts_with("2026-11-01T00:00:00Z,u1,admin,app.create"));
    assert_eq!(lines.len(), 5, "and the last line's end");

    let file = data.join("audit.jsonl");
    let out = export(
        &data,
        &[
            "--from",
            "2026-11-01",
            "--to",
            "2026-11-02",
            "--format",
            "jsonl",
            "--action",
            "app.create",
            "--out",
            file.to_str().unwrap(),
        ],
    );
    assert!(out.status.success());
    assert!(out.stdout.is_empty());
    let text = std::fs::read_to_string(&file).unwrap();
    let entries: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0]["action"], "app.create");
    assert_eq!(entries[0]["reason"], "a new partner");

    let out = export(&data, &["--from", "2026-10-01", "--to", "2026-11-02"]);
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("--to: The range is 1 to 31 days"), "{err}");
    let _ = std::fs::remove_dir_all(&data);
}
