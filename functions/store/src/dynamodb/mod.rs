//! The production engine: one DynamoDB table (`pk` S HASH, `sk` S RANGE, TTL on `expiresAt`).
//!
//! DynamoDB's TTL deletes lazily, so expiry is enforced here: reads drop expired items, and
//! every condition is evaluated against the live item (see `expr`).

mod connection;
mod convert;
mod expr;
mod schema;
mod stream;
mod tx;

pub use connection::{
    client, client_with_timeout, DynamoConfig, CONNECT_TIMEOUT, LOCAL_OPERATION_TIMEOUT,
    MAX_ATTEMPTS, OPERATION_TIMEOUT,
};
pub use stream::item_from_image;

use crate::{
    validate_attrs, validate_ops, validate_token, validate_tx, Clock, Cond, Item, Key, Query,
    Store, StoreError, Token, TxOp, Update,
};
use async_trait::async_trait;
use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError;
use aws_sdk_dynamodb::operation::update_item::UpdateItemError;
use aws_sdk_dynamodb::types::{
    AttributeValue, KeysAndAttributes, ReturnValue, ReturnValuesOnConditionCheckFailure,
};
use aws_sdk_dynamodb::Client;
use convert::{
    build_error, condition_failed, item_from_map, item_map, key_map, live_item, ring_holds,
    sdk_error, AvMap,
};
use expr::{Expr, Placeholders};
use std::collections::HashMap;
use std::sync::Arc;

pub struct DynamoStore {
    client: Client,
    table: String,
    clock: Arc<dyn Clock>,
}

/// BatchGetItem reads at most this many keys per request.
const BATCH_GET_MAX: usize = 100;
/// Attempts at keys DynamoDB left unprocessed (throttling) before giving up.
const UNPROCESSED_ATTEMPTS: u32 = 8;
/// Attempts at a transaction DynamoDB cancelled for a throttle or a conflict (not a condition)
/// before the store answers `Throttled` or `Conflict`.
const TX_CANCELED_ATTEMPTS: u32 = 3;

impl DynamoStore {
    pub fn new(client: Client, table: impl Into<String>, clock: Arc<dyn Clock>) -> Self {
        DynamoStore {
            client,
            table: table.into(),
            clock,
        }
    }

    /// Builds the store on the environment's AWS configuration (`connection::sdk_of`).
    pub async fn connect(cfg: DynamoConfig, clock: Arc<dyn Clock>) -> Result<Self, StoreError> {
        let sdk = connection::sdk_of(&cfg).await;
        Ok(DynamoStore::new(
            client(&sdk, cfg.endpoint.as_deref()),
            cfg.table,
            clock,
        ))
    }

    pub fn client(&self) -> &Client {
        &self.client
    }

    pub fn table(&self) -> &str {
        &self.table
    }

