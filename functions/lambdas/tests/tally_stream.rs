//! The console's numbers counted from the table's stream in AWS (issue 30 item 9,
//! functions/lambdas/src/tally.rs): real password sign-ins (`Config::numbers_from_stream`, as the
//! Lambda init sets it) write their sessions into DynamoDB Local, the test reads each written
//! item back as the stream's `NewImage` (DynamoDB JSON, read raw from the table) and hands the
//! batch, ordinary events among the sessions, to the fan-out's code (`webhooks::on_stream` over
//! the domain's `CorePipeline`). The week's and the month's shards then add up to what the
//! console's overview shows, each account counted once a day and once a month, the events still
//! fan out, and a batch whose tally fails (the counters' partition throttled, the user items
//! unreadable) still succeeds. Prints what a batch's tally costs (docs/cost.md).

// Test code: a panic is the failure report, so unwrap and expect are allowed here
// (the workspace denies them in the product, Cargo.toml [workspace.lints]).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use async_trait::async_trait;
use aws_sdk_dynamodb::types::AttributeValue;
use ciam_core::accounts::login_password;
use ciam_core::apps::App;
use ciam_core::client::ClientInfo;
use ciam_core::consents::Consent;
use ciam_core::events::{Event, Kind};
use ciam_core::numbers::{self, Day, ACTIVE_DAY};
use ciam_core::testing::{Builder, SpyStore};
use ciam_core::user::User;
use ciam_core::validate::Identity;
use ciam_core::webhooks::{self, EndpointFields};
use ciam_core::{Ciam, ManualClock};
use ciam_lambdas::webhooks::{on_stream, CorePipeline, Lane, Outgoing, Queue};
use ciam_store::dynamo_local::DynamoLocal;
use ciam_store::faults::{Fault, Faults, Op};
use ciam_store::{Key, Store, TxOp};
use serde_json::{json, Map, Value};
use std::sync::{Arc, Mutex};

/// 2027-01-15, a Friday (ISO week 2027-W02), 08:00 UTC.
const START: i64 = 1_800_000_000;
const FRIDAY: char = '5';
const PASSWORD: &str = "Tally-Stream-2027";
const TABLE: &str = "ciam-tally";

#[derive(Default)]
struct Recorded {
    sent: Mutex<Vec<Outgoing>>,
}

#[async_trait]
impl Queue for Recorded {
    async fn send(&self, lane: Lane, batch: &[Outgoing]) -> Result<(), String> {
        assert!(batch.iter().all(|m| m.lane == lane));
        self.sent.lock().unwrap().extend(batch.iter().cloned());
        Ok(())
    }
}

/// A transport nothing is sent through here (the fan-out only queues).
struct NoTransport;

