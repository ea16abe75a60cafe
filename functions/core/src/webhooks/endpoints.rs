//! The endpoint registry (`/admin/apps/{appId}/webhooks...`: the console's gate asks for the
//! role; each change takes the caller's audit entry, written in the change's transaction).

use super::{sign, url, PK_PREFIX, PREVIOUS_SECRET_SECS};
use crate::apps;
use crate::error::{Error, Result};
use crate::events::Kind;
use crate::{random, Ciam, LostRace, Reason};
use ciam_store::{Cond, Item, Key, Query, TxOp, Update, Value};
use serde::Serialize;

const LABEL: &str = "webhook-secret";
/// Most endpoints an app may have.
pub const MAX_PER_APP: usize = 10;

pub fn endpoint_key(app_id: &str, endpoint_id: &str) -> Key {
    Key::new(format!("{PK_PREFIX}{app_id}"), format!("EP#{endpoint_id}"))
}

/// An endpoint as stored.
#[derive(Clone, Debug, PartialEq)]
pub struct Endpoint {
    pub app_id: String,
    pub endpoint_id: String,
    pub url: String,
    pub events: Vec<String>,
    pub description: String,
    secret: Vec<u8>,
    prev_secret: Option<Vec<u8>>,
    pub prev_secret_until: Option<i64>,
    pub created_at: i64,
    pub disabled_at: Option<i64>,
    pub failing_since: Option<i64>,
    pub last_success_at: Option<i64>,
}

/// An endpoint as its admin sees it (never a secret).
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "openapi", schemars(rename = "WebhookEndpoint"))]
#[serde(rename_all = "camelCase")]
pub struct EndpointDetail {
    pub endpoint_id: String,
    pub app_id: String,
    pub url: String,
    #[cfg_attr(feature = "openapi", schemars(transform = event_kinds_schema))]
    pub events: Vec<String>,
    pub description: String,
    pub enabled: bool,
    pub created_at: i64,
    /// When it was disabled (a 410 answer, 3 days of failures without a success, or an admin);
    /// null while enabled.
    pub disabled_at: Option<i64>,
    /// The first failed attempt since the last success.
    pub failing_since: Option<i64>,
    pub last_success_at: Option<i64>,
    /// While a rotation's overlap runs: when the previous secret stops signing (both
    /// signatures are sent until then).
    pub previous_secret_until: Option<i64>,
}

/// An `events` list's schema: its items are the event kinds' names (docs/openapi.json).
#[cfg(feature = "openapi")]
pub fn event_kinds_schema(schema: &mut schemars::Schema) {
    let names: Vec<&str> = Kind::ALL.iter().map(|k| k.name()).collect();
    schema.insert(
        "items".into(),
        serde_json::json!({"type": "string", "enum": names}),
    );
}

impl Endpoint {
    pub fn from_item(i: &Item) -> Option<Endpoint> {
        Some(Endpoint {
            app_id: i.key.pk.strip_prefix(PK_PREFIX)?.to_owned(),
            endpoint_id: i.key.sk.strip_prefix("EP#")?.to_owned(),
            url: i.s("url")?.to_owned(),
            events: i.strings("events"),
            description: i.s("description").unwrap_or_default().to_owned(),
            secret: i.b("secret")?.to_vec(),
            prev_secret: i.b("prevSecret").map(<[u8]>::to_vec),
            prev_secret_until: i.n("prevSecretUntil"),
            created_at: i.n("createdAt").unwrap_or_default(),
            disabled_at: i.n("disabledAt"),
            failing_since: i.n("failingSince"),
            last_success_at: i.n("lastSuccessAt"),
        })
    }

    fn to_item(&self) -> Item {
        Item::new(endpoint_key(&self.app_id, &self.endpoint_id))
            .with("url", self.url.as_str())
            .with("events", Value::strings(&self.events))
            .with("description", self.description.as_str())
            .with("secret", Value::B(self.secret.clone()))
            .with("createdAt", self.created_at)
    }

    pub fn key(&self) -> Key {
        endpoint_key(&self.app_id, &self.endpoint_id)
    }

    pub fn enabled(&self) -> bool {
        self.disabled_at.is_none()
    }

    pub fn subscribed(&self, kind: Kind) -> bool {
        self.events.iter().any(|e| e == kind.name())
    }

