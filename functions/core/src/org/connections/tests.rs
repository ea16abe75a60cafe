use super::*;
use crate::org::access::Caller;
use crate::org::audit;
use crate::org::{create as create_org, Membership, NewOrg, Role, Status as OrgStatus};
use crate::testing::Builder;
use crate::Keys;
use ciam_store::Update;

const NOW: i64 = 1_800_000_000;
const ROOT_A: [u8; 32] = [7; 32];
const ROOT_B: [u8; 32] = [9; 32];

async fn setup() -> (Ciam, OrgId) {
    let ciam = Builder::new(NOW)
        .keys(Keys::from_root(ROOT_A))
        .build()
        .await;
    let o = create_org(
        &ciam,
        NewOrg {
            name_zh: "艾克姆".into(),
            name_en: "Acme".into(),
            status: OrgStatus::Active,
            owner: Some("u1".into()),
            by: "op1".into(),
            by_role: "operator".into(),
            reason: Some("contract".into()),
        },
        vec![],
    )
    .await
    .expect("organization");
    (ciam, o.org_id)
}

fn caller(org: &OrgId, role: Role) -> Caller {
    Caller::member(&Membership {
        org_id: org.clone(),
        user_id: "u1".into(),
        role,
        joined_at: NOW,
        by: "op1".into(),
    })
}

