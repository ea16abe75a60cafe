//! Condition and update expressions: the contract's `Cond` and `Update` in DynamoDB's expression
//! language, always through placeholders (`#n0`, `:v0`), never with names or values inlined.
//!
//! DynamoDB's own conditions see the physical item, expired or not; ours must see the live item.
//! So every condition is wrapped: `(live AND E(cond)) OR (NOT live)`, the second branch only when
//! the condition holds for an absent item.

use super::convert::to_av;
use crate::{reserved, Cond, StoreError, Token, Update, Value, EXPIRES_AT, PK, RING_ATTRS};
use aws_sdk_dynamodb::types::AttributeValue;
use std::collections::HashMap;

/// ExpressionAttributeNames and ExpressionAttributeValues of a request.
pub(crate) type Parts = (
    Option<HashMap<String, String>>,
    Option<HashMap<String, AttributeValue>>,
);

/// The placeholder names and values of one request.
#[derive(Debug, Default, Clone)]
pub(crate) struct Placeholders {
    names: HashMap<String, String>,
    by_attr: HashMap<String, String>,
    values: HashMap<String, AttributeValue>,
    now: Option<String>,
}

impl Placeholders {
    /// The placeholder of an attribute name (one per distinct name).
    pub(crate) fn name(&mut self, attr: &str) -> String {
        if let Some(p) = self.by_attr.get(attr) {
            return p.clone();
        }
        let p = format!("#n{}", self.names.len());
        self.names.insert(p.clone(), attr.to_owned());
        self.by_attr.insert(attr.to_owned(), p.clone());
        p
    }

    pub(crate) fn value(&mut self, v: AttributeValue) -> String {
        let p = format!(":v{}", self.values.len());
        self.values.insert(p.clone(), v);
        p
    }

    /// The placeholder of the request's "now" (one per request).
    pub(crate) fn now(&mut self, now: i64) -> String {
        if let Some(p) = &self.now {
            return p.clone();
        }
        let p = self.value(AttributeValue::N(now.to_string()));
        self.now = Some(p.clone());
        p
    }

    /// Names and values for the request; `None` when empty (DynamoDB rejects empty maps).
    pub(crate) fn into_parts(self) -> Parts {
        let names = (!self.names.is_empty()).then_some(self.names);
        let values = (!self.values.is_empty()).then_some(self.values);
        (names, values)
    }
}

/// A boolean expression, simplified as it is built so constants never reach DynamoDB nested.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Expr {
    True,
    False,
    Atom(String),
    And(Vec<Expr>),
    Or(Vec<Expr>),
}

impl Expr {
    pub(crate) fn and(parts: Vec<Expr>) -> Expr {
        let mut out = Vec::new();
        for p in parts {
            match p {
                Expr::True => {}
                Expr::False => return Expr::False,
                Expr::And(inner) => out.extend(inner),
                e => out.push(e),
            }
        }
        match out.len() {
            0 => Expr::True,
            1 => out.pop().unwrap_or(Expr::True),
            _ => Expr::And(out),
        }
    }

    pub(crate) fn or(parts: Vec<Expr>) -> Expr {
        let mut out = Vec::new();
        for p in parts {
            match p {
                Expr::False => {}
                Expr::True => return Expr::True,
                Expr::Or(inner) => out.extend(inner),
                e => out.push(e),
            }
        }
        match out.len() {
            0 => Expr::False,
            1 => out.pop().unwrap_or(Expr::False),
            _ => Expr::Or(out),
        }
    }

    fn render(&self, p: &mut Placeholders) -> String {
        match self {
            // Only reached at the top level (`and`/`or` fold constants away).
            Expr::True => {
                let pk = p.name(PK);
                format!("(attribute_exists({pk}) OR attribute_not_exists({pk}))")
            }
            Expr::False => {
                let pk = p.name(PK);
                format!("(attribute_exists({pk}) AND attribute_not_exists({pk}))")
            }
            Expr::Atom(s) => s.clone(),
            Expr::And(v) => join(v, " AND ", p),
            Expr::Or(v) => join(v, " OR ", p),
        }
    }

    /// The ConditionExpression of a write, or `None` when the condition always holds.
    pub(crate) fn condition(&self, p: &mut Placeholders) -> Option<String> {
        match self {
            Expr::True => None,
            e => Some(e.render(p)),
        }
    }

