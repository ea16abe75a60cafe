//! Counting from the table's stream (AWS; docs/console-design.md §3): a password sign-in's
//! success writes no counter on its request, which stays at 2 round trips and 3 write units
//! (the attempt; the reset and the session side by side). Its session item carries the facts
//! instead, in two small attributes ([`TALLY_METHOD`], [`TALLY_NEWS`]), and the stream
//! function that already reads the table's inserts hands a batch of such items to [`tally`],
//! which writes them as a few `ADD`s on one shard per week and month, whatever the batch size.
//!
//! The account's day and month stay counted once each: a session whose sign-in name had not
//! signed in yet today (its identity item's `actDay`, known to the attempt at no cost) carries
//! [`TALLY_NEWS`], and only for those the tally asks the user item (`activeDay`: one read, one
//! conditional update at most once a day per account), as the inline counting did, so an
//! account with two sign-in names is still counted once a day and once a month.
//!
//! Best effort, like every counter: a write that fails is a warning, never a retried batch
//! (a retry would count the batch twice).

use super::{add_month, add_week, day_attr, sign_in_attr, touch, Active, Day, Method, Outcome};
use crate::Ciam;
use ciam_store::Item;
use std::collections::BTreeMap;

/// On a session item: the sign-in method's name (`password`), to be counted from the stream.
pub const TALLY_METHOD: &str = "tm";
/// On a session item: 1 when its sign-in name's first success of the day (the account's day,
/// or month, may be news).
pub const TALLY_NEWS: &str = "tn";

/// One counted sign-in, as its session item tells it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fact {
    pub user_id: String,
    pub method: Method,
    /// The day it signed in (the session's `createdAt`), not the day it is counted.
    pub day: Day,
    pub news: bool,
}

/// Whether `item` is a session whose sign-in waits to be counted from the stream.
pub fn is_tallied(item: &Item) -> bool {
    item.key.sk.starts_with("SESSION#") && item.s(TALLY_METHOD).is_some()
}

/// The fact a session item carries, if any.
pub fn facts_of(item: &Item) -> Option<Fact> {
    if !is_tallied(item) {
        return None;
    }
    Some(Fact {
        user_id: item.key.pk.strip_prefix("USER#")?.to_owned(),
        method: Method::from_name(item.s(TALLY_METHOD)?)?,
        day: Day::of(item.n("createdAt")?),
        news: item.n(TALLY_NEWS) == Some(1),
    })
}

/// Counts `facts`: each account's day and month first (the user item, for the facts that may
/// be news), then one `ADD` per week and per month touched, each on a random shard. Round
/// trips: for a batch of one day, 1 write of the week's shard (and of the month's when an
/// account's month was news), after 1 read and at most 1 conditional update per news fact.
///
/// The facts are taken day by day, oldest first (a batch's records of different sessions come
/// in no set order): the user item's `activeDay` only moves forward, so a later day seen first
/// would hide an earlier one's activity. Across batches the stream keeps them a second or so
/// apart, not a day.
pub async fn tally(ciam: &Ciam, facts: &[Fact]) {
    let mut weeks: BTreeMap<String, (Day, BTreeMap<String, i64>)> = BTreeMap::new();
    let mut months: BTreeMap<String, (Day, i64)> = BTreeMap::new();
    let mut facts: Vec<&Fact> = facts.iter().collect();
    facts.sort_by_key(|f| f.day);
    for f in facts {
        let active = if f.news {
            touch(ciam, &f.user_id, f.day).await
        } else {
            Active::default()
        };
        let week = &mut weeks
            .entry(f.day.iso_week())
            .or_insert_with(|| (f.day, BTreeMap::new()))
            .1;
        *week
            .entry(sign_in_attr(f.day, f.method, Outcome::Success))
            .or_default() += 1;
        if active.first_today {
            *week.entry(day_attr(f.day, 'a')).or_default() += 1;
        }
        if active.first_this_month {
            months.entry(f.day.month()).or_insert((f.day, 0)).1 += 1;
        }
    }
    for (_, (day, adds)) in weeks {
        add_week(ciam, day, adds.into_iter().collect()).await;
    }
    for (_, (day, n)) in months {
        add_month(ciam, day, vec![("a".to_owned(), n)]).await;
    }
}

/// [`tally`] of the items among `items` that carry a fact (what a stream batch, or the local
/// store's writes, hand over); the number counted.
pub async fn tally_items(ciam: &Ciam, items: &[Item]) -> usize {
    let facts: Vec<Fact> = items.iter().filter_map(facts_of).collect();
    if !facts.is_empty() {
        tally(ciam, &facts).await;
    }
    facts.len()
}
