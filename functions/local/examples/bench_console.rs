//! The console at scale (issue 21): seeds DynamoDB Local with many accounts (100,000 by default;
//! `CIAM_BENCH_ACCOUNTS` for another count) the way registration writes them (user item,
//! identity item, user name item, directory entries and the find box's items; one transaction
//! each; a phone and a display name on each, one account in 1,000 locked and one in 997
//! suspended), then prints find-by-mail, list-by-company and list-by-day latency percentiles and
//! the store calls each makes, the find box's (`console::search`, every kind of query) and the
//! held lists', and the overview's store calls. No read may be a scan (asserted). `npm run bench:console`
//! (cargo run --release -p ciam-local --example bench_console). Figures, not assertions: they
//! back docs/benchmarks.md "The console at 100,000 accounts".

// A benchmark: a panic is the failure report, so unwrap and expect are allowed here
// (the workspace denies them in the product, Cargo.toml [workspace.lints]).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use ciam_core::console::accounts::{find, Lookup};
use ciam_core::console::search::{self, Held, Kind};
use ciam_core::testing::{account_ops, Builder, SpyStore};
use ciam_core::user::User;
use ciam_core::validate::{Email, Identity, Phone};
use ciam_core::{directory, numbers, Ciam};
use ciam_store::dynamo_local::DynamoLocal;
use ciam_store::{Item, Store, SystemClock, TxOp};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Companies: a few large ones and a long tail, so some prefixes hold thousands of accounts.
const COMPANIES: [&str; 12] = [
    "Acme Robotics",
    "Acme Tooling",
    "Beta Castings",
    "Changzhou Motion",
    "Delta Presses",
    "Eastern Gears",
    "精工机械",
    "精密铸造",
    "Foshan Valves",
    "Guangzhou Sensors",
    "Hangzhou Drives",
    "Kunshan Molds",
];

fn company_of(i: usize) -> String {
    // Half the accounts in the 12 named companies (the first ones larger), half in 2,000 others.
    if i.is_multiple_of(2) {
        COMPANIES[(i / 2) % (1 + (i / 2) % COMPANIES.len())].to_owned()
    } else {
        format!("Supplier {:04}", (i * 7919) % 2000)
    }
}