    /// A ConditionExpression that must be present (ConditionCheck).
    pub(crate) fn required(&self, p: &mut Placeholders) -> String {
        self.render(p)
    }
}

fn join(v: &[Expr], sep: &str, p: &mut Placeholders) -> String {
    let parts: Vec<String> = v.iter().map(|e| e.render(p)).collect();
    format!("({})", parts.join(sep))
}

/// The item exists and has not expired.
pub(crate) fn live(p: &mut Placeholders, now: i64) -> Expr {
    let (pk, exp, now) = (p.name(PK), p.name(EXPIRES_AT), p.now(now));
    Expr::and(vec![
        Expr::Atom(format!("attribute_exists({pk})")),
        Expr::or(vec![
            Expr::Atom(format!("attribute_not_exists({exp})")),
            Expr::Atom(format!("{exp} > {now}")),
        ]),
    ])
}

/// The item is missing or expired.
pub(crate) fn not_live(p: &mut Placeholders, now: i64) -> Expr {
    let (pk, exp, now) = (p.name(PK), p.name(EXPIRES_AT), p.now(now));
    Expr::or(vec![
        Expr::Atom(format!("attribute_not_exists({pk})")),
        Expr::Atom(format!("{exp} <= {now}")),
    ])
}

/// The item is not an expired leftover: `NOT (exists AND expired)`.
pub(crate) fn not_stale(p: &mut Placeholders, now: i64) -> Expr {
    let (pk, exp, now) = (p.name(PK), p.name(EXPIRES_AT), p.now(now));
    Expr::or(vec![
        Expr::Atom(format!("attribute_not_exists({pk})")),
        Expr::Atom(format!("attribute_not_exists({exp})")),
        Expr::Atom(format!("{exp} > {now}")),
    ])
}

/// The item exists and has expired.
pub(crate) fn expired(p: &mut Placeholders, now: i64) -> Expr {
    let (exp, now) = (p.name(EXPIRES_AT), p.now(now));
    Expr::Atom(format!("{exp} <= {now}"))
}

/// The contract's condition against the live item, in DynamoDB terms.
pub(crate) fn cond(c: Option<&Cond>, p: &mut Placeholders, now: i64) -> Expr {
    let Some(c) = c else { return Expr::True };
    let when_live = on_live(c, p);
    let when_absent = c.holds_when_absent();
    match (&when_live, when_absent) {
        (Expr::True, true) => Expr::True,
        (Expr::False, false) => Expr::False,
        _ => {
            let live = live(p, now);
            let absent = if when_absent {
                not_live(p, now)
            } else {
                Expr::False
            };
            Expr::or(vec![Expr::and(vec![live, when_live]), absent])
        }
    }
}

/// `c` evaluated on an item known to be live. The engine's own attributes (keys, expiry, the
/// token ring) are never in `attrs`, so conditions on them behave as on a missing attribute.
fn on_live(c: &Cond, p: &mut Placeholders) -> Expr {
    match c {
        Cond::Exists => Expr::True,
        Cond::NotExists => Expr::False,
        Cond::AttrExists(n) if reserved(n) => Expr::False,
        Cond::AttrNotExists(n) if reserved(n) => Expr::True,
        Cond::AttrExists(n) => Expr::Atom(format!("attribute_exists({})", p.name(n))),
        Cond::AttrNotExists(n) => Expr::Atom(format!("attribute_not_exists({})", p.name(n))),
        Cond::Eq(n, v) => compare(n, "=", v, p),
        // Only numbers and strings order; other types compare for equality only.
        Cond::Lt(n, v) if ordered(v) => compare(n, "<", v, p),
        Cond::Gt(n, v) if ordered(v) => compare(n, ">", v, p),
        Cond::Le(n, v) if ordered(v) => compare(n, "<=", v, p),
        Cond::Ge(n, v) if ordered(v) => compare(n, ">=", v, p),
        Cond::Lt(..) | Cond::Gt(..) => Expr::False,
        Cond::Le(n, v) | Cond::Ge(n, v) => compare(n, "=", v, p),
        Cond::And(cs) => Expr::and(cs.iter().map(|c| on_live(c, p)).collect()),
        Cond::Or(cs) => Expr::or(cs.iter().map(|c| on_live(c, p)).collect()),
    }
}

fn ordered(v: &Value) -> bool {
    matches!(v, Value::N(_) | Value::S(_))
}

