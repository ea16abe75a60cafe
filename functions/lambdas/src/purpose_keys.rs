//! Keys with smaller reach (docs/operations.md §1): each key purpose (`ciam_core::KeyPurpose`)
//! has its own secret, `<Purpose>KeySecret`, holding the keys of its labels derived from the
//! root, and a function reads only its row's purposes' secrets. The key distributor is the one
//! function that reads `RootSecret`: it writes every purpose secret from it ([`distribute`]),
//! when the stack is deployed (a custom resource) and when the rotation runbook invokes it.
//!
//! A purpose secret is `{"key": {"<label>": "<64 hex>", ...}, "previousKey"?: {...}}` during a
//! rotation's overlap, or `{"key": ..., "nextKey": {...}}` while a rotation is announced:
//! exactly what `RootSecret`'s `rootKey`, `previousRootKey` and `nextRootKey` say, per label.
//! The values are HMAC-SHA256(root, label), the keys the root gave before purposes existed, so
//! nothing stored changes.

use crate::secrets::{root_keys, SecretJson, ROOT_VAR};
use ciam_core::{KeyPurpose, Keys, Purposes};
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

/// The variable naming a purpose's secret: `CIAM_<PURPOSE>_KEY_SECRET_ARN`.
pub fn var(p: KeyPurpose) -> String {
    format!("CIAM_{}_KEY_SECRET_ARN", p.name().to_ascii_uppercase())
}

/// The variable names as `&'static str`, for messages (leaked once per purpose per process).
fn var_static(p: KeyPurpose) -> &'static str {
    use std::sync::OnceLock;
    static NAMES: OnceLock<BTreeMap<KeyPurpose, &'static str>> = OnceLock::new();
    NAMES.get_or_init(|| {
        KeyPurpose::ALL
            .into_iter()
            .map(|p| (p, &*Box::leak(var(p).into_boxed_str())))
            .collect()
    })[&p]
}

/// The secret of `purpose` for the root secret `root` (as `RootSecret` holds it).
pub fn purpose_secret(root: &Keys, purpose: KeyPurpose) -> Value {
    let labels = |k: &Keys| -> Value {
        Value::Object(
            k.purpose_keys(purpose)
                .into_iter()
                .map(|(l, hex)| (l.to_owned(), Value::String(hex)))
                .collect(),
        )
    };
    let mut out = json!({ "key": labels(root) });
    if let Some(other) = root.previous() {
        let field = if root.writes_back() {
            "previousKey"
        } else {
            "nextKey"
        };
        out[field] = labels(other);
    }
    out
}

/// Every distributed purpose's secret, from `RootSecret`'s text.
pub fn secrets_from_root(root_text: &str) -> Result<BTreeMap<KeyPurpose, Value>, String> {
    let root = root_keys(&SecretJson::parse(ROOT_VAR, root_text)?)?;
    Ok(KeyPurpose::ALL
        .into_iter()
        .filter(|p| p.distributed())
        .map(|p| (p, purpose_secret(&root, p)))
        .collect())
}

/// A label -> hex map of a purpose secret's field.
fn label_map(
    var: &str,
    purpose: KeyPurpose,
    fields: &Map<String, Value>,
    field: &str,
) -> Result<Option<BTreeMap<String, String>>, String> {
    let Some(v) = fields.get(field).filter(|v| !v.is_null()) else {
        return Ok(None);
    };
    let Some(obj) = v.as_object() else {
        return Err(format!("{var}: {field} must be an object of keys by label"));
    };
    let mut out = BTreeMap::new();
    for label in purpose.labels() {
        let hex = obj
            .get(*label)
            .and_then(Value::as_str)
            .filter(|h| h.len() == 64 && h.bytes().all(|b| b.is_ascii_hexdigit()))
            .ok_or_else(|| format!("{var}: {field}.{label} must be 64 hex characters"))?;
        out.insert((*label).to_owned(), hex.to_owned());
    }
    Ok(Some(out))
}

/// The keys of a function from its purposes' secrets (text by purpose): the current keys of
/// every label, and, when a secret holds `previousKey` (or `nextKey`), those as the other
/// root's keys, so every rotation rule of `Keys` works as with the root. A label whose secret
/// has no other key keeps its current key there (the two agree, as outside a rotation).
/// Restricted to `purposes`; a purpose of `purposes` without a secret among `texts` is
/// refused unless it has none (`Es256`).
///
/// Each purpose's overlap is its own: in the seconds a distribution takes (or after one that
/// failed part-way) one purpose may already hold `previousKey` while another still holds
/// `nextKey`. Each label then keeps its own current and other key, which is exactly what that
/// purpose's holders make and accept; nothing is written back while any purpose held is only
/// announced (`nextKey`), since writing back is never needed for correctness, only moving to
/// the new root early.
pub fn keys_from_secrets(
    purposes: Purposes,
    texts: &BTreeMap<KeyPurpose, String>,
) -> Result<Keys, String> {
    let mut current = BTreeMap::new();
    let mut other = BTreeMap::new();
    let (mut previous, mut next) = (false, false);
    for p in purposes.iter().filter(|p| p.distributed()) {
        let var = var_static(p);
        let text = texts
            .get(&p)
            .ok_or_else(|| format!("{var} is required (the {} key)", p.name()))?;
        let fields = match serde_json::from_str(text) {
            Ok(Value::Object(fields)) => fields,
            _ => return Err(format!("{var}: the secret is not a JSON object")),
        };
        let keys =
            label_map(var, p, &fields, "key")?.ok_or_else(|| format!("{var}: key is missing"))?;
        let prev = label_map(var, p, &fields, "previousKey")?;
        let nxt = label_map(var, p, &fields, "nextKey")?;
        if prev.is_some() && nxt.is_some() {
            return Err(format!("{var}: previousKey and nextKey cannot both be set"));
        }
        previous |= prev.is_some();
        next |= nxt.is_some();
        other.extend(prev.or(nxt).unwrap_or_else(|| keys.clone()));
        current.extend(keys);
    }
    let given = |m: &BTreeMap<String, String>| {
        Keys::with_labels(m.iter().map(|(l, k)| (l.as_str(), k.as_str())))
            .ok_or_else(|| "a key secret holds a key that is not hex".to_owned())
    };
    let mut keys = given(&current)?;
    if previous || next {
        keys = keys.with_previous_keys(given(&other)?, !next);
    }
    Ok(keys.restricted(purposes))
}

