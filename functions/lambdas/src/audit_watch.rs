//! The audit log's tripwire (issue 30 item 4, docs/operations.md §11): IAM lets only the audited
//! routes put `AUDIT#` items and nobody update or delete one, but a PutItem on an existing key
//! replaces the entry (or gives it a past expiry that TTL then deletes), and no IAM condition can
//! refuse that. The table's stream says it: a replaced item is a `MODIFY` record, a deleted one a
//! `REMOVE`. The fan-out's event source mapping passes those of `AUDIT#` items (its second
//! filter, functions/gen/src/webhooks.rs) and the fan-out hands each record here first: a change
//! or a removal not made by TTL (`userIdentity` `Service` / `dynamodb.amazonaws.com`) logs an
//! error line and the metric `Ciam/Audit` `AuditTampered` (CloudWatch Embedded Metric Format),
//! which the alarm `AuditTamperedAlarm` pages on.

use serde_json::{json, Value};

pub const METRIC_NAMESPACE: &str = "Ciam/Audit";
pub const METRIC_NAME: &str = "AuditTampered";
/// The partition prefix of the console's audit entries (`ciam_core::console::audit`).
pub const AUDIT_PK_PREFIX: &str = "AUDIT#";

/// What one stream record did to the audit log.
#[derive(Debug, PartialEq, Eq)]
pub enum AuditChange {
    /// Not an audit entry, or its insert: not the tripwire's.
    None,
    /// Removed by the table's TTL (its retention ran out): expected.
    Expired,
    /// Changed (`MODIFY`: an update, or a PutItem over it) or deleted by a caller.
    Tampered {
        event: String,
        pk: String,
        sk: String,
    },
}

/// Whether `record` (one DynamoDB stream record, as Lambda delivers it) changed or removed an
/// audit entry, and how.
pub fn classify(record: &Value) -> AuditChange {
    let keys = &record["dynamodb"]["Keys"];
    let pk = keys["pk"]["S"].as_str().unwrap_or_default();
    if !pk.starts_with(AUDIT_PK_PREFIX) {
        return AuditChange::None;
    }
    let event = record["eventName"].as_str().unwrap_or_default();
    let by_ttl = record["userIdentity"]["type"] == "Service"
        && record["userIdentity"]["principalId"] == "dynamodb.amazonaws.com";
    match event {
        "REMOVE" if by_ttl => AuditChange::Expired,
        "MODIFY" | "REMOVE" => AuditChange::Tampered {
            event: event.to_owned(),
            pk: pk.to_owned(),
            sk: keys["sk"]["S"].as_str().unwrap_or_default().to_owned(),
        },
        _ => AuditChange::None,
    }
}

/// One tampering as an Embedded Metric Format line: `Ciam/Audit` `AuditTampered` = 1 (Count),
/// one empty dimension set (one series for the alarm).
pub fn tampered_metric(timestamp_ms: u64) -> String {
    json!({
        "_aws": {
            "Timestamp": timestamp_ms,
            "CloudWatchMetrics": [{
                "Namespace": METRIC_NAMESPACE,
                "Dimensions": [[]],
                "Metrics": [{ "Name": METRIC_NAME, "Unit": "Count" }],
            }],
        },
        METRIC_NAME: 1,
    })
    .to_string()
}

/// Handles `record` if it is the tripwire's: true when it was an audit entry's change or removal
/// (the fan-out has nothing else to do with it).
pub fn watch(record: &Value) -> bool {
    match classify(record) {
        AuditChange::None => false,
        AuditChange::Expired => true,
        AuditChange::Tampered { event, pk, sk } => {
            tracing::error!(event = %event, pk = %pk, sk = %sk, "audit entry changed or removed before its retention");
            // Straight to stdout: EMF needs `_aws` at the top level (origin.rs says why).
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
                .unwrap_or(0);
            println!("{}", tampered_metric(now));
            true
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn record(event: &str, pk: &str, identity: Option<Value>) -> Value {
        let mut r = json!({
            "eventName": event,
            "dynamodb": {"Keys": {"pk": {"S": pk}, "sk": {"S": "1764633600000#a1b2c3"}}},
        });
        if let Some(id) = identity {
            r["userIdentity"] = id;
        }
        r
    }

    fn ttl() -> Option<Value> {
        Some(json!({"type": "Service", "principalId": "dynamodb.amazonaws.com"}))
    }

    #[test]
    fn a_replaced_or_deleted_audit_entry_is_tampering_and_its_expiry_is_not() {
        let pk = "AUDIT#2026-12-02";
        for event in ["MODIFY", "REMOVE"] {
            assert_eq!(
                classify(&record(event, pk, None)),
                AuditChange::Tampered {
                    event: event.into(),
                    pk: pk.into(),
                    sk: "1764633600000#a1b2c3".into()
                },
                "{event}"
            );
        }
        assert_eq!(classify(&record("REMOVE", pk, ttl())), AuditChange::Expired);
        // TTL never modifies: a MODIFY claiming the service is still a change.
        assert!(matches!(
            classify(&record("MODIFY", pk, ttl())),
            AuditChange::Tampered { .. }
        ));
        // Another principal's removal is not TTL's.
        let other = Some(json!({"type": "Service", "principalId": "backup.amazonaws.com"}));
        assert!(matches!(
            classify(&record("REMOVE", pk, other)),
            AuditChange::Tampered { .. }
        ));
    }

    #[test]
    fn inserts_and_other_items_are_not_the_tripwires() {
        assert_eq!(
            classify(&record("INSERT", "AUDIT#2026-12-02", None)),
            AuditChange::None
        );
        for event in ["MODIFY", "REMOVE", "INSERT"] {
            assert_eq!(classify(&record(event, "USER#u1", None)), AuditChange::None);
            assert_eq!(classify(&record(event, "EVT#u1", None)), AuditChange::None);
        }
        assert!(!watch(&record("INSERT", "EVT#u1", None)));
        assert!(watch(&record("REMOVE", "AUDIT#2026-12-02", ttl())));
    }

    #[test]
    fn the_metric_line_is_embedded_metric_format_at_the_top_level() {
        let v: Value = serde_json::from_str(&tampered_metric(7)).unwrap();
        let d = &v["_aws"]["CloudWatchMetrics"][0];
        assert_eq!(d["Namespace"], "Ciam/Audit");
        assert_eq!(d["Metrics"][0]["Name"], "AuditTampered");
        assert_eq!(d["Dimensions"], json!([[]]));
        assert_eq!(v["AuditTampered"], 1);
        assert_eq!(v["_aws"]["Timestamp"], 7);
    }
}
