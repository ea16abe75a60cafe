//! The item-store contract of Ciam's single table, and its engines.
//!
//! The domain speaks in items, keys and conditions, never in SQL or SDK types. Two engines
//! implement the contract: `sqlite` (embedded, the local default) and `dynamodb` (production).
//! The conformance suite (`conformance`, feature `testing`) runs the same cases on both, and is
//! the proof that they agree where the domain relies on it: conditions, transactions, ordering,
//! counters and expiry.
//!
//! Expiry: an item whose `expires_at` is at or before the store clock's `now` is treated as
//! absent by every operation (reads, queries, conditions), even while it still physically exists
//! (DynamoDB TTL deletes lazily; it is garbage collection only).

mod clock;
mod cond;
mod error;
mod item;

#[cfg(feature = "dynamodb")]
pub mod dynamodb;
#[cfg(feature = "sqlite")]
pub mod sqlite;

#[cfg(feature = "testing")]
pub mod conformance;
#[cfg(all(feature = "testing", feature = "dynamodb"))]
pub mod dynamo_local;
#[cfg(feature = "testing")]
pub mod faults;

pub use clock::{Clock, ManualClock, SystemClock};
pub use cond::Cond;
pub use error::{CancelReason, FailureKind, StoreError};
pub use item::{Attrs, Item, Key, Value};

use async_trait::async_trait;

/// Attribute names the engines own. Items must not use them in `attrs`.
pub const PK: &str = "pk";
pub const SK: &str = "sk";
/// The expiry attribute (unix seconds); DynamoDB's TTL is configured on it.
pub const EXPIRES_AT: &str = "expiresAt";

/// How many write tokens an item remembers (see [`Store::update_once`]): a retry is recognised
/// as long as fewer than `RING` other token writes reached the item since. Five, because the
/// domain's counters are capped at 5 counting writes between two resets (`MAX_FAILS`): every
/// attempt since the last reset stays recognisable.
pub const RING: usize = 5;
/// The engine-owned attributes holding the ring, newest first. Reserved like `pk`/`sk`.
pub const RING_ATTRS: [&str; RING] = ["tok0", "tok1", "tok2", "tok3", "tok4"];

/// The identity of one logical write, shared by all its retries (see [`Store::update_once`]).
/// Core makes them (16 random bytes, hex); the store only compares them.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Token(pub String);

