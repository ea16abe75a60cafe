//! The overview (`GET /admin/overview`): the numbers of the last 30 days and 2 months from at
//! most 9 items in one `get_many` (the total, the 5 or 6 ISO weeks the 30 days touch, the two
//! months), whatever the number of accounts.

use super::{day_attr, month_key, sign_in_attr, total_key, week_key, Day, Method, Outcome};
use crate::{Ciam, Result};
use ciam_store::{Item, Key};
use serde::Serialize;
use std::collections::BTreeMap;

/// How many days the overview shows, today included.
pub const DAYS: i64 = 30;

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
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
#[serde(rename_all = "camelCase")]
pub struct SignIns {
    pub total: i64,
    /// By outcome name (`success`, `wrongSecret`, `locked`, `secondStepFailed`, `other`).
    pub by_outcome: BTreeMap<&'static str, i64>,
    /// By method name (`password`, `code`, `passkey`, `staff`, `totp`).
    pub by_method: BTreeMap<&'static str, i64>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
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
/// first), this month and last month.
pub fn keys(today: Day) -> Vec<Key> {
    let mut keys = vec![total_key()];
    for n in (0..DAYS).rev() {
        let k = week_key(today.minus(n));
        if !keys.contains(&k) {
            keys.push(k);
        }
    }
    keys.push(month_key(today));
    keys.push(month_key(today.first_of_month().minus(1)));
    keys
}

fn count(item: Option<&Item>, attr: &str) -> i64 {
    item.and_then(|i| i.n(attr)).unwrap_or(0)
}

/// The numbers as of `now` (unix seconds). Round trips: 1 (`get_many` of at most 9 items).
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
            let week = by_key.get(&week_key(day)).copied();
            let mut sign_ins = SignIns::default();
            for method in Method::ALL {
                for outcome in Outcome::ALL {
                    let c = count(week, &sign_in_attr(day, method, outcome));
                    sign_ins.total += c;
                    *sign_ins.by_method.entry(method.name()).or_default() += c;
                    *sign_ins.by_outcome.entry(outcome.name()).or_default() += c;
                }
            }
            DayNumbers {
                day: day.date(),
                new_accounts: count(week, &day_attr(day, 'n')),
                active: count(week, &day_attr(day, 'a')),
                lockouts: count(week, &day_attr(day, 'l')),
                sign_ins,
            }
        })
        .collect();
    let months = [today, today.first_of_month().minus(1)]
        .into_iter()
        .map(|d| {
            let item = by_key.get(&month_key(d)).copied();
            MonthNumbers {
                month: d.month(),
                active: count(item, "a"),
                new_accounts: count(item, "n"),
                deactivations: count(item, "d"),
            }
        })
        .collect();
    Ok(Overview {
        accounts: count(by_key.get(&total_key()).copied(), "accounts"),
        days,
        months,
    })
}
