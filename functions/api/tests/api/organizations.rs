//! Organizations (issue 35, docs/organizations-design.md): the foundation's store operations on
//! both engines: an organization created with its owner, the owner's role read by key, the
//! person's organizations read from their own partition. On SQLite and DynamoDB Local.

use crate::helpers::TestApp;
use ciam_core::org::{self, NewOrg, Role, Status};
use ciam_store::dynamo_local::DynamoLocal;
use std::sync::Arc;

fn acme(owner: &str) -> NewOrg {
    NewOrg {
        name_zh: "艾克姆".into(),
        name_en: "Acme".into(),
        status: Status::Active,
        owner: Some(owner.to_owned()),
        by: "operator-1".into(),
        by_role: "operator".into(),
        reason: Some("contract signed".into()),
    }
}

async fn roles_are_read_by_key(app: TestApp) {
    let store = app.ciam.store.as_ref();
    let a = org::create(&app.ciam, acme("ann"), vec![])
        .await
        .expect("a");
    let b = org::create(&app.ciam, acme("bob"), vec![])
        .await
        .expect("b");
    assert_eq!(
        org::role_of(store, &a.org_id, "ann").await.expect("read"),
        Some(Role::Owner)
    );
    assert_eq!(
        org::role_of(store, &a.org_id, "bob").await.expect("read"),
        None
    );
    assert_eq!(
        org::role_of(store, &b.org_id, "bob").await.expect("read"),
        Some(Role::Owner)
    );
    let mine = org::memberships_of(store, "ann").await.expect("read");
    assert_eq!(
        mine.iter().map(|m| m.org_id.as_str()).collect::<Vec<_>>(),
        [a.org_id.as_str()]
    );
    app.store.take_calls();
    let (o, m) = org::with_membership(store, &b.org_id, "ann")
        .await
        .expect("read");
    assert_eq!((o.map(|o| o.name_en), m), (Some("Acme".to_owned()), None));
    assert_eq!(
        app.store.take_calls(),
        [("get_many", 2)],
        "the organization and the role: one call"
    );
}

#[tokio::test]
async fn an_owners_role_is_read_by_key_and_another_orgs_owner_has_none() {
    roles_are_read_by_key(TestApp::spawn().await).await;
}

#[tokio::test]
async fn on_dynamodb_an_owners_role_is_read_by_key_and_another_orgs_owner_has_none() {
    let local = Arc::new(DynamoLocal::start().await);
    roles_are_read_by_key(TestApp::on_dynamo(&local, "org_roles").await).await;
}