    pub fn detail(&self, now: i64) -> EndpointDetail {
        EndpointDetail {
            endpoint_id: self.endpoint_id.clone(),
            app_id: self.app_id.clone(),
            url: self.url.clone(),
            events: self.events.clone(),
            description: self.description.clone(),
            enabled: self.enabled(),
            created_at: self.created_at,
            disabled_at: self.disabled_at,
            failing_since: self.failing_since,
            last_success_at: self.last_success_at,
            previous_secret_until: self.prev_secret_until.filter(|t| *t > now),
        }
    }
}

fn seal(ciam: &Ciam, endpoint_id: &str, plain: &[u8]) -> Result<Vec<u8>> {
    crate::sealed::seal(&ciam.keys, ciam.entropy.as_ref(), LABEL, endpoint_id, plain)
}

/// Opens under the current root, else the previous one during a rotation's overlap.
fn open(ciam: &Ciam, endpoint_id: &str, sealed: &[u8]) -> Result<Vec<u8>> {
    if let Some(s) = crate::sealed::open(&ciam.keys, LABEL, endpoint_id, sealed)? {
        return Ok(s);
    }
    match ciam.keys.previous() {
        Some(p) => crate::sealed::open(p, LABEL, endpoint_id, sealed)?
            .ok_or_else(|| Error::internal("webhook secret does not open")),
        None => Err(Error::internal("webhook secret does not open")),
    }
}

/// The secrets that sign a delivery now: the current one, and the previous one while its
/// overlap runs.
pub fn open_secrets(ciam: &Ciam, e: &Endpoint) -> Result<Vec<Vec<u8>>> {
    let mut out = vec![open(ciam, &e.endpoint_id, &e.secret)?];
    if let (Some(prev), Some(until)) = (&e.prev_secret, e.prev_secret_until) {
        if until > ciam.now() {
            out.push(open(ciam, &e.endpoint_id, prev)?);
        }
    }
    Ok(out)
}

/// During a root key rotation's overlap, the endpoint's sealed secrets that open only under the
/// previous root, sealed again under the current one: the updates of its item and their
/// conditions (each sealed value unchanged). None outside an overlap, while the next root is
/// only announced, or when nothing needs it. The delivery adds them to the endpoint's write it
/// makes anyway, so an endpoint that delivers during the overlap still opens after the
/// previous root is retired (docs/operations.md §1).
pub fn reseal(ciam: &Ciam, e: &Endpoint) -> Result<Option<(Vec<Update>, Vec<Cond>)>> {
    let Some(previous) = ciam.keys.previous().filter(|_| ciam.keys.writes_back()) else {
        return Ok(None);
    };
    let (mut ops, mut conds) = (Vec::new(), Vec::new());
    for (field, sealed) in [
        ("secret", Some(&e.secret)),
        ("prevSecret", e.prev_secret.as_ref()),
    ] {
        let Some(sealed) = sealed else { continue };
        if crate::sealed::open(&ciam.keys, LABEL, &e.endpoint_id, sealed)?.is_some() {
            continue;
        }
        let Some(plain) = crate::sealed::open(previous, LABEL, &e.endpoint_id, sealed)? else {
            continue;
        };
        ops.push(Update::Set(
            field.into(),
            Value::B(seal(ciam, &e.endpoint_id, &plain)?),
        ));
        conds.push(Cond::Eq(field.into(), Value::B(sealed.clone())));
    }
    Ok((!ops.is_empty()).then_some((ops, conds)))
}

/// What an admin sends (unchecked); `None` leaves a field as it is.
#[derive(Clone, Debug, Default)]
pub struct EndpointFields {
    pub url: Option<String>,
    pub events: Option<Vec<String>>,
    pub description: Option<String>,
    /// A new secret, shown once; the current one keeps signing [`PREVIOUS_SECRET_SECS`].
    pub rotate_secret: bool,
    /// `true` re-enables a disabled endpoint (and forgets its failures); `false` disables it.
    pub enabled: Option<bool>,
}

fn check_events(raw: Vec<String>) -> Result<Vec<String>> {
    let mut out = Vec::new();
    for e in raw {
        if Kind::parse(&e).is_none() {
            let names: Vec<&str> = Kind::ALL.iter().map(|k| k.name()).collect();
            return Err(Error::field(
                Reason::INVALID_PARAMETER,
                "events",
                "未知的事件类型",
                "Unknown event type",
            )
            .raw_message(format!("events: {e} is not one of {}", names.join(","))));
        }
        if !out.contains(&e) {
            out.push(e);
        }
    }
    if out.is_empty() {
        return Err(Error::field(
            Reason::INVALID_PARAMETER,
            "events",
            "请至少选择一个事件",
            "Subscribe to at least one event",
        ));
    }
    Ok(out)
}

