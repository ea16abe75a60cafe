use super::*;
use crate::testing::{Builder, SpyStore};
use crate::ManualClock;
use ciam_store::sqlite::SqliteStore;
use ciam_store::{Item, Store};
use std::sync::Arc;

/// 2027-01-15, a Friday (ISO week 2027-W02), 08:00 UTC.
const START: i64 = 1_800_000_000;
const DAY: i64 = 86_400;

async fn app() -> (Ciam, ManualClock, Arc<SpyStore>) {
    let b = Builder::new(START);
    let clock = b.clock();
    let inner = SqliteStore::in_memory(Arc::new(clock.clone())).expect("store");
    inner.ensure_schema().await.expect("schema");
    let spy = Arc::new(SpyStore::new(Arc::new(inner)));
    let ciam = b.store(spy.clone()).build().await;
    (ciam, clock, spy)
}

/// The week's counters, its shards added up.
async fn week(ciam: &Ciam) -> Item {
    sums(ciam, &week_keys(Day::of(ciam.now())))
        .await
        .expect("get")
        .expect("the week's item")
}

#[test]
fn reasons_map_to_outcomes_and_two_are_no_verdict() {
    let of = Outcome::of;
    assert_eq!(of(None, false), Some(Outcome::Success));
    assert_eq!(of(None, true), Some(Outcome::Success));
    for r in [
        Reason::PASSWORD_ERROR,
        Reason::CODE_ERROR,
        Reason::VERIFYCODE_NOT_FOUND,
        Reason::MAIL_NOT_FOUND,
        Reason::PASSKEY_VERIFY_FAILED,
    ] {
        assert_eq!(of(Some(r), false), Some(Outcome::WrongSecret), "{r:?}");
        assert_eq!(of(Some(r), true), Some(Outcome::SecondStepFailed), "{r:?}");
    }
    for r in [Reason::TOTP_VERIFY_FAILED, Reason::UNLOCKCODE_NOT_FOUND] {
        assert_eq!(of(Some(r), true), Some(Outcome::SecondStepFailed));
    }
    // A suspended account's proven owner: no wrong secret, no lock, no success.
    let told = Some(Reason::ACCOUNT_SUSPENDED);
    assert_eq!(of(told, false), Some(Outcome::Other));
    let locked = Some(Reason::VERIFICATION_ATTEMPT_CODE_LIMIT);
    assert_eq!(of(locked, false), Some(Outcome::Locked));
    assert_eq!(of(locked, true), Some(Outcome::Locked));
    assert_eq!(of(Some(Reason::NEED_TOTP_VERIFY), false), None);
    assert_eq!(of(Some(Reason::SERVICE_UNAVAILABLE), false), None);
    assert_eq!(
        of(Some(Reason::INVALID_PARAMETER), false),
        Some(Outcome::Other)
    );
    assert_eq!(
        of(Some(Reason::AUTHORIZATION_FAILED), false),
        Some(Outcome::Other)
    );
    for m in Method::all() {
        assert_eq!(Method::from_name(m.name()), Some(m));
    }
}

