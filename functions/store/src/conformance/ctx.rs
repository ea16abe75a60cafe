//! What each conformance case gets: the store, the clock, and a namespace of its own; and a
//! sample item holding every value type.

use crate::{Item, Key, ManualClock, Store, Value};
use std::sync::Arc;

pub(super) struct Ctx {
    pub(super) store: Arc<dyn Store>,
    pub(super) clock: ManualClock,
    pub(super) ns: String,
}

impl Ctx {
    pub(super) fn key(&self, pk: &str, sk: &str) -> Key {
        Key::new(format!("{}#{pk}", self.ns), sk)
    }
    pub(super) fn pk(&self, pk: &str) -> String {
        format!("{}#{pk}", self.ns)
    }
}

pub(super) fn sample(key: Key) -> Item {
    let mut m = std::collections::BTreeMap::new();
    m.insert("inner".to_owned(), Value::N(-7));
    Item::new(key)
        .with("s", "héllo 你好")
        .with("n", 1_234_567_890_123_i64)
        .with("t", true)
        .with("f", false)
        .with("b", Value::B(vec![0, 1, 254, 255]))
        .with("l", Value::L(vec![Value::S("a".into()), Value::N(2)]))
        .with("m", Value::M(m))
}
