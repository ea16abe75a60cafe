//! Failed sign-in attempts, recorded as they happen for the console's account page: a wrong
//! password or sign-in code (counted on the identity item, `signin`) and a wrong second factor
//! at sign-in (authenticator or backup code, counted on the user item, `lock::fail`), each with
//! its time, the caller's address, device and country.
//!
//! One item per slot of the counter the failure was counted on: `USER#<id>` /
//! `FAIL#<counter>#<n>`, the counter `MAIL`, `PHONE` (the identity item's kind) or `USER`, `n`
//! the failure's number in the count (1 to `MAX_FAILS`). A count starts again at 1 after a
//! success, a lock or a quiet `LOCK_SECS`, so each slot holds its latest failure: never more than
//! 3 × `MAX_FAILS` = 15 items an account, whatever an attacker repeats, and each expires with the
//! security activity (`audit::KEEP_SECS`). One put a failure, unconditional (a retry rewrites
//! the same slot), sent beside the lock when the failure locks (docs/cost.md); nothing on a
//! success.
//!
//! An unknown sign-in name makes the same put (DESIGN.md §2: the same store calls as a known
//! one), in its budget item's partition (`MAIL#<mail>` / `FAIL#<n>`), expiring with the lock
//! window: nobody reads it.
//!
//! The owner's own security activity does not list them: a guesser's failures would push the
//! owner's own changes out of its latest 50 entries; the lock is what the owner meets.

use crate::client::ClientInfo;
use crate::error::{Error, Result};
use crate::lock::LOCK_SECS;
use crate::signin::{Budget, SignInRecord};
use crate::user::user_pk;
use crate::Ciam;
use ciam_store::{Item, Key, Query};
use serde::Serialize;

/// What failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Way {
    Password,
    /// A sign-in code sent to the mail or phone.
    Code,
    /// The authenticator's code or a backup code, at the second step.
    SecondFactor,
}

impl Way {
    pub const fn as_str(self) -> &'static str {
        match self {
            Way::Password => "password",
            Way::Code => "code",
            Way::SecondFactor => "secondFactor",
        }
    }
}

/// One failed attempt, as the console's account page lists it.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Failure {
    /// Unix seconds.
    pub at: i64,
    /// `password`, `code` or `secondFactor`.
    #[cfg_attr(
        feature = "openapi",
        schemars(extend("enum" = ["password", "code", "secondFactor"]))
    )]
    pub way: String,
    /// The caller's address.
    pub ip: Option<String>,
    /// The device, as the browser named it ("Chrome on Windows").
    pub device: Option<String>,
    /// The country (ISO 3166-1 alpha-2), when known.
    pub country: Option<String>,
}

fn item(key: Key, way: Way, client: &ClientInfo, at: i64, expires: i64) -> Item {
    Item::new(key)
        .with("at", at)
        .with("way", way.as_str())
        .with_opt("ip", client.ip.clone())
        .with_opt("device", client.device.clone())
        .with_opt("country", client.country.clone())
        .expires(expires)
}

/// The slot of the `n`th failure of `counter` on the account `user_id`.
fn slot(user_id: &str, counter: &str, n: i64) -> Key {
    let n = n.clamp(1, crate::lock::MAX_FAILS);
    Key::new(user_pk(user_id), format!("FAIL#{counter}#{n}"))
}

/// Writes the failure in its slot. Round trips: 1. A store fault is logged, never answered:
/// the failure's own answer (and its count, already taken) stands.
async fn put(ciam: &Ciam, item: Item) {
    if let Err(e) = ciam.store.put(item, None).await {
        tracing::warn!(store_kind = e.kind(), cause = %e, "failed attempt not recorded");
    }
}

/// Records a failed password or code sign-in counted on `rec` (the identity item's count is
/// the slot), beside [`crate::signin::failed`]'s lock when it was the last attempt. Round
/// trips: 1 (beside the lock's).
pub async fn failed(
    ciam: &Ciam,
    rec: &SignInRecord,
    way: Way,
    client: &ClientInfo,
    base: Error,
) -> Error {
    let now = ciam.now();
    let counter = rec.key.pk.split('#').next().unwrap_or("ID");
    let entry = item(
        slot(&rec.user_id, counter, rec.fails),
        way,
        client,
        now,
        now + crate::audit::KEEP_SECS,
    );
    let (_, answer) = tokio::join!(put(ciam, entry), crate::signin::failed(ciam, rec, base));
    answer
}

/// The same put for a name nobody registered, in its budget's partition, beside
/// [`crate::signin::failed_unknown`]. Round trips: 1 (beside the lock's).
pub async fn failed_unknown(
    ciam: &Ciam,
    budget: &Budget,
    way: Way,
    client: &ClientInfo,
    base: Error,
) -> Error {
    let now = ciam.now();
    let n = budget.fails.clamp(1, crate::lock::MAX_FAILS);
    let key = Key::new(budget.key.pk.clone(), format!("FAIL#{n}"));
    let entry = item(key, way, client, now, now + LOCK_SECS);
    let (_, answer) = tokio::join!(
        put(ciam, entry),
        crate::signin::failed_unknown(ciam, budget, base)
    );
    answer
}

/// Records a wrong second factor at sign-in, counted on the user item (`lock::fail_counted`,
/// whose count is the slot). Round trips: those of the count, then 1 (beside the lock's).
pub async fn failed_second_factor(
    ciam: &Ciam,
    user_id: &str,
    client: &ClientInfo,
    base: Error,
) -> Error {
    let (n, answer) = crate::lock::fail_counted(ciam, user_id, base).await;
    if let Some(n) = n {
        let now = ciam.now();
        let entry = item(
            slot(user_id, "USER", n),
            Way::SecondFactor,
            client,
            now,
            now + crate::audit::KEEP_SECS,
        );
        put(ciam, entry).await;
    }
    answer
}

/// The account's failed attempts still kept (at most 15), newest first. Round trips: 1.
pub async fn list(ciam: &Ciam, user_id: &str) -> Result<Vec<Failure>> {
    let now = ciam.now();
    // Eventually consistent: a list to read, no decision depends on it.
    let q = Query::partition(user_pk(user_id))
        .prefix("FAIL#")
        .eventual();
    let mut v: Vec<Failure> = ciam
        .store
        .query(q)
        .await?
        .iter()
        .filter(|i| i.expires_at.is_none_or(|t| t > now))
        .map(|i| Failure {
            at: i.n("at").unwrap_or(0),
            way: i.s("way").unwrap_or_default().to_owned(),
            ip: i.s("ip").map(str::to_owned),
            device: i.s("device").map(str::to_owned),
            country: i.s("country").map(str::to_owned),
        })
        .collect();
    v.sort_by_key(|f| std::cmp::Reverse(f.at));
    Ok(v)
}