#[tokio::test]
async fn sign_ins_are_counted_on_their_day_and_week_across_the_boundaries() {
    let (ciam, clock, _) = app().await;
    count_sign_in(&ciam, Method::Password, Outcome::Success).await;
    count_sign_in(&ciam, Method::Password, Outcome::Success).await;
    count_sign_in(&ciam, Method::Code, Outcome::WrongSecret).await;
    let friday = week(&ciam).await;
    assert_eq!(friday.key, Key::new("STATS#2027-W02", "NUM"));
    assert_eq!(friday.n("5pS"), Some(2));
    assert_eq!(friday.n("5cW"), Some(1));
    assert_eq!(
        friday.expires_at,
        Some(START + WEEK_KEEP_SECS),
        "kept 400 days"
    );

    // Friday 23:59:59, then Saturday 00:00:00: another day of the same week.
    clock.set(START - START % DAY + DAY - 1);
    count_sign_in(&ciam, Method::Totp, Outcome::SecondStepFailed).await;
    clock.advance(1);
    count_sign_in(&ciam, Method::Totp, Outcome::SecondStepFailed).await;
    let item = week(&ciam).await;
    assert_eq!((item.n("5tF"), item.n("6tF")), (Some(1), Some(1)));

    // Sunday 23:59:59 is W02; Monday 00:00:00 is W03.
    clock.advance(2 * DAY - 1);
    count_sign_in(&ciam, Method::Passkey, Outcome::Locked).await;
    assert_eq!(week(&ciam).await.n("7kL"), Some(1));
    clock.advance(1);
    count_sign_in(&ciam, Method::Staff, Outcome::Other).await;
    let monday = week(&ciam).await;
    assert_eq!(monday.key.pk, "STATS#2027-W03");
    assert_eq!(monday.n("1sO"), Some(1));
    assert_eq!(
        monday.n("7kL"),
        None,
        "last week's Sunday stays last week's"
    );

    let o = overview(&ciam, ciam.now()).await.expect("overview");
    let last = |n: usize| &o.days[o.days.len() - 1 - n];
    assert_eq!(last(0).day, "2027-01-18");
    assert_eq!(last(0).sign_ins.by_method["staff"], 1);
    assert_eq!(last(1).sign_ins.by_outcome["locked"], 1);
    assert_eq!(last(2).sign_ins.by_outcome["secondStepFailed"], 1);
    assert_eq!(last(3).sign_ins.total, 4);
    assert_eq!(last(3).sign_ins.by_outcome["success"], 2);
    assert_eq!(last(3).sign_ins.by_method["password"], 2);
    assert_eq!(last(3).sign_ins.by_outcome["wrongSecret"], 1);
}

#[tokio::test]
async fn an_account_is_active_once_a_day_and_once_a_month() {
    let (ciam, clock, _) = app().await;
    let ann = crate::user::User {
        id: "ann".into(),
        user_name: "ann".into(),
        ..Default::default()
    };
    ciam.store.put(ann.to_item(), None).await.expect("seed");
    for _ in 0..3 {
        mark_active(&ciam, "ann").await;
    }
    mark_active(&ciam, "nobody").await;
    let month = |ciam: Ciam| async move {
        sums(&ciam, &month_keys(Day::of(ciam.now())))
            .await
            .expect("get")
            .and_then(|i| i.n("a"))
    };
    assert_eq!(week(&ciam).await.n("5a"), Some(1), "once today");
    assert_eq!(month(ciam.clone()).await, Some(1));
    let user = ciam.store.get(&profile_key("ann")).await.expect("get");
    assert_eq!(
        user.and_then(|u| u.s(ACTIVE_DAY).map(str::to_owned))
            .as_deref(),
        Some("2027-01-15")
    );
    assert!(
        ciam.store
            .get(&profile_key("nobody"))
            .await
            .expect("get")
            .is_none(),
        "no account is made by its activity"
    );

    clock.advance(DAY);
    mark_active(&ciam, "ann").await;
    mark_active(&ciam, "ann").await;
    assert_eq!(week(&ciam).await.n("6a"), Some(1), "once the next day");
    assert_eq!(month(ciam.clone()).await, Some(1), "still once this month");

    clock.advance(20 * DAY);
    mark_active(&ciam, "ann").await;
    assert_eq!(month(ciam.clone()).await, Some(1), "once in February");
    let o = overview(&ciam, ciam.now()).await.expect("overview");
    assert_eq!(o.months[0].month, "2027-02");
    assert_eq!((o.months[0].active, o.months[1].active), (1, 1));
    assert_eq!(o.days.iter().map(|d| d.active).sum::<i64>(), 3);
}

#[tokio::test]
async fn new_accounts_and_deactivations_move_the_total() {
    let (ciam, _, _) = app().await;
    for _ in 0..3 {
        count_new_account(&ciam).await;
    }
    count_deactivation(&ciam).await;
    count_lockout(&ciam).await;
    let o = overview(&ciam, ciam.now()).await.expect("overview");
    assert_eq!(o.accounts, 2);
    let today = &o.days[29];
    assert_eq!((today.new_accounts, today.lockouts), (3, 1));
    assert_eq!(
        (o.months[0].new_accounts, o.months[0].deactivations),
        (3, 1)
    );
    assert_eq!(o.months[1].month, "2026-12");
    let total = ciam
        .store
        .get(&total_key())
        .await
        .expect("get")
        .expect("total");
    assert_eq!(total.expires_at, None, "the total is kept");
}