#[async_trait]
impl webhooks::Transport for NoTransport {
    async fn post(
        &self,
        _target: &webhooks::guard::Target,
        _headers: &[(&'static str, String)],
        _body: &str,
    ) -> webhooks::Answer {
        panic!("the fan-out sends nothing itself")
    }
}

struct Table {
    ciam: Ciam,
    spy: Arc<SpyStore>,
    faults: Faults,
    /// The raw client, to read items as the stream shows them.
    client: aws_sdk_dynamodb::Client,
}

/// The table in DynamoDB Local under the domain's manual clock, with the spy over the faults
/// over the engine, and the numbers counted from the stream as in AWS.
async fn table(local: &DynamoLocal) -> Table {
    use aws_sdk_dynamodb::config::{BehaviorVersion, Credentials, Region};
    let b = Builder::new(START);
    let clock: ManualClock = b.clock();
    let conf = aws_sdk_dynamodb::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .region(Region::new("us-east-1"))
        .endpoint_url(&local.endpoint)
        .credentials_provider(Credentials::new("tally", "test", None, None, "test"))
        .build();
    let client = aws_sdk_dynamodb::Client::from_conf(conf);
    let engine =
        ciam_store::dynamodb::DynamoStore::new(client.clone(), TABLE, Arc::new(clock.clone()));
    engine.ensure_schema().await.expect("the table is created");
    let faults = Faults::new();
    let spy = Arc::new(SpyStore::new(Arc::new(faults.wrap(Arc::new(engine)))));
    let config = ciam_core::Config {
        numbers_from_stream: true,
        ..ciam_core::Config::default()
    };
    let ciam = b.store(spy.clone()).config(config).build().await;
    Table {
        ciam,
        spy,
        faults,
        client,
    }
}

/// An account signing in by `names` (a mail, a phone) with [`PASSWORD`], last active on
/// `active_day` (`yyyy-mm-dd`) if ever.
async fn account(t: &Table, id: &str, names: &[&str], active_day: Option<&str>, hash: &str) {
    let first = Identity::parse(names[0]).unwrap();
    let user = User {
        id: id.into(),
        user_name: id.into(),
        mail: Some(names[0].into()),
        pwd_hash: Some(hash.into()),
        created_at: START - 90 * 86_400,
        ..User::default()
    };
    let mut ops = ciam_core::testing::account_ops(&user, &first);
    if let (Some(day), Some(TxOp::Put { item, .. })) = (active_day, ops.first_mut()) {
        assert_eq!(item.key, ciam_core::user::profile_key(id));
        *item = item.clone().with(ACTIVE_DAY, day);
    }
    t.ciam.store.transact(ops).await.expect("seed");
    for other in &names[1..] {
        let pk = Identity::parse(other).unwrap().unique_pk();
        let item = ciam_core::signin::new_identity_item(ciam_core::user::unique_key(pk), &user);
        t.ciam.store.put(item, None).await.expect("seed");
    }
}

/// An attribute value as DynamoDB JSON, the way a stream record carries it.
fn json_of(av: &AttributeValue) -> Value {
    use base64::Engine;
    match av {
        AttributeValue::S(s) => json!({"S": s}),
        AttributeValue::N(n) => json!({"N": n}),
        AttributeValue::Bool(b) => json!({"BOOL": b}),
        AttributeValue::B(b) => {
            json!({"B": base64::engine::general_purpose::STANDARD.encode(b.as_ref())})
        }
        AttributeValue::L(l) => json!({"L": l.iter().map(json_of).collect::<Vec<_>>()}),
        AttributeValue::M(m) => json!({"M": m
            .iter()
            .map(|(k, v)| (k.clone(), json_of(v)))
            .collect::<Map<String, Value>>()}),
        other => panic!("a type the store does not write: {other:?}"),
    }
}

/// The stream record of `key`'s insert (`eventName` `INSERT`, or `name`), its `NewImage` the
/// item as the table holds it now.
async fn record(t: &Table, key: &Key, seq: u64, name: &str) -> Value {
    let got = t
        .client
        .get_item()
        .table_name(TABLE)
        .key("pk", AttributeValue::S(key.pk.clone()))
        .key("sk", AttributeValue::S(key.sk.clone()))
        .consistent_read(true)
        .send()
        .await
        .unwrap()
        .item
        .unwrap_or_else(|| panic!("{key:?} is in the table"));
    let image: Map<String, Value> = got.iter().map(|(k, v)| (k.clone(), json_of(v))).collect();
    json!({
        "eventID": format!("e{seq}"),
        "eventName": name,
        "eventSource": "aws:dynamodb",
        "awsRegion": "us-east-1",
        "dynamodb": {
            "ApproximateCreationDateTime": START,
            "Keys": {"pk": image["pk"], "sk": image["sk"]},
            "NewImage": image,
            "SequenceNumber": seq.to_string(),
            "SizeBytes": 300,
            "StreamViewType": "NEW_IMAGE"
        },
        "eventSourceARN": "arn:aws:dynamodb:us-east-1:123456789012:table/ciam-tally/stream/2027-01-01T00:00:00.000"
    })
}

/// Signs in by each of `names`, and the sessions written (in order).
async fn sign_ins(t: &Table, names: &[&str]) -> Vec<Key> {
    let before = t.spy.written().len();
    for name in names {
        login_password(&t.ciam, name, PASSWORD, &ClientInfo::default())
            .await
            .unwrap_or_else(|e| panic!("{name} signs in: {e:?}"));
    }
    t.spy.written()[before..]
        .iter()
        .filter(|k| k.sk.starts_with("SESSION#"))
        .cloned()
        .collect()
}

/// `n` of each counter the batch's week and month hold, read shard by shard (and the unsharded
/// items of before the shards), and what the overview shows of today and this month.
struct Counted {
    shards_success: i64,
    shards_active: i64,
    shards_month_active: i64,
    overview_success: i64,
    overview_password: i64,
    overview_active: i64,
    overview_month_active: i64,
}

async fn counted(ciam: &Ciam) -> Counted {
    let day = Day::of(START);
    let add = |items: Vec<Option<ciam_store::Item>>, attr: &str| -> i64 {
        items.iter().flatten().filter_map(|i| i.n(attr)).sum()
    };
    let weeks = ciam.store.get_many(&numbers::week_keys(day)).await.unwrap();
    let months = ciam
        .store
        .get_many(&numbers::month_keys(day))
        .await
        .unwrap();
    let o = numbers::overview(ciam, ciam.now()).await.unwrap();
    let today = o.days.last().unwrap();
    assert_eq!(today.day, day.date());
    Counted {
        shards_success: add(weeks.clone(), &format!("{FRIDAY}pS")),
        shards_active: add(weeks, &format!("{FRIDAY}a")),
        shards_month_active: add(months, "a"),
        overview_success: today.sign_ins.by_outcome["success"],
        overview_password: today.sign_ins.by_method["password"],
        overview_active: today.active,
        overview_month_active: o.months[0].active,
    }
}

#[tokio::test]
async fn on_dynamodb_the_fan_out_counts_a_batchs_sign_ins_once_per_account_and_still_fans_out() {
    let local = DynamoLocal::start().await;
    let t = table(&local).await;
    let hash = ciam_core::password::hash(PASSWORD.into(), [7; 16])
        .await
        .unwrap();
    // ann: active yesterday (this month); bob: never; carl: two days ago, and signs in twice
    // (the second a repeat of the day); dana: last month, and signs in by her mail and her
    // phone (each name's first of the day, the account's once).
    account(&t, "ann", &["ann@example.com"], Some("2027-01-14"), &hash).await;
    account(&t, "bob", &["bob@example.com"], None, &hash).await;
    account(&t, "carl", &["carl@example.com"], Some("2027-01-13"), &hash).await;
    account(
        &t,
        "dana",
        &["dana@example.com", "13800138000"],
        Some("2026-12-20"),
        &hash,
    )
    .await;
    // A partner app hearing ann's nickname changes.
    let shop = App {
        app_id: "shop".into(),
        ..App::default()
    };
    t.ciam.store.put(shop.to_item(), None).await.unwrap();
    let fields = EndpointFields {
        url: Some("https://shop.example.com/hook".into()),
        events: Some(vec!["user.updated".into()]),
        description: Some(String::new()),
        ..EndpointFields::default()
    };
    webhooks::create(&t.ciam, "shop", fields, |_| None)
        .await
        .unwrap();
    let consent = Consent {
        user_id: "ann".into(),
        app_id: "shop".into(),
        scopes: vec!["openid".into(), "nickname".into()],
        granted_at: START - 86_400,
        since: START - 86_400,
    };
    t.ciam.store.put(consent.to_item(), None).await.unwrap();

    let sessions = sign_ins(
        &t,
        &[
            "ann@example.com",
            "bob@example.com",
            "carl@example.com",
            "carl@example.com",
            "dana@example.com",
            "13800138000",
        ],
    )
    .await;
    assert_eq!(sessions.len(), 6);
    // The sign-in's own writes counted nothing: the sessions carry it.
    assert_eq!(counted(&t.ciam).await.shards_success, 0);
    let mut data = Map::new();
    data.insert("nickname".into(), json!("小安"));
    let event = Event::new(&t.ciam, "ann", Kind::UserUpdated, data);
    t.ciam.store.put(event.to_item(), None).await.unwrap();

    // The batch as the mapping hands it over: the sessions, the event among them, and a
    // session's later refresh (a MODIFY: the filter keeps those out, the function ignores them).
    let mut records = Vec::new();
    for (i, key) in sessions.iter().enumerate() {
        records.push(record(&t, key, 100 + i as u64, "INSERT").await);
        if i == 2 {
            records.push(record(&t, &event.key(), 150, "INSERT").await);
        }
    }
    records.push(record(&t, &sessions[0], 160, "MODIFY").await);
    let images: Vec<&Value> = records.iter().map(|r| &r["dynamodb"]["NewImage"]).collect();
    let carried: Vec<(Option<&str>, Option<&str>)> = images
        .iter()
        .filter(|i| i["sk"]["S"].as_str().unwrap().starts_with("SESSION#"))
        .map(|i| (i["tm"]["S"].as_str(), i["tn"]["N"].as_str()))
        .collect();
    // carl's second sign-in is a repeat of the day: no `tn`.
    assert_eq!(
        carried,
        [
            (Some("password"), Some("1")),
            (Some("password"), Some("1")),
            (Some("password"), Some("1")),
            (Some("password"), None),
            (Some("password"), Some("1")),
            (Some("password"), Some("1")),
            (Some("password"), Some("1")),
        ]
    );

    let pipeline = CorePipeline {
        transport: Arc::new(NoTransport),
        ..CorePipeline::new(t.ciam.clone())
    };
    let queue = Recorded::default();
    t.spy.take_calls();
    t.spy.bill_writes();
    let written_before = t.spy.written().len();
    let answer = on_stream(&pipeline, &queue, &json!({ "Records": records })).await;
    assert_eq!(answer, json!({"batchItemFailures": []}));
    let calls = t.spy.take_calls();
    let bill = t.spy.take_bill();
    let written = t.spy.written()[written_before..].to_vec();

    // The event still fans out: one delivery of ann's change, to shop's endpoint.
    let sent = queue.sent.lock().unwrap().clone();
    assert_eq!(sent.len(), 1, "{sent:?}");
    assert_eq!(
        (sent[0].lane, sent[0].group.as_str()),
        (Lane::Events, "shop")
    );
    let (ob, _) = ciam_lambdas::webhooks::outbound(&sent[0].body, 1).unwrap();
    assert_eq!(ob.event_id, event.id);

    // Six sign-ins; four accounts active today (dana once for her two names, carl once for his
    // two sign-ins); two new this month (bob, never before; dana, last month).
    let c = counted(&t.ciam).await;
    assert_eq!(
        (c.shards_success, c.shards_active, c.shards_month_active),
        (6, 4, 2)
    );
    // The shards add up to what the console's overview shows.
    assert_eq!(
        (
            c.overview_success,
            c.overview_password,
            c.overview_active,
            c.overview_month_active
        ),
        (
            c.shards_success,
            c.shards_success,
            c.shards_active,
            c.shards_month_active
        )
    );
    // What the batch's tally wrote: one week shard and one month shard for the whole batch
    // (no item takes a write per sign-in), and each account's `activeDay` once.
    let stats: Vec<&Key> = written
        .iter()
        .filter(|k| k.pk.starts_with("STATS#"))
        .collect();
    assert_eq!(stats.len(), 2, "{stats:?}");
    assert!(stats[0].pk.starts_with("STATS#2027-W02#"), "{stats:?}");
    assert!(stats[1].pk.starts_with("STATS#2027-01#"), "{stats:?}");
    let mut users: Vec<&str> = written
        .iter()
        .filter(|k| k.sk == "PROFILE")
        .map(|k| k.pk.as_str())
        .collect();
    users.sort_unstable();
    assert_eq!(users, ["USER#ann", "USER#bob", "USER#carl", "USER#dana"]);
    assert_eq!(written.len(), 6, "nothing else written: {written:?}");
    let tally_units: u64 = bill
        .iter()
        .filter(|b| b.key.pk.starts_with("STATS#") || b.key.sk == "PROFILE")
        .map(|b| b.units)
        .sum();
    let of = |name: &str| calls.iter().filter(|(op, _)| *op == name).count();
    // The fan-out's own: the user's consents and the app's endpoints (2 queries). The tally's:
    // the user item's read per session carrying `tn` (5: carl's repeat is not read), its
    // conditional update per account's first of the day (4), and the two shards' `ADD`s.
    assert_eq!(
        (
            of("query"),
            of("get"),
            of("update_or_current"),
            of("update")
        ),
        (2, 5, 4, 2),
        "{calls:?}"
    );
    assert_eq!(calls.len(), 13, "{calls:?}");
    println!(
        "the tally of a batch of 6 password sign-ins (4 accounts' first of the day, 2 of the \
         month): {} reads (1 RRU each), {} writes, {tally_units} WRU (4 user items, 2 shards)",
        of("get"),
        of("update_or_current") + of("update"),
    );

    // The same sessions again (a retry would do this): the accounts' days are not news any
    // more, only the sign-ins count: one shard write, no user item write.
    let before = t.spy.written().len();
    let again: Vec<Value> = {
        let mut out = Vec::new();
        for (i, key) in sessions.iter().enumerate() {
            out.push(record(&t, key, 200 + i as u64, "INSERT").await);
        }
        out
    };
    on_stream(&pipeline, &queue, &json!({ "Records": again })).await;
    let c = counted(&t.ciam).await;
    assert_eq!(
        (c.shards_success, c.shards_active, c.shards_month_active),
        (12, 4, 2)
    );
    let after: Vec<Key> = t.spy.written()[before..].to_vec();
    assert_eq!(after.len(), 1, "{after:?}");
    assert!(after[0].pk.starts_with("STATS#2027-W02#"));
}

#[tokio::test]
async fn on_dynamodb_a_batch_whose_tally_fails_still_succeeds_and_fans_its_events_out() {
    let local = DynamoLocal::start().await;
    let t = table(&local).await;
    let hash = ciam_core::password::hash(PASSWORD.into(), [9; 16])
        .await
        .unwrap();
    account(&t, "eve", &["eve@example.com"], None, &hash).await;
    let shop = App {
        app_id: "shop".into(),
        ..App::default()
    };
    t.ciam.store.put(shop.to_item(), None).await.unwrap();
    let fields = EndpointFields {
        url: Some("https://shop.example.com/hook".into()),
        events: Some(vec!["user.updated".into()]),
        description: Some(String::new()),
        ..EndpointFields::default()
    };
    webhooks::create(&t.ciam, "shop", fields, |_| None)
        .await
        .unwrap();
    let consent = Consent {
        user_id: "eve".into(),
        app_id: "shop".into(),
        scopes: vec!["nickname".into()],
        granted_at: START - 86_400,
        since: START - 86_400,
    };
    t.ciam.store.put(consent.to_item(), None).await.unwrap();
    let sessions = sign_ins(&t, &["eve@example.com", "eve@example.com"]).await;
    let mut data = Map::new();
    data.insert("nickname".into(), json!("Eve"));
    let event = Event::new(&t.ciam, "eve", Kind::UserUpdated, data);
    t.ciam.store.put(event.to_item(), None).await.unwrap();
    let records = vec![
        record(&t, &sessions[0], 300, "INSERT").await,
        record(&t, &event.key(), 301, "INSERT").await,
        record(&t, &sessions[1], 302, "INSERT").await,
    ];
    // The counters' partition throttled and the user items unreadable, for the whole batch.
    t.faults.outage(Op::Update, "STATS#", Fault::Throttling);
    t.faults.outage(Op::Get, "USER#", Fault::ServerError);
    let pipeline = CorePipeline {
        transport: Arc::new(NoTransport),
        ..CorePipeline::new(t.ciam.clone())
    };
    let queue = Recorded::default();
    let answer = on_stream(&pipeline, &queue, &json!({ "Records": records })).await;
    // Never a failed record: the stream would hand the batch back, and the event would be
    // delivered twice.
    assert_eq!(answer, json!({"batchItemFailures": []}));
    assert_eq!(
        queue.sent.lock().unwrap().len(),
        1,
        "the event still fans out"
    );
    assert!(
        t.faults.fired().iter().any(|(op, _)| *op == Op::Update),
        "the tally tried: {:?}",
        t.faults.fired()
    );
    t.faults.clear();
    let c = counted(&t.ciam).await;
    assert_eq!(
        (c.shards_success, c.overview_success, c.overview_active),
        (0, 0, 0),
        "not counted (best effort), and nothing half-counted"
    );
}
