//! The password sign-in's success writes the reset and the session side by side, not in a
//! transaction (`accounts::finish_password`): when the reset is refused because the account was
//! suspended or deactivated after its attempt was taken, the answer is the refusal and the
//! session written beside it is deleted, so nothing is left that a user would see.

use crate::client::ClientInfo;
use crate::signin::{self, Attempt};
use crate::user::{unique_key, user_pk, User};
use crate::validate::Identity;
use crate::{Ciam, Reason};
use ciam_store::{Query, Update};

const MAIL: &str = "ann@example.com";

async fn account(ciam: &Ciam) -> (User, Identity) {
    let id = Identity::parse(MAIL).unwrap();
    let user = User {
        id: "0123456789abcdef0123456789abcdef".into(),
        user_name: "annlee".into(),
        mail: Some(MAIL.into()),
        pwd_hash: Some("$argon2id$unused".into()),
        ..User::default()
    };
    ciam.store
        .transact(crate::testing::account_ops(&user, &id))
        .await
        .unwrap();
    (user, id)
}

async fn sessions(ciam: &Ciam, user: &User) -> usize {
    ciam.store
        .query(Query::partition(user_pk(&user.id)).prefix("SESSION#"))
        .await
        .unwrap()
        .len()
}

#[tokio::test]
async fn a_reset_refused_after_the_attempt_answers_the_refusal_and_leaves_no_session() {
    let kit = crate::testing::kit(1_800_000_000).await;
    let ciam = &kit.ciam;
    let (user, id) = account(ciam).await;
    let key = unique_key(id.unique_pk());
    for change in [
        // Suspended by support between the attempt and the success.
        vec![Update::Set("suspendedAt".into(), ciam.now().into())],
        // Deactivated meanwhile: the identity item no longer names the account.
        vec![Update::Remove("userId".into())],
    ] {
        let Attempt::Taken(rec) = signin::take_attempt(ciam, &id).await.unwrap() else {
            panic!("the attempt is taken");
        };
        ciam.store.update(&key, change, None).await.unwrap();
        let err = crate::accounts::finish_password(ciam, &rec, &ClientInfo::default())
            .await
            .unwrap_err();
        assert_eq!(err.reason, Reason::PASSWORD_ERROR);
        assert_eq!(sessions(ciam, &user).await, 0, "the session was deleted");
        // Back as it was for the next case.
        let ops = vec![
            Update::Remove("suspendedAt".into()),
            Update::Set("userId".into(), user.id.as_str().into()),
            Update::Set("fails".into(), 0.into()),
        ];
        ciam.store.update(&key, ops, None).await.unwrap();
    }
    // Untouched, the same success writes its session.
    let Attempt::Taken(rec) = signin::take_attempt(ciam, &id).await.unwrap() else {
        panic!("the attempt is taken");
    };
    crate::accounts::finish_password(ciam, &rec, &ClientInfo::default())
        .await
        .unwrap();
    assert_eq!(sessions(ciam, &user).await, 1);
    let item = ciam.store.get(&key).await.unwrap().unwrap();
    assert_eq!(item.n("fails"), Some(0), "the attempt given back");
    assert_eq!(
        item.s(signin::ACT_DAY),
        Some("2027-01-15"),
        "the day recorded"
    );
}