impl Token {
    pub fn new(token: impl Into<String>) -> Self {
        Token(token.into())
    }
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// A change to one attribute, applied by `update` or inside a transaction.
#[derive(Clone, Debug, PartialEq)]
pub enum Update {
    Set(String, Value),
    /// Atomic counter: adds to a number attribute, starting from 0 when it is missing.
    Add(String, i64),
    Remove(String),
    /// Sets (Some) or clears (None) the item's expiry.
    Expires(Option<i64>),
}

/// One operation of an all-or-nothing transaction.
#[derive(Clone, Debug, PartialEq)]
pub enum TxOp {
    Put {
        item: Item,
        cond: Option<Cond>,
    },
    Update {
        key: Key,
        ops: Vec<Update>,
        cond: Option<Cond>,
    },
    Delete {
        key: Key,
        cond: Option<Cond>,
    },
    /// Only checks a condition; writes nothing.
    Check {
        key: Key,
        cond: Cond,
    },
}

impl TxOp {
    pub fn key(&self) -> &Key {
        match self {
            TxOp::Put { item, .. } => &item.key,
            TxOp::Update { key, .. } | TxOp::Delete { key, .. } | TxOp::Check { key, .. } => key,
        }
    }
}

/// Items of one partition, ordered by sort key.
#[derive(Clone, Debug, PartialEq)]
pub struct Query {
    pub pk: String,
    pub sk_prefix: Option<String>,
    /// true: ascending sort keys; false: descending.
    pub forward: bool,
    pub limit: Option<usize>,
    /// Strongly consistent (the default), or eventually consistent (`eventual`): half the read
    /// cost on DynamoDB, for lists no decision depends on; may miss a write of the last second.
    pub consistent: bool,
    /// Only items after this sort key in the query's order (exclusive): the last sort key of the
    /// previous page, for paging.
    pub after: Option<String>,
}

impl Query {
    pub fn partition(pk: impl Into<String>) -> Self {
        Query {
            pk: pk.into(),
            sk_prefix: None,
            forward: true,
            limit: None,
            consistent: true,
            after: None,
        }
    }
    pub fn eventual(mut self) -> Self {
        self.consistent = false;
        self
    }
    /// Only the items whose sort key begins with `prefix`: the keys from `prefix` to
    /// [`prefix_end`]`(prefix)`, a range both engines seek to (a `Limit`ed query reads what it
    /// returns, however large the partition). A key that continues the prefix with U+10FFFF (a
    /// noncharacter) is past the range.
    pub fn prefix(mut self, prefix: impl Into<String>) -> Self {
        self.sk_prefix = Some(prefix.into());
        self
    }
    pub fn descending(mut self) -> Self {
        self.forward = false;
        self
    }
    /// The page after the item whose sort key is `sk` (exclusive; in the query's order).
    pub fn after(mut self, sk: impl Into<String>) -> Self {
        self.after = Some(sk.into());
        self
    }
    pub fn limit(mut self, n: usize) -> Self {
        self.limit = Some(n);
        self
    }
}

/// The last sort key of [`Query::prefix`]'s range: `prefix` and U+10FFFF, the largest character
/// (its UTF-8 bytes, `F4 8F BF BF`, sort after every other character's, in both engines' byte
/// order).
pub fn prefix_end(prefix: &str) -> String {
    format!("{prefix}\u{10FFFF}")
}

/// Most items a transaction may hold (DynamoDB's limit).
pub const MAX_TX_ITEMS: usize = 100;

/// [`Store::get_many`] of a fixed set of keys, one round trip, answered as an array in the keys'
/// order so that the caller names each result where it reads them:
/// `let [app, consent] = get_each(store, [app_key, consent_key]).await?;` (no `got[1]`).
pub async fn get_each<const N: usize>(
    store: &(impl Store + ?Sized),
    keys: [Key; N],
) -> Result<[Option<Item>; N], StoreError> {
    let got = store.get_many(&keys).await?;
    let len = got.len();
    got.try_into().map_err(|_| {
        StoreError::Backend(format!("a batch read of {N} keys answered {len} results"))
    })
}

/// The contract both engines implement. Every method is one round trip to the backend.
#[async_trait]
pub trait Store: Send + Sync {
    /// A strongly consistent read of one live item.
    async fn get(&self, key: &Key) -> Result<Option<Item>, StoreError>;
    /// Several live items in one round trip, in the order of `keys`.
    async fn get_many(&self, keys: &[Key]) -> Result<Vec<Option<Item>>, StoreError>;
    /// Writes a whole item, replacing any previous one, if `cond` holds.
    async fn put(&self, item: Item, cond: Option<Cond>) -> Result<(), StoreError>;
    /// Changes attributes if `cond` holds, creating the item when absent; returns the new item.
    /// An expired item is absent: the update starts from an empty item.
    /// Both engines answer it through `update_or_current`, so the two cannot differ.
    async fn update(
        &self,
        key: &Key,
        ops: Vec<Update>,
        cond: Option<Cond>,
    ) -> Result<Item, StoreError> {
        self.update_or_current(key, ops, cond)
            .await?
            .map_err(|_| StoreError::ConditionFailed)
    }
    /// `update`, except that a condition that does not hold is an answer, not an error: the
    /// live item as it is (`None` when absent or expired), from the same round trip (DynamoDB's
    /// `ReturnValuesOnConditionCheckFailure`). Sign-in takes an attempt this way: one call tells
    /// "taken", "locked" and "no such account" apart.
    async fn update_or_current(
        &self,
        key: &Key,
        ops: Vec<Update>,
        cond: Option<Cond>,
    ) -> Result<Result<Item, Option<Item>>, StoreError>;
    /// `update_or_current`, made safe to retry by `token`: the write also records `token` in
    /// the item's ring of the last [`RING`] tokens (the engine-owned attributes [`RING_ATTRS`],
    /// `tok0` the newest), and its condition becomes `cond AND token not in the ring`. When the
    /// condition fails and the item's ring holds `token`, the write was already this one's (an
    /// answer lost, a retry): the answer is `Ok(current item)`, never a failed condition, never
    /// applied twice. An expired item is absent, its ring too: the update starts afresh.
    ///
    /// The ring is never shown: items read back (`get`, `get_many`, `query`, and the items
    /// `update_or_current` and `update_once` answer) carry no `tok*` attributes, and conditions
    /// see them as missing, as they see `pk`, `sk` and `expiresAt`. A plain `update` or a
    /// transaction's `Update` keeps the ring; a `put` replaces the whole item, ring included.
    /// An empty token is `Invalid`.
    async fn update_once(
        &self,
        key: &Key,
        ops: Vec<Update>,
        cond: Option<Cond>,
        token: &Token,
    ) -> Result<Result<Item, Option<Item>>, StoreError>;
    /// Removes an item if `cond` holds. Deleting an absent item succeeds.
    async fn delete(&self, key: &Key, cond: Option<Cond>) -> Result<(), StoreError>;
    /// All operations apply or none does. On failure, `StoreError::TxCanceled` carries one
    /// reason per operation, in order. Inside a transaction an `Update` of an expired item that
    /// still exists is cancelled with `ConditionFailed` (it cannot start afresh atomically).
    async fn transact(&self, ops: Vec<TxOp>) -> Result<(), StoreError>;
    /// Live items of one partition with an optional sort-key prefix, ordered and limited.
    async fn query(&self, q: Query) -> Result<Vec<Item>, StoreError>;
    /// Creates the table or schema when missing.
    async fn ensure_schema(&self) -> Result<(), StoreError>;
    /// One page of the live items whose sort key is `sk` and whose partition key starts with
    /// `pk_prefix`, from after `start` (None: the beginning), and where the next page starts
    /// (None: that was the last). A table scan: only for the operator's one-off maintenance
    /// commands (`ciam admin backfill-directory`), never on a request path (no function's IAM
    /// role allows `dynamodb:Scan`). Wrappers that do not pass it on answer `Invalid`.
    async fn scan_page(
        &self,
        pk_prefix: &str,
        sk: &str,
        start: Option<Key>,
    ) -> Result<ScanPage, StoreError> {
        let _ = (pk_prefix, sk, start);
        Err(StoreError::Invalid("this store does not scan".into()))
    }
}

/// A page of [`Store::scan_page`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ScanPage {
    pub items: Vec<Item>,
    /// Where the next page starts (`start` of the next call); None after the last page.
    pub next: Option<Key>,
}

