//! The console's numbers (docs/console-design.md §3): counters written as things happen, never
//! a scan or a nightly job, read by the overview in one `get_many` of at most
//! [`overview::MAX_KEYS`] items whatever the number of accounts.
//!
//! Items (docs/data-model.md):
//! - `STATS#<iso week>#<shard>` / `NUM`, one counter per (weekday, kind), named
//!   `<weekday 1-7><kind>`: sign-ins `<method><outcome>` (`3pS`: Wednesday's password sign-ins
//!   that succeeded), new accounts `n`, lockouts `l`, daily active accounts `a`. Kept 400 days.
//! - `STATS#<iso week>#<0 or 1>` / `FED`: the sign-ins through a provider's link, named alike
//!   with the provider's letter (`3wS`: Wednesday's WeChat sign-ins that succeeded). Kept 400 days.
//! - `STATS#<yyyy-mm>#<shard>` / `NUM`: monthly active `a`, new accounts `n`, deactivations `d`.
//!   Kept 2 years.
//! - `STATS` / `TOTAL`: `accounts`, moved by registrations, staff account creation and
//!   deactivations.
//!
//! Sharded (DESIGN.md §3): each write of a week's or a month's counters goes to one of
//! [`SHARDS`] items chosen at random, so no item takes a write on every sign-in (one DynamoDB
//! item holds about 1,000 writes a second; 8 shards, 8,000); the overview adds the shards up
//! (and the unsharded `STATS#<week>` / `STATS#<month>` items written before the shards, so the
//! numbers of the weeks before the change stay shown).
//!
//! A password sign-in's success writes nothing here on its request when
//! `Config::numbers_from_stream` is on (AWS): its session item carries the facts ([`tally`]:
//! the method, and whether it was its sign-in name's first of the day) and the table's stream
//! counts them in batches, off the request path ([`tally`]). Everything else, and everything on
//! `ciam serve`, is counted inline, on a shard.
//!
//! Every write is best effort: a counter that fails is a warning in the log, never the
//! request's answer. The callers write them after the answer is decided, inside the request
//! (a Lambda is frozen once it has answered).

mod calendar;
mod method;
mod overview;
mod tally;

pub use calendar::Day;
pub use method::{note_method, with_noted_method, Method};
pub use overview::{overview, DayNumbers, MonthNumbers, Overview, SignIns, MAX_KEYS};
pub use tally::{facts_of, is_tallied, tally, tally_items, Fact, TALLY_METHOD, TALLY_NEWS};

use crate::user::profile_key;
use crate::{Ciam, Reason};
use ciam_store::{Cond, Key, Update};

/// The partition of every numbers item (`STATS`, `STATS#2026-W48`, `STATS#2026-11`).
pub const PK: &str = "STATS";
/// How long a weekly item is kept: 400 days.
pub const WEEK_KEEP_SECS: i64 = 400 * 86_400;
/// How long a monthly item is kept: 2 years.
pub const MONTH_KEEP_SECS: i64 = 731 * 86_400;
/// The user item's attribute holding the last day (`yyyy-mm-dd`, UTC) the account signed in:
/// the month it was last active is its prefix.
pub const ACTIVE_DAY: &str = "activeDay";

/// How a sign-in ended, as the numbers tell it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Success,
    /// A wrong password or code, an unknown account (answered alike), a passkey refused.
    WrongSecret,
    /// Refused by the account's lock (or the failure that locked it).
    Locked,
    /// The second step (authenticator code, backup code, passkey as second factor) refused.
    SecondStepFailed,
    /// Anything else: a malformed request, an expired challenge, a refused staff code.
    Other,
}

impl Outcome {
    pub const ALL: [Outcome; 5] = [
        Outcome::Success,
        Outcome::WrongSecret,
        Outcome::Locked,
        Outcome::SecondStepFailed,
        Outcome::Other,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Outcome::Success => "success",
            Outcome::WrongSecret => "wrongSecret",
            Outcome::Locked => "locked",
            Outcome::SecondStepFailed => "secondStepFailed",
            Outcome::Other => "other",
        }
    }

    fn letter(self) -> char {
        match self {
            Outcome::Success => 'S',
            Outcome::WrongSecret => 'W',
            Outcome::Locked => 'L',
            Outcome::SecondStepFailed => 'F',
            Outcome::Other => 'O',
        }
    }

    /// The outcome of a sign-in answered `refusal` (None: success) on a first step or a second
    /// step. None when it is no verdict: `NEED_TOTP_VERIFY` (the first step passed, the second
    /// is still to come) and `SERVICE_UNAVAILABLE` (the store failed, nothing was decided).
    pub fn of(refusal: Option<Reason>, second_step: bool) -> Option<Outcome> {
        let Some(reason) = refusal else {
            return Some(Outcome::Success);
        };
        let wrong_secret = matches!(
            reason,
            Reason::PASSWORD_ERROR
                | Reason::CODE_ERROR
                | Reason::VERIFYCODE_NOT_FOUND
                | Reason::MAIL_NOT_FOUND
                | Reason::PHONE_NOT_FOUND
                | Reason::PASSKEY_VERIFY_FAILED
                | Reason::PASSKEY_NOT_FOUND
        );
        let second_step_refused = matches!(
            reason,
            Reason::TOTP_VERIFY_FAILED
                | Reason::UNLOCKCODE_NOT_FOUND
                | Reason::UNLOCKCODE_PWD_NOT_FOUND
                | Reason::UNLOCKCODE_TOTP_NOT_FOUND
        );
        Some(match reason {
            Reason::NEED_TOTP_VERIFY | Reason::SERVICE_UNAVAILABLE => return None,
            Reason::VERIFICATION_ATTEMPT_CODE_LIMIT => Outcome::Locked,
            _ if second_step_refused || (second_step && wrong_secret) => Outcome::SecondStepFailed,
            _ if wrong_secret => Outcome::WrongSecret,
            _ => Outcome::Other,
        })
    }
}

