//! Test support: a store wrapper that injects the failures the engines report, so core and API
//! tests can put any store fault on any write of a request, over either engine.
//!
//! Each fault is answered before the call reaches the engine (nothing is written), with exactly
//! the `StoreError` the engine gives for it (the engines' own reading of these failures is
//! tested in `tests/fault_kinds.rs` and `tests/unavailable.rs`).

use crate::{Cond, Item, Key, Query, Store, StoreError, TxOp, Update};
use async_trait::async_trait;
use std::sync::{Arc, Mutex, MutexGuard};

/// Which calls a fault applies to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Get,
    GetMany,
    Put,
    /// `update` and `update_or_current`.
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

    /// Removes every fault still pending.
    pub fn clear(&self) {
        lock(&self.rules).clear();
    }

    /// The faults injected so far, in order.
    pub fn fired(&self) -> Vec<(Op, Fault)> {
        lock(&self.fired).clone()
    }

    /// The fault for a call of `op` touching `keys`, if any (and counts it).
    fn take(&self, op: Op, keys: &[&Key]) -> Result<(), StoreError> {
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
        let Some(rule) = rules.iter_mut().find(|r| applies(r)) else {
            return Ok(());
        };
        rule.left -= 1;
        let fault = rule.fault;
        rules.retain(|r| r.left > 0);
        lock(&self.fired).push((op, fault));
        Err(fault.error())
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
        self.faults.take(Op::Get, &[key])?;
        self.inner.get(key).await
    }

    async fn get_many(&self, keys: &[Key]) -> Result<Vec<Option<Item>>, StoreError> {
        self.faults
            .take(Op::GetMany, &keys.iter().collect::<Vec<_>>())?;
        self.inner.get_many(keys).await
    }

    async fn put(&self, item: Item, cond: Option<Cond>) -> Result<(), StoreError> {
        self.faults.take(Op::Put, &[&item.key])?;
        self.inner.put(item, cond).await
    }

    async fn update_or_current(
        &self,
        key: &Key,
        ops: Vec<Update>,
        cond: Option<Cond>,
    ) -> Result<Result<Item, Option<Item>>, StoreError> {
        self.faults.take(Op::Update, &[key])?;
        self.inner.update_or_current(key, ops, cond).await
    }

    async fn delete(&self, key: &Key, cond: Option<Cond>) -> Result<(), StoreError> {
        self.faults.take(Op::Delete, &[key])?;
        self.inner.delete(key, cond).await
    }

    async fn transact(&self, ops: Vec<TxOp>) -> Result<(), StoreError> {
        self.faults
            .take(Op::Transact, &ops.iter().map(TxOp::key).collect::<Vec<_>>())?;
        self.inner.transact(ops).await
    }

    async fn query(&self, q: Query) -> Result<Vec<Item>, StoreError> {
        let key = Key::new(q.pk.clone(), "");
        self.faults.take(Op::Query, &[&key])?;
        self.inner.query(q).await
    }

    async fn ensure_schema(&self) -> Result<(), StoreError> {
        self.inner.ensure_schema().await
    }
}
