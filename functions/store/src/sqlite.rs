//! The embedded engine: one SQLite file, one connection behind a mutex, every operation in its
//! own immediate transaction on a blocking thread. Serialising writes through one connection is
//! what makes conditional writes atomic here, the way DynamoDB makes them atomic per item.

use crate::{
    validate_attrs, validate_ops, validate_token, validate_tx, Attrs, CancelReason, Clock, Cond,
    Item, Key, Query, Store, StoreError, Token, TxOp, Update,
};
use async_trait::async_trait;
use rusqlite::{params, Connection, TransactionBehavior};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

mod rows;
use rows::*;

pub struct SqliteStore {
    conn: Arc<Mutex<Connection>>,
    clock: Arc<dyn Clock>,
    /// How long an operation may wait, from its call, for the connection and then for a lock
    /// another process holds on the file (see `BUSY_TIMEOUT`).
    busy: Duration,
}

/// How long an operation waits for the database before it answers `StoreError::Unavailable`:
/// another process (an admin command, a second server on the same data folder) holding the
/// write lock, or the operations queued before it on the one connection.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// A failure of the database. One that means "not reachable now" (another process holds the
/// lock, the file cannot be opened or read) is `Unavailable`, so the API answers 503 with
/// Retry-After; anything else is a backend failure.
fn backend(e: impl std::fmt::Display + 'static) -> StoreError {
    let any: &dyn std::any::Any = &e;
    if let Some(rusqlite::Error::SqliteFailure(f, _)) = any.downcast_ref::<rusqlite::Error>() {
        use rusqlite::ErrorCode::*;
        if matches!(
            f.code,
            DatabaseBusy | DatabaseLocked | CannotOpen | SystemIoFailure
        ) {
            return StoreError::Unavailable(e.to_string());
        }
    }
    StoreError::Backend(e.to_string())
}

impl SqliteStore {
    /// Opens (creating when missing) the database file at `path`.
    pub fn open(path: &Path, clock: Arc<dyn Clock>) -> Result<Self, StoreError> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(backend)?;
        }
        Self::with_connection(Connection::open(path).map_err(backend)?, clock)
    }

    /// A private in-memory database, for tests.
    pub fn in_memory(clock: Arc<dyn Clock>) -> Result<Self, StoreError> {
        Self::with_connection(Connection::open_in_memory().map_err(backend)?, clock)
    }

    fn with_connection(conn: Connection, clock: Arc<dyn Clock>) -> Result<Self, StoreError> {
        // WAL keeps readers off the writer's back; FULL sync makes each commit durable, so a
        // Ctrl-C or crash after an answer never loses what the answer promised.
        conn.pragma_update(None, "journal_mode", "WAL")
            .map_err(backend)?;
        conn.pragma_update(None, "synchronous", "FULL")
            .map_err(backend)?;
        conn.busy_timeout(BUSY_TIMEOUT).map_err(backend)?;
        Ok(SqliteStore {
            conn: Arc::new(Mutex::new(conn)),
            clock,
            busy: BUSY_TIMEOUT,
        })
    }

    /// The same store with another busy timeout (tests use a short one).
    pub fn with_busy_timeout(mut self, busy: Duration) -> Self {
        self.busy = busy;
        self
    }

    async fn run<T, F>(&self, f: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&mut Connection, i64) -> Result<T, StoreError> + Send + 'static,
    {
        let conn = self.conn.clone();
        let now = self.clock.now();
        // One deadline for the queue on the connection and the lock on the file together, so
        // requests queued behind a busy database do not each wait the whole timeout in turn.
        let deadline = Instant::now() + self.busy;
        tokio_blocking(move || {
            let mut guard = conn
                .lock()
                .map_err(|_| backend("sqlite connection poisoned"))?;
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(StoreError::Unavailable(
                    "the database stayed busy (queued operations)".into(),
                ));
            }
            guard.busy_timeout(left).map_err(backend)?;
            f(&mut guard, now)
        })
        .await
    }
}

async fn tokio_blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, StoreError> + Send + 'static,
) -> Result<T, StoreError> {
    match tokio::task::spawn_blocking(f).await {
        Ok(r) => r,
        Err(e) => Err(backend(e)),
    }
}

const SCHEMA: &str = "CREATE TABLE IF NOT EXISTS items (
    pk TEXT NOT NULL,
    sk TEXT NOT NULL,
    attrs TEXT NOT NULL,
    expires_at INTEGER,
    PRIMARY KEY (pk, sk)
) WITHOUT ROWID";

#[async_trait]
impl Store for SqliteStore {
    async fn get(&self, key: &Key) -> Result<Option<Item>, StoreError> {
        let key = key.clone();
        self.run(move |c, now| Ok(shown(load_live(c, &key, now)?.as_ref())))
            .await
    }

