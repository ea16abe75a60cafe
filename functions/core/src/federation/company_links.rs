//! The keys of a company's sign-in links (docs/organizations-connections.md §0.6): one builder
//! for what `org_sign_in` writes, `links::delete_ops` deletes and `identities` lists, so the
//! shapes cannot drift apart.
//!
//! - `FEDID#org:<connId>#<subject>` / `LINK`: the lookup of a connection's subject (two
//!   companies' subjects never collide);
//! - `USER#<userId>` / `FED#org:<connId>`: the account's item of that link.

use crate::org::connections::ConnId;
use crate::user::user_pk;
use ciam_store::Key;

/// A company link's provider name (`org:<connId>`) starts with this.
const PREFIX: &str = "org:";

/// The provider name of a link through `conn`: `org:<connId>` (the `FED#` item's name, the
/// security centre's provider).
pub fn provider(conn: &ConnId) -> String {
    format!("{PREFIX}{}", conn.as_str())
}

/// The connection a provider name (`org:<connId>`, without `FED#`) names, if it is a company's.
pub fn conn_of(name: &str) -> Option<ConnId> {
    name.strip_prefix(PREFIX).and_then(ConnId::parse)
}

/// The lookup item of `conn`'s `subject`: `FEDID#org:<connId>#<subject>` / `LINK`.
pub fn link_key(conn: &ConnId, subject: &str) -> Key {
    Key::new(format!("FEDID#{}#{subject}", provider(conn)), "LINK")
}

/// The account's item of its link through `conn`: `USER#<userId>` / `FED#org:<connId>`.
pub fn account_link_key(user_id: &str, conn: &ConnId) -> Key {
    Key::new(user_pk(user_id), format!("FED#{}", provider(conn)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_keys_name_the_connection_and_the_subject() {
        let conn = ConnId::parse(&format!("conn_{}", "a".repeat(16))).unwrap();
        let c = conn.as_str();
        let k = link_key(&conn, "sub-1");
        assert_eq!(k.pk, format!("FEDID#org:{c}#sub-1"));
        assert_eq!(k.sk, "LINK");
        let k = account_link_key("u1", &conn);
        assert_eq!(
            (k.pk.as_str(), k.sk.clone()),
            ("USER#u1", format!("FED#org:{c}"))
        );
        assert_eq!(conn_of(&format!("org:{c}")), Some(conn));
        assert_eq!(conn_of("mock"), None);
    }
}