    /// One UpdateItem (recording `token` in the item's ring, under the condition that the ring
    /// does not hold it yet, when there is one): `Ok(Err(old))` when the condition failed,
    /// with the old item as stored (ring included) if any.
    async fn update_item(
        &self,
        key: &Key,
        ops: &[Update],
        cond: Option<&Cond>,
        token: Option<&Token>,
        now: i64,
    ) -> Result<Result<Item, Option<AvMap>>, StoreError> {
        let mut p = Placeholders::default();
        let (update, not_yet) = match token {
            None => (expr::update(ops, &mut p)?, Expr::True),
            Some(t) => expr::update_once(ops, t, &mut p)?,
        };
        let guard = Expr::and(vec![
            expr::not_stale(&mut p, now),
            expr::cond(cond, &mut p, now),
            not_yet,
        ]);
        let condition = guard.condition(&mut p);
        let (names, values) = p.into_parts();
        let res = self
            .client
            .update_item()
            .table_name(&self.table)
            .set_key(Some(key_map(key)))
            .update_expression(update)
            .set_condition_expression(condition)
            .set_expression_attribute_names(names)
            .set_expression_attribute_values(values)
            .return_values(ReturnValue::AllNew)
            .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld)
            .send()
            .await;
        match res {
            Ok(out) => match out.attributes() {
                Some(m) => Ok(Ok(item_from_map(m)?)),
                None => Ok(Ok(Item::new(key.clone()))),
            },
            Err(e) => match e.as_service_error() {
                Some(UpdateItemError::ConditionalCheckFailedException(c)) => {
                    Ok(Err(c.item().cloned()))
                }
                _ => Err(sdk_error("UpdateItem", &e)),
            },
        }
    }

    /// `update_or_current`, and `update_once` when there is a token: an UpdateItem, and when its
    /// condition failed on an expired leftover that an absent item would pass, a second one
    /// after removing the leftover.
    async fn update_or_mine(
        &self,
        key: &Key,
        ops: &[Update],
        cond: Option<Cond>,
        token: Option<&Token>,
    ) -> Result<Result<Item, Option<Item>>, StoreError> {
        let now = self.clock.now();
        // The live item the failed condition saw, when its ring holds the token: the write was
        // this token's already (an answer lost, a retry).
        let mine = |old: Option<&AvMap>| -> Result<Option<Item>, StoreError> {
            match (old, token) {
                (Some(m), Some(t)) if ring_holds(m, t) => live_item(Some(m), now),
                _ => Ok(None),
            }
        };
        let old = match self
            .update_item(key, ops, cond.as_ref(), token, now)
            .await?
        {
            Ok(item) => return Ok(Ok(item)),
            Err(old) => old,
        };
        if let Some(item) = mine(old.as_ref())? {
            return Ok(Ok(item));
        }
        match old.as_ref().map(item_from_map).transpose()? {
            Some(item) if item.is_live(now) => Ok(Err(Some(item))),
            // The condition failed on an expired leftover, which is absent (its ring too): when
            // the condition holds for an absent item the update starts from an empty item
            // (remove the leftover, only if still expired, and try once more), else the answer
            // is "absent".
            Some(_) if cond.as_ref().is_none_or(Cond::holds_when_absent) => {
                self.purge_expired(key, now).await?;
                match self
                    .update_item(key, ops, cond.as_ref(), token, now)
                    .await?
                {
                    Ok(item) => Ok(Ok(item)),
                    Err(old) => Ok(mine(old.as_ref())?.ok_or(None)),
                }
            }
            _ => Ok(Err(None)),
        }
    }

    /// Removes an expired leftover, if it is still expired.
    async fn purge_expired(&self, key: &Key, now: i64) -> Result<(), StoreError> {
        let mut p = Placeholders::default();
        let condition = expr::expired(&mut p, now).condition(&mut p);
        // Not expired any more (written again meanwhile): nothing to purge.
        self.delete_when(key, condition, p).await.map(|_| ())
    }

    /// One DeleteItem under `condition`: `true` when it went through (the item is gone or never
    /// was), `false` when the condition failed.
    async fn delete_when(
        &self,
        key: &Key,
        condition: Option<String>,
        p: Placeholders,
    ) -> Result<bool, StoreError> {
        let (names, values) = p.into_parts();
        let res = self
            .client
            .delete_item()
            .table_name(&self.table)
            .set_key(Some(key_map(key)))
            .set_condition_expression(condition)
            .set_expression_attribute_names(names)
            .set_expression_attribute_values(values)
            .send()
            .await;
        match res {
            Ok(_) => Ok(true),
            Err(e) if condition_failed(&e) => Ok(false),
            Err(e) => Err(sdk_error("DeleteItem", &e)),
        }
    }
}

#[async_trait]
impl Store for DynamoStore {
    async fn get(&self, key: &Key) -> Result<Option<Item>, StoreError> {
        let now = self.clock.now();
        let out = self
            .client
            .get_item()
            .table_name(&self.table)
            .set_key(Some(key_map(key)))
            .consistent_read(true)
            .send()
            .await
            .map_err(|e| sdk_error("GetItem", &e))?;
        live_item(out.item(), now)
    }

