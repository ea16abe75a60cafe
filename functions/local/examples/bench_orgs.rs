//! Organizations at scale (issue 35 item 7): seeds DynamoDB Local with 10,000 organizations and
//! 100,000 memberships (`CIAM_BENCH_ORGS`, `CIAM_BENCH_MEMBERS` for other counts; one large
//! organization of a tenth of the members, the rest spread, people in one to three
//! organizations), each membership with its side in the person's partition, then times the reads
//! and writes of "My company" and the console through `ciam_core` on that table and prints the
//! store calls of each. No call may be a scan (asserted). `npm run bench:orgs`. Figures, not
//! assertions: they back docs/benchmarks.md "Organizations at 10,000 organizations".

// A benchmark: a panic is the failure report, so unwrap and expect are allowed here
// (the workspace denies them in the product, Cargo.toml [workspace.lints]).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use ciam_core::org::access::Caller;
use ciam_core::org::{self, invitations, manage, members, Membership, OrgId, Organization};
use ciam_core::org::{Role, Settings, Status};
use ciam_core::testing::{Builder, SpyStore};
use ciam_core::user::User;
use ciam_core::validate::{Email, Identity};
use ciam_core::{Ciam, Lang};
use ciam_store::dynamo_local::DynamoLocal;
use ciam_store::{Item, Store, SystemClock};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