/// How many items a week's (and a month's) counters are spread over.
pub const SHARDS: u8 = 8;

/// `STATS#<iso week>` / `NUM`: the week's item as it was written before the shards (read by the
/// overview, written no more).
pub fn week_key(day: Day) -> Key {
    Key::new(format!("{PK}#{}", day.iso_week()), "NUM")
}

/// `STATS#<iso week>#<shard>` / `NUM`.
pub fn week_shard(day: Day, shard: u8) -> Key {
    Key::new(format!("{PK}#{}#{shard}", day.iso_week()), "NUM")
}

/// Every item holding the counters of `day`'s week: the unsharded one, then the shards.
pub fn week_keys(day: Day) -> Vec<Key> {
    std::iter::once(week_key(day))
        .chain((0..SHARDS).map(|s| week_shard(day, s)))
        .collect()
}

/// How many items a week's sign-ins through providers are spread over: fewer than the other
/// counters' (they are rarer), and on their own items so that a week with every provider busy
/// leaves the `NUM` item, written on most sign-ins, under one kilobyte.
pub const FED_SHARDS: u8 = 2;

/// `STATS#<iso week>#<shard>` / `FED`: the week's sign-ins through providers
/// ([`Method::Linked`]), shards 0 and 1.
pub fn fed_week_shard(day: Day, shard: u8) -> Key {
    Key::new(format!("{PK}#{}#{shard}", day.iso_week()), "FED")
}

/// Every item holding the sign-ins through providers of `day`'s week.
pub fn fed_week_keys(day: Day) -> Vec<Key> {
    (0..FED_SHARDS).map(|s| fed_week_shard(day, s)).collect()
}

/// `STATS#<yyyy-mm>` / `NUM`: the month's item before the shards (read, written no more).
pub fn month_key(day: Day) -> Key {
    Key::new(format!("{PK}#{}", day.month()), "NUM")
}

/// `STATS#<yyyy-mm>#<shard>` / `NUM`.
pub fn month_shard(day: Day, shard: u8) -> Key {
    Key::new(format!("{PK}#{}#{shard}", day.month()), "NUM")
}

/// Every item holding the counters of `day`'s month: the unsharded one, then the shards.
pub fn month_keys(day: Day) -> Vec<Key> {
    std::iter::once(month_key(day))
        .chain((0..SHARDS).map(|s| month_shard(day, s)))
        .collect()
}

/// A shard chosen at random for one write.
fn shard(ciam: &Ciam) -> u8 {
    crate::keys::random::<1>(ciam.entropy.as_ref())[0] % SHARDS
}

/// The counters of `keys` added up, as one item keyed by the first (what the tests and tools
/// read where they read a week or a month). Round trips: 1 (`get_many`).
pub async fn sums(ciam: &Ciam, keys: &[Key]) -> crate::Result<Option<ciam_store::Item>> {
    let items = ciam.store.get_many(keys).await?;
    let mut out: Option<ciam_store::Item> = None;
    for item in items.into_iter().flatten() {
        let sum = out.get_or_insert_with(|| ciam_store::Item::new(keys[0].clone()));
        sum.expires_at = sum.expires_at.max(item.expires_at);
        for (name, _) in item.attrs.iter() {
            if let Some(n) = item.n(name) {
                let before = sum.n(name).unwrap_or(0);
                sum.attrs.insert(name.clone(), (before + n).into());
            }
        }
    }
    Ok(out)
}

/// `STATS` / `TOTAL`.
pub fn total_key() -> Key {
    Key::new(PK, "TOTAL")
}