fn settings(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

fn oidc(issuer: &str) -> NewConnection {
    NewConnection {
        protocol: "oidc".into(),
        name_zh: Some("艾克姆统一登录".into()),
        name_en: Some("Acme SSO".into()),
        settings: settings(&[("issuer", issuer), ("clientId", "ciam-portal")]),
        secret: "s3cret-value".into(),
        jit: Some("join".into()),
    }
}

fn field_of(e: &Error) -> (Reason, String) {
    (e.reason, e.field.as_deref().unwrap_or_default().to_owned())
}

#[tokio::test]
async fn an_admin_adds_a_connection_that_is_a_draft_found_by_its_id_with_its_secret_sealed() {
    let (ciam, org) = setup().await;
    let admin = caller(&org, Role::Admin);
    let c = create(
        &ciam,
        &admin,
        &org,
        oidc("https://login.acme.example/tenant"),
    )
    .await
    .expect("created");
    assert_eq!(
        (c.protocol, c.status, c.jit),
        (Protocol::Oidc, Status::Draft, Jit::Join)
    );
    assert!(ConnId::parse(c.conn_id.as_str()).is_some());
    // Sealed at rest: the stored bytes are not the secret, and open to it.
    assert!(!c.secret.windows(12).any(|w| w == b"s3cret-value"));
    assert_eq!(c.open_secret(&ciam).expect("opens"), "s3cret-value");
    let store = ciam.store.as_ref();
    assert_eq!(list(store, &org).await.expect("list"), vec![c.clone()]);
    assert_eq!(
        find(store, &c.conn_id).await.expect("find"),
        Some(c.clone())
    );
    // The admin's view has every setting and no secret.
    let view = serde_json::to_value(c.view(&ciam)).expect("json");
    assert_eq!(
        view["settings"]["issuer"],
        "https://login.acme.example/tenant"
    );
    assert!(view.get("secret").is_none());
    // (The clock stands still: entries of one instant have no order, so it is looked for.)
    let slice = audit::page(store, &org, None).await.expect("slice");
    let entry = slice
        .iter()
        .find(|e| e.action == "connection.create")
        .expect("in the slice");
    assert_eq!(
        (
            entry.target.as_str(),
            entry.detail.as_deref(),
            entry.actor_role.as_str()
        ),
        (c.conn_id.as_str(), Some("oidc"), "admin")
    );
}

#[tokio::test]
async fn a_member_cannot_add_one_and_a_suspended_organization_gets_none() {
    let (ciam, org) = setup().await;
    let e = create(
        &ciam,
        &caller(&org, Role::Member),
        &org,
        oidc("https://idp.example"),
    )
    .await
    .expect_err("a member");
    assert_eq!(e.reason, Reason::ORG_ROLE_FORBIDDEN);
    ciam.store
        .update(
            &crate::org::org_key(&org),
            vec![Update::Set("status".into(), "suspended".into())],
            None,
        )
        .await
        .expect("suspend");
    let e = create(
        &ciam,
        &caller(&org, Role::Owner),
        &org,
        oidc("https://idp.example"),
    )
    .await
    .expect_err("suspended");
    assert_eq!(e.reason, Reason::ORG_NOT_ACTIVE);
    assert!(list(ciam.store.as_ref(), &org)
        .await
        .expect("list")
        .is_empty());
}

#[tokio::test]
async fn settings_are_checked_per_protocol_and_nothing_is_written_for_a_bad_one() {
    let (ciam, org) = setup().await;
    let owner = caller(&org, Role::Owner);
    let cases: Vec<(NewConnection, &str)> = vec![
        (oidc("http://idp.example"), "issuer"),
        (oidc("https://idp.example/?x=1"), "issuer"),
        (oidc("https://user@idp.example"), "issuer"),
        (oidc("ftp://idp.example"), "issuer"),
        (
            NewConnection {
                settings: settings(&[("issuer", "https://idp.example")]),
                ..oidc("")
            },
            "clientId",
        ),
        (
            NewConnection {
                settings: settings(&[
                    ("issuer", "https://idp.example"),
                    ("clientId", "a"),
                    ("corpId", "x"),
                ]),
                ..oidc("")
            },
            "corpId",
        ),
        (
            NewConnection {
                settings: settings(&[("issuer", "https://idp.example"), ("clientId", "has space")]),
                ..oidc("")
            },
            "clientId",
        ),
        (
            NewConnection {
                protocol: "feishu".into(),
                settings: settings(&[("appId", "cli_1"), ("tenantKey", "t1"), ("region", "mars")]),
                ..oidc("")
            },
            "region",
        ),
        (
            NewConnection {
                protocol: "saml".into(),
                ..oidc("https://idp.example")
            },
            "protocol",
        ),
        (
            NewConnection {
                secret: "two words".into(),
                ..oidc("https://idp.example")
            },
            "secret",
        ),
        (
            NewConnection {
                secret: String::new(),
                ..oidc("https://idp.example")
            },
            "secret",
        ),
        (
            NewConnection {
                jit: Some("always".into()),
                ..oidc("https://idp.example")
            },
            "jit",
        ),
    ];
    for (new, field) in cases {
        let e = create(&ciam, &owner, &org, new).await.expect_err(field);
        assert_eq!(
            field_of(&e),
            (Reason::INVALID_PARAMETER, field.to_owned()),
            "{field}"
        );
    }
    assert!(list(ciam.store.as_ref(), &org)
        .await
        .expect("list")
        .is_empty());
    // A loopback issuer may be http (tests, `ciam serve`); every protocol's own settings pass.
    for new in [
        oidc("http://127.0.0.1:9000/idp"),
        oidc("http://localhost:3000"),
        NewConnection {
            protocol: "wecom".into(),
            settings: settings(&[("corpId", "ww0123456789abcdef"), ("agentId", "1000002")]),
            ..oidc("")
        },
        NewConnection {
            protocol: "dingtalk".into(),
            settings: settings(&[("clientId", "dingabc"), ("corpId", "ding0123")]),
            ..oidc("")
        },
        NewConnection {
            protocol: "feishu".into(),
            settings: settings(&[
                ("appId", "cli_a1b2"),
                ("tenantKey", "2ed263bf32cf1651"),
                ("region", "lark"),
            ]),
            ..oidc("")
        },
    ] {
        let p = new.protocol.clone();
        create(&ciam, &owner, &org, new).await.expect(&p);
    }
    assert_eq!(
        list(ciam.store.as_ref(), &org).await.expect("list").len(),
        5
    );
}

#[tokio::test]
async fn only_a_tested_connection_is_turned_on_and_a_failed_test_turns_it_off() {
    let (ciam, org) = setup().await;
    let owner = caller(&org, Role::Owner);
    let store = ciam.store.as_ref();
    let reload = |c: &Connection| {
        let (org, id) = (c.org_id.clone(), c.conn_id.clone());
        async move { get(store, &org, &id).await.expect("get").expect("there") }
    };
    let c = create(&ciam, &owner, &org, oidc("https://idp.example"))
        .await
        .expect("created");
    let e = set_on(&ciam, &owner, &c, true).await.expect_err("a draft");
    assert_eq!(field_of(&e), (Reason::INVALID_PARAMETER, "on".to_owned()));
    assert_eq!(
        record_test(&ciam, &c, true).await.expect("test"),
        Status::Tested
    );
    let c = reload(&c).await;
    assert_eq!((c.status, c.tested_at), (Status::Tested, Some(NOW)));
    let e = set_on(&ciam, &caller(&org, Role::Member), &c, true)
        .await
        .expect_err("member");
    assert_eq!(e.reason, Reason::ORG_ROLE_FORBIDDEN);
    assert_eq!(
        set_on(&ciam, &owner, &c, true).await.expect("on"),
        Status::On
    );
    let c = reload(&c).await;
    assert_eq!(
        record_test(&ciam, &c, true).await.expect("retest"),
        Status::On
    );
    let c = reload(&c).await;
    assert_eq!(
        record_test(&ciam, &c, false).await.expect("failed"),
        Status::Draft
    );
    let c = reload(&c).await;
    assert_eq!(c.status, Status::Draft);
    // A stale copy (changed since it was read) does not overwrite the newer state.
    let stale = c.clone();
    record_test(&ciam, &c, true).await.expect("tested again");
    assert!(set_on(&ciam, &owner, &stale, true).await.is_err());
    let actions: Vec<String> = audit::page(store, &org, None)
        .await
        .expect("slice")
        .into_iter()
        .map(|e| e.action)
        .collect();
    assert!(
        actions.iter().any(|a| a == "connection.status"),
        "{actions:?}"
    );
}

#[tokio::test]
async fn a_sealed_secret_opens_only_for_its_own_connection_and_through_a_root_rotation() {
    let (ciam, org) = setup().await;
    let owner = caller(&org, Role::Owner);
    let a = create(&ciam, &owner, &org, oidc("https://a.example"))
        .await
        .expect("a");
    let b = create(&ciam, &owner, &org, oidc("https://b.example"))
        .await
        .expect("b");
    let moved = Connection {
        secret: a.secret.clone(),
        ..b.clone()
    };
    assert!(
        moved.open_secret(&ciam).is_err(),
        "bound to the connection's id"
    );
    let overlap = Ciam {
        keys: Keys::from_root(ROOT_B).with_previous(ROOT_A),
        ..ciam.clone()
    };
    assert_eq!(a.open_secret(&overlap).expect("overlap"), "s3cret-value");
    let after = Ciam {
        keys: Keys::from_root(ROOT_B),
        ..ciam.clone()
    };
    assert!(
        a.open_secret(&after).is_err(),
        "the retired root opens nothing"
    );
}

#[tokio::test]
async fn an_organization_has_at_most_ten_and_a_deleted_one_is_gone_by_its_id_too() {
    let (ciam, org) = setup().await;
    let owner = caller(&org, Role::Owner);
    let mut made = Vec::new();
    for i in 0..MAX_CONNECTIONS {
        made.push(
            create(
                &ciam,
                &owner,
                &org,
                oidc(&format!("https://idp{i}.example")),
            )
            .await
            .expect("within the limit"),
        );
    }
    let e = create(&ciam, &owner, &org, oidc("https://one-more.example"))
        .await
        .expect_err("11th");
    assert_eq!(
        field_of(&e),
        (Reason::INVALID_PARAMETER, "connections".to_owned())
    );
    let gone = &made[0];
    let e = delete(&ciam, &caller(&org, Role::Member), gone)
        .await
        .expect_err("member");
    assert_eq!(e.reason, Reason::ORG_ROLE_FORBIDDEN);
    delete(&ciam, &owner, gone).await.expect("deleted");
    let store = ciam.store.as_ref();
    assert_eq!(find(store, &gone.conn_id).await.expect("find"), None);
    assert!(store
        .get(&lookup_key(&gone.conn_id))
        .await
        .expect("get")
        .is_none());
    assert_eq!(
        list(store, &org).await.expect("list").len(),
        MAX_CONNECTIONS - 1
    );
    create(&ciam, &owner, &org, oidc("https://room-again.example"))
        .await
        .expect("room again");
}

#[test]
fn ids_have_one_shape() {
    assert!(ConnId::parse("conn_0123456789abcdef").is_some());
    for bad in [
        "conn_0123456789ABCDEF",
        "conn_123",
        "org_0123456789abcdef",
        "",
    ] {
        assert!(ConnId::parse(bad).is_none(), "{bad}");
    }
    for p in Protocol::ALL {
        assert_eq!(Protocol::parse(p.as_str()).expect("round trip"), *p);
        assert!(p.fields().iter().any(|f| f.required));
    }
}

#[tokio::test]
async fn a_routing_written_after_an_off_read_the_domains_makes_the_off_fail_not_leave_it() {
    use crate::domains::{claims, DomainName, Method};
    let (ciam, org) = setup().await;
    let owner = caller(&org, Role::Owner);
    let store = ciam.store.as_ref();
    let c = create(&ciam, &owner, &org, oidc("https://idp.example"))
        .await
        .expect("created");
    record_test(&ciam, &c, true).await.expect("tested");
    let c = get(store, &org, &c.conn_id).await.expect("get").expect("c");
    set_on(&ciam, &owner, &c, true).await.expect("on");
    let read_before = get(store, &org, &c.conn_id).await.expect("get").expect("c");
    let d = DomainName::parse("acme.example").expect("domain");
    let claim = claims::add(
        store,
        ciam.entropy.as_ref(),
        NOW,
        &org,
        &d,
        Method::Dns,
        "u1",
    )
    .await
    .expect("claim");
    claims::mark_verified(store, NOW, &org, &claim, vec![])
        .await
        .expect("verified");
    let o = crate::org::get(store, &org)
        .await
        .expect("get")
        .expect("org");
    routing::set_sign_in(&ciam, &owner, &o, &d, Some(c.conn_id.as_str()), true)
        .await
        .expect("routed");
    // The off read the connection before the routing: it is refused, the routing stays whole.
    let e = set_on(&ciam, &owner, &read_before, false)
        .await
        .expect_err("stale");
    assert_eq!(e.reason, Reason::CONNECTION_CHANGED);
    let owner_item = claims::owner_of(store, &d)
        .await
        .expect("owner")
        .expect("o");
    assert_eq!(
        owner_item.sign_in.map(|s| (s.conn, s.required)),
        Some((c.conn_id.clone(), true))
    );
    // Read again, it goes off and takes the routing with it, from both items.
    let fresh = get(store, &org, &c.conn_id).await.expect("get").expect("c");
    assert_eq!(fresh.rev, 1);
    assert_eq!(
        set_on(&ciam, &owner, &fresh, false).await.expect("off"),
        Status::Tested
    );
    let owner_item = claims::owner_of(store, &d)
        .await
        .expect("owner")
        .expect("o");
    assert_eq!(owner_item.sign_in, None);
    assert_eq!(
        claims::get(store, &org, &d).await.expect("claim").sign_in,
        None
    );
}
