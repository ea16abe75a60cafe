//! Webhook endpoints in the console (design §5, docs/events-design.md §3): the registry of
//! `crate::webhooks` read by any console role and changed by admins, each change (`webhook.create`,
//! `webhook.update`, `webhook.rotateSecret`, `webhook.delete`, `webhook.replay`; target: the app
//! id; detail: the endpoint id) with a reason and an audit entry that `crate::webhooks` writes in
//! the change's transaction, as `console::apps` does for the apps.

use super::accounts::reason_of;
use super::audit::{AuditAction, Entry, RequestFacts};
use super::Operator;
use crate::error::Result;
use crate::Ciam;
use ciam_store::TxOp;

/// The audit of one operator's change to one app's endpoints: the reason, checked before
/// anything is written (INVALID_PARAMETER on `reason`), and the entry each change puts in its
/// transaction.
pub struct Audit<'a> {
    ciam: &'a Ciam,
    op: &'a Operator,
    app_id: &'a str,
    reason: String,
    req: &'a RequestFacts,
}

impl<'a> Audit<'a> {
    pub fn new(
        ciam: &'a Ciam,
        op: &'a Operator,
        app_id: &'a str,
        reason: &str,
        req: &'a RequestFacts,
    ) -> Result<Audit<'a>> {
        Ok(Audit {
            ciam,
            op,
            app_id,
            reason: reason_of(reason)?,
            req,
        })
    }

    /// The put of the entry of `action` on `endpoint_id`, for the change's transaction.
    pub fn entry(&self, action: AuditAction, endpoint_id: &str) -> TxOp {
        Entry::new(
            self.ciam,
            self.op,
            action,
            self.app_id,
            Some(&self.reason),
            Some(endpoint_id.to_owned()),
            self.req,
        )
        .put()
    }
}