/// The weekly counter of sign-ins by `method` ending in `outcome` on `day`: `3pS`.
pub fn sign_in_attr(day: Day, method: Method, outcome: Outcome) -> String {
    format!("{}{}{}", day.weekday(), method.letter(), outcome.letter())
}

/// A weekly counter of `day` that is not a sign-in: `n` new accounts, `l` lockouts, `a`
/// daily active accounts.
pub fn day_attr(day: Day, kind: char) -> String {
    format!("{}{kind}", day.weekday())
}

/// Adds `adds` to the counters of `key`, and moves its expiry to `keep` seconds from now (None:
/// kept for ever). Best effort: a failure is a warning.
async fn add(ciam: &Ciam, key: Key, adds: Vec<(String, i64)>, keep: Option<i64>) {
    if adds.is_empty() {
        return;
    }
    let mut ops: Vec<Update> = adds.into_iter().map(|(a, n)| Update::Add(a, n)).collect();
    if let Some(keep) = keep {
        ops.push(Update::Expires(Some(ciam.now() + keep)));
    }
    if let Err(e) = ciam.store.update(&key, ops, None).await {
        tracing::warn!(store_kind = e.kind(), cause = %e, pk = %key.pk, "numbers: a counter was not written");
    }
}

async fn add_week(ciam: &Ciam, day: Day, adds: Vec<(String, i64)>) {
    let key = week_shard(day, shard(ciam));
    add(ciam, key, adds, Some(WEEK_KEEP_SECS)).await;
}

async fn add_fed_week(ciam: &Ciam, day: Day, adds: Vec<(String, i64)>) {
    let key = fed_week_shard(day, shard(ciam) % FED_SHARDS);
    add(ciam, key, adds, Some(WEEK_KEEP_SECS)).await;
}

async fn add_month(ciam: &Ciam, day: Day, adds: Vec<(String, i64)>) {
    let key = month_shard(day, shard(ciam));
    add(ciam, key, adds, Some(MONTH_KEEP_SECS)).await;
}

fn today(ciam: &Ciam) -> Day {
    Day::of(ciam.now())
}

/// One sign-in by `method` that ended in `outcome`. Round trips: 1 write.
pub async fn count_sign_in(ciam: &Ciam, method: Method, outcome: Outcome) {
    let day = today(ciam);
    let adds = vec![(sign_in_attr(day, method, outcome), 1)];
    match method {
        Method::Linked(_) => add_fed_week(ciam, day, adds).await,
        _ => add_week(ciam, day, adds).await,
    }
}

/// One account locked. Round trips: 1 write.
pub async fn count_lockout(ciam: &Ciam) {
    let day = today(ciam);
    add_week(ciam, day, vec![(day_attr(day, 'l'), 1)]).await;
}

/// One account created (registration, a staff member's first sign-in): the total, the day's
/// and the month's new accounts. Round trips: 1 (3 writes side by side).
pub async fn count_new_account(ciam: &Ciam) {
    let day = today(ciam);
    tokio::join!(
        add(ciam, total_key(), vec![("accounts".into(), 1)], None),
        add_week(ciam, day, vec![(day_attr(day, 'n'), 1)]),
        add_month(ciam, day, vec![("n".into(), 1)]),
    );
}

/// One account deactivated: the total and the month's deactivations. Round trips: 1 (2 writes
/// side by side).
pub async fn count_deactivation(ciam: &Ciam) {
    let day = today(ciam);
    tokio::join!(
        add(ciam, total_key(), vec![("accounts".into(), -1)], None),
        add_month(ciam, day, vec![("d".into(), 1)]),
    );
}

/// Whether a successful sign-in was the account's first of the day, and of the month.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Active {
    pub first_today: bool,
    pub first_this_month: bool,
}

/// Records on the user item that the account was active on `day` (`activeDay`; today, or a
/// sign-in's day counted from the stream), and tells whether that was news for the day and for
/// the month. A read of the user item first (a read
/// unit costs a fifth of a write unit, and most sign-ins are not an account's first of the
/// day), then, only when `activeDay` is before today, one conditional update that applies at
/// most once a day per account (two sign-ins racing: one of them counts). The month is new when
/// `activeDay` was before this month's first day or missing. Round trips: 1, or 2 on the day's
/// first sign-in. An account that is gone is not created. Best effort: a failure is a warning
/// and counts nothing.
async fn touch(ciam: &Ciam, user_id: &str, day: Day) -> Active {
    let (date, first) = (day.date(), day.first_of_month().date());
    let key = profile_key(user_id);
    let warn = |e: ciam_store::StoreError| {
        tracing::warn!(store_kind = e.kind(), cause = %e, "numbers: the day's activity was not recorded");
        Active::default()
    };
    let seen = match ciam.store.get(&key).await {
        Ok(Some(user)) => user.s(ACTIVE_DAY).map(str::to_owned),
        Ok(None) => return Active::default(),
        Err(e) => return warn(e),
    };
    // Already today (or later: a clock that moved back): nothing new.
    if seen.as_deref().is_some_and(|d| d >= date.as_str()) {
        return Active::default();
    }
    let new_month = seen.as_deref().is_none_or(|d| d < first.as_str());
    let unchanged = if new_month {
        Cond::attr_not_exists(ACTIVE_DAY).or(Cond::lt(ACTIVE_DAY, first.as_str()))
    } else {
        Cond::lt(ACTIVE_DAY, date.as_str()).and(Cond::ge(ACTIVE_DAY, first.as_str()))
    };
    let set = vec![Update::Set(ACTIVE_DAY.into(), date.as_str().into())];
    match ciam
        .store
        .update_or_current(&key, set, Some(Cond::Exists.and(unchanged)))
        .await
    {
        Ok(Ok(_)) => Active {
            first_today: true,
            first_this_month: new_month,
        },
        // Another sign-in of the account counted it a moment ago.
        Ok(Err(_)) => Active::default(),
        Err(e) => warn(e),
    }
}

