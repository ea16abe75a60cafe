//! The test kit (feature `testing`, for the tests and benchmarks of every crate): a [`Ciam`] over
//! an in-memory SQLite store with a manual clock, a notifier that sends nothing, and a store
//! wrapper that records what was written ([`SpyStore`]). One place builds the application for tests, so a new
//! field of `Ciam` is added here once rather than in every test file.
//!
//! ```ignore
//! let kit = ciam_core::testing::kit(1_800_000_000).await;        // all defaults
//! let ciam = ciam_core::testing::Builder::new(START)
//!     .notifier(outbox.clone())
//!     .keys(Keys::from_root([7; 32]))
//!     .build()
//!     .await;
//! ```

use crate::{BlobStore, Ciam, Clock, CodeMessage, Config, Keys, ManualClock, MemoryBlobs};
use crate::{NoticeMessage, Notifier, OsEntropy, SendError, SystemClock};
use async_trait::async_trait;
use ciam_store::sqlite::SqliteStore;
use ciam_store::{Cond, Item, Key, Query, Store, StoreError, TxOp, Update};
use std::sync::{Arc, Mutex, PoisonError};

/// Write units as DynamoDB bills them (`SpyStore::bill_writes`).
pub mod billing;
/// The software WebAuthn authenticator of the passkey tests.
pub mod passkey;

/// A notifier that accepts every message and keeps none (for tests that read no mail).
#[derive(Clone, Copy, Debug, Default)]
pub struct Quiet;

#[async_trait]
impl Notifier for Quiet {
    async fn send_code(&self, _: &CodeMessage) -> Result<(), SendError> {
        Ok(())
    }
    async fn send_notice(&self, _: &NoticeMessage) -> Result<(), String> {
        Ok(())
    }
}

/// The application and its clock, as most tests want them.
#[derive(Clone)]
pub struct Kit {
    pub ciam: Ciam,
    pub clock: ManualClock,
}

/// A [`Ciam`] with every default of [`Builder`], at `now` (Unix seconds).
pub async fn kit(now: i64) -> Kit {
    let b = Builder::new(now);
    let clock = b.clock();
    Kit {
        ciam: b.build().await,
        clock,
    }
}

/// Builds a [`Ciam`] for a test: by default an in-memory SQLite store (schema made) on a
/// [`ManualClock`] (or the system's), OS entropy, keys from a fixed root, [`Quiet`] notifications, avatars in memory
/// and [`Config::default`].
pub struct Builder {
    clock: ManualClock,
    system_clock: bool,
    store: Option<Arc<dyn Store>>,
    notifier: Arc<dyn Notifier>,
    keys: Keys,
    blobs: Arc<dyn BlobStore>,
    images: Arc<dyn crate::avatar::ImageDecoder>,
    config: Config,
}

impl Builder {
    pub fn new(now: i64) -> Builder {
        Builder {
            clock: ManualClock::new(now),
            system_clock: false,
            store: None,
            notifier: Arc::new(Quiet),
            keys: Keys::from_root([7; 32]),
            blobs: Arc::new(MemoryBlobs::default()),
            images: Arc::new(crate::avatar::InProcessDecoder),
            config: Config::default(),
        }
    }

    /// The clock the application will read (a handle: advancing it moves the application's time).
    pub fn clock(&self) -> ManualClock {
        self.clock.clone()
    }

    /// The system's clock instead of the manual one (benchmarks, and seeding a table that a
    /// process on real time reads).
    pub fn system_clock(mut self) -> Builder {
        self.system_clock = true;
        self
    }

    /// Another store (DynamoDB Local, a spy), ready as it is: its caller made its table.
    pub fn store(mut self, store: Arc<dyn Store>) -> Builder {
        self.store = Some(store);
        self
    }

    pub fn notifier(mut self, notifier: Arc<dyn Notifier>) -> Builder {
        self.notifier = notifier;
        self
    }

    pub fn keys(mut self, keys: Keys) -> Builder {
        self.keys = keys;
        self
    }

