//! Test support: a store wrapper that injects the failures the engines report, so core and API
//! tests can put any store fault on any write of a request, over either engine.
//!
//! Most faults are answered before the call reaches the engine (nothing is written), with
//! exactly the `StoreError` the engine gives for it (the engines' own reading of these failures
//! is tested in `tests/fault_kinds.rs` and `tests/unavailable.rs`). Three reach the engine:
//! `LostAfterCommit` (the write is made, its answer is lost: the caller sees `Unavailable`),
//! `LostThenRetried` (the write is made, its answer is lost, and it is sent again, as the SDK's
//! retries do: the caller sees the second answer; a transaction's retry carries the same
//! `ClientRequestToken`, so DynamoDB answers it with the first outcome) and `Stall` (the call
//! waits, then goes through: a slow backend, for the request's deadline). An outage is a fault
//! that holds until `clear` (`outage`).

use crate::{Cond, Item, Key, Query, Store, StoreError, Token, TxOp, Update};
use async_trait::async_trait;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

/// Which calls a fault applies to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Get,
    GetMany,
    Put,
    /// `update`, `update_or_current` and `update_once`.
    Update,
    Delete,
    Transact,
    Query,
    /// Put, update, delete and transact.
    AnyWrite,
}

/// A store failure, as DynamoDB or SQLite reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// DynamoDB's `ThrottlingException`.
    Throttling,
    /// DynamoDB's `ProvisionedThroughputExceededException`.
    ProvisionedThroughput,
    /// A `TransactionCanceledException` with `ThrottlingError` among its reasons.
    TxThrottled,
    /// A `TransactionCanceledException` with `TransactionConflict` among its reasons, or a
    /// `TransactionConflictException`.
    TxConflict,
    /// DynamoDB answering 500 after the SDK's retries, a timeout, a lost connection.
    ServerError,
    /// SQLite's database busy or locked past the busy timeout.
    Busy,
    /// The write is made, then its answer is lost (a connection reset, a timeout after the
    /// commit, every retry of the SDK lost too): the caller sees `Unavailable`.
    LostAfterCommit,
    /// The write is made, its answer is lost, and the SDK sends it again: the caller sees the
    /// second answer (a single-item write's retry meets its own first write; a transaction's
    /// retry is answered with the first outcome, as its `ClientRequestToken` makes DynamoDB do).
    LostThenRetried,
    /// The call waits this long, then goes through.
    Stall(Duration),
}

impl Fault {
    pub const ALL: [Fault; 6] = [
        Fault::Throttling,
        Fault::ProvisionedThroughput,
        Fault::TxThrottled,
        Fault::TxConflict,
        Fault::ServerError,
        Fault::Busy,
    ];

    /// The faults whose write reaches the engine although the caller is not told so.
    pub const LOST: [Fault; 2] = [Fault::LostAfterCommit, Fault::LostThenRetried];

    /// The error the engine answers for this fault.
    pub fn error(self) -> StoreError {
        match self {
            Fault::Throttling => StoreError::Throttled("injected: ThrottlingException".into()),
            Fault::ProvisionedThroughput => {
                StoreError::Throttled("injected: ProvisionedThroughputExceededException".into())
            }
            Fault::TxThrottled => StoreError::Throttled(
                "injected: TransactWriteItems cancelled: ThrottlingError".into(),
            ),
            Fault::TxConflict => StoreError::Conflict,
            Fault::ServerError => {
                StoreError::Unavailable("injected: DynamoDB is unavailable (500)".into())
            }
            Fault::Busy => StoreError::Unavailable("injected: database is locked".into()),
            Fault::LostAfterCommit | Fault::LostThenRetried | Fault::Stall(_) => {
                StoreError::Unavailable("injected: the answer was lost".into())
            }
        }
    }
}

#[derive(Debug)]
struct Rule {
    op: Op,
    /// Only calls touching a key whose partition starts with this.
    pk_prefix: Option<String>,
    fault: Fault,
    left: u32,
}