/// Whether `name` is one of the engines' own attributes (keys, expiry, the token ring), which
/// callers may neither write nor see.
#[cfg_attr(not(any(feature = "sqlite", feature = "dynamodb")), allow(dead_code))]
pub(crate) fn reserved(name: &str) -> bool {
    name == PK || name == SK || name == EXPIRES_AT || RING_ATTRS.contains(&name)
}

#[cfg_attr(not(any(feature = "sqlite", feature = "dynamodb")), allow(dead_code))]
pub(crate) fn validate_attrs(attrs: &Attrs) -> Result<(), StoreError> {
    if let Some(name) = attrs.keys().find(|n| reserved(n)) {
        return Err(StoreError::Invalid(format!("attribute {name} is reserved")));
    }
    Ok(())
}

#[cfg_attr(not(any(feature = "sqlite", feature = "dynamodb")), allow(dead_code))]
pub(crate) fn validate_token(token: &Token) -> Result<(), StoreError> {
    if token.0.is_empty() {
        return Err(StoreError::Invalid("a write token cannot be empty".into()));
    }
    Ok(())
}

#[cfg_attr(not(any(feature = "sqlite", feature = "dynamodb")), allow(dead_code))]
pub(crate) fn validate_ops(ops: &[Update]) -> Result<(), StoreError> {
    for op in ops {
        let name = match op {
            Update::Set(n, _) | Update::Add(n, _) | Update::Remove(n) => n,
            Update::Expires(_) => continue,
        };
        if reserved(name) {
            return Err(StoreError::Invalid(format!("attribute {name} is reserved")));
        }
    }
    if ops.is_empty() {
        return Err(StoreError::Invalid(
            "an update needs at least one change".into(),
        ));
    }
    Ok(())
}

#[cfg_attr(not(any(feature = "sqlite", feature = "dynamodb")), allow(dead_code))]
pub(crate) fn validate_tx(ops: &[TxOp]) -> Result<(), StoreError> {
    if ops.is_empty() || ops.len() > MAX_TX_ITEMS {
        return Err(StoreError::Invalid(format!(
            "a transaction holds 1 to {MAX_TX_ITEMS} operations"
        )));
    }
    let mut seen = std::collections::BTreeSet::new();
    for op in ops {
        if !seen.insert(op.key().clone()) {
            return Err(StoreError::Invalid(
                "a transaction may touch each item only once".into(),
            ));
        }
        match op {
            TxOp::Put { item, .. } => validate_attrs(&item.attrs)?,
            TxOp::Update { ops, .. } => validate_ops(ops)?,
            _ => {}
        }
    }
    Ok(())
}
