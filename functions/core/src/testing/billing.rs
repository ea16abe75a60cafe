//! Write units as DynamoDB on demand bills them, for [`super::SpyStore`]'s bill
//! (`SpyStore::bill_writes`): one unit per started KB of the larger of the item before and after
//! the write (`PutItem`, `UpdateItem`), of the item removed (`DeleteItem`), at least 1; a write
//! whose condition fails is billed all the same, on the item as it is; a transaction's item
//! counts twice. Sizes are `Item::billed_size`; an item that holds a ring of write tokens
//! (`Store::update_once`, whose ring the engines never show) is priced with a full ring.

use ciam_store::{Item, Key, RING_ATTRS};

/// The bytes a full ring of write tokens adds to an item: each `tokN` name and its 32 hex
/// characters (`once::token`).
pub const RING_BYTES: usize = RING_ATTRS.len() * (4 + 32);

/// One billed write: the item, the operation and its write units.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Billed {
    pub key: Key,
    pub op: &'static str,
    pub units: u64,
}

/// The billed size of `item`, with a full ring when `ringed`.
pub fn size(item: Option<&Item>, ringed: bool) -> usize {
    item.map_or(0, |i| i.billed_size() + if ringed { RING_BYTES } else { 0 })
}

/// The write units of one item's write: the larger of `before` and `after` (bytes), per started
/// KB, at least 1.
pub fn units(before: usize, after: usize) -> u64 {
    (before.max(after).div_ceil(1024) as u64).max(1)
}

/// The total of `bill`'s units.
pub fn total(bill: &[Billed]) -> u64 {
    bill.iter().map(|b| b.units).sum()
}
