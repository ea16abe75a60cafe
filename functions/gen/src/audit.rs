//! Who may write the console's audit log (issue 30 item 4, docs/operations.md §11), from the
//! route table: the routes that record an operator act (`ciam_core::console::audit`: the
//! console's changing routes; the registry is the console's since issue 30) hold `TableAuditWritePolicy` (put an entry, never change or delete one); every other
//! writing route holds `TableWritePolicy`, which denies every write of an `AUDIT#` item. A
//! replacement by PutItem, which IAM cannot refuse, is seen on the table's stream: the fan-out
//! mapping's second filter (`stream_filter`) hands changed and removed entries to the fan-out,
//! whose tripwire (functions/lambdas/src/audit_watch.rs) counts `Ciam/Audit` `AuditTampered`.

use crate::Function;
use ciam_api::{Auth, Table};

/// The partition prefix of the audit entries (`AUDIT#<yyyy-mm-dd>`).
pub const AUDIT_PK_PREFIX: &str = "AUDIT#";

/// Whether the function's route writes audit entries: a changing method (not GET) of a console
/// route, on a writing row. Keep it equal to the routes that call
/// `ciam_core::console::audit` (`Entry::new`, `record`): a route that writes an entry without
/// it is refused by IAM in AWS (its PutItem on `AUDIT#` denied).
pub fn writes_audit(f: &Function) -> bool {
    let changes = !matches!(f.method.as_str(), "GET" | "HEAD" | "OPTIONS" | "");
    let operator = matches!(f.auth, Auth::Console(_));
    changes && operator && f.lambda.table == Table::Write && !f.internal
}

/// The fan-out mapping's filter of the tripwire: changes and removals of audit entries (TTL's
/// removals included; the tripwire tells them apart by `userIdentity`).
pub fn stream_filter() -> String {
    format!(
        r#"{{"eventName": ["MODIFY", "REMOVE"], "dynamodb": {{"Keys": {{"pk": {{"S": [{{"prefix": "{AUDIT_PK_PREFIX}"}}]}}}}}}}}"#
    )
}