fn check_description(raw: Option<String>) -> Result<Option<String>> {
    raw.map(|d| {
        if d.is_empty() {
            Ok(d)
        } else {
            crate::validate::prose("description", &d, 500)
        }
    })
    .transpose()
}

/// An endpoint and its secret, shown this once.
#[derive(Debug, Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "openapi", schemars(rename = "WebhookWithSecret"))]
#[serde(rename_all = "camelCase")]
pub struct WithSecret {
    pub endpoint: EndpointDetail,
    /// `whsec_` + base64 of 32 random bytes (Standard Webhooks); shown only here (a creation,
    /// a rotation).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schemars(with = "String"))]
    pub secret: Option<String>,
}

fn not_found() -> Error {
    Reason::WEBHOOK_NOT_FOUND.into()
}

/// Every endpoint of an app (no session check: the delivery's fan-out). Round trips: 1.
pub async fn of_app(ciam: &Ciam, app_id: &str) -> Result<Vec<Endpoint>> {
    let items = ciam
        .store
        .query(Query::partition(format!("{PK_PREFIX}{app_id}")).prefix("EP#"))
        .await?;
    Ok(items.iter().filter_map(Endpoint::from_item).collect())
}

/// One endpoint or WEBHOOK_NOT_FOUND (no session check). Round trips: 1.
pub async fn find(ciam: &Ciam, app_id: &str, endpoint_id: &str) -> Result<Endpoint> {
    if endpoint_id.is_empty() || endpoint_id.len() > 64 || app_id.is_empty() || app_id.len() > 64 {
        return Err(not_found());
    }
    ciam.store
        .get(&endpoint_key(app_id, endpoint_id))
        .await?
        .as_ref()
        .and_then(Endpoint::from_item)
        .ok_or_else(not_found)
}

/// `POST /admin/apps/{appId}/webhooks`; `audit(endpoint id)` (the console's entry) is written in
/// the endpoint's transaction. Round trips: 3 (the app, its endpoints, the transaction).
pub async fn create(
    ciam: &Ciam,
    app_id: &str,
    f: EndpointFields,
    audit: impl FnOnce(&str) -> Option<TxOp>,
) -> Result<WithSecret> {
    let raw_url = f.url.ok_or_else(|| {
        Error::field(
            Reason::INVALID_PARAMETER,
            "url",
            "请填写地址",
            "Give the endpoint's URL",
        )
    })?;
    let url = url::check(&raw_url, ciam.config.webhooks_local_http)?;
    let events = check_events(f.events.unwrap_or_default())?;
    let description = check_description(f.description)?.unwrap_or_default();
    apps::find(ciam, app_id).await?;
    if of_app(ciam, app_id).await?.len() >= MAX_PER_APP {
        return Err(Error::field(
            Reason::INVALID_PARAMETER,
            "url",
            "每个应用最多 10 个 Webhook 地址",
            "An app has at most 10 webhook endpoints",
        ));
    }
    let endpoint_id = format!("ep_{}", hex::encode(random::<8>(ciam.entropy.as_ref())));
    let plain = random::<32>(ciam.entropy.as_ref());
    let e = Endpoint {
        app_id: app_id.to_owned(),
        secret: seal(ciam, &endpoint_id, &plain)?,
        endpoint_id,
        url: url.to_string(),
        events,
        description,
        prev_secret: None,
        prev_secret_until: None,
        created_at: ciam.now(),
        disabled_at: None,
        failing_since: None,
        last_success_at: None,
    };
    let mut tx = vec![TxOp::Put {
        item: e.to_item(),
        cond: Some(Cond::NotExists),
    }];
    tx.extend(audit(&e.endpoint_id));
    ciam.store
        .transact(tx)
        .await
        .or_reason(Reason::SERVICE_UNAVAILABLE)?;
    Ok(WithSecret {
        endpoint: e.detail(ciam.now()),
        secret: Some(sign::secret_text(&plain)),
    })
}

/// `GET /admin/apps/{appId}/webhooks`. Round trips: 2.
pub async fn list(ciam: &Ciam, app_id: &str) -> Result<Vec<EndpointDetail>> {
    apps::find(ciam, app_id).await?;
    let now = ciam.now();
    Ok(of_app(ciam, app_id)
        .await?
        .iter()
        .map(|e| e.detail(now))
        .collect())
}