fn compare(name: &str, op: &str, v: &Value, p: &mut Placeholders) -> Expr {
    if reserved(name) {
        return Expr::False;
    }
    let n = p.name(name);
    let v = p.value(to_av(v));
    Expr::Atom(format!("{n} {op} {v}"))
}

/// The net effect of a list of changes on one attribute.
#[derive(Debug, Clone, PartialEq)]
enum Effect {
    Set(Value),
    Add(i64),
    Remove,
}

fn overflow(name: &str) -> StoreError {
    StoreError::Invalid(format!("{name} overflows"))
}

/// Folds the changes per attribute, in order (DynamoDB refuses two changes of one path).
fn effects(ops: &[Update]) -> Result<Vec<(String, Effect)>, StoreError> {
    let mut out: Vec<(String, Effect)> = Vec::new();
    for op in ops {
        let (name, next) = match op {
            Update::Set(n, v) => (n.as_str(), Effect::Set(v.clone())),
            Update::Add(n, d) => (n.as_str(), Effect::Add(*d)),
            Update::Remove(n) => (n.as_str(), Effect::Remove),
            Update::Expires(Some(t)) => (EXPIRES_AT, Effect::Set(Value::N(*t))),
            Update::Expires(None) => (EXPIRES_AT, Effect::Remove),
        };
        let Some(slot) = out.iter_mut().find(|(n, _)| n == name) else {
            out.push((name.to_owned(), next));
            continue;
        };
        slot.1 = match (&slot.1, next) {
            (_, Effect::Set(v)) => Effect::Set(v),
            (_, Effect::Remove) => Effect::Remove,
            (Effect::Remove, Effect::Add(d)) => Effect::Set(Value::N(d)),
            (Effect::Add(a), Effect::Add(d)) => {
                Effect::Add(a.checked_add(d).ok_or_else(|| overflow(name))?)
            }
            (Effect::Set(Value::N(a)), Effect::Add(d)) => {
                Effect::Set(Value::N(a.checked_add(d).ok_or_else(|| overflow(name))?))
            }
            (Effect::Set(_), Effect::Add(_)) => {
                return Err(StoreError::Invalid(format!("{name} is not a number")));
            }
        };
    }
    Ok(out)
}

/// The UpdateExpression of `ops` (SET, ADD for counters, REMOVE).
pub(crate) fn update(ops: &[Update], p: &mut Placeholders) -> Result<String, StoreError> {
    expression(ops, Vec::new(), p)
}

/// The UpdateExpression of `ops` that also records `token` as the newest of the item's ring,
/// and the condition that the ring does not hold it yet (to be and-ed with the write's own).
///
/// `SET tok4 = if_not_exists(tok3, :e), ..., tok1 = if_not_exists(tok0, :e), tok0 = :t`: the
/// operands of one SET all read the item as it was before the update, so the ring shifts by
/// one in a single expression; `:e` (an empty string, never a token) fills a slot whose
/// predecessor is missing, since copying a missing attribute is an error.
pub(crate) fn update_once(
    ops: &[Update],
    token: &Token,
    p: &mut Placeholders,
) -> Result<(String, Expr), StoreError> {
    let t = p.value(AttributeValue::S(token.0.clone()));
    let e = p.value(AttributeValue::S(String::new()));
    let slots: Vec<String> = RING_ATTRS.iter().map(|n| p.name(n)).collect();
    let mut ring = Vec::with_capacity(slots.len());
    for i in (1..slots.len()).rev() {
        ring.push(format!(
            "{} = if_not_exists({}, {e})",
            slots[i],
            slots[i - 1]
        ));
    }
    if let Some(newest) = slots.first() {
        ring.push(format!("{newest} = {t}"));
    }
    let absent = Expr::and(
        slots
            .iter()
            .map(|n| {
                Expr::or(vec![
                    Expr::Atom(format!("attribute_not_exists({n})")),
                    Expr::Atom(format!("{n} <> {t}")),
                ])
            })
            .collect(),
    );
    Ok((expression(ops, ring, p)?, absent))
}

