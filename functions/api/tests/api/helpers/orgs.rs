//! An organization's set-up for the tests that need one and test something else, made through
//! `ciam_core` as the routes do (the routes that make them are tested in organizations.rs,
//! org_domain_routes.rs, org_connection_routes.rs): an active organization with its owner, a
//! domain claimed (and verified), a connection of an operator's (tested and turned on).

use super::TestApp;
use ciam_core::domains::claims::{self, Method as Proof};
use ciam_core::domains::DomainName;
use ciam_core::org::access::Caller;
use ciam_core::org::connections::{self, ConnId, NewConnection};
use ciam_core::org::{self, NewOrg, OrgId, Status};

/// The operator the set-up acts as.
pub(crate) fn set_up_operator() -> Caller {
    Caller::operator("operator-1", "operator", "set-up", vec![])
}

impl TestApp {
    /// An active organization `en` (`<en>公司` in Chinese) owned by `owner`: its id.
    pub(crate) async fn active_org(&self, owner: &str, en: &str) -> OrgId {
        let new = NewOrg {
            name_zh: format!("{en}公司"),
            name_en: en.into(),
            status: Status::Active,
            owner: Some(owner.to_owned()),
            by: "operator-1".into(),
            by_role: "operator".into(),
            reason: Some("contract".into()),
        };
        org::create(&self.ciam, new, vec![])
            .await
            .expect("organization")
            .org_id
    }

    /// `domain` claimed by `org` (by DNS, by `by`) and, when `verified`, verified (as the mail
    /// or DNS proof does; the proofs are org_domains.rs's).
    pub(crate) async fn claimed(&self, org: &OrgId, domain: &str, by: &str, verified: bool) {
        let store = self.ciam.store.as_ref();
        let d = DomainName::parse(domain).expect("domain");
        let entropy = self.ciam.entropy.as_ref();
        let claim = claims::add(store, entropy, self.now(), org, &d, Proof::Dns, by)
            .await
            .expect("claim");
        if verified {
            claims::mark_verified(store, self.now(), org, &claim, Vec::new())
                .await
                .expect("verified");
        }
    }

    /// The operator's connection `new` of `org`, a draft, or tested and turned on when `on`.
    pub(crate) async fn connection_made(
        &self,
        org: &OrgId,
        new: NewConnection,
        on: bool,
    ) -> ConnId {
        let c = connections::create(&self.ciam, &set_up_operator(), org, new)
            .await
            .expect("connection");
        if on {
            connections::record_test(&self.ciam, &c, true)
                .await
                .expect("tested");
            let c = connections::get(self.ciam.store.as_ref(), org, &c.conn_id)
                .await
                .expect("read")
                .expect("there");
            connections::set_on(&self.ciam, &set_up_operator(), &c, true)
                .await
                .expect("on");
        }
        c.conn_id
    }
}