    pub fn blobs(mut self, blobs: Arc<dyn BlobStore>) -> Builder {
        self.blobs = blobs;
        self
    }

    /// Another avatar decoder (the Lambda adapter over a fake client).
    pub fn images(mut self, images: Arc<dyn crate::avatar::ImageDecoder>) -> Builder {
        self.images = images;
        self
    }

    pub fn config(mut self, config: Config) -> Builder {
        self.config = config;
        self
    }

    /// The application. Panics when the in-memory store cannot be made (a test set-up failure).
    pub async fn build(self) -> Ciam {
        let clock: Arc<dyn Clock> = if self.system_clock {
            Arc::new(SystemClock)
        } else {
            Arc::new(self.clock)
        };
        let store = match self.store {
            Some(store) => store,
            None => {
                let store: Arc<dyn Store> = Arc::new(
                    SqliteStore::in_memory(clock.clone())
                        .unwrap_or_else(|e| panic!("in-memory SQLite store: {e}")),
                );
                store
                    .ensure_schema()
                    .await
                    .unwrap_or_else(|e| panic!("store schema: {e}"));
                store
            }
        };
        Ciam {
            store,
            clock,
            entropy: Arc::new(OsEntropy),
            keys: self.keys,
            notifier: self.notifier,
            blobs: self.blobs,
            images: self.images,
            config: self.config,
        }
    }
}

/// A store that records every key a successful write touched, so a test can see what a request
/// left behind and how often it wrote, and every round trip as (operation, number of keys). It
/// wraps any engine (SQLite, DynamoDB Local).
pub struct SpyStore {
    inner: Arc<dyn Store>,
    calls: Mutex<Vec<(&'static str, usize)>>,
    writes: Mutex<Vec<Key>>,
    /// Conditional updates that applied through `update_or_current` (sign-in attempts taken).
    taken: Mutex<Vec<Key>>,
    /// Whether writes are billed (`bill_writes`): each then reads its items before (and a
    /// transaction after) on the inner store, calls that neither `take_calls` nor a wire count
    /// of the engine should see, so it is off unless a test turns it on.
    billing: std::sync::atomic::AtomicBool,
    bill: Mutex<Vec<billing::Billed>>,
    /// Items written with a token (their ring is priced in).
    ringed: Mutex<std::collections::HashSet<Key>>,
}

impl SpyStore {
    pub fn new(inner: Arc<dyn Store>) -> SpyStore {
        SpyStore {
            inner,
            calls: Mutex::new(Vec::new()),
            writes: Mutex::new(Vec::new()),
            taken: Mutex::new(Vec::new()),
            billing: std::sync::atomic::AtomicBool::new(false),
            bill: Mutex::new(Vec::new()),
            ringed: Mutex::new(std::collections::HashSet::new()),
        }
    }

    /// From now on, bills every write in write units as DynamoDB does (`billing`).
    pub fn bill_writes(&self) {
        self.billing
            .store(true, std::sync::atomic::Ordering::SeqCst);
    }

    /// The writes billed since the last call.
    pub fn take_bill(&self) -> Vec<billing::Billed> {
        std::mem::take(&mut *lock(&self.bill))
    }