/// SET (`set`, then the changes of `ops`), ADD and REMOVE clauses.
fn expression(
    ops: &[Update],
    mut set: Vec<String>,
    p: &mut Placeholders,
) -> Result<String, StoreError> {
    let (mut add, mut remove) = (Vec::new(), Vec::new());
    for (name, effect) in effects(ops)? {
        let n = p.name(&name);
        match effect {
            Effect::Set(v) => set.push(format!("{n} = {}", p.value(to_av(&v)))),
            Effect::Add(d) => {
                add.push(format!("{n} {}", p.value(AttributeValue::N(d.to_string()))))
            }
            Effect::Remove => remove.push(n),
        }
    }
    let mut clauses = Vec::new();
    for (kw, parts) in [("SET", set), ("ADD", add), ("REMOVE", remove)] {
        if !parts.is_empty() {
            clauses.push(format!("{kw} {}", parts.join(", ")));
        }
    }
    if clauses.is_empty() {
        return Err(StoreError::Invalid(
            "an update needs at least one change".into(),
        ));
    }
    Ok(clauses.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constants_fold_away() {
        let mut p = Placeholders::default();
        assert_eq!(cond(None, &mut p, 10), Expr::True);
        assert_eq!(
            cond(Some(&Cond::NotExists.or(Cond::Exists)), &mut p, 10),
            Expr::True
        );
        assert_eq!(cond(Some(&Cond::lt("a", true)), &mut p, 10), Expr::False);
        let (names, values) = p.into_parts();
        assert!(names.is_none() && values.is_none());
    }

    #[test]
    fn conditions_guard_liveness() {
        let mut p = Placeholders::default();
        let e = cond(Some(&Cond::attr_not_exists("a")), &mut p, 10);
        let s = e.condition(&mut p).unwrap_or_default();
        assert_eq!(
            s,
            "((attribute_exists(#n1) AND (attribute_not_exists(#n2) OR #n2 > :v0) \
             AND attribute_not_exists(#n0)) OR attribute_not_exists(#n1) OR #n2 <= :v0)"
        );
        let (names, values) = p.into_parts();
        assert_eq!(names.map(|n| n.len()), Some(3));
        assert_eq!(values.map(|v| v.len()), Some(1));
    }

    #[test]
    fn a_token_shifts_the_ring_in_one_set() {
        let mut p = Placeholders::default();
        let (update, absent) =
            update_once(&[Update::Add("n".into(), 1)], &Token::new("t1"), &mut p).unwrap();
        assert_eq!(
            update,
            "SET #n4 = if_not_exists(#n3, :v1), #n3 = if_not_exists(#n2, :v1), \
             #n2 = if_not_exists(#n1, :v1), #n1 = if_not_exists(#n0, :v1), #n0 = :v0 \
             ADD #n5 :v2"
        );
        let cond = absent.condition(&mut p).unwrap_or_default();
        assert!(cond.starts_with(
            "((attribute_not_exists(#n0) OR #n0 <> :v0) AND (attribute_not_exists(#n1) OR"
        ));
        let (names, values) = p.into_parts();
        let names = names.unwrap_or_default();
        assert_eq!(names.get("#n0").map(String::as_str), Some("tok0"));
        assert_eq!(names.get("#n4").map(String::as_str), Some("tok4"));
        let values = values.unwrap_or_default();
        assert_eq!(values.get(":v0"), Some(&AttributeValue::S("t1".into())));
        assert_eq!(values.get(":v1"), Some(&AttributeValue::S(String::new())));
    }

    #[test]
    fn updates_fold_per_attribute() {
        let mut p = Placeholders::default();
        let ops = vec![
            Update::Add("c".into(), 2),
            Update::Add("c".into(), 3),
            Update::Set("a".into(), Value::N(1)),
            Update::Add("a".into(), 1),
            Update::Remove("r".into()),
            Update::Expires(None),
        ];
        let s = update(&ops, &mut p).unwrap_or_default();
        assert_eq!(s, "SET #n1 = :v1 ADD #n0 :v0 REMOVE #n2, #n3");
        let (_, values) = p.into_parts();
        let values = values.unwrap_or_default();
        assert_eq!(values.get(":v0"), Some(&AttributeValue::N("5".into())));
        assert_eq!(values.get(":v1"), Some(&AttributeValue::N("2".into())));
        let bad = [
            Update::Set("a".into(), Value::Bool(true)),
            Update::Add("a".into(), 1),
        ];
        assert!(matches!(
            update(&bad, &mut Placeholders::default()),
            Err(StoreError::Invalid(_))
        ));
    }
}
