//! The overview (`GET /admin/overview`): the numbers of the last 30 days and 2 months from at
//! most [`MAX_KEYS`] items in one `get_many` (the total; the 5 or 6 ISO weeks the 30 days touch
//! and the two months, each its shards and its unsharded item of before the shards), whatever
//! the number of accounts.

use super::{
    day_attr, fed_week_keys, month_keys, sign_in_attr, total_key, week_keys, Day, Method, Outcome,
};
use crate::{Ciam, Result};
use ciam_store::{Item, Key};
use serde::Serialize;
use std::collections::BTreeMap;

/// How many days the overview shows, today included.
pub const DAYS: i64 = 30;

/// The most items the overview reads: the total, 6 weeks and 2 months of `SHARDS + 1` items
/// each, and 6 weeks of `FED_SHARDS` (85 with 8 and 2 shards, within one `BatchGetItem` of 100).
pub const MAX_KEYS: usize = 1 + 8 * (super::SHARDS as usize + 1) + 6 * super::FED_SHARDS as usize;

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Overview {
    /// Accounts that exist (registered or created, less the deactivated), since counting began.
    pub accounts: i64,
    /// The last 30 days, oldest first, today last.
    pub days: Vec<DayNumbers>,
    /// This month, then last month.
    pub months: Vec<MonthNumbers>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct DayNumbers {
    /// `yyyy-mm-dd`, UTC.
    pub day: String,
    pub new_accounts: i64,
    /// Accounts that signed in that day (each once).
    pub active: i64,
    pub lockouts: i64,
    pub sign_ins: SignIns,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct SignIns {
    pub total: i64,
    /// By outcome name (`success`, `wrongSecret`, `locked`, `secondStepFailed`, `other`).
    pub by_outcome: BTreeMap<&'static str, i64>,
    /// By method name (`password`, `code`, `passkey`, `staff`, `totp`).
    pub by_method: BTreeMap<&'static str, i64>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct MonthNumbers {
    /// `yyyy-mm`.
    pub month: String,
    /// Accounts that signed in that month (each once).
    pub active: i64,
    pub new_accounts: i64,
    pub deactivations: i64,
}

/// The keys the overview of `today` reads: the total, the weeks of the last 30 days (oldest
/// first), this month and last month, each week and month all its items.
pub fn keys(today: Day) -> Vec<Key> {
    let mut keys = vec![total_key()];
    for n in (0..DAYS).rev() {
        let day = today.minus(n);
        for k in week_keys(day).into_iter().chain(fed_week_keys(day)) {
            if !keys.contains(&k) {
                keys.push(k);
            }
        }
    }
    keys.extend(month_keys(today));
    keys.extend(month_keys(today.first_of_month().minus(1)));
    keys
}

/// The counter `attr` added up over the items of `keys` (those that exist).
fn count(by_key: &BTreeMap<&Key, &Item>, keys: &[Key], attr: &str) -> i64 {
    keys.iter()
        .filter_map(|k| by_key.get(k).and_then(|i| i.n(attr)))
        .sum()
}

/// The numbers as of `now` (unix seconds). Round trips: 1 (`get_many` of at most
/// [`MAX_KEYS`] items).
pub async fn overview(ciam: &Ciam, now: i64) -> Result<Overview> {
    let today = Day::of(now);
    let keys = keys(today);
    let items = ciam.store.get_many(&keys).await?;
    let by_key: BTreeMap<&Key, &Item> = keys
        .iter()
        .zip(&items)
        .filter_map(|(k, i)| i.as_ref().map(|i| (k, i)))
        .collect();
    let days = (0..DAYS)
        .rev()
        .map(|n| {
            let day = today.minus(n);
            let week = &week_keys(day);
            let fed = &fed_week_keys(day);
            let mut sign_ins = SignIns::default();
            for method in Method::all() {
                let items = match method {
                    Method::Linked(_) => fed,
                    _ => week,
                };
                for outcome in Outcome::ALL {
                    let c = count(&by_key, items, &sign_in_attr(day, method, outcome));
                    sign_ins.total += c;
                    *sign_ins.by_method.entry(method.name()).or_default() += c;
                    *sign_ins.by_outcome.entry(outcome.name()).or_default() += c;
                }
            }
            DayNumbers {
                day: day.date(),
                new_accounts: count(&by_key, week, &day_attr(day, 'n')),
                active: count(&by_key, week, &day_attr(day, 'a')),
                lockouts: count(&by_key, week, &day_attr(day, 'l')),
                sign_ins,
            }
        })
        .collect();
    let months = [today, today.first_of_month().minus(1)]
        .into_iter()
        .map(|d| {
            let month = &month_keys(d);
            MonthNumbers {
                month: d.month(),
                active: count(&by_key, month, "a"),
                new_accounts: count(&by_key, month, "n"),
                deactivations: count(&by_key, month, "d"),
            }
        })
        .collect();
    Ok(Overview {
        accounts: count(&by_key, &[total_key()], "accounts"),
        days,
        months,
    })
}
