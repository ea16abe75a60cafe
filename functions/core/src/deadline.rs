//! The request's deadline (issue 20): a budget for the whole request, after which it answers 503
//! and writes nothing more. Each store call already has its own timeout (the DynamoDB client's);
//! without a budget over them a request of several calls could run for half a minute.
//!
//! The deadline is task-local: the HTTP layer runs each request inside [`within`], and the
//! store every router uses is wrapped in [`DeadlineStore`], which gives each call only the time
//! left and refuses to start one with less than [`RESERVE`] left
//! (`StoreError::Unavailable("request deadline")`, so the answer is the ordinary 503 with
//! Retry-After). Work outside a request (a test calling core directly, a background sweep)
//! has no deadline. `tokio::join!` keeps the deadline; a spawned task does not. A request that
//! used a key outside its route's purposes (`key_purpose`) is refused every further store call.

use ciam_store::{Cond, Item, Key, Query, Store, StoreError, Token, TxOp, Update};
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;
use tokio::time::Instant;

/// The budget of a request outside Lambda (`ciam serve`, the tests): generous, for a laptop or
/// DynamoDB Local on a busy machine. In Lambda the budget is the function's timeout less 2 s
/// (`Config::request_budget`).
pub const LOCAL_BUDGET: Duration = Duration::from_secs(30);

/// A store call that would start with less than this left is not started.
pub const RESERVE: Duration = Duration::from_millis(100);

tokio::task_local! {
    static DEADLINE: Instant;
}

/// Runs `f` with a deadline `budget` from now.
pub async fn within<F: Future>(budget: Duration, f: F) -> F::Output {
    DEADLINE.scope(Instant::now() + budget, f).await
}

/// The time left before the current request's deadline, `None` outside a request.
pub fn remaining() -> Option<Duration> {
    DEADLINE
        .try_with(|at| at.saturating_duration_since(Instant::now()))
        .ok()
}

fn past() -> StoreError {
    StoreError::Unavailable("request deadline".into())
}

/// `inner`, each call bounded by the current request's deadline.
pub fn guard(inner: Arc<dyn Store>) -> Arc<dyn Store> {
    Arc::new(DeadlineStore { inner })
}

/// See the module.
pub struct DeadlineStore {
    inner: Arc<dyn Store>,
}

async fn bounded<T>(call: impl Future<Output = Result<T, StoreError>>) -> Result<T, StoreError> {
    // A request that used a key it did not declare writes and reads nothing more (503).
    if crate::key_purpose::refused() {
        return Err(StoreError::Unavailable(
            "key of an undeclared purpose".into(),
        ));
    }
    match remaining() {
        None => call.await,
        Some(left) if left < RESERVE => Err(past()),
        Some(left) => tokio::time::timeout(left, call)
            .await
            .unwrap_or_else(|_| Err(past())),
    }
}

#[async_trait::async_trait]
impl Store for DeadlineStore {
    async fn get(&self, key: &Key) -> Result<Option<Item>, StoreError> {
        bounded(self.inner.get(key)).await
    }

    async fn get_many(&self, keys: &[Key]) -> Result<Vec<Option<Item>>, StoreError> {
        bounded(self.inner.get_many(keys)).await
    }

    async fn put(&self, item: Item, cond: Option<Cond>) -> Result<(), StoreError> {
        bounded(self.inner.put(item, cond)).await
    }

    async fn update(
        &self,
        key: &Key,
        ops: Vec<Update>,
        cond: Option<Cond>,
    ) -> Result<Item, StoreError> {
        bounded(self.inner.update(key, ops, cond)).await
    }

    async fn update_or_current(
        &self,
        key: &Key,
        ops: Vec<Update>,
        cond: Option<Cond>,
    ) -> Result<Result<Item, Option<Item>>, StoreError> {
        bounded(self.inner.update_or_current(key, ops, cond)).await
    }

    async fn update_once(
        &self,
        key: &Key,
        ops: Vec<Update>,
        cond: Option<Cond>,
        token: &Token,
    ) -> Result<Result<Item, Option<Item>>, StoreError> {
        bounded(self.inner.update_once(key, ops, cond, token)).await
    }