    async fn get_many(&self, keys: &[Key]) -> Result<Vec<Option<Item>>, StoreError> {
        let now = self.clock.now();
        // BatchGetItem refuses duplicate keys: read each distinct key once.
        let mut distinct: Vec<&Key> = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for k in keys {
            if seen.insert(k) {
                distinct.push(k);
            }
        }
        let mut found: HashMap<Key, Item> = HashMap::new();
        for chunk in distinct.chunks(BATCH_GET_MAX) {
            let request = KeysAndAttributes::builder()
                .set_keys(Some(chunk.iter().map(|k| key_map(k)).collect()))
                .consistent_read(true)
                .build()
                .map_err(build_error)?;
            let mut pending = Some(HashMap::from([(self.table.clone(), request)]));
            let mut attempt = 0;
            while let Some(items) = pending.take() {
                if attempt > 0 {
                    if attempt >= UNPROCESSED_ATTEMPTS {
                        return Err(StoreError::Throttled(
                            "BatchGetItem: keys left unprocessed".into(),
                        ));
                    }
                    connection::pause(&self.client, attempt).await;
                }
                attempt += 1;
                let out = self
                    .client
                    .batch_get_item()
                    .set_request_items(Some(items))
                    .send()
                    .await
                    .map_err(|e| sdk_error("BatchGetItem", &e))?;
                for m in out
                    .responses()
                    .and_then(|r| r.get(&self.table))
                    .into_iter()
                    .flatten()
                {
                    if let Some(item) = live_item(Some(m), now)? {
                        found.insert(item.key.clone(), item);
                    }
                }
                pending = out
                    .unprocessed_keys
                    .filter(|u| u.values().any(|k| !k.keys().is_empty()));
            }
        }
        Ok(keys.iter().map(|k| found.get(k).cloned()).collect())
    }

    async fn put(&self, item: Item, cond: Option<Cond>) -> Result<(), StoreError> {
        validate_attrs(&item.attrs)?;
        let now = self.clock.now();
        let mut p = Placeholders::default();
        let condition = expr::cond(cond.as_ref(), &mut p, now).condition(&mut p);
        let (names, values) = p.into_parts();
        let res = self
            .client
            .put_item()
            .table_name(&self.table)
            .set_item(Some(item_map(&item)))
            .set_condition_expression(condition)
            .set_expression_attribute_names(names)
            .set_expression_attribute_values(values)
            .send()
            .await;
        match res {
            Ok(_) => Ok(()),
            Err(e) if condition_failed(&e) => Err(StoreError::ConditionFailed),
            Err(e) => Err(sdk_error("PutItem", &e)),
        }
    }

    async fn update_or_current(
        &self,
        key: &Key,
        ops: Vec<Update>,
        cond: Option<Cond>,
    ) -> Result<Result<Item, Option<Item>>, StoreError> {
        validate_ops(&ops)?;
        self.update_or_mine(key, &ops, cond, None).await
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
        self.update_or_mine(key, &ops, cond, Some(token)).await
    }

    async fn delete(&self, key: &Key, cond: Option<Cond>) -> Result<(), StoreError> {
        let mut p = Placeholders::default();
        let condition = expr::cond(cond.as_ref(), &mut p, self.clock.now()).condition(&mut p);
        if self.delete_when(key, condition, p).await? {
            Ok(())
        } else {
            Err(StoreError::ConditionFailed)
        }
    }

    async fn transact(&self, ops: Vec<TxOp>) -> Result<(), StoreError> {
        validate_tx(&ops)?;
        let now = self.clock.now();
        let items = ops
            .iter()
            .map(|op| tx::item(&self.table, op, now))
            .collect::<Result<Vec<_>, _>>()?;
        let mut attempt = 0;
        loop {
            let res = self
                .client
                .transact_write_items()
                .set_transact_items(Some(items.clone()))
                .send()
                .await;
            let err = match res {
                Ok(_) => return Ok(()),
                Err(e) => match e.as_service_error() {
                    Some(TransactWriteItemsError::TransactionCanceledException(c)) => {
                        tx::canceled(c, ops.len())
                    }
                    _ => return Err(sdk_error("TransactWriteItems", &e)),
                },
            };
            // A cancellation without a failed condition (throttled, or another transaction on
            // an item) wrote nothing, so it is safe to send again; the SDK does not retry it.
            attempt += 1;
            if !matches!(err, StoreError::Throttled(_) | StoreError::Conflict)
                || attempt >= TX_CANCELED_ATTEMPTS
            {
                return Err(err);
            }
            connection::pause(&self.client, attempt).await;
        }
    }

