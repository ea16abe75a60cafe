//! An organization's partner events (docs/organizations-design.md §6): `organization.member_added`,
//! `organization.member_removed`, `organization.invitation_accepted`. Each is an item of the
//! organization's event partition `EVT#ORG#<orgId>` put in the change's transaction, heard by the
//! apps the organization consented to (`eventApps`), recorded on the event as its `audience`
//! when the change commits: the fan-out reads no consent and no organization (docs/events-design.md
//! §1 "Who hears it"). An organization without `eventApps` writes no event (nobody could hear it),
//! so its changes cost what they did.

use super::{Organization, Role};
use crate::events::{Event, Kind};
use crate::Ciam;
use ciam_store::TxOp;
use serde_json::{Map, Value as Json};

/// The put of `kind` about `user_id` (their `role`; `invitation`: the accepted invitation's id)
/// in `o`, for the change's transaction, or None when `o` has no `eventApps`.
pub fn op(
    ciam: &Ciam,
    o: &Organization,
    kind: Kind,
    user_id: &str,
    role: Role,
    invitation: Option<&str>,
) -> Option<TxOp> {
    if o.settings.event_apps.is_empty() || !kind.is_org() {
        return None;
    }
    let mut data = Map::new();
    data.insert("orgId".into(), Json::from(o.org_id.as_str()));
    data.insert("role".into(), Json::from(role.as_str()));
    if let Some(inv) = invitation {
        data.insert("invitationId".into(), Json::from(inv));
    }
    let mut e = Event::new(ciam, user_id, kind, data);
    e.org_id = Some(o.org_id.as_str().to_owned());
    // The apps hear the organization's fields only (no scope of the member's consent applies).
    e.audience = Some(
        o.settings
            .event_apps
            .iter()
            .map(|app| (app.clone(), Vec::new()))
            .collect(),
    );
    Some(e.op())
}
