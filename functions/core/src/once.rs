//! Single-item writes that are safe to send again (issue 20, docs/data-model.md "Write tokens").
//!
//! A counter or a burn whose commit succeeded but whose answer was lost is sent again, by the
//! AWS SDK's retries and by [`update`] here; each carries the same token, so the store applies
//! it once and answers the retry with the item as it is (`Store::update_once`). After a lost
//! answer (`Unavailable`), a throttle or a conflict, [`update`] sends the write once more itself:
//! the answer then tells whether the first one committed, so a wrong secret is counted once and
//! a right one goes on, instead of answering 503 for a write that was made.

use crate::Ciam;
use ciam_store::{Cond, Item, Key, StoreError, Token, Update};

/// How many times [`update`] sends a write (the first and one more).
pub const SENDS: usize = 2;

/// A new token for one logical write (16 random bytes, hex).
pub fn token(ciam: &Ciam) -> Token {
    Token::new(hex::encode(crate::random::<16>(ciam.entropy.as_ref())))
}

/// `Store::update_once` with a fresh token, sent again once after a retryable failure.
pub async fn update(
    ciam: &Ciam,
    key: &Key,
    ops: Vec<Update>,
    cond: Option<Cond>,
) -> Result<Result<Item, Option<Item>>, StoreError> {
    update_with(ciam, key, ops, cond, &token(ciam)).await
}

/// [`update`] with the caller's token (when it must know the token afterwards, e.g. a burn
/// that records who used the item).
pub async fn update_with(
    ciam: &Ciam,
    key: &Key,
    ops: Vec<Update>,
    cond: Option<Cond>,
    token: &Token,
) -> Result<Result<Item, Option<Item>>, StoreError> {
    let mut sent = 1;
    loop {
        match ciam
            .store
            .update_once(key, ops.clone(), cond.clone(), token)
            .await
        {
            Err(e) if e.is_retryable() && sent < SENDS => {
                tracing::info!(store_kind = e.kind(), cause = %e, "store write sent again");
                sent += 1;
            }
            answer => return answer,
        }
    }
}
