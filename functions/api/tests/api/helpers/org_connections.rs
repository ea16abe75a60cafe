//! The connection tests' set-up (org_connection_routes.rs, org_connection_walk.rs, and the domain
//! routes', org_domain_routes.rs): an organization with an owner, an admin and a member, another
//! organization, a console viewer and operator; a domain verified directly (its proof is
//! org_domain_routes.rs's); a test sign-in's outcome recorded directly (the test route is the
//! sign-in's); the routing on the owner item.

use super::{TestApp, TestResponse};
use axum::http::Method;
use ciam_core::console::Role as ConsoleRole;
use ciam_core::domains::claims;
use ciam_core::domains::DomainName;
use ciam_core::org::connections::{self, ConnId};
use ciam_core::org::OrgId;
use serde_json::{json, Value};

/// The secrets the tests send: none may appear in any answer.
pub(crate) const SECRETS: &[&str] = &[
    "oidc-s3cret",
    "wecom-s3cret",
    "dingtalk-s3cret",
    "feishu-s3cret",
    "rotated-s3cret",
];

pub(crate) fn body(protocol: &str) -> Value {
    let (settings, secret) = match protocol {
        "oidc" => (
            json!({ "issuer": "https://login.acme.example/tenant", "clientId": "ciam-portal" }),
            SECRETS[0],
        ),
        "wecom" => (
            json!({ "corpId": "ww0123", "agentId": "1000002" }),
            SECRETS[1],
        ),
        "dingtalk" => (
            json!({ "clientId": "dingabc", "corpId": "ding-corp" }),
            SECRETS[2],
        ),
        _ => (
            json!({ "appId": "cli_a1", "tenantKey": "t-acme", "region": "lark" }),
            SECRETS[3],
        ),
    };
    json!({ "protocol": protocol, "nameEn": format!("Acme {protocol}"), "settings": settings, "secret": secret })
}

#[track_caller]
fn no_secret(res: &TestResponse) {
    for s in SECRETS {
        assert!(!res.text.contains(s), "a secret in an answer: {}", res.text);
    }
    assert!(!res.text.contains("\"secret\":"), "{}", res.text);
}

pub(crate) struct Setup {
    pub(crate) org: String,
    pub(crate) other_org: String,
    pub(crate) owner: String,
    pub(crate) admin: String,
    pub(crate) member: String,
    pub(crate) other: String,
    pub(crate) viewer: String,
    pub(crate) operator: String,
}

impl TestApp {
    pub(crate) async fn conn_call(
        &self,
        m: Method,
        p: &str,
        token: &str,
        b: Option<&Value>,
    ) -> TestResponse {
        let res = self.admin_call(m, p, Some(token), b).await;
        no_secret(&res);
        res
    }

    pub(crate) async fn conn_setup(&self) -> Setup {
        let (_, operator) = self.staffer("op", Some(ConsoleRole::Operator)).await;
        let (_, viewer) = self.staffer("viewer", Some(ConsoleRole::Viewer)).await;
        let (owner_id, owner) = self.staffer("owner", None).await;
        let (other_id, other) = self.staffer("other", None).await;
        let org = self.org_owned_by(&operator, &owner_id, "Acme").await;
        let other_org = self.org_owned_by(&operator, &other_id, "Other").await;
        let mut joined = Vec::new();
        for (name, role) in [("adm", "admin"), ("mem", "member")] {
            let mail = format!("{name}@example.com");
            self.invite(&owner, &org, &mail, Some(role)).await.ok(201);
            let t = self.invitation_for(&mail);
            let (_, tok) = self.staffer(name, None).await;
            self.accept(&tok, &t).await.ok(200);
            joined.push(tok);
        }
        let [admin, member] = <[_; 2]>::try_from(joined).expect("two");
        Setup {
            org,
            other_org,
            owner,
            admin,
            member,
            other,
            viewer,
            operator,
        }
    }

    /// Makes `domain` `org`'s verified domain (the proof is org_domain_routes.rs's).
    pub(crate) async fn verified(&self, org: &str, domain: &str) {
        let org = OrgId::parse(org).expect("org");
        self.claimed(&org, domain, "test", true).await;
    }

    /// A passed (or failed) test sign-in of the connection, as the test route records it.
    pub(crate) async fn tested(&self, org: &str, conn: &str, passed: bool) {
        let store = self.ciam.store.as_ref();
        let org = OrgId::parse(org).expect("org");
        let c = connections::get(store, &org, &ConnId::parse(conn).expect("id"))
            .await
            .expect("get")
            .expect("there");
        connections::record_test(&self.ciam, &c, passed)
            .await
            .expect("recorded");
    }

    /// The routing on the domain's owner item: (connId, required).
    pub(crate) async fn owner_routing(&self, domain: &str) -> Option<(String, bool)> {
        let d = DomainName::parse(domain).expect("domain");
        claims::owner_of(self.ciam.store.as_ref(), &d)
            .await
            .expect("owner")
            .and_then(|o| o.sign_in)
            .map(|s| (s.conn.as_str().to_owned(), s.required))
    }

    /// The domain as the organization's list shows it.
    pub(crate) async fn listed_domain(&self, token: &str, org: &str, domain: &str) -> Value {
        let p = format!("/org/{org}/domains");
        self.conn_call(Method::GET, &p, token, None).await.ok(200)["domains"]
            .as_array()
            .expect("domains")
            .iter()
            .find(|d| d["domain"] == domain)
            .cloned()
            .unwrap_or_else(|| panic!("{domain} not listed"))
    }

    /// The organization's slice entries of connections and routings (action, target), sorted.
    pub(crate) async fn conn_slice(&self, token: &str, org: &str) -> Vec<(String, String)> {
        let p = format!("/org/{org}/audit");
        let mut v: Vec<_> = self.conn_call(Method::GET, &p, token, None).await.ok(200)["entries"]
            .as_array()
            .expect("entries")
            .iter()
            .filter(|e| {
                e["action"]
                    .as_str()
                    .is_some_and(|a| a.starts_with("connection.") || a == "domain.signIn")
            })
            .map(|e| {
                (
                    e["action"].as_str().unwrap_or_default().to_owned(),
                    e["target"].as_str().unwrap_or_default().to_owned(),
                )
            })
            .collect();
        v.sort();
        v
    }
}

pub(crate) fn id_of(v: &Value) -> String {
    v["connId"].as_str().expect("connId").to_owned()
}