    async fn query(&self, q: Query) -> Result<Vec<Item>, StoreError> {
        if q.limit == Some(0) {
            return Ok(Vec::new());
        }
        let now = self.clock.now();
        let mut p = Placeholders::default();
        let pk = p.name(crate::PK);
        let pk_value = p.value(AttributeValue::S(q.pk.clone()));
        let mut key_cond = format!("{pk} = {pk_value}");
        if let Some(prefix) = q.sk_prefix.as_deref().filter(|s| !s.is_empty()) {
            // The prefix as a range of sort keys, `BETWEEN p AND p + U+10FFFF` (the largest
            // character, the largest UTF-8 bytes): the same items as `begins_with` (but a key
            // that continues with U+10FFFF, a noncharacter: `crate::prefix_end`), and a seek
            // on DynamoDB Local too, whose `begins_with` walks the partition from its start
            // (docs/benchmarks.md "The find box at 100,000 accounts").
            let sk = p.name(crate::SK);
            let from = p.value(AttributeValue::S(prefix.to_owned()));
            let to = p.value(AttributeValue::S(crate::prefix_end(prefix)));
            key_cond = format!("{key_cond} AND {sk} BETWEEN {from} AND {to}");
        }
        let (exp, now_v) = (p.name(crate::EXPIRES_AT), p.now(now));
        let filter = format!("attribute_not_exists({exp}) OR {exp} > {now_v}");
        let (names, values) = p.into_parts();

        let mut out = Vec::new();
        // A page after a given sort key: DynamoDB starts after that key, whether or not an item
        // has it.
        let mut start: Option<AvMap> = q.after.as_ref().map(|sk| {
            AvMap::from([
                (crate::PK.to_owned(), AttributeValue::S(q.pk.clone())),
                (crate::SK.to_owned(), AttributeValue::S(sk.clone())),
            ])
        });
        let mut page_limit: Option<i32> = None;
        loop {
            // DynamoDB applies Limit before the filter: ask for what is missing, more each page
            // (expired items may come first), until enough live items are read.
            if let Some(limit) = q.limit {
                let missing = limit.saturating_sub(out.len()).max(1);
                let grown = page_limit.map_or(0, |l| l.saturating_mul(2));
                page_limit = Some(
                    i32::try_from(missing)
                        .unwrap_or(i32::MAX)
                        .max(grown)
                        .min(1000),
                );
            }
            let page = self
                .client
                .query()
                .table_name(&self.table)
                .key_condition_expression(&key_cond)
                .filter_expression(&filter)
                .set_expression_attribute_names(names.clone())
                .set_expression_attribute_values(values.clone())
                .scan_index_forward(q.forward)
                .consistent_read(q.consistent)
                .set_limit(page_limit)
                .set_exclusive_start_key(start.take())
                .send()
                .await
                .map_err(|e| sdk_error("Query", &e))?;
            for m in page.items() {
                if let Some(item) = live_item(Some(m), now)? {
                    out.push(item);
                }
            }
            if let Some(limit) = q.limit {
                if out.len() >= limit {
                    out.truncate(limit);
                    break;
                }
            }
            match page.last_evaluated_key {
                Some(k) if !k.is_empty() => start = Some(k),
                _ => break,
            }
        }
        Ok(out)
    }

    async fn ensure_schema(&self) -> Result<(), StoreError> {
        schema::ensure(self).await
    }

    async fn scan_page(
        &self,
        pk_prefix: &str,
        sk: &str,
        start: Option<Key>,
    ) -> Result<crate::ScanPage, StoreError> {
        let now = self.clock.now();
        let mut p = Placeholders::default();
        let (pk_name, sk_name) = (p.name(crate::PK), p.name(crate::SK));
        let prefix = p.value(AttributeValue::S(pk_prefix.to_owned()));
        let sk_value = p.value(AttributeValue::S(sk.to_owned()));
        let (exp, now_v) = (p.name(crate::EXPIRES_AT), p.now(now));
        let filter = format!(
            "begins_with({pk_name}, {prefix}) AND {sk_name} = {sk_value} \
             AND (attribute_not_exists({exp}) OR {exp} > {now_v})"
        );
        let (names, values) = p.into_parts();
        let page = self
            .client
            .scan()
            .table_name(&self.table)
            .filter_expression(filter)
            .set_expression_attribute_names(names)
            .set_expression_attribute_values(values)
            .set_exclusive_start_key(start.as_ref().map(key_map))
            .send()
            .await
            .map_err(|e| sdk_error("Scan", &e))?;
        let mut items = Vec::new();
        for m in page.items() {
            if let Some(item) = live_item(Some(m), now)? {
                items.push(item);
            }
        }
        let next = match page.last_evaluated_key {
            Some(k) if !k.is_empty() => Some(item_from_map(&k)?.key),
            _ => None,
        };
        Ok(crate::ScanPage { items, next })
    }
}
