//! `ciam serve`'s webhook worker (issue 23, docs/events-design.md §2): it drains the same `EVT#`
//! outbox the AWS functions will, in process.
//!
//! - [`NoticingStore`] wraps the store: every write of an `EVT#` item (a put, or a transaction
//!   holding one) also puts its "not yet fanned out" marker (`webhooks::queue::pending_op`) **in
//!   the same transaction**, and a commit that wrote an `EVT#`, `WHF` or `WHQ` item (an event, a
//!   replay) wakes the worker. Nothing polls the table.
//! - [`spawn`]: at start, and after each wake-up, the worker fans out every marked event
//!   (`fan_out_pending`: the webhook deliveries and, for an event that ends sessions, the logout
//!   notices of the apps those sessions signed in to, `webhooks::notices`) and starts the lanes
//!   with a due delivery (`queue::Lanes`: an app's events, an app's logout notices, each lane in a
//!   task of its own, one attempt at a time; a notice signs a fresh logout token each time); then
//!   it sleeps until the next retry is due (the only timer), the next wake-up, or a lane's end. A `kill -9` between a change and its
//!   delivery loses nothing: the marker or the queue item is still there at the next start.

use async_trait::async_trait;
use ciam_api::webhook_transport::{DnsResolver, HttpTransport};
use ciam_core::webhooks::guard::Resolver;
use ciam_core::webhooks::queue::{self, PENDING_PK, QUEUE_PK};
use ciam_core::webhooks::Transport;
use ciam_core::Ciam;
use ciam_store::{Cond, Item, Key, Query, ScanPage, Store, StoreError, Token, TxOp, Update};
use std::sync::Arc;
use tokio::sync::Notify;

/// The store of `ciam serve`, noticing the outbox's writes.
pub struct NoticingStore {
    inner: Arc<dyn Store>,
    wake: Arc<Notify>,
}

impl NoticingStore {
    pub fn new(inner: Arc<dyn Store>, wake: Arc<Notify>) -> NoticingStore {
        NoticingStore { inner, wake }
    }
}

fn is_event(k: &Key) -> bool {
    k.pk.starts_with(ciam_core::events::PK_PREFIX)
}

fn wakes(k: &Key) -> bool {
    is_event(k) || k.pk == PENDING_PK || k.pk == QUEUE_PK
}

#[async_trait]
impl Store for NoticingStore {
    async fn get(&self, key: &Key) -> Result<Option<Item>, StoreError> {
        self.inner.get(key).await
    }
    async fn get_many(&self, keys: &[Key]) -> Result<Vec<Option<Item>>, StoreError> {
        self.inner.get_many(keys).await
    }
    async fn put(&self, item: Item, cond: Option<Cond>) -> Result<(), StoreError> {
        if is_event(&item.key) {
            return self.transact(vec![TxOp::Put { item, cond }]).await;
        }
        let wake = wakes(&item.key);
        self.inner.put(item, cond).await?;
        if wake {
            self.wake.notify_one();
        }
        Ok(())
    }
    async fn update_or_current(
        &self,
        key: &Key,
        ops: Vec<Update>,
        cond: Option<Cond>,
    ) -> Result<Result<Item, Option<Item>>, StoreError> {
        self.inner.update_or_current(key, ops, cond).await
    }
    async fn update_once(
        &self,
        key: &Key,
        ops: Vec<Update>,
        cond: Option<Cond>,
        token: &Token,
    ) -> Result<Result<Item, Option<Item>>, StoreError> {
        self.inner.update_once(key, ops, cond, token).await
    }
    async fn delete(&self, key: &Key, cond: Option<Cond>) -> Result<(), StoreError> {
        self.inner.delete(key, cond).await
    }
    async fn transact(&self, mut ops: Vec<TxOp>) -> Result<(), StoreError> {
        let markers: Vec<TxOp> = ops
            .iter()
            .filter_map(|op| match op {
                TxOp::Put { item, .. } if is_event(&item.key) => queue::pending_op(&item.key),
                // A coalesced `user.updated` (each change of the window updates it; the marker
                // is the same item each time).
                TxOp::Update { key, .. } if is_event(key) => queue::pending_op(key),
                _ => None,
            })
            .collect();
        let wake = ops
            .iter()
            .any(|op| wakes(op.key()) && !matches!(op, TxOp::Delete { .. }));
        ops.extend(markers);
        self.inner.transact(ops).await?;
        if wake {
            self.wake.notify_one();
        }
        Ok(())
    }
    async fn query(&self, q: Query) -> Result<Vec<Item>, StoreError> {
        self.inner.query(q).await
    }
    async fn ensure_schema(&self) -> Result<(), StoreError> {
        self.inner.ensure_schema().await
    }
    async fn scan_page(
        &self,
        pk_prefix: &str,
        sk: &str,
        start: Option<Key>,
    ) -> Result<ScanPage, StoreError> {
        self.inner.scan_page(pk_prefix, sk, start).await
    }
}

/// One round of the worker: fan out the marked events (a coalesced `user.updated` once its
/// window has ended), start the lanes with due deliveries
/// (`queue::Lanes`: each app's events and each app's logout notices in a task of their own, so
/// one app's hanging or slow endpoint delays only that app). Answers when the next retry of an
/// idle lane is due (a busy lane wakes the worker when it ends).
pub async fn round(ciam: &Ciam, lanes: &queue::Lanes) -> Result<Option<i64>, ciam_core::Error> {
    let (_, window) = queue::fan_out_due(ciam).await?;
    let next = lanes.start_due().await?;
    Ok(match (next, window) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    })
}

/// Starts the worker on `ciam` (whose store should be the one under the [`NoticingStore`], so
/// its own writes do not wake it), woken by `wake`.
pub fn spawn(ciam: Ciam, wake: Arc<Notify>) -> tokio::task::JoinHandle<()> {
    spawn_with(ciam, wake, Arc::new(HttpTransport), Arc::new(DnsResolver))
}

/// [`spawn`] with other ports (tests).
pub fn spawn_with(
    ciam: Ciam,
    wake: Arc<Notify>,
    transport: Arc<dyn Transport>,
    resolver: Arc<dyn Resolver>,
) -> tokio::task::JoinHandle<()> {
    let lanes = queue::Lanes::new(ciam.clone(), transport, resolver, wake.clone());
    tokio::spawn(async move {
        loop {
            let wait = match round(&ciam, &lanes).await {
                Ok(Some(at)) => Some((at - ciam.now()).max(1)),
                Ok(None) => None,
                Err(e) => {
                    tracing::warn!(error = ?e, "webhooks: worker round failed; again in 5 s");
                    Some(5)
                }
            };
            match wait {
                Some(secs) => {
                    let nap = std::time::Duration::from_secs(u64::try_from(secs).unwrap_or(5));
                    tokio::select! {
                        _ = wake.notified() => {}
                        _ = tokio::time::sleep(nap) => {}
                    }
                }
                None => wake.notified().await,
            }
        }
    })
}