#[tokio::test]
async fn the_overview_is_one_read_of_at_most_max_keys_items_whatever_the_accounts() {
    let (ciam, clock, spy) = app().await;
    let mut seen = Vec::new();
    for accounts in [5, 50] {
        for _ in 0..accounts {
            count_new_account(&ciam).await;
            count_sign_in(&ciam, Method::Password, Outcome::Success).await;
        }
        spy.take_calls();
        let o = overview(&ciam, ciam.now()).await.expect("overview");
        let calls = spy.take_calls();
        assert_eq!(calls.len(), 1, "{calls:?}");
        assert_eq!(calls[0].0, "get_many");
        assert!(calls[0].1 <= overview::MAX_KEYS, "{calls:?}");
        assert_eq!(o.days.len(), 30);
        seen.push(calls);
    }
    assert_eq!(seen[0], seen[1], "the same read for 5 and 55 accounts");
    // Every weekday as today: 30 days touch 5 or 6 weeks, never more; each week and month is
    // its shards and its item of before the shards, and each week its providers' items too.
    let per = SHARDS as usize + 1;
    let fed = FED_SHARDS as usize;
    for _ in 0..7 {
        clock.advance(DAY);
        let n = overview::keys(Day::of(ciam.now())).len();
        assert!(
            [1 + 7 * per + 5 * fed, 1 + 8 * per + 6 * fed].contains(&n),
            "{n}"
        );
        const { assert!(overview::MAX_KEYS <= 100, "one BatchGetItem") };
        assert!(n <= overview::MAX_KEYS, "one BatchGetItem: {n}");
    }
}

/// The weekly item stays one write unit (under 1 KB, billed as DynamoDB does) in a busy week:
/// every kind a sign-in can end in counted every day, the common ones up to 99,999 a day, the
/// rare ones (locks, staff refusals, other failures) up to 99.
#[test]
fn a_busy_week_is_under_one_kilobyte() {
    let mut item = Item::new(week_key(Day::of(START))).expires(START + WEEK_KEEP_SECS);
    let common = [
        (Method::Password, Outcome::Success),
        (Method::Password, Outcome::WrongSecret),
        (Method::Code, Outcome::Success),
        (Method::Passkey, Outcome::Success),
        (Method::Totp, Outcome::Success),
    ];
    for d in 0..7 {
        let day = Day::of(START).minus(d);
        // The providers' sign-ins are on their own items (`FED`).
        for m in Method::all().filter(|m| !matches!(m, Method::Linked(_))) {
            for o in Outcome::ALL {
                let first_step_only = o == Outcome::SecondStepFailed
                    && matches!(m, Method::Password | Method::Code | Method::Staff);
                let second_step_only = o == Outcome::WrongSecret && m == Method::Totp;
                if first_step_only || second_step_only {
                    continue;
                }
                let n = if common.contains(&(m, o)) { 99_999 } else { 99 };
                item = item.with(&sign_in_attr(day, m, o), n);
            }
        }
        for (kind, n) in [('n', 99_999), ('a', 99_999), ('l', 99)] {
            item = item.with(&day_attr(day, kind), n);
        }
    }
    assert!(item.billed_size() < 1024, "{} bytes", item.billed_size());
}

/// The weeks counted before the shards (one `STATS#<week>` item) stay in the overview, added
/// to the shards' counts.
#[tokio::test]
async fn the_overview_adds_the_shards_and_the_item_of_before_them() {
    let (ciam, _, _) = app().await;
    let day = Day::of(START);
    let old = Item::new(week_key(day))
        .with(&sign_in_attr(day, Method::Password, Outcome::Success), 7)
        .with(&day_attr(day, 'a'), 3);
    ciam.store.put(old, None).await.expect("seed");
    ciam.store
        .put(Item::new(month_key(day)).with("a", 4), None)
        .await
        .expect("seed");
    for _ in 0..5 {
        count_sign_in(&ciam, Method::Password, Outcome::Success).await;
    }
    let o = overview(&ciam, ciam.now()).await.expect("overview");
    assert_eq!(o.days[29].sign_ins.by_method["password"], 12);
    assert_eq!(o.days[29].active, 3);
    assert_eq!(o.months[0].active, 4);
}