    async fn delete(&self, key: &Key, cond: Option<Cond>) -> Result<(), StoreError> {
        bounded(self.inner.delete(key, cond)).await
    }

    async fn transact(&self, ops: Vec<TxOp>) -> Result<(), StoreError> {
        bounded(self.inner.transact(ops)).await
    }

    async fn query(&self, q: Query) -> Result<Vec<Item>, StoreError> {
        bounded(self.inner.query(q)).await
    }

    async fn ensure_schema(&self) -> Result<(), StoreError> {
        self.inner.ensure_schema().await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ciam_store::sqlite::SqliteStore;
    use ciam_store::ManualClock;

    struct Slow(Arc<dyn Store>);

    #[async_trait::async_trait]
    impl Store for Slow {
        async fn get(&self, key: &Key) -> Result<Option<Item>, StoreError> {
            tokio::time::sleep(Duration::from_millis(300)).await;
            self.0.get(key).await
        }
        async fn get_many(&self, keys: &[Key]) -> Result<Vec<Option<Item>>, StoreError> {
            self.0.get_many(keys).await
        }
        async fn put(&self, item: Item, cond: Option<Cond>) -> Result<(), StoreError> {
            self.0.put(item, cond).await
        }
        async fn update_or_current(
            &self,
            key: &Key,
            ops: Vec<Update>,
            cond: Option<Cond>,
        ) -> Result<Result<Item, Option<Item>>, StoreError> {
            self.0.update_or_current(key, ops, cond).await
        }
        async fn update_once(
            &self,
            key: &Key,
            ops: Vec<Update>,
            cond: Option<Cond>,
            token: &Token,
        ) -> Result<Result<Item, Option<Item>>, StoreError> {
            self.0.update_once(key, ops, cond, token).await
        }
        async fn delete(&self, key: &Key, cond: Option<Cond>) -> Result<(), StoreError> {
            self.0.delete(key, cond).await
        }
        async fn transact(&self, ops: Vec<TxOp>) -> Result<(), StoreError> {
            self.0.transact(ops).await
        }
        async fn query(&self, q: Query) -> Result<Vec<Item>, StoreError> {
            self.0.query(q).await
        }
        async fn ensure_schema(&self) -> Result<(), StoreError> {
            self.0.ensure_schema().await
        }
    }

    async fn stores() -> (Arc<dyn Store>, Arc<dyn Store>) {
        let sqlite: Arc<dyn Store> = Arc::new(
            SqliteStore::in_memory(Arc::new(ManualClock::new(1_000))).unwrap_or_else(|e| {
                panic!("sqlite: {e}");
            }),
        );
        sqlite
            .ensure_schema()
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        let slow: Arc<dyn Store> = Arc::new(Slow(sqlite.clone()));
        (sqlite, guard(slow))
    }

    #[tokio::test]
    async fn outside_a_request_there_is_no_deadline() {
        let (_, store) = stores().await;
        assert_eq!(remaining(), None);
        assert!(store.get(&Key::new("A", "B")).await.is_ok());
    }

    #[tokio::test]
    async fn a_call_past_the_deadline_is_cut_and_no_later_call_starts() {
        let (inner, store) = stores().await;
        let key = Key::new("A", "B");
        let started = Instant::now();
        within(Duration::from_millis(150), async {
            let e = store.get(&key).await.err();
            assert!(e.as_ref().is_some_and(StoreError::is_unavailable), "{e:?}");
            // Nothing is written after the deadline.
            let e = store.put(Item::new(key.clone()), None).await.err();
            assert!(e.as_ref().is_some_and(StoreError::is_unavailable), "{e:?}");
        })
        .await;
        assert!(started.elapsed() < Duration::from_millis(300));
        assert_eq!(inner.get(&key).await.ok().flatten(), None);
    }

    #[tokio::test]
    async fn within_the_budget_calls_go_through() {
        let (_, store) = stores().await;
        let key = Key::new("A", "B");
        within(Duration::from_secs(5), async {
            store.put(Item::new(key.clone()), None).await.ok();
            assert!(remaining().is_some_and(|r| r > Duration::from_secs(4)));
            assert!(store.get(&key).await.ok().flatten().is_some());
        })
        .await;
    }
}
