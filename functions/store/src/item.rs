use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// An attribute value. Numbers are integers: the domain stores times as unix seconds and
/// counters as counts, never fractions.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Value {
    S(String),
    N(i64),
    Bool(bool),
    B(Vec<u8>),
    L(Vec<Value>),
    M(BTreeMap<String, Value>),
}

impl Value {
    /// A list of strings (`L` of `S`), the way string lists are stored.
    pub fn strings<I>(items: I) -> Value
    where
        I: IntoIterator,
        I::Item: Into<String>,
    {
        Value::L(items.into_iter().map(|s| Value::S(s.into())).collect())
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Self {
        Value::S(s.to_owned())
    }
}
impl From<String> for Value {
    fn from(s: String) -> Self {
        Value::S(s)
    }
}
impl From<i64> for Value {
    fn from(n: i64) -> Self {
        Value::N(n)
    }
}
impl From<bool> for Value {
    fn from(b: bool) -> Self {
        Value::Bool(b)
    }
}

pub type Attrs = BTreeMap<String, Value>;

/// The primary key of the single table: partition key and sort key.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Key {
    pub pk: String,
    pub sk: String,
}

impl Key {
    pub fn new(pk: impl Into<String>, sk: impl Into<String>) -> Self {
        Key {
            pk: pk.into(),
            sk: sk.into(),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Item {
    pub key: Key,
    pub attrs: Attrs,
    /// Unix seconds at which the item stops existing for every reader.
    pub expires_at: Option<i64>,
}

impl Item {
    /// The item's size as DynamoDB bills it (attribute names plus values, keys and expiry
    /// included): a write costs one unit per started KB, a read one per started 4 KB. The cost
    /// model (docs/cost.md) rests on the items of the hot paths staying under 1 KB.
    pub fn billed_size(&self) -> usize {
        fn number(n: i64) -> usize {
            let digits = n
                .unsigned_abs()
                .to_string()
                .trim_end_matches('0')
                .len()
                .max(1);
            digits.div_ceil(2) + 1
        }
        fn value(v: &Value) -> usize {
            match v {
                Value::S(s) => s.len(),
                Value::N(n) => number(*n),
                Value::Bool(_) => 1,
                Value::B(b) => b.len(),
                Value::L(l) => 3 + l.iter().map(|e| 1 + value(e)).sum::<usize>(),
                Value::M(m) => 3 + m.iter().map(|(k, e)| 1 + k.len() + value(e)).sum::<usize>(),
            }
        }
        let keys = crate::PK.len() + self.key.pk.len() + crate::SK.len() + self.key.sk.len();
        let expiry = self
            .expires_at
            .map_or(0, |t| crate::EXPIRES_AT.len() + number(t));
        keys + expiry
            + self
                .attrs
                .iter()
                .map(|(k, v)| k.len() + value(v))
                .sum::<usize>()
    }

    pub fn new(key: Key) -> Self {
        Item {
            key,
            attrs: Attrs::new(),
            expires_at: None,
        }
    }
    pub fn with(mut self, name: &str, value: impl Into<Value>) -> Self {
        self.attrs.insert(name.to_owned(), value.into());
        self
    }
    /// Sets an attribute only when a value is present.
    pub fn with_opt(self, name: &str, value: Option<impl Into<Value>>) -> Self {
        match value {
            Some(v) => self.with(name, v),
            None => self,
        }
    }
    pub fn expires(mut self, at: i64) -> Self {
        self.expires_at = Some(at);
        self
    }
    pub fn is_live(&self, now: i64) -> bool {
        self.expires_at.is_none_or(|t| t > now)
    }
    pub fn s(&self, name: &str) -> Option<&str> {
        match self.attrs.get(name) {
            Some(Value::S(s)) => Some(s),
            _ => None,
        }
    }
    pub fn n(&self, name: &str) -> Option<i64> {
        match self.attrs.get(name) {
            Some(Value::N(n)) => Some(*n),
            _ => None,
        }
    }
    pub fn bool(&self, name: &str) -> Option<bool> {
        match self.attrs.get(name) {
            Some(Value::Bool(b)) => Some(*b),
            _ => None,
        }
    }
    pub fn b(&self, name: &str) -> Option<&[u8]> {
        match self.attrs.get(name) {
            Some(Value::B(b)) => Some(b),
            _ => None,
        }
    }
    /// The strings of a list attribute (see [`Value::strings`]); empty when it is missing or
    /// not a list, other members skipped.
    pub fn strings(&self, name: &str) -> Vec<String> {
        match self.attrs.get(name) {
            Some(Value::L(l)) => l
                .iter()
                .filter_map(|v| match v {
                    Value::S(s) => Some(s.clone()),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string_lists_round_trip_and_skip_other_members() {
        let item = Item::new(Key::new("P", "S"))
            .with("l", Value::strings(["a", "b"]))
            .with("mixed", Value::L(vec![Value::N(1), "c".into()]))
            .with("s", "not a list");
        assert_eq!(item.strings("l"), ["a", "b"]);
        assert_eq!(item.strings("mixed"), ["c"]);
        assert!(item.strings("s").is_empty());
        assert!(item.strings("missing").is_empty());
    }
}