/// A burst of sign-ins spreads its counters over the shards: no item takes every write.
#[tokio::test]
async fn a_burst_of_sign_ins_writes_no_item_every_time() {
    let (ciam, _, spy) = app().await;
    spy.take_calls();
    let n = 400;
    for _ in 0..n {
        count_sign_in(&ciam, Method::Password, Outcome::WrongSecret).await;
    }
    let written: std::collections::BTreeSet<String> = (0..SHARDS)
        .map(|s| week_shard(Day::of(START), s).pk)
        .collect();
    let w = week(&ciam).await;
    assert_eq!(w.n("5pW"), Some(n));
    let mut most = 0;
    for pk in &written {
        let item = ciam
            .store
            .get(&Key::new(pk.clone(), "NUM"))
            .await
            .expect("get");
        let c = item.and_then(|i| i.n("5pW")).unwrap_or(0);
        most = most.max(c);
    }
    assert!(most < n / 4, "the busiest shard took {most} of {n}");
}

/// What a password sign-in's session carries, counted from the stream, comes out as the inline
/// counting would: the method's success, and the account's day and month once each, an account
/// signing in by two names included.
#[tokio::test]
async fn the_tally_of_session_facts_counts_as_the_inline_counting_does() {
    let (ciam, clock, _) = app().await;
    let ann = crate::user::User {
        id: "ann".into(),
        user_name: "ann".into(),
        ..Default::default()
    };
    ciam.store.put(ann.to_item(), None).await.expect("seed");
    let fact = |news: bool| Fact {
        user_id: "ann".into(),
        method: Method::Password,
        day: Day::of(START),
        news,
    };
    // First by mail (news), then by phone (news for that name, not for the account), then
    // again by mail.
    tally(&ciam, &[fact(true), fact(true), fact(false)]).await;
    clock.advance(3600);
    tally(&ciam, &[fact(false)]).await;
    let w = week(&ciam).await;
    assert_eq!((w.n("5pS"), w.n("5a")), (Some(4), Some(1)));
    let o = overview(&ciam, ciam.now()).await.expect("overview");
    assert_eq!(o.months[0].active, 1);
    assert_eq!(o.days[29].sign_ins.by_outcome["success"], 4);

    // The facts as a session item carries them.
    let item = Item::new(Key::new("USER#ann", "SESSION#x"))
        .with("createdAt", START)
        .with(TALLY_METHOD, "password")
        .with(TALLY_NEWS, 1);
    assert!(is_tallied(&item));
    assert_eq!(facts_of(&item), Some(fact(true)));
    let other = Item::new(Key::new("USER#ann", "SESSION#y")).with("createdAt", START);
    assert_eq!(tally_items(&ciam, &[item, other]).await, 1);
    assert_eq!(week(&ciam).await.n("5pS"), Some(5));
}

#[test]
fn every_method_has_its_own_lower_case_letter_and_name() {
    let all: Vec<Method> = Method::all().collect();
    assert!(all.contains(&Method::Linked(crate::federation::ProviderId::Wechat)));
    let letters: std::collections::BTreeSet<char> = all.iter().map(|m| m.letter()).collect();
    assert_eq!(letters.len(), all.len(), "{all:?}");
    assert!(letters.iter().all(char::is_ascii_lowercase), "{letters:?}");
    let names: std::collections::BTreeSet<&str> = all.iter().map(|m| m.name()).collect();
    assert_eq!(names.len(), all.len());
    for m in all {
        assert_eq!(Method::from_name(m.name()), Some(m));
    }
}

/// The `FED` item of a week with every provider busy every day, every outcome: still one write
/// unit, whatever the providers configured.
#[test]
fn a_busy_week_of_every_provider_is_under_one_kilobyte() {
    let mut item = Item::new(fed_week_shard(Day::of(START), 0)).expires(START + WEEK_KEEP_SECS);
    for d in 0..7 {
        let day = Day::of(START).minus(d);
        // The shipped providers (not the tests' mock).
        let shipped = |m: &Method| matches!(m, Method::Linked(p) if crate::federation::ProviderId::ALL.contains(p));
        for m in Method::all().filter(shipped) {
            for o in Outcome::ALL {
                let n = if o == Outcome::Success { 99_999 } else { 999 };
                item = item.with(&sign_in_attr(day, m, o), n);
            }
        }
    }
    assert!(item.billed_size() < 1024, "{} bytes", item.billed_size());
}
