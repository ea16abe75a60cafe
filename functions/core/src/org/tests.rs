use super::*;
use crate::testing::kit;
use ciam_store::Query;

const NOW: i64 = 1_800_000_000;

fn new_org(owner: Option<&str>, status: Status) -> NewOrg {
    NewOrg {
        name_zh: "艾克姆".into(),
        name_en: "Acme".into(),
        status,
        owner: owner.map(str::to_owned),
        by: "op1".into(),
        by_role: "operator".into(),
        reason: Some("contract signed".into()),
    }
}

#[tokio::test]
async fn an_operator_created_organization_has_its_owner_and_the_owner_sees_it() {
    let k = kit(NOW).await;
    let store = k.ciam.store.as_ref();
    let o = create(&k.ciam, new_org(Some("u1"), Status::Active), vec![])
        .await
        .expect("created");
    assert!(OrgId::parse(o.org_id.as_str()).is_some());
    assert_eq!(
        role_of(store, &o.org_id, "u1").await.expect("read"),
        Some(Role::Owner)
    );
    assert_eq!(role_of(store, &o.org_id, "u2").await.expect("read"), None);
    let mine = memberships_of(store, "u1").await.expect("read");
    assert_eq!(mine.len(), 1);
    assert_eq!(
        (mine[0].org_id.clone(), mine[0].role),
        (o.org_id.clone(), Role::Owner)
    );
    let (got, m) = with_membership(store, &o.org_id, "u1").await.expect("read");
    assert_eq!(got.as_ref(), Some(&o));
    assert_eq!(got.map(|g| (g.owners, g.members)), Some((1, 1)));
    assert_eq!(m.map(|m| m.by), Some("op1".to_owned()));
    let slice = audit::page(store, &o.org_id, None).await.expect("read");
    assert_eq!(slice.len(), 1);
    assert_eq!(
        (slice[0].action.as_str(), slice[0].target.as_str()),
        ("org.create", "u1")
    );
    let list = store.query(Query::partition(LIST_PK)).await.expect("list");
    assert_eq!(list.len(), 1);
    assert_eq!(list[0].s("orgId"), Some(o.org_id.as_str()));
}

#[tokio::test]
async fn a_requested_organization_has_no_member_and_waits_in_the_request_list() {
    let k = kit(NOW).await;
    let store = k.ciam.store.as_ref();
    let mut asked = new_org(Some("u9"), Status::Requested);
    asked.by = "u9".into();
    let o = create(&k.ciam, asked, vec![]).await.expect("asked");
    assert_eq!(o.status, Status::Requested);
    assert_eq!(o.requested_by.as_deref(), Some("u9"));
    assert_eq!(role_of(store, &o.org_id, "u9").await.expect("read"), None);
    let reqs = store
        .query(Query::partition(create::REQUESTS_PK))
        .await
        .expect("list");
    assert_eq!(reqs.len(), 1);
    assert_eq!(reqs[0].s("requestedBy"), Some("u9"));
}

#[test]
fn names_take_one_for_the_other_and_refuse_none() {
    assert_eq!(
        NewOrg::names(Some("Acme"), None).expect("one"),
        ("Acme".to_owned(), "Acme".to_owned())
    );
    assert_eq!(
        NewOrg::names(Some(" "), Some("Acme")).expect("one"),
        ("Acme".to_owned(), "Acme".to_owned())
    );
    assert!(NewOrg::names(None, Some("  ")).is_err());
    assert!(NewOrg::names(Some(&"x".repeat(101)), None).is_err());
}

#[test]
fn org_ids_are_parsed_only_in_their_shape() {
    assert!(OrgId::parse("org_0123456789abcdef").is_some());
    for bad in [
        "org_0123",
        "org_0123456789ABCDEF",
        "0123456789abcdef",
        "org_../x",
    ] {
        assert!(OrgId::parse(bad).is_none(), "{bad}");
    }
}