    fn billing(&self) -> bool {
        self.billing.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// The billed size of the item at `key` now (0 when absent), when billing.
    async fn size_now(&self, key: &Key) -> usize {
        if !self.billing() {
            return 0;
        }
        let ringed = lock(&self.ringed).contains(key);
        billing::size(self.inner.get(key).await.ok().flatten().as_ref(), ringed)
    }

    /// Bills one item's write: `before` bytes, and the item after it (None: as before, e.g. a
    /// failed condition, or removed).
    fn charge(&self, key: &Key, op: &'static str, before: usize, after: Option<&Item>, x: u64) {
        if !self.billing() {
            return;
        }
        let ringed = lock(&self.ringed).contains(key);
        let after = after.map_or(0, |i| billing::size(Some(i), ringed));
        lock(&self.bill).push(billing::Billed {
            key: key.clone(),
            op,
            units: x * billing::units(before, after),
        });
    }

    fn record<T>(&self, keys: Vec<Key>, r: &Result<T, StoreError>) {
        if r.is_ok() {
            lock(&self.writes).extend(keys);
        }
    }

    /// The round trips since the last call, as (operation, number of keys), e.g.
    /// `[("get_many", 2), ("transact", 3)]`.
    pub fn take_calls(&self) -> Vec<(&'static str, usize)> {
        std::mem::take(&mut *lock(&self.calls))
    }

    fn call(&self, op: &'static str, keys: usize) {
        lock(&self.calls).push((op, keys));
    }

    /// The keys written so far, in order (a key once per write).
    pub fn written(&self) -> Vec<Key> {
        lock(&self.writes).clone()
    }

    /// How many `update_or_current` calls applied (each sign-in attempt taken is one).
    pub fn taken(&self) -> usize {
        lock(&self.taken).len()
    }
}

/// A poisoned lock (a test that panicked while holding it) still holds a usable record.
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

#[async_trait]
impl Store for SpyStore {
    async fn get(&self, key: &Key) -> Result<Option<Item>, StoreError> {
        self.call("get", 1);
        self.inner.get(key).await
    }
    async fn get_many(&self, keys: &[Key]) -> Result<Vec<Option<Item>>, StoreError> {
        self.call("get_many", keys.len());
        self.inner.get_many(keys).await
    }
    async fn put(&self, item: Item, cond: Option<Cond>) -> Result<(), StoreError> {
        self.call("put", 1);
        let key = item.key.clone();
        let before = self.size_now(&key).await;
        let written = item.clone();
        let r = self.inner.put(item, cond).await;
        // A put replaces the whole item, its ring too.
        lock(&self.ringed).remove(&key);
        self.charge(&key, "put", before, r.as_ref().ok().map(|_| &written), 1);
        self.record(vec![key], &r);
        r
    }
    // Not the trait's default: that would count a plain update as an attempt taken.
    async fn update(
        &self,
        key: &Key,
        ops: Vec<Update>,
        cond: Option<Cond>,
    ) -> Result<Item, StoreError> {
        self.call("update", 1);
        let before = self.size_now(key).await;
        let r = self.inner.update(key, ops, cond).await;
        self.charge(key, "update", before, r.as_ref().ok(), 1);
        self.record(vec![key.clone()], &r);
        r
    }
    async fn update_or_current(
        &self,
        key: &Key,
        ops: Vec<Update>,
        cond: Option<Cond>,
    ) -> Result<Result<Item, Option<Item>>, StoreError> {
        self.call("update_or_current", 1);
        let before = self.size_now(key).await;
        let r = self.inner.update_or_current(key, ops, cond).await;
        let after = match &r {
            Ok(Ok(i)) => Some(i),
            _ => None,
        };
        self.charge(key, "update", before, after, 1);
        if let Ok(Ok(_)) = &r {
            lock(&self.writes).push(key.clone());
            lock(&self.taken).push(key.clone());
        }
        r
    }
    async fn update_once(
        &self,
        key: &Key,
        ops: Vec<Update>,
        cond: Option<Cond>,
        token: &ciam_store::Token,
    ) -> Result<Result<Item, Option<Item>>, StoreError> {
        self.call("update_once", 1);
        let before = self.size_now(key).await;
        let r = self.inner.update_once(key, ops, cond, token).await;
        if self.billing() {
            lock(&self.ringed).insert(key.clone());
        }
        let after = match &r {
            Ok(Ok(i)) => Some(i),
            _ => None,
        };
        self.charge(key, "update", before, after, 1);
        if let Ok(Ok(_)) = &r {
            lock(&self.writes).push(key.clone());
            lock(&self.taken).push(key.clone());
        }
        r
    }
    async fn delete(&self, key: &Key, cond: Option<Cond>) -> Result<(), StoreError> {
        self.call("delete", 1);
        let before = self.size_now(key).await;
        let r = self.inner.delete(key, cond).await;
        self.charge(key, "delete", before, None, 1);
        self.record(vec![key.clone()], &r);
        r
    }
    async fn transact(&self, ops: Vec<TxOp>) -> Result<(), StoreError> {
        self.call("transact", ops.len());
        let keys: Vec<Key> = ops.iter().map(|o| o.key().clone()).collect();
        let mut before = Vec::new();
        for k in &keys {
            before.push(self.size_now(k).await);
        }
        let r = self.inner.transact(ops).await;
        for (k, b) in keys.iter().zip(before) {
            // Each item of a transaction counts twice, applied or not.
            let after = if self.billing() && r.is_ok() {
                self.inner.get(k).await.ok().flatten()
            } else {
                None
            };
            self.charge(k, "transact", b, after.as_ref(), 2);
        }
        self.record(keys, &r);
        r
    }
    async fn query(&self, q: Query) -> Result<Vec<Item>, StoreError> {
        self.call("query", 1);
        self.inner.query(q).await
    }
    async fn ensure_schema(&self) -> Result<(), StoreError> {
        self.inner.ensure_schema().await
    }
}

/// Sets, once per test binary, a global tracing subscriber that keeps no log but answers every
/// callsite "ask each time". Call it before any request in a test binary whose tests capture
/// logs with a thread-scoped subscriber (`tracing::subscriber::set_default`): without it, a
/// callsite first reached on a thread with no subscriber while another test installs its own may
/// cache "never" for the whole binary (tracing-core's registration race), and that test's lines
/// are lost.
pub fn ask_each_thread() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // Another global subscriber already set (a binary's own choice) is left in place.
        let _ = tracing::subscriber::set_global_default(AskEachThread);
    });
}