    async fn get_many(&self, keys: &[Key]) -> Result<Vec<Option<Item>>, StoreError> {
        let keys = keys.to_vec();
        self.run(move |c, now| {
            keys.iter()
                .map(|k| Ok(shown(load_live(c, k, now)?.as_ref())))
                .collect()
        })
        .await
    }

    async fn put(&self, item: Item, cond: Option<Cond>) -> Result<(), StoreError> {
        validate_attrs(&item.attrs)?;
        self.run(move |c, now| {
            let tx = c
                .transaction_with_behavior(TransactionBehavior::Immediate)
                .map_err(backend)?;
            if !holds(&cond, load_live(&tx, &item.key, now)?.as_ref()) {
                return Err(StoreError::ConditionFailed);
            }
            save(&tx, &item)?;
            tx.commit().map_err(backend)
        })
        .await
    }

    async fn update_or_current(
        &self,
        key: &Key,
        ops: Vec<Update>,
        cond: Option<Cond>,
    ) -> Result<Result<Item, Option<Item>>, StoreError> {
        validate_ops(&ops)?;
        let key = key.clone();
        self.run(move |c, now| {
            let tx = c
                .transaction_with_behavior(TransactionBehavior::Immediate)
                .map_err(backend)?;
            let live = load_live(&tx, &key, now)?;
            if !holds(&cond, live.as_ref()) {
                return Ok(Err(shown(live.as_ref())));
            }
            let item = apply(live, &key, &ops)?;
            save(&tx, &item)?;
            tx.commit().map_err(backend)?;
            Ok(Ok(strip(item)))
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
        validate_ops(&ops)?;
        validate_token(token)?;
        let (key, token) = (key.clone(), token.clone());
        self.run(move |c, now| {
            let tx = c
                .transaction_with_behavior(TransactionBehavior::Immediate)
                .map_err(backend)?;
            // An expired item is absent, and so is its ring: the update starts afresh.
            let live = load_live(&tx, &key, now)?;
            if let Some(mine) = live.as_ref().filter(|i| ring_holds(i, &token)) {
                // Already written by this token (a retry after a lost answer).
                return Ok(Ok(strip(mine.clone())));
            }
            if !holds(&cond, live.as_ref()) {
                return Ok(Err(shown(live.as_ref())));
            }
            let mut item = apply(live, &key, &ops)?;
            push_token(&mut item, &token);
            save(&tx, &item)?;
            tx.commit().map_err(backend)?;
            Ok(Ok(strip(item)))
        })
        .await
    }

    async fn delete(&self, key: &Key, cond: Option<Cond>) -> Result<(), StoreError> {
        let key = key.clone();
        self.run(move |c, now| {
            let tx = c
                .transaction_with_behavior(TransactionBehavior::Immediate)
                .map_err(backend)?;
            if !holds(&cond, load_live(&tx, &key, now)?.as_ref()) {
                return Err(StoreError::ConditionFailed);
            }
            remove(&tx, &key)?;
            tx.commit().map_err(backend)
        })
        .await
    }

    async fn transact(&self, ops: Vec<TxOp>) -> Result<(), StoreError> {
        validate_tx(&ops)?;
        self.run(move |c, now| {
            let tx = c
                .transaction_with_behavior(TransactionBehavior::Immediate)
                .map_err(backend)?;
            // Check every condition first, against the state before the transaction, as
            // DynamoDB does; only then write.
            let mut reasons = Vec::with_capacity(ops.len());
            let mut stored = Vec::with_capacity(ops.len());
            for op in &ops {
                let raw = load(&tx, op.key())?;
                let live = raw.clone().filter(|i| i.is_live(now));
                let ok = match op {
                    TxOp::Put { cond, .. } | TxOp::Delete { cond, .. } => {
                        holds(cond, live.as_ref())
                    }
                    TxOp::Update { cond, .. } => {
                        let stale = raw.is_some() && live.is_none();
                        !stale && holds(cond, live.as_ref())
                    }
                    TxOp::Check { cond, .. } => cond.eval(shown(live.as_ref()).as_ref()),
                };
                reasons.push(if ok {
                    CancelReason::None
                } else {
                    CancelReason::ConditionFailed
                });
                stored.push(live);
            }
            if reasons.iter().any(|r| *r != CancelReason::None) {
                return Err(StoreError::TxCanceled(reasons));
            }
            for (op, live) in ops.iter().zip(stored) {
                match op {
                    TxOp::Put { item, .. } => save(&tx, item)?,
                    TxOp::Update { key, ops, .. } => save(&tx, &apply(live, key, ops)?)?,
                    TxOp::Delete { key, .. } => remove(&tx, key)?,
                    TxOp::Check { .. } => {}
                }
            }
            tx.commit().map_err(backend)
        })
        .await
    }

    async fn query(&self, q: Query) -> Result<Vec<Item>, StoreError> {
        self.run(move |c, now| {
            let prefix = q.sk_prefix.clone().unwrap_or_default();
            // Sort keys compare as bytes (BINARY collation), the same order DynamoDB uses;
            // the prefix is the range `prefix ..= prefix_end(prefix)` (`Query::prefix`), so the
            // primary key's index seeks to it instead of walking the partition from its start.
            let sql = format!(
                "SELECT sk, attrs, expires_at FROM items
                 WHERE pk = ?1 AND sk >= ?2 {}
                   AND (expires_at IS NULL OR expires_at > ?3)
                   AND (?5 IS NULL OR sk {} ?5)
                 ORDER BY sk {} LIMIT ?4",
                if prefix.is_empty() {
                    ""
                } else {
                    "AND sk <= ?6"
                },
                if q.forward { ">" } else { "<" },
                if q.forward { "ASC" } else { "DESC" }
            );
            let limit = q.limit.map(|l| l as i64).unwrap_or(-1);
            let end = crate::prefix_end(&prefix);
            let mut bound: Vec<&dyn rusqlite::ToSql> = vec![&q.pk, &prefix, &now, &limit, &q.after];
            if !prefix.is_empty() {
                bound.push(&end);
            }
            let mut stmt = c.prepare_cached(&sql).map_err(backend)?;
            let rows = stmt
                .query_map(rusqlite::params_from_iter(bound), |row| {
                    Ok((
                        row.get::<_, String>(0)?,
                        row.get::<_, String>(1)?,
                        row.get::<_, Option<i64>>(2)?,
                    ))
                })
                .map_err(backend)?;
            let mut out = Vec::new();
            for row in rows {
                let (sk, attrs, expires_at) = row.map_err(backend)?;
                let attrs: Attrs = serde_json::from_str(&attrs).map_err(backend)?;
                out.push(strip(Item {
                    key: Key::new(q.pk.clone(), sk),
                    attrs,
                    expires_at,
                }));
            }
            Ok(out)
        })
        .await
    }

    async fn ensure_schema(&self) -> Result<(), StoreError> {
        self.run(|c, _| c.execute_batch(SCHEMA).map_err(backend))
            .await
    }

    async fn scan_page(
        &self,
        pk_prefix: &str,
        sk: &str,
        start: Option<Key>,
    ) -> Result<crate::ScanPage, StoreError> {
        const PAGE: i64 = 500;
        let (prefix, sk) = (pk_prefix.to_owned(), sk.to_owned());
        let after = start.map(|k| k.pk);
        self.run(move |c, now| {
            let mut stmt = c
                .prepare_cached(
                    "SELECT pk, attrs, expires_at FROM items
                     WHERE substr(pk, 1, length(?1)) = ?1 AND sk = ?2
                       AND (expires_at IS NULL OR expires_at > ?3)
                       AND (?4 IS NULL OR pk > ?4)
                     ORDER BY pk LIMIT ?5",
                )
                .map_err(backend)?;
            let rows = stmt
                .query_map(params![prefix, sk, now, after, PAGE], |row| {
                    Ok((
                        row.get::<_, String>(0)?,
                        row.get::<_, String>(1)?,
                        row.get::<_, Option<i64>>(2)?,
                    ))
                })
                .map_err(backend)?;
            let mut items = Vec::new();
            for row in rows {
                let (pk, attrs, expires_at) = row.map_err(backend)?;
                let attrs: Attrs = serde_json::from_str(&attrs).map_err(backend)?;
                items.push(strip(Item {
                    key: Key::new(pk, sk.clone()),
                    attrs,
                    expires_at,
                }));
            }
            let next = (items.len() as i64 == PAGE)
                .then(|| items.last().map(|i| i.key.clone()))
                .flatten();
            Ok(crate::ScanPage { items, next })
        })
        .await
    }
}

/// Test support: another connection holding the write lock of the database at `path` until it
/// is dropped, as an admin command or a second server on the same file would. Reads go on (WAL);
/// writes wait for the busy timeout, then answer `StoreError::Unavailable`.
#[cfg(feature = "testing")]
pub struct WriteLock(Connection);

#[cfg(feature = "testing")]
impl WriteLock {
    pub fn hold(path: &Path) -> Result<WriteLock, StoreError> {
        let conn = Connection::open(path).map_err(backend)?;
        conn.execute_batch("BEGIN EXCLUSIVE").map_err(backend)?;
        Ok(WriteLock(conn))
    }
}

#[cfg(feature = "testing")]
impl Drop for WriteLock {
    fn drop(&mut self) {
        let _ = self.0.execute_batch("ROLLBACK");
    }
}
