//! The rows of the embedded engine: reading, writing and updating one item in the open
//! transaction (sqlite.rs runs each operation; these are its steps).

use super::backend;
use crate::{Attrs, Cond, Item, Key, StoreError, Token, Update, Value, RING_ATTRS};
use rusqlite::{params, Connection, OptionalExtension};

/// Reads the stored item, live or not (None when there is no row).
pub(super) fn load(conn: &Connection, key: &Key) -> Result<Option<Item>, StoreError> {
    conn.query_row(
        "SELECT attrs, expires_at FROM items WHERE pk = ?1 AND sk = ?2",
        params![key.pk, key.sk],
        |row| Ok((row.get::<_, String>(0)?, row.get::<_, Option<i64>>(1)?)),
    )
    .optional()
    .map_err(backend)?
    .map(|(attrs, expires_at)| {
        let attrs: Attrs = serde_json::from_str(&attrs).map_err(backend)?;
        Ok(Item {
            key: key.clone(),
            attrs,
            expires_at,
        })
    })
    .transpose()
}

/// The stored item when it is live, its token ring included (see `shown`).
pub(super) fn load_live(
    conn: &Connection,
    key: &Key,
    now: i64,
) -> Result<Option<Item>, StoreError> {
    Ok(load(conn, key)?.filter(|i| i.is_live(now)))
}

/// The item as callers see it (answers and conditions): without the engine's token ring.
pub(super) fn strip(mut item: Item) -> Item {
    item.attrs.retain(|n, _| !RING_ATTRS.contains(&n.as_str()));
    item
}

pub(super) fn shown(item: Option<&Item>) -> Option<Item> {
    item.cloned().map(strip)
}

/// Whether the item's ring holds `token`.
pub(super) fn ring_holds(item: &Item, token: &Token) -> bool {
    RING_ATTRS
        .iter()
        .any(|n| matches!(item.attrs.get(*n), Some(Value::S(s)) if *s == token.0))
}

/// Records `token` as the newest of the ring, shifting the others (the oldest falls off), the
/// way the DynamoDB engine's update expression does (an empty string fills a missing slot).
pub(super) fn push_token(item: &mut Item, token: &Token) {
    for i in (1..RING_ATTRS.len()).rev() {
        let older = item
            .attrs
            .get(RING_ATTRS[i - 1])
            .cloned()
            .unwrap_or_else(|| Value::S(String::new()));
        item.attrs.insert(RING_ATTRS[i].to_owned(), older);
    }
    item.attrs
        .insert(RING_ATTRS[0].to_owned(), Value::S(token.0.clone()));
}

pub(super) fn save(conn: &Connection, item: &Item) -> Result<(), StoreError> {
    let attrs = serde_json::to_string(&item.attrs).map_err(backend)?;
    conn.execute(
        "INSERT OR REPLACE INTO items (pk, sk, attrs, expires_at) VALUES (?1, ?2, ?3, ?4)",
        params![item.key.pk, item.key.sk, attrs, item.expires_at],
    )
    .map_err(backend)?;
    Ok(())
}

pub(super) fn remove(conn: &Connection, key: &Key) -> Result<(), StoreError> {
    conn.execute(
        "DELETE FROM items WHERE pk = ?1 AND sk = ?2",
        params![key.pk, key.sk],
    )
    .map_err(backend)?;
    Ok(())
}

/// Whether `cond` holds for the live item, as callers see it (no ring).
pub(super) fn holds(cond: &Option<Cond>, live: Option<&Item>) -> bool {
    cond.as_ref().is_none_or(|c| c.eval(shown(live).as_ref()))
}

pub(super) fn apply(base: Option<Item>, key: &Key, ops: &[Update]) -> Result<Item, StoreError> {
    let mut item = base.unwrap_or_else(|| Item::new(key.clone()));
    for op in ops {
        match op {
            Update::Set(n, v) => {
                item.attrs.insert(n.clone(), v.clone());
            }
            Update::Add(n, d) => {
                let cur = match item.attrs.get(n) {
                    None => 0,
                    Some(Value::N(x)) => *x,
                    Some(_) => {
                        return Err(StoreError::Invalid(format!("{n} is not a number")));
                    }
                };
                let next = cur
                    .checked_add(*d)
                    .ok_or_else(|| StoreError::Invalid(format!("{n} overflows")))?;
                item.attrs.insert(n.clone(), Value::N(next));
            }
            Update::Remove(n) => {
                item.attrs.remove(n);
            }
            Update::Expires(t) => item.expires_at = *t,
        }
    }
    Ok(item)
}