/// A find-box case: its name, the text for account `i`, the kind that must match.
type Case = (&'static str, fn(usize) -> String, Kind);

/// Display names: a few common surnames (large partitions) and a long tail.
const SURNAMES: [&str; 6] = ["张", "王", "李", "Zhang", "Wang", "Li"];

fn display_name_of(i: usize) -> String {
    if i.is_multiple_of(3) {
        format!("{}{}", SURNAMES[(i / 3) % SURNAMES.len()], i % 97)
    } else {
        format!("Person {i:06}")
    }
}

fn phone_of(i: usize) -> String {
    format!("139{:08}", (i * 7_919) % 100_000_000)
}

fn report(name: &str, mut t: Vec<Duration>, calls: &str) {
    t.sort();
    let pct = |p: f64| t[((t.len() as f64 - 1.0) * p) as usize].as_secs_f64() * 1000.0;
    println!(
        "{name:<40} n={:<5} p50={:>7.2} ms  p99={:>7.2} ms  max={:>7.2} ms  store calls: {calls}",
        t.len(),
        pct(0.5),
        pct(0.99),
        pct(1.0)
    );
}

fn calls_text(spy: &SpyStore) -> String {
    let calls = spy.take_calls();
    let mut out: Vec<String> = Vec::new();
    for (op, keys) in calls {
        out.push(format!("{op}({keys})"));
    }
    out.join(" ")
}

async fn seed(ciam: &Ciam, count: usize, now: i64) {
    let started = Instant::now();
    // One real argon2id hash, shared: the benchmark is about reads, not hashing.
    let pwd_hash = ciam_core::password::hash("Bench-Passw0rd!".into(), [9; 16])
        .await
        .unwrap();
    let year = 365 * 86_400;
    let next = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let mut workers = Vec::new();
    for _ in 0..32 {
        let (ciam, next, pwd_hash) = (ciam.clone(), next.clone(), pwd_hash.clone());
        workers.push(tokio::spawn(async move {
            loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                if i >= count {
                    break;
                }
                let mail = format!("user{i:06}@bench.example.com");
                let created_at = now - year + (i as i64 * year / count as i64);
                let user = User {
                    id: format!("bench{i:010}"),
                    user_name: format!("bench_user_{i:06}"),
                    mail: Some(mail.clone()),
                    phone: Some(phone_of(i)),
                    display_name: Some(display_name_of(i)),
                    locked_until: i.is_multiple_of(1_000).then_some(now + 86_400),
                    suspended_at: (i % 997 == 1).then_some(created_at + 60),
                    company: Some(company_of(i)),
                    country: Some("CN".into()),
                    advertisement: "unsubscribe".into(),
                    pwd_hash: Some(pwd_hash.clone()),
                    // Spread over the last year, newer for larger i.
                    created_at,
                    ..User::default()
                };
                let id = Identity::Mail(Email::parse(&mail).unwrap());
                // The items registration writes, each put on its own (DynamoDB Local is slow
                // at transactions, and the items are the same).
                let mut puts = tokio::task::JoinSet::new();
                // The phone's identity item (a phone bound after a mail sign-up), and the
                // held lists' entries.
                let phone = Identity::Phone(Phone::parse(&phone_of(i)).unwrap());
                let held = [
                    Some(TxOp::Put {
                        item: ciam_core::signin::new_identity_item(
                            ciam_core::user::unique_key(phone.unique_pk()),
                            &user,
                        ),
                        cond: None,
                    }),
                    user.locked_until.map(|t| directory::locked(&user.id, t)),
                    user.suspended_at.map(|t| directory::suspended(&user.id, t)),
                ];
                for op in account_ops(&user, &id)
                    .into_iter()
                    .chain(held.into_iter().flatten())
                {
                    let ciam = ciam.clone();
                    puts.spawn(async move {
                        let TxOp::Put { item, .. } = op else {
                            unreachable!("registration only puts")
                        };
                        let mut tries = 0;
                        while let Err(e) = ciam.store.put(item.clone(), None).await {
                            tries += 1;
                            assert!(tries < 20, "seeding {i}: {e}");
                            tokio::time::sleep(Duration::from_millis(20 * tries)).await;
                        }
                    });
                }
                while let Some(done) = puts.join_next().await {
                    done.unwrap();
                }
            }
        }));
    }
    let mut last = Instant::now();
    while workers.iter().any(|w| !w.is_finished()) {
        tokio::time::sleep(Duration::from_millis(500)).await;
        if last.elapsed() > Duration::from_secs(30) {
            let done = next.load(std::sync::atomic::Ordering::Relaxed).min(count);
            eprintln!("seeding: {done} of {count} accounts");
            last = Instant::now();
        }
    }
    for w in workers {
        w.await.unwrap();
    }
    // The total the registrations would have counted.
    ciam.store
        .put(
            Item::new(numbers::total_key()).with("accounts", count as i64),
            None,
        )
        .await
        .unwrap();
    println!(
        "seeded {count} accounts in {:.0} s",
        started.elapsed().as_secs_f64()
    );
}

