//! One function per change of a connection, for a caller: an owner or admin of the organization
//! ("My company", routes/org_connections.rs) or an operator with a reason (the console,
//! routes/admin_org_connections.rs). The two routes differ only in who calls; the rules, the
//! refusals and their order are these.

use super::routing::connection_of;
use super::{Connection, NewConnection, Patch};
use crate::domains::manage::may_change;
use crate::error::Result;
use crate::org::access::Caller;
use crate::org::Organization;
use crate::Ciam;

/// Adds a connection to `o` as `caller` ([`super::create`]): an owner or admin
/// (ORG_ROLE_FORBIDDEN), or an operator, of an active organization (ORG_NOT_ACTIVE). Round
/// trips: 2 (the organization's list, one transaction).
pub async fn add(
    ciam: &Ciam,
    caller: &Caller,
    o: &Organization,
    new: NewConnection,
) -> Result<Connection> {
    may_change(caller, o)?;
    super::create(ciam, caller, &o.org_id, new).await
}

/// Changes `o`'s connection `conn_id` as `caller` ([`super::update`]; CONNECTION_NOT_FOUND for
/// one it does not have). Round trips: 2 (the connection, one transaction); 3 turning it off.
pub async fn change(
    ciam: &Ciam,
    caller: &Caller,
    o: &Organization,
    conn_id: &str,
    patch: Patch,
) -> Result<Connection> {
    may_change(caller, o)?;
    let c = connection_of(ciam.store.as_ref(), &o.org_id, conn_id).await?;
    super::update(ciam, caller, &c, patch).await
}

/// Deletes `o`'s connection `conn_id` as `caller` ([`super::delete`]). Round trips: 3 (the
/// connection, its routed domains, one transaction).
pub async fn remove(ciam: &Ciam, caller: &Caller, o: &Organization, conn_id: &str) -> Result<()> {
    may_change(caller, o)?;
    let c = connection_of(ciam.store.as_ref(), &o.org_id, conn_id).await?;
    super::delete(ciam, caller, &c).await
}