/// The faults to inject, shared between the test and its `FaultStore`s.
#[derive(Clone, Debug, Default)]
pub struct Faults {
    rules: Arc<Mutex<Vec<Rule>>>,
    fired: Arc<Mutex<Vec<(Op, Fault)>>>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Faults {
    pub fn new() -> Faults {
        Faults::default()
    }

    /// `inner`, answering the faults of this set.
    pub fn wrap(&self, inner: Arc<dyn Store>) -> FaultStore {
        FaultStore {
            inner,
            faults: self.clone(),
        }
    }

    /// Fails the next `times` calls of `op` with `fault`.
    pub fn inject(&self, op: Op, fault: Fault, times: u32) {
        self.add(op, None, fault, times);
    }

    /// Fails the next `times` calls of `op` that touch a partition starting with `pk_prefix`.
    pub fn inject_on(&self, op: Op, pk_prefix: &str, fault: Fault, times: u32) {
        self.add(op, Some(pk_prefix.to_owned()), fault, times);
    }

    fn add(&self, op: Op, pk_prefix: Option<String>, fault: Fault, times: u32) {
        lock(&self.rules).push(Rule {
            op,
            pk_prefix,
            fault,
            left: times,
        });
    }

    /// Fails every call of `op` touching a partition starting with `pk_prefix` (any, when empty)
    /// with `fault` until `clear`: an outage.
    pub fn outage(&self, op: Op, pk_prefix: &str, fault: Fault) {
        let prefix = (!pk_prefix.is_empty()).then(|| pk_prefix.to_owned());
        self.add(op, prefix, fault, u32::MAX);
    }

    /// Removes every fault still pending.
    pub fn clear(&self) {
        lock(&self.rules).clear();
    }

    /// The faults injected so far, in order.
    pub fn fired(&self) -> Vec<(Op, Fault)> {
        lock(&self.fired).clone()
    }

    /// The fault for a call of `op` touching `keys`, if any (and counts it).
    fn take(&self, op: Op, keys: &[&Key]) -> Option<Fault> {
        let mut rules = lock(&self.rules);
        let applies = |r: &Rule| {
            r.left > 0
                && (r.op == op
                    || (r.op == Op::AnyWrite
                        && matches!(op, Op::Put | Op::Update | Op::Delete | Op::Transact)))
                && r.pk_prefix
                    .as_deref()
                    .is_none_or(|p| keys.iter().any(|k| k.pk.starts_with(p)))
        };
        let rule = rules.iter_mut().find(|r| applies(r))?;
        rule.left -= 1;
        let fault = rule.fault;
        rules.retain(|r| r.left > 0);
        lock(&self.fired).push((op, fault));
        Some(fault)
    }
}

/// Runs `call` as `fault` says: not at all (the fault's error), once with its answer lost, twice
/// answering the second (`retry_same`: the retry is answered with the first outcome), or late.
async fn under<T, F, Fut>(fault: Option<Fault>, retry_same: bool, call: F) -> Result<T, StoreError>
where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = Result<T, StoreError>>,
{
    match fault {
        None => call().await,
        Some(Fault::Stall(d)) => {
            tokio::time::sleep(d).await;
            call().await
        }
        Some(Fault::LostAfterCommit) => {
            let _ = call().await;
            Err(Fault::LostAfterCommit.error())
        }
        Some(Fault::LostThenRetried) => {
            let first = call().await;
            if retry_same {
                return first;
            }
            call().await
        }
        Some(f) => Err(f.error()),
    }
}

/// A store that answers the pending faults of its `Faults`, and passes every other call on.
pub struct FaultStore {
    inner: Arc<dyn Store>,
    faults: Faults,
}

#[async_trait]
impl Store for FaultStore {
    async fn get(&self, key: &Key) -> Result<Option<Item>, StoreError> {
        let f = self.faults.take(Op::Get, &[key]);
        under(f, true, || self.inner.get(key)).await
    }

    async fn get_many(&self, keys: &[Key]) -> Result<Vec<Option<Item>>, StoreError> {
        let f = self
            .faults
            .take(Op::GetMany, &keys.iter().collect::<Vec<_>>());
        under(f, true, || self.inner.get_many(keys)).await
    }

    async fn put(&self, item: Item, cond: Option<Cond>) -> Result<(), StoreError> {
        let f = self.faults.take(Op::Put, &[&item.key]);
        under(f, false, || self.inner.put(item.clone(), cond.clone())).await
    }

    async fn update_or_current(
        &self,
        key: &Key,
        ops: Vec<Update>,
        cond: Option<Cond>,
    ) -> Result<Result<Item, Option<Item>>, StoreError> {
        let f = self.faults.take(Op::Update, &[key]);
        under(f, false, || {
            self.inner.update_or_current(key, ops.clone(), cond.clone())
        })
        .await
    }

    async fn update_once(
        &self,
        key: &Key,
        ops: Vec<Update>,
        cond: Option<Cond>,
        token: &Token,
    ) -> Result<Result<Item, Option<Item>>, StoreError> {
        let f = self.faults.take(Op::Update, &[key]);
        under(f, false, || {
            self.inner
                .update_once(key, ops.clone(), cond.clone(), token)
        })
        .await
    }

    async fn delete(&self, key: &Key, cond: Option<Cond>) -> Result<(), StoreError> {
        let f = self.faults.take(Op::Delete, &[key]);
        under(f, false, || self.inner.delete(key, cond.clone())).await
    }

    async fn transact(&self, ops: Vec<TxOp>) -> Result<(), StoreError> {
        let f = self
            .faults
            .take(Op::Transact, &ops.iter().map(TxOp::key).collect::<Vec<_>>());
        under(f, true, || self.inner.transact(ops.clone())).await
    }

    async fn query(&self, q: Query) -> Result<Vec<Item>, StoreError> {
        let key = Key::new(q.pk.clone(), "");
        let f = self.faults.take(Op::Query, &[&key]);
        under(f, true, || self.inner.query(q.clone())).await
    }

    async fn ensure_schema(&self) -> Result<(), StoreError> {
        self.inner.ensure_schema().await
    }
}