#[tokio::main]
async fn main() {
    let count: usize = std::env::var("CIAM_BENCH_ACCOUNTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000);
    let local = DynamoLocal::start().await;
    let clock = Arc::new(SystemClock);
    let dynamo: Arc<dyn Store> = Arc::new(local.store("bench_console", clock).await);
    let spy = Arc::new(SpyStore::new(dynamo.clone()));
    let seeding = Builder::new(0).system_clock().store(dynamo).build().await;
    let now = seeding.now();
    seed(&seeding, count, now).await;
    let ciam = Builder::new(0)
        .system_clock()
        .store(spy.clone() as Arc<dyn Store>)
        .build()
        .await;
    spy.take_calls();

    // Find by exact mail: accounts spread over the whole table.
    let mut t = Vec::new();
    let mut calls = String::new();
    for k in 0..500 {
        let i = (k * 7_919) % count;
        let by = Lookup::Mail(format!("user{i:06}@bench.example.com"));
        let s = Instant::now();
        let found = find(&ciam, &by).await.unwrap();
        t.push(s.elapsed());
        assert_eq!(found.user_id, format!("bench{i:010}"));
        calls = calls_text(&spy);
    }
    report("find by mail", t, &calls);

    // List by company prefix: first pages and a walk of later pages of the largest company.
    let mut t = Vec::new();
    for k in 0..300 {
        let prefix = match k % 4 {
            0 => "acme",
            1 => "精工",
            2 => "supplier 1",
            _ => "acme robotics",
        };
        let s = Instant::now();
        let page = directory::by_company(&ciam, prefix, None, directory::PAGE)
            .await
            .unwrap();
        t.push(s.elapsed());
        // (A small table has not every company.)
        assert!(count < 1_000 || !page.accounts.is_empty(), "{prefix}");
        calls = calls_text(&spy);
    }
    report("list by company (first page of 50)", t, &calls);
    let mut t = Vec::new();
    let mut after: Option<String> = None;
    let mut listed = 0;
    for _ in 0..100 {
        let s = Instant::now();
        let page = directory::by_company(&ciam, "acme", after.as_deref(), directory::PAGE)
            .await
            .unwrap();
        t.push(s.elapsed());
        listed += page.accounts.len();
        calls = calls_text(&spy);
        match page.next {
            Some(n) => after = Some(n),
            None => break,
        }
    }
    report(
        &format!("list by company, next pages ({listed} listed)"),
        t,
        &calls,
    );

    // List by sign-up day.
    let mut t = Vec::new();
    for k in 0..200 {
        let day = directory::day_of(now - (k % 300 + 1) * 86_400);
        let s = Instant::now();
        directory::by_day(&ciam, &day, None, directory::PAGE)
            .await
            .unwrap();
        t.push(s.elapsed());
        calls = calls_text(&spy);
    }
    report("list by sign-up day (first page)", t, &calls);

    // The overview: the same items whatever the number of accounts.
    let mut t = Vec::new();
    for _ in 0..200 {
        let s = Instant::now();
        let o = numbers::overview(&ciam, now).await.unwrap();
        t.push(s.elapsed());
        calls = calls_text(&spy);
        assert_eq!(o.accounts, count as i64);
    }
    report("overview", t, &calls);

    // The find box: each kind of text, accounts spread over the table.
    let cases: [Case; 8] = [
        (
            "search: a whole mail",
            |i| format!("USER{i:06}@bench.example.com"),
            Kind::Mail,
        ),
        (
            "search: a whole phone, +86",
            |i| format!("+86 {}", phone_of(i)),
            Kind::Phone,
        ),
        (
            "search: a phone's last four digits",
            |i| phone_of(i)[7..].to_owned(),
            Kind::PhoneEnd,
        ),
        (
            "search: a username's beginning",
            |i| format!("bench_user_{:03}", (i / 1000) % 1000),
            Kind::UserName,
        ),
        (
            "search: a display name's beginning",
            |i| SURNAMES[i % SURNAMES.len()].to_owned(),
            Kind::DisplayName,
        ),
        (
            "search: a company's beginning (3 kinds)",
            |i| ["acme", "精工", "supplier 1"][i % 3].to_owned(),
            Kind::Company,
        ),
        (
            "search: a username, paged by kind",
            |_| "bench_user_0".to_owned(),
            Kind::UserName,
        ),
        (
            "search: a person's full name (3 kinds)",
            |i| display_name_of(i - i % 3),
            Kind::DisplayName,
        ),
    ];
    for (name, text, kind) in cases {
        let paged = name.contains("paged");
        let mut t = Vec::new();
        let mut after: Option<String> = None;
        for k in 0..300 {
            let i = (k * 7_919) % count;
            let q = text(i);
            let s = Instant::now();
            let found = if paged {
                search::search(&ciam, &q, Some(kind), after.as_deref()).await
            } else {
                search::search(&ciam, &q, None, None).await
            }
            .unwrap();
            t.push(s.elapsed());
            calls = calls_text(&spy);
            assert!(!calls.contains("scan"), "{name}: {calls}");
            let group = found.groups.iter().find(|g| g.matched == kind);
            // (A small table has not every company and surname.)
            let always = !name.contains("company") && !name.contains("display name's");
            assert!(
                group.is_some_and(|g| !g.accounts.is_empty()) || (count < 1_000 && !always),
                "{name}: {q} found nothing"
            );
            after = group.and_then(|g| g.next.clone());
        }
        report(name, t, &calls);
    }

    // The lists of held accounts, first pages.
    for (name, which) in [
        ("locked accounts, first page", Held::Locked),
        ("suspended accounts, first page", Held::Suspended),
    ] {
        let mut t = Vec::new();
        for _ in 0..200 {
            let s = Instant::now();
            let page = search::held(&ciam, which, None, directory::PAGE)
                .await
                .unwrap();
            t.push(s.elapsed());
            calls = calls_text(&spy);
            assert!(
                !page.accounts.is_empty() && !calls.contains("scan"),
                "{name}: {calls}"
            );
        }
        report(name, t, &calls);
    }
}