/// The global subscriber of [`ask_each_thread`]: enables nothing itself and never lets a
/// callsite's interest be cached as "never" or "always", so each event asks the subscriber of the
/// thread it runs on.
struct AskEachThread;

impl tracing::Subscriber for AskEachThread {
    fn register_callsite(
        &self,
        _: &'static tracing::Metadata<'static>,
    ) -> tracing::subscriber::Interest {
        tracing::subscriber::Interest::sometimes()
    }
    fn max_level_hint(&self) -> Option<tracing::level_filters::LevelFilter> {
        Some(tracing::level_filters::LevelFilter::TRACE)
    }
    fn enabled(&self, _: &tracing::Metadata<'_>) -> bool {
        false
    }
    fn new_span(&self, _: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        tracing::span::Id::from_u64(1)
    }
    fn record(&self, _: &tracing::span::Id, _: &tracing::span::Record<'_>) {}
    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
    fn event(&self, _: &tracing::Event<'_>) {}
    fn enter(&self, _: &tracing::span::Id) {}
    fn exit(&self, _: &tracing::span::Id) {}
}

/// The writes registration makes for `user` signing up with `id` (the user item, the identity's
/// item with its sign-in record, the user name's item and the directory entries), without its
/// code: for seeding a table with many accounts (the console's benchmark) in a transaction each.
pub fn account_ops(user: &crate::user::User, id: &crate::validate::Identity) -> Vec<TxOp> {
    let mut ops = crate::accounts::create_ops(user, id);
    ops.extend(crate::directory::puts(user));
    ops
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_kit_is_a_working_application_on_its_manual_clock() {
        let kit = kit(1_800_000_000).await;
        assert_eq!(kit.ciam.now(), 1_800_000_000);
        kit.clock.advance(60);
        assert_eq!(kit.ciam.clock.now(), 1_800_000_060);
        // The schema is made: a write and a read go through.
        let item = crate::user::User {
            id: "0123456789abcdef0123456789abcdef".into(),
            user_name: "kit".into(),
            ..Default::default()
        }
        .to_item();
        let key = item.key.clone();
        kit.ciam.store.put(item, None).await.expect("put");
        assert!(kit.ciam.store.get(&key).await.expect("get").is_some());
    }
}