fn env(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn org_id(k: usize) -> OrgId {
    OrgId::parse(&format!("org_{k:016x}")).unwrap()
}

/// Membership `j`: its organization (a tenth of them in organization 0) and person.
fn member(j: usize, orgs: usize, people: usize) -> (usize, String) {
    let org = if j.is_multiple_of(10) {
        0
    } else {
        1 + (j * 7_919) % (orgs - 1)
    };
    (org, format!("{:032}", j % people))
}

fn report(name: &str, mut t: Vec<Duration>, calls: &str) {
    assert!(!calls.contains("scan"), "{name}: {calls}");
    t.sort();
    let pct = |p: f64| t[((t.len() as f64 - 1.0) * p) as usize].as_secs_f64() * 1000.0;
    println!(
        "{name:<44} n={:<5} p50={:>7.2} ms  p99={:>7.2} ms  store calls: {calls}",
        t.len(),
        pct(0.5),
        pct(0.99)
    );
}

fn calls_text(spy: &SpyStore) -> String {
    let calls: Vec<String> = spy
        .take_calls()
        .into_iter()
        .map(|(op, keys)| format!("{op}({keys})"))
        .collect();
    calls.join(" ")
}

async fn put_all(store: &Arc<dyn Store>, items: Vec<Item>) {
    for item in items {
        let mut tries = 0;
        while let Err(e) = store.put(item.clone(), None).await {
            tries += 1;
            assert!(tries < 20, "seeding: {e}");
            tokio::time::sleep(Duration::from_millis(20 * tries)).await;
        }
    }
}

async fn seed(store: &Arc<dyn Store>, orgs: usize, memberships: usize, people: usize, now: i64) {
    let started = Instant::now();
    let mut counts = vec![0i64; orgs];
    for j in 0..memberships {
        counts[member(j, orgs, people).0] += 1;
    }
    let counts = Arc::new(counts);
    let next = Arc::new(AtomicUsize::new(0));
    let total = orgs + memberships;
    let mut workers = Vec::new();
    for _ in 0..32 {
        let (store, next, counts) = (store.clone(), next.clone(), counts.clone());
        workers.push(tokio::spawn(async move {
            loop {
                let n = next.fetch_add(1, Ordering::Relaxed);
                if n >= total {
                    break;
                }
                let items = if n < orgs {
                    let o = Organization {
                        org_id: org_id(n),
                        name_zh: format!("组织{n}"),
                        name_en: format!("Org {n}"),
                        status: Status::Active,
                        settings: Settings::default(),
                        owners: 1,
                        members: counts[n],
                        created_at: now - n as i64,
                        created_by: "bench".into(),
                        requested_by: None,
                    };
                    vec![o.to_item(), o.list_item()]
                } else {
                    let j = n - orgs;
                    let (k, person) = member(j, orgs, people);
                    let m = Membership {
                        org_id: org_id(k),
                        user_id: person,
                        // The first membership of each organization is its owner.
                        role: if j < orgs { Role::Owner } else { Role::Member },
                        joined_at: now,
                        by: "bench".into(),
                    };
                    vec![m.member_item(), m.side_item()]
                };
                put_all(&store, items).await;
            }
        }));
    }
    let mut last = Instant::now();
    while workers.iter().any(|w| !w.is_finished()) {
        tokio::time::sleep(Duration::from_millis(500)).await;
        if last.elapsed() > Duration::from_secs(30) {
            let done = next.load(Ordering::Relaxed).min(total);
            eprintln!("seeding: {done} of {total} items' pairs");
            last = Instant::now();
        }
    }
    for w in workers {
        w.await.unwrap();
    }
    println!(
        "seeded {orgs} organizations and {memberships} memberships in {:.0} s",
        started.elapsed().as_secs_f64()
    );
}

#[tokio::main]
async fn main() {
    let orgs = env("CIAM_BENCH_ORGS", 10_000).max(2);
    let memberships = env("CIAM_BENCH_MEMBERS", 100_000).max(orgs);
    let people = memberships * 7 / 10;
    let local = DynamoLocal::start().await;
    let dynamo: Arc<dyn Store> = Arc::new(local.store("bench_orgs", Arc::new(SystemClock)).await);
    let now = Builder::new(0).system_clock().build().await.now();
    seed(&dynamo, orgs, memberships, people, now).await;
    let spy = Arc::new(SpyStore::new(dynamo.clone()));
    let ciam: Ciam = Builder::new(0)
        .system_clock()
        .store(spy.clone() as Arc<dyn Store>)
        .build()
        .await;
    let store = ciam.store.as_ref();
    spy.take_calls();

    let (mut t, mut calls) = (Vec::new(), String::new());
    for n in 0..500 {
        let j = (n * 7_919) % memberships;
        let (k, person) = member(j, orgs, people);
        let s = Instant::now();
        let (o, m) = org::with_membership(store, &org_id(k), &person)
            .await
            .unwrap();
        t.push(s.elapsed());
        assert!(o.is_some() && m.is_some());
        calls = calls_text(&spy);
    }
    report("an organization and my role (with_membership)", t, &calls);

    let mut t = Vec::new();
    for n in 0..500 {
        let person = format!("{:032}", (n * 7_919) % people);
        let s = Instant::now();
        let mine = org::memberships_of(store, &person).await.unwrap();
        t.push(s.elapsed());
        assert!(!mine.is_empty());
        calls = calls_text(&spy);
    }
    report("my organizations (memberships_of)", t, &calls);

    let mut t = Vec::new();
    for n in 0..300 {
        // The large organization's first page, and small ones'.
        let k = if n % 2 == 0 { 0 } else { 1 + n % (orgs - 1) };
        let s = Instant::now();
        members::page(store, &org_id(k), None).await.unwrap();
        t.push(s.elapsed());
        calls = calls_text(&spy);
    }
    report("members, first page of 50", t, &calls);

    let mut t = Vec::new();
    let mut after: Option<String> = None;
    for _ in 0..100 {
        let s = Instant::now();
        let page = members::page(store, &org_id(0), after.as_deref())
            .await
            .unwrap();
        t.push(s.elapsed());
        after = page.last().map(|m| m.user_id.clone());
        calls = calls_text(&spy);
    }
    report("members of the largest, the next pages", t, &calls);

    let mut t = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..100 {
        let s = Instant::now();
        let page = manage::list(store, cursor.as_deref()).await.unwrap();
        t.push(s.elapsed());
        cursor = page.last().map(|o| o.cursor.clone());
        calls = calls_text(&spy);
    }
    report("console list of organizations, pages", t, &calls);

    // Invitations sent and accepted: the write paths.
    let caller = Caller::operator("bench-operator", "operator", "bench", Vec::new());
    let (mut ti, mut ta, mut inv_calls) = (Vec::new(), Vec::new(), String::new());
    for n in 0..200 {
        let k = 1 + (n * 31) % (orgs - 1);
        let o = org::get(store, &org_id(k)).await.unwrap().unwrap();
        spy.take_calls();
        let mail = format!("invited{n}@bench.example.com");
        let to = Identity::Mail(Email::parse(&mail).unwrap());
        let s = Instant::now();
        invitations::invite(&ciam, &caller, &o, to, None, Lang::EnUs)
            .await
            .unwrap();
        ti.push(s.elapsed());
        inv_calls = calls_text(&spy);
        // The token goes only into the message (this notifier keeps none): the accept is timed
        // on a token item written as `invite` writes one.
        let token = format!("bench-token-{n}");
        let item = Item::new(invitations::token_key(&token))
            .with("orgId", o.org_id.as_str())
            .with("invId", format!("inv_{n:016x}"))
            .with("role", "member")
            .with("address", mail.as_str())
            .with("by", "bench")
            .with("status", "pending")
            .expires(ciam.now() + 3600);
        store.put(item, None).await.unwrap();
        let listed = Item::new(ciam_store::Key::new(
            org::org_pk(&o.org_id),
            format!("INV#inv_{n:016x}"),
        ))
        .with("invId", format!("inv_{n:016x}"))
        .with("role", "member")
        .with("status", "pending")
        .expires(ciam.now() + 3600);
        store.put(listed, None).await.unwrap();
        let user = User {
            id: format!("invitee{n:025}"),
            mail: Some(mail.clone()),
            ..User::default()
        };
        spy.take_calls();
        let s = Instant::now();
        invitations::accept(&ciam, &user, &token).await.unwrap();
        ta.push(s.elapsed());
        calls = calls_text(&spy);
    }
    report("invite (one transaction; then the message)", ti, &inv_calls);
    report("accept an invitation", ta, &calls);
}