/// Reading and writing secrets: Secrets Manager in AWS ([`SecretsManager`]), a map in tests.
#[async_trait::async_trait]
pub trait SecretsPort: Send + Sync {
    /// The secret's current SecretString.
    async fn get(&self, id: &str) -> Result<String, String>;
    /// A new current version with `text`.
    async fn put(&self, id: &str, text: &str) -> Result<(), String>;
}

/// What [`distribute`] did to each purpose's secret.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Distributed {
    pub written: Vec<KeyPurpose>,
    pub unchanged: Vec<KeyPurpose>,
}

/// Reads `RootSecret` (`root_id`) and writes each purpose's secret (`targets`, by purpose) where
/// its value differs from what is there (a secret that cannot be read or parsed is rewritten).
/// The first failure stops it; rerunning is always safe.
pub async fn distribute(
    port: &dyn SecretsPort,
    root_id: &str,
    targets: &BTreeMap<KeyPurpose, String>,
) -> Result<Distributed, String> {
    let root_text = port.get(root_id).await?;
    let secrets = secrets_from_root(&root_text)?;
    let mut done = Distributed {
        written: Vec::new(),
        unchanged: Vec::new(),
    };
    for (purpose, value) in &secrets {
        let Some(id) = targets.get(purpose) else {
            return Err(format!(
                "{} is required by the key distributor",
                var(*purpose)
            ));
        };
        let there = port
            .get(id)
            .await
            .ok()
            .and_then(|t| serde_json::from_str::<Value>(&t).ok());
        if there.as_ref() == Some(value) {
            done.unchanged.push(*purpose);
            continue;
        }
        port.put(id, &value.to_string()).await?;
        done.written.push(*purpose);
    }
    Ok(done)
}

/// The SecretStrings of `arns` (by purpose), read concurrently, each within `timeout`: what a
/// function reads at init. Errors name the variable, never a value.
pub async fn read_all(
    port: &dyn SecretsPort,
    arns: &BTreeMap<KeyPurpose, String>,
    timeout: std::time::Duration,
) -> Result<BTreeMap<KeyPurpose, String>, String> {
    let reads = arns.iter().map(|(p, arn)| async move {
        let var = var_static(*p);
        match tokio::time::timeout(timeout, port.get(arn)).await {
            Ok(Ok(text)) => Ok((*p, text)),
            Ok(Err(_)) => Err(format!("{var}: cannot read the secret")),
            Err(_) => Err(format!(
                "{var}: no answer from Secrets Manager within {timeout:?}"
            )),
        }
    });
    let mut out = BTreeMap::new();
    for r in futures_join_all(reads).await {
        let (p, text) = r?;
        out.insert(p, text);
    }
    Ok(out)
}

/// `join_all` without a futures dependency: the reads run concurrently on this task.
async fn futures_join_all<F: std::future::Future>(fs: impl Iterator<Item = F>) -> Vec<F::Output> {
    let set: Vec<_> = fs.map(Box::pin).collect();
    let mut outputs: Vec<Option<F::Output>> = set.iter().map(|_| None).collect();
    let mut set: Vec<Option<_>> = set.into_iter().map(Some).collect();
    std::future::poll_fn(|cx| {
        let mut pending = false;
        for (slot, out) in set.iter_mut().zip(outputs.iter_mut()) {
            if let Some(f) = slot {
                match f.as_mut().poll(cx) {
                    std::task::Poll::Ready(v) => {
                        *out = Some(v);
                        *slot = None;
                    }
                    std::task::Poll::Pending => pending = true,
                }
            }
        }
        if pending {
            std::task::Poll::Pending
        } else {
            std::task::Poll::Ready(())
        }
    })
    .await;
    outputs.into_iter().flatten().collect()
}

/// [`SecretsPort`] over Secrets Manager.
pub struct SecretsManager(pub aws_sdk_secretsmanager::Client);

#[async_trait::async_trait]
impl SecretsPort for SecretsManager {
    async fn get(&self, id: &str) -> Result<String, String> {
        use aws_sdk_secretsmanager::error::DisplayErrorContext;
        let out = self
            .0
            .get_secret_value()
            .secret_id(id)
            .send()
            .await
            .map_err(|e| format!("cannot read {id}: {}", DisplayErrorContext(&e)))?;
        out.secret_string()
            .map(str::to_owned)
            .ok_or_else(|| format!("{id} has no SecretString"))
    }

    async fn put(&self, id: &str, text: &str) -> Result<(), String> {
        use aws_sdk_secretsmanager::error::DisplayErrorContext;
        self.0
            .put_secret_value()
            .secret_id(id)
            .secret_string(text)
            .send()
            .await
            .map(|_| ())
            .map_err(|e| format!("cannot write {id}: {}", DisplayErrorContext(&e)))
    }
}

#[cfg(test)]
#[path = "purpose_keys_tests.rs"]
mod tests;
