//! The console at scale (issue 21): seeds DynamoDB Local with many accounts (100,000 by default;
//! `CIAM_BENCH_ACCOUNTS` for another count) the way registration writes them (user item,
//! identity item, user name item, directory entries and the find box's items; one transaction
//! each; a phone and a display name on each, one account in 1,000 locked and one in 997
//! suspended), then prints find-by-mail, list-by-company and list-by-day latency percentiles and
//! the store calls each makes, the find box's (`console::search`, every kind of query) and the
//! held lists', and the overview's store calls. The names cluster as real ones do (surnames by
//! their share, cities' companies); `CIAM_BENCH_NAMES=clustered` seeds the worst case instead
//! (every user name begins `bench_user_`). No read may be a scan (asserted). `npm run bench:console`
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

/// A find-box case: its name, the text for account `i`, the kind that must match.
type Case = (&'static str, fn(usize) -> String, Kind);

/// Display names of the clustered seeding: a few common surnames and a long tail.
const SURNAMES: [&str; 6] = ["张", "王", "李", "Zhang", "Wang", "Li"];

/// The twenty commonest Chinese surnames, in pinyin and in characters, with their share of the
/// population in thousandths (about 55% of people together; the rest is a long tail).
const COMMON: [(&str, &str, usize); 20] = [
    ("wang", "王", 72),
    ("li", "李", 72),
    ("zhang", "张", 69),
    ("liu", "刘", 54),
    ("chen", "陈", 45),
    ("yang", "杨", 31),
    ("huang", "黄", 22),
    ("zhao", "赵", 21),
    ("wu", "吴", 20),
    ("zhou", "周", 19),
    ("xu", "徐", 15),
    ("sun", "孙", 15),
    ("ma", "马", 14),
    ("zhu", "朱", 13),
    ("hu", "胡", 13),
    ("guo", "郭", 12),
    ("he", "何", 12),
    ("gao", "高", 10),
    ("lin", "林", 10),
    ("luo", "罗", 10),
];
/// Given names (pinyin, characters), and the tail's surnames.
const GIVEN: [(&str, &str); 20] = [
    ("wei", "伟"),
    ("fang", "芳"),
    ("na", "娜"),
    ("min", "敏"),
    ("jing", "静"),
    ("li", "丽"),
    ("qiang", "强"),
    ("lei", "磊"),
    ("jun", "军"),
    ("yang", "洋"),
    ("yong", "勇"),
    ("yan", "艳"),
    ("jie", "杰"),
    ("tao", "涛"),
    ("ming", "明"),
    ("chao", "超"),
    ("xiu", "秀"),
    ("xia", "霞"),
    ("hui", "辉"),
    ("ping", "平"),
];
const TAIL: [(&str, &str); 12] = [
    ("song", "宋"),
    ("zheng", "郑"),
    ("xie", "谢"),
    ("han", "韩"),
    ("tang", "唐"),
    ("feng", "冯"),
    ("yu", "于"),
    ("dong", "董"),
    ("xiao", "萧"),
    ("cheng", "程"),
    ("cao", "曹"),
    ("yuan", "袁"),
];
const LATIN: [&str; 12] = [
    "john", "david", "michael", "anna", "lisa", "peter", "kevin", "tony", "jack", "amy", "sophie",
    "oliver",
];
/// Where Chinese manufacturers are (company names start with the city: 苏州…, Suzhou …).
const CITIES: [(&str, &str, usize); 8] = [
    ("苏州", "Suzhou", 20),
    ("深圳", "Shenzhen", 18),
    ("东莞", "Dongguan", 14),
    ("宁波", "Ningbo", 12),
    ("上海", "Shanghai", 12),
    ("无锡", "Wuxi", 9),
    ("佛山", "Foshan", 8),
    ("常州", "Changzhou", 7),
];
const TRADES: [(&str, &str); 6] = [
    ("精密机械", "Precision Machinery"),
    ("电子科技", "Electronics"),
    ("自动化设备", "Automation"),
    ("模具", "Molds"),
    ("五金制品", "Hardware"),
    ("传动", "Drives"),
];

/// A number in 0..n for `i`, spread (a multiplicative hash, `salt` telling the uses apart).
fn spread(i: usize, salt: usize, n: usize) -> usize {
    ((i.wrapping_add(salt).wrapping_mul(2_654_435_761)) >> 7) % n
}

/// One of `COMMON`'s surnames by its share (55%), else one of the tail's; as (pinyin, 字).
fn surname(i: usize) -> (&'static str, &'static str) {
    let mut at = spread(i, 1, 1000);
    for (py, zi, share) in COMMON {
        if at < share {
            return (py, zi);
        }
        at -= share;
    }
    TAIL[spread(i, 2, TAIL.len())]
}

fn given(i: usize) -> (&'static str, &'static str) {
    GIVEN[spread(i, 3, GIVEN.len())]
}

/// The seeding's names: `CIAM_BENCH_NAMES=clustered` is the worst case (every user name begins
/// `bench_user_`, the display names six surnames, half the companies twelve names); else the
/// realistic spread (docs/benchmarks.md "The find box at 100,000 accounts").
fn clustered() -> bool {
    std::env::var("CIAM_BENCH_NAMES").is_ok_and(|v| v == "clustered")
}

/// 70% pinyin (`zhangwei123`), 30% Latin (`anna.li123`): the surnames' clustering.
fn user_name_of(i: usize) -> String {
    if clustered() {
        return format!("bench_user_{i:06}");
    }
    let (sur, _) = surname(i);
    let (giv, _) = given(i);
    if spread(i, 4, 10) < 7 {
        format!("{sur}{giv}{i}")
    } else {
        format!("{}.{sur}{i}", LATIN[spread(i, 5, LATIN.len())])
    }
}

/// 60% Chinese (`张伟`, `王芳敏`), 30% pinyin (`Zhang Wei`), 10% Latin (`Anna Li`).
fn display_name_of(i: usize) -> String {
    if clustered() {
        return if i.is_multiple_of(3) {
            format!("{}{}", SURNAMES[(i / 3) % SURNAMES.len()], i % 97)
        } else {
            format!("Person {i:06}")
        };
    }
    let ((sur_py, sur), (giv_py, giv)) = (surname(i), given(i));
    let cap = |s: &str| s[..1].to_uppercase() + &s[1..];
    match spread(i, 6, 10) {
        0..=3 => format!("{sur}{giv}"),
        4..=5 => format!("{sur}{giv}{}", given(i + 7).1),
        6..=8 => format!("{} {}", cap(sur_py), cap(giv_py)),
        _ => format!("{} {}", cap(LATIN[spread(i, 5, LATIN.len())]), cap(sur_py)),
    }
}

/// A quarter each: `苏州精密机械有限公司` by city, `Suzhou Precision Machinery Co.`, the twelve
/// named companies (`Acme Robotics`, `精工机械`…), and 2,000 `Supplier NNNN`.
fn company_of(i: usize) -> String {
    if clustered() || spread(i, 7, 4) >= 2 {
        // Half the accounts in the 12 named companies (the first ones larger), half in 2,000 others.
        return if i.is_multiple_of(2) {
            COMPANIES[(i / 2) % (1 + (i / 2) % COMPANIES.len())].to_owned()
        } else {
            format!("Supplier {:04}", (i * 7919) % 2000)
        };
    }
    let mut at = spread(i, 8, 100);
    let (mut zh, mut en) = (CITIES[0].0, CITIES[0].1);
    for (c_zh, c_en, share) in CITIES {
        (zh, en) = (c_zh, c_en);
        if at < share {
            break;
        }
        at -= share;
    }
    let (t_zh, t_en) = TRADES[spread(i, 9, TRADES.len())];
    let n = spread(i, 10, 50);
    if spread(i, 7, 4) == 0 {
        format!("{zh}{t_zh}{n}有限公司")
    } else {
        format!("{en} {t_en} {n} Co.")
    }
}

/// The beginning a support agent types: `chinese` characters of a name that starts with one,
/// else `latin` letters.
fn start_of(name: &str, chinese: usize, latin: usize) -> String {
    let n = if name.chars().next().is_some_and(|c| c.is_ascii()) {
        latin
    } else {
        chinese
    };
    name.chars().take(n).collect()
}

/// A user name's beginning: without its digits (`zhangwei`, `anna.li`); in the clustered
/// seeding `bench_user_` and three digits.
fn user_name_start(i: usize) -> String {
    if clustered() {
        return format!("bench_user_{:03}", (i / 1000) % 1000);
    }
    user_name_of(i)
        .trim_end_matches(|c: char| c.is_ascii_digit())
        .to_owned()
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
                    user_name: user_name_of(i),
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
    println!(
        "names: {}",
        if clustered() {
            "clustered (every user name begins bench_user_)"
        } else {
            "realistic spread"
        }
    );
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
            user_name_start,
            Kind::UserName,
        ),
        (
            "search: a display name's beginning",
            |i| {
                if clustered() {
                    SURNAMES[i % SURNAMES.len()].to_owned()
                } else {
                    start_of(&display_name_of(i), 1, 3)
                }
            },
            Kind::DisplayName,
        ),
        (
            "search: a company's beginning (3 kinds)",
            |i| {
                if clustered() {
                    ["acme", "精工", "supplier 1"][i % 3].to_owned()
                } else {
                    start_of(&company_of(i), 2, 5)
                }
            },
            Kind::Company,
        ),
        (
            "search: a username, paged by kind",
            |_| if clustered() { "bench_user_0" } else { "zh" }.to_owned(),
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
