//! Who may write the console's audit log (issue 30 item 4, docs/operations.md §11), from the
//! route table: the routes that record an operator act (`ciam_core::console::audit`: the
//! console's changing routes, and the registry's, whose acts are audited like the console's)
//! hold `TableAuditWritePolicy` (put an entry, never change or delete one); every other
//! writing route holds `TableWritePolicy`, which denies every write of an `AUDIT#` item. A
//! replacement by PutItem, which IAM cannot refuse, is seen on the table's stream: the fan-out
//! mapping's second filter (`stream_filter`) hands changed and removed entries to the fan-out,
//! whose tripwire (functions/lambdas/src/audit_watch.rs) counts `Ciam/Audit` `AuditTampered`.

use crate::Function;
use ciam_api::{Auth, Table};

/// The partition prefix of the audit entries (`AUDIT#<yyyy-mm-dd>`).
pub const AUDIT_PK_PREFIX: &str = "AUDIT#";

/// The registry API's paths (`/ciam/v1/app/...`): its changing routes record operator acts.
fn registry(path: &str) -> bool {
    let app = format!("{}/app", ciam_api::BASE);
    path == app || path.starts_with(&format!("{app}/"))
}

/// Whether the function's route writes audit entries: a changing method (not GET) of a console
/// route or of the registry, on a writing row. Keep it equal to the routes that call
/// `ciam_core::console::audit` (`Entry::new`, `record`): a route that writes an entry without
/// it is refused by IAM in AWS (its PutItem on `AUDIT#` denied).
pub fn writes_audit(f: &Function) -> bool {
    let changes = !matches!(f.method.as_str(), "GET" | "HEAD" | "OPTIONS" | "");
    let operator = matches!(f.auth, Auth::Console(_)) || registry(&f.path);
    changes && operator && f.lambda.table == Table::Write && !f.internal
}

/// The fan-out mapping's filter of the tripwire: changes and removals of audit entries (TTL's
/// removals included; the tripwire tells them apart by `userIdentity`).
pub fn stream_filter() -> String {
    format!(
        r#"{{"eventName": ["MODIFY", "REMOVE"], "dynamodb": {{"Keys": {{"pk": {{"S": [{{"prefix": "{AUDIT_PK_PREFIX}"}}]}}}}}}}}"#
    )
}