/// `user_id` signed in: counted once a day among the daily active accounts and once a month
/// among the monthly active ones. Round trips: 1 read when the account was already active
/// today, else the read, the user item's conditional update and the week's counter (the
/// month's beside it on the account's first sign-in of a month).
pub async fn mark_active(ciam: &Ciam, user_id: &str) {
    record_sign_in(ciam, SignIn::active(user_id)).await;
}

/// How long counting a token's use may take of its request (best effort, like a sign-in's).
pub const USE_BUDGET: std::time::Duration = std::time::Duration::from_millis(500);

/// A session or access token of the account whose user item is `user` was used: the account is
/// active today without signing in (issue 21: "accounts that signed in or whose tokens were
/// used"). Nothing to do, and no store call, when the item already says today; else the same
/// counting as a sign-in's success ([`mark_active`]), at most once a day per account. Best
/// effort within [`USE_BUDGET`].
pub async fn used(ciam: &Ciam, user: &ciam_store::Item) {
    let date = today(ciam).date();
    if user.s(ACTIVE_DAY).is_some_and(|d| d >= date.as_str()) {
        return;
    }
    let Some(user_id) = user.s("userId") else {
        return;
    };
    crate::deadline::within(USE_BUDGET, mark_active(ciam, user_id)).await;
}

/// What the sign-in outcome layer knows of one finished sign-in.
#[derive(Clone, Copy, Debug, Default)]
pub struct SignIn<'a> {
    /// The method and outcome to count, if any.
    pub counted: Option<(Method, Outcome)>,
    /// This answer is the one that locked the account.
    pub locked_now: bool,
    /// The account that signed in (a success).
    pub user_id: Option<&'a str>,
    /// The identity it signed in by had already signed in today (its sign-in record's
    /// `actDay`, returned by the attempt at no cost): the account is already among today's
    /// active ones, so neither the user item's read nor its conditional update is made. The
    /// user item stays the arbiter of an identity's first sign-in of the day, so an account
    /// with two identities is still counted once.
    pub active_today: bool,
}

impl<'a> SignIn<'a> {
    fn active(user_id: &'a str) -> Self {
        SignIn {
            user_id: Some(user_id),
            ..SignIn::default()
        }
    }
}

/// Everything one sign-in moves, in as few writes as it takes: the account's activity first
/// (`touch`), then one write of the week's item with the sign-in, the lockout and the day's
/// activity together, beside the month's item when the month's activity is news. Round trips:
/// a failure 1 write; a success 1 read (the user item) and 1 write (the week's item), and on
/// the account's first sign-in of the day the user item's conditional update between them; a
/// success whose identity already signed in today ([`SignIn::active_today`]) 1 write.
/// Best effort, never an error.
pub async fn record_sign_in(ciam: &Ciam, s: SignIn<'_>) {
    let active = match s.user_id {
        Some(user_id) if !s.active_today => touch(ciam, user_id, today(ciam)).await,
        _ => Active::default(),
    };
    let day = today(ciam);
    let mut adds = Vec::new();
    let mut fed = Vec::new();
    match s.counted {
        Some((m @ Method::Linked(_), outcome)) => fed.push((sign_in_attr(day, m, outcome), 1)),
        Some((method, outcome)) => adds.push((sign_in_attr(day, method, outcome), 1)),
        None => {}
    }
    if s.locked_now {
        adds.push((day_attr(day, 'l'), 1));
    }
    if active.first_today {
        adds.push((day_attr(day, 'a'), 1));
    }
    let month = if active.first_this_month {
        vec![("a".to_owned(), 1)]
    } else {
        Vec::new()
    };
    tokio::join!(
        add_week(ciam, day, adds),
        add_fed_week(ciam, day, fed),
        add_month(ciam, day, month)
    );
}

#[cfg(test)]
mod tests;