/// `GET /admin/apps/{appId}/webhooks/{endpointId}`. Round trips: 1.
pub async fn get(ciam: &Ciam, app_id: &str, endpoint_id: &str) -> Result<EndpointDetail> {
    Ok(find(ciam, app_id, endpoint_id).await?.detail(ciam.now()))
}

/// `PATCH /admin/apps/{appId}/webhooks/{endpointId}`: the given fields, a rotation
/// (`rotateSecret`: the new secret in this answer only, the current one signing too for 24
/// hours), enabling or disabling; `audit` (the console's entry) in the change's transaction. A
/// body that changes nothing writes nothing. Round trips: 1 read, 1 transaction, 1 read.
pub async fn update(
    ciam: &Ciam,
    app_id: &str,
    endpoint_id: &str,
    f: EndpointFields,
    audit: Option<TxOp>,
) -> Result<WithSecret> {
    let url = f
        .url
        .map(|u| url::check(&u, ciam.config.webhooks_local_http))
        .transpose()?;
    let events = f.events.map(check_events).transpose()?;
    let description = check_description(f.description)?;
    let current = find(ciam, app_id, endpoint_id).await?;
    let now = ciam.now();
    let mut ops = Vec::new();
    if let Some(u) = url {
        ops.push(Update::Set("url".into(), u.to_string().into()));
    }
    if let Some(v) = events {
        ops.push(Update::Set("events".into(), Value::strings(v)));
    }
    if let Some(d) = description {
        ops.push(Update::Set("description".into(), d.into()));
    }
    match f.enabled {
        Some(true) => {
            ops.push(Update::Remove("disabledAt".into()));
            ops.push(Update::Remove("failingSince".into()));
        }
        Some(false) if current.disabled_at.is_none() => {
            ops.push(Update::Set("disabledAt".into(), now.into()));
        }
        _ => {}
    }
    let mut shown = None;
    if f.rotate_secret {
        let plain = random::<32>(ciam.entropy.as_ref());
        ops.push(Update::Set(
            "secret".into(),
            Value::B(seal(ciam, endpoint_id, &plain)?),
        ));
        ops.push(Update::Set(
            "prevSecret".into(),
            Value::B(current.secret.clone()),
        ));
        ops.push(Update::Set(
            "prevSecretUntil".into(),
            (now + PREVIOUS_SECRET_SECS).into(),
        ));
        shown = Some(sign::secret_text(&plain));
    }
    if ops.is_empty() {
        return Ok(WithSecret {
            endpoint: current.detail(now),
            secret: None,
        });
    }
    // The secret seen above must still be the current one: two rotations cannot both win.
    let cond = Cond::Eq("secret".into(), Value::B(current.secret.clone()));
    let mut tx = vec![TxOp::Update {
        key: current.key(),
        ops,
        cond: Some(cond),
    }];
    tx.extend(audit);
    match ciam.store.transact(tx).await {
        Ok(()) => {}
        Err(e) if e.condition_failed_at(0) => {
            return Err(Error::new(Reason::SERVICE_UNAVAILABLE).raw_message("changed meanwhile"))
        }
        other => other.or_reason(Reason::SERVICE_UNAVAILABLE)?,
    }
    let e = find(ciam, app_id, endpoint_id).await?;
    Ok(WithSecret {
        endpoint: e.detail(now),
        secret: shown,
    })
}

/// `DELETE /admin/apps/{appId}/webhooks/{endpointId}`; `audit` (the console's entry) in the same
/// transaction. Its queued deliveries are dropped when their turn comes; its delivery log
/// expires on its own. Round trips: 1.
pub async fn delete(
    ciam: &Ciam,
    app_id: &str,
    endpoint_id: &str,
    audit: Option<TxOp>,
) -> Result<()> {
    if app_id.len() > 64 || endpoint_id.len() > 64 {
        return Err(not_found());
    }
    let mut tx = vec![TxOp::Delete {
        key: endpoint_key(app_id, endpoint_id),
        cond: Some(Cond::Exists),
    }];
    tx.extend(audit);
    match ciam.store.transact(tx).await {
        Ok(()) => Ok(()),
        Err(e) if e.condition_failed_at(0) => Err(not_found()),
        other => other.or_reason(Reason::SERVICE_UNAVAILABLE),
    }
}
