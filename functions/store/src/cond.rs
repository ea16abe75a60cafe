use crate::{Item, Value};
use std::cmp::Ordering;

/// A condition on the item a write targets, evaluated atomically with the write.
///
/// Conditions see the live item: an expired item is absent. Comparisons follow DynamoDB: they
/// hold only when the attribute exists and has the same type (numbers or strings).
#[derive(Clone, Debug, PartialEq)]
pub enum Cond {
    /// The item exists and is live.
    Exists,
    /// The item is absent or expired.
    NotExists,
    AttrExists(String),
    AttrNotExists(String),
    Eq(String, Value),
    Lt(String, Value),
    Le(String, Value),
    Gt(String, Value),
    Ge(String, Value),
    And(Vec<Cond>),
    Or(Vec<Cond>),
}

impl Cond {
    pub fn eq(name: &str, v: impl Into<Value>) -> Self {
        Cond::Eq(name.to_owned(), v.into())
    }
    pub fn lt(name: &str, v: impl Into<Value>) -> Self {
        Cond::Lt(name.to_owned(), v.into())
    }
    pub fn le(name: &str, v: impl Into<Value>) -> Self {
        Cond::Le(name.to_owned(), v.into())
    }
    pub fn gt(name: &str, v: impl Into<Value>) -> Self {
        Cond::Gt(name.to_owned(), v.into())
    }
    pub fn ge(name: &str, v: impl Into<Value>) -> Self {
        Cond::Ge(name.to_owned(), v.into())
    }
    pub fn attr_exists(name: &str) -> Self {
        Cond::AttrExists(name.to_owned())
    }
    pub fn attr_not_exists(name: &str) -> Self {
        Cond::AttrNotExists(name.to_owned())
    }
    pub fn and(self, other: Cond) -> Self {
        match self {
            Cond::And(mut v) => {
                v.push(other);
                Cond::And(v)
            }
            c => Cond::And(vec![c, other]),
        }
    }
    pub fn or(self, other: Cond) -> Self {
        match self {
            Cond::Or(mut v) => {
                v.push(other);
                Cond::Or(v)
            }
            c => Cond::Or(vec![c, other]),
        }
    }

    /// Evaluates against the live item (`None` when absent or expired).
    pub fn eval(&self, item: Option<&Item>) -> bool {
        match self {
            Cond::Exists => item.is_some(),
            Cond::NotExists => item.is_none(),
            Cond::AttrExists(n) => item.is_some_and(|i| i.attrs.contains_key(n)),
            Cond::AttrNotExists(n) => !item.is_some_and(|i| i.attrs.contains_key(n)),
            Cond::Eq(n, v) => cmp(item, n, v) == Some(Ordering::Equal),
            Cond::Lt(n, v) => cmp(item, n, v) == Some(Ordering::Less),
            Cond::Le(n, v) => matches!(cmp(item, n, v), Some(Ordering::Less | Ordering::Equal)),
            Cond::Gt(n, v) => cmp(item, n, v) == Some(Ordering::Greater),
            Cond::Ge(n, v) => {
                matches!(cmp(item, n, v), Some(Ordering::Greater | Ordering::Equal))
            }
            Cond::And(cs) => cs.iter().all(|c| c.eval(item)),
            Cond::Or(cs) => cs.iter().any(|c| c.eval(item)),
        }
    }

    /// Whether the condition holds when the item is absent; engines that cannot see expiry
    /// inside the backend's own condition language use it to add the "expired" branch.
    pub fn holds_when_absent(&self) -> bool {
        self.eval(None)
    }
}

fn cmp(item: Option<&Item>, name: &str, v: &Value) -> Option<Ordering> {
    let have = item?.attrs.get(name)?;
    match (have, v) {
        (Value::N(a), Value::N(b)) => Some(a.cmp(b)),
        (Value::S(a), Value::S(b)) => Some(a.as_bytes().cmp(b.as_bytes())),
        (a, b) if a == b => Some(Ordering::Equal),
        _ => None,
    }
}
