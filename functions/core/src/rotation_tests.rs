//! A root key rotation, as the Lambdas see it: the secret goes from `{rootKey: A}` to
//! `{rootKey: B, previousRootKey: A}` (the overlap) to `{rootKey: B}`. One store, three `Keys`.

use crate::client::ClientInfo;
use crate::testing::{Quiet, SpyStore};
use crate::user::{profile_key, User};
use crate::{sessions, totp, Ciam, Config, Keys, ManualClock, OsEntropy, Reason};
use ciam_store::sqlite::SqliteStore;
use ciam_store::{Item, Store};
use std::sync::Arc;

const A: [u8; 32] = [0xa1; 32];
const B: [u8; 32] = [0xb2; 32];
const USER: &str = "0123456789abcdef0123456789abcdef";

struct World {
    store: Arc<SpyStore>,
    clock: ManualClock,
}

impl World {
    async fn new() -> World {
        let clock = ManualClock::new(1_800_000_000);
        let inner = SqliteStore::in_memory(Arc::new(clock.clone())).unwrap();
        inner.ensure_schema().await.unwrap();
        let store = Arc::new(SpyStore::new(Arc::new(inner)));
        let user = User {
            id: USER.into(),
            user_name: "rota".into(),
            ..Default::default()
        };
        // Active today already (the numbers' `activeDay`, as its sign-in left it), so
        // authenticating costs only the reads these tests count.
        let today = crate::days::day_of(ciam_store::Clock::now(&clock));
        let item = user
            .to_item()
            .with(crate::numbers::ACTIVE_DAY, today.as_str());
        store.put(item, None).await.unwrap();
        World { store, clock }
    }

    fn ciam(&self, keys: Keys) -> Ciam {
        Ciam {
            store: self.store.clone(),
            clock: Arc::new(self.clock.clone()),
            entropy: Arc::new(OsEntropy),
            keys,
            notifier: Arc::new(Quiet),
            blobs: Arc::new(crate::MemoryBlobs::default()),
            images: Arc::new(crate::avatar::InProcessDecoder),
            config: Config::default(),
        }
    }

    fn before(&self) -> Ciam {
        self.ciam(Keys::from_root(A))
    }
    fn overlap(&self) -> Ciam {
        self.ciam(Keys::from_root(B).with_previous(A))
    }
    fn after(&self) -> Ciam {
        self.ciam(Keys::from_root(B))
    }
    /// Step 1 of the procedure: still on A, B announced (read-only).
    fn announced(&self) -> Ciam {
        self.ciam(Keys::from_root(A).with_next(B))
    }

    /// The authenticator's current time step.
    fn step(&self) -> i64 {
        ciam_store::Clock::now(&self.clock).div_euclid(totp::STEP_SECS)
    }

    async fn user(&self) -> User {
        let item = self.store.get(&profile_key(USER)).await.unwrap().unwrap();
        User::from_item(&item).unwrap()
    }

    async fn session(&self, ciam: &Ciam) -> String {
        let (token, item) = sessions::mint(ciam, &self.user().await, &ClientInfo::default());
        self.store.put(item, None).await.unwrap();
        token
    }
}

fn refused(r: crate::Result<sessions::Session>) -> bool {
    matches!(r, Err(e) if e.reason == Reason::AUTHORIZATION_FAILED)
}

#[tokio::test]
async fn a_session_from_before_a_rotation_works_during_the_overlap_and_stops_after_it() {
    let w = World::new().await;
    let old = w.session(&w.before()).await;
    w.store.take_calls();

    let s = sessions::authenticate(&w.overlap(), Some(&old))
        .await
        .expect("the old root's session is accepted during the overlap");
    assert_eq!(s.user.id, USER);
    assert_eq!(
        w.store.take_calls(),
        [("get_many", 3)],
        "one round trip: the user and the session under both roots"
    );
    // Writes on its behalf go to the item it was found as.
    w.clock.advance(sessions::REFRESH_AFTER);
    sessions::authenticate(&w.overlap(), Some(&old))
        .await
        .unwrap();
    sessions::mark_fresh(&w.overlap(), &s, &["pwd"])
        .await
        .unwrap();

    assert!(
        refused(sessions::authenticate(&w.after(), Some(&old)).await),
        "once previousRootKey is removed the old session is refused"
    );
}

#[tokio::test]
async fn outside_a_rotation_a_session_costs_one_read_of_two_keys() {
    let w = World::new().await;
    let token = w.session(&w.after()).await;
    w.store.take_calls();
    sessions::authenticate(&w.after(), Some(&token))
        .await
        .unwrap();
    assert_eq!(w.store.take_calls(), [("get_many", 2)]);
    // A session made during the overlap is under the new root: it outlives the overlap.
    let during = w.session(&w.overlap()).await;
    sessions::authenticate(&w.after(), Some(&during))
        .await
        .expect("sessions made during the overlap survive it");
    assert!(refused(
        sessions::authenticate(&w.before(), Some(&during)).await
    ));
}

/// Turns two-factor on under `ciam`; answers the authenticator secret and the backup codes.
async fn enrol(w: &World, ciam: &Ciam) -> (Vec<u8>, Vec<String>) {
    let token = w.session(ciam).await;
    let s = sessions::authenticate(ciam, Some(&token)).await.unwrap();
    let uri = totp::enrollment_uri(ciam, &s).await.unwrap();
    let b32 = uri
        .split("secret=")
        .nth(1)
        .and_then(|r| r.split('&').next())
        .unwrap();
    let secret = data_encoding::BASE32_NOPAD.decode(b32.as_bytes()).unwrap();
    let s = sessions::authenticate(ciam, Some(&token)).await.unwrap();
    let code = totp::code_at(&secret, w.step());
    let backup = totp::enable(ciam, &s, &code, &ClientInfo::default())
        .await
        .unwrap();
    (secret, backup)
}

/// The password step's challenge for the user (two-factor is on).
async fn challenge(w: &World, ciam: &Ciam) -> String {
    let who = crate::accounts::Who::from(&w.user().await);
    let lost = Reason::PASSWORD_ERROR;
    let err = crate::accounts::finish_login(ciam, who, &ClientInfo::default(), vec![], lost)
        .await
        .unwrap_err();
    assert_eq!(err.reason, Reason::NEED_TOTP_VERIFY);
    err.challenge.unwrap()
}

#[tokio::test]
async fn a_two_factor_user_signs_in_through_a_rotation_and_the_secret_moves_to_the_new_root() {
    let w = World::new().await;
    let (secret, _) = enrol(&w, &w.before()).await;
    let sealed_before = w.user().await.totp_secret.unwrap();
    assert!(totp::open(&w.after(), USER, &sealed_before).is_err());

    w.clock.advance(totp::STEP_SECS);
    let overlap = w.overlap();
    let ch = challenge(&w, &overlap).await;
    w.store.take_calls();
    let code = totp::code_at(&secret, w.step());
    totp::login_totp(&overlap, &ch, &code, &ClientInfo::default())
        .await
        .expect("the secret sealed under the old root opens during the overlap");
    let trips = w.store.take_calls();
    assert_eq!(
        trips.iter().filter(|(op, _)| *op == "transact").count(),
        1,
        "the write-back rides in the sign-in's own transaction: {trips:?}"
    );
    assert!(trips.iter().all(|(op, _)| *op != "update"), "{trips:?}");

    let sealed_now = w.user().await.totp_secret.unwrap();
    assert_ne!(sealed_now, sealed_before);
    assert_eq!(totp::open(&w.after(), USER, &sealed_now).unwrap(), secret);
    // And after the overlap the user still signs in.
    w.clock.advance(totp::STEP_SECS);
    let after = w.after();
    let ch = challenge(&w, &after).await;
    let code = totp::code_at(&secret, w.step());
    totp::login_totp(&after, &ch, &code, &ClientInfo::default())
        .await
        .expect("the migrated secret opens under the new root alone");
}

#[tokio::test]
async fn a_fresh_proof_with_the_authenticator_also_moves_the_secret_to_the_new_root() {
    let w = World::new().await;
    let (secret, _) = enrol(&w, &w.before()).await;
    w.clock.advance(totp::STEP_SECS);
    let overlap = w.overlap();
    let token = w.session(&overlap).await;
    let s = sessions::authenticate(&overlap, Some(&token))
        .await
        .unwrap();
    let code = totp::code_at(&secret, w.step());
    totp::verify_fresh(&overlap, &s, Some(&code), None)
        .await
        .unwrap();
    let sealed = w.user().await.totp_secret.unwrap();
    assert_eq!(totp::open(&w.after(), USER, &sealed).unwrap(), secret);
}

#[tokio::test]
async fn backup_codes_from_before_a_rotation_work_during_the_overlap_only() {
    let w = World::new().await;
    let (_, backup) = enrol(&w, &w.before()).await;
    let overlap = w.overlap();
    let ch = challenge(&w, &overlap).await;
    totp::login_backup(&overlap, &ch, &backup[0], &ClientInfo::default())
        .await
        .expect("a backup code of the old root works during the overlap");
    // Used up, whichever root found it.
    let ch = challenge(&w, &overlap).await;
    let again = totp::login_backup(&overlap, &ch, &backup[0], &ClientInfo::default()).await;
    assert!(matches!(again, Err(e) if e.reason == Reason::UNLOCKCODE_NOT_FOUND));

    let after = w.after();
    let ch = challenge(&w, &after).await;
    let gone = totp::login_backup(&after, &ch, &backup[1], &ClientInfo::default()).await;
    assert!(
        matches!(gone, Err(e) if e.reason == Reason::UNLOCKCODE_NOT_FOUND),
        "the tags of unused codes cannot move: the documented cost of removing the old root"
    );
}

fn app(keys: &Keys, id: &str, secret: &str) -> Item {
    Item::new(crate::apps::app_key(id)).with("appId", id).with(
        "secretHash",
        keys.keyed_hash(crate::apps::SECRET_LABEL, secret.as_bytes()),
    )
}

#[tokio::test]
async fn a_partner_secret_hashed_under_the_old_root_works_during_the_overlap_and_moves() {
    let w = World::new().await;
    w.store
        .put(app(&Keys::from_root(A), "busy", "s3cret-busy"), None)
        .await
        .unwrap();
    w.store
        .put(app(&Keys::from_root(A), "idle", "s3cret-idle"), None)
        .await
        .unwrap();
    let stored = |id: &'static str| {
        let store = w.store.clone();
        async move {
            crate::apps::App::from_item(
                &store.get(&crate::apps::app_key(id)).await.unwrap().unwrap(),
            )
        }
    };
    let overlap = w.overlap();
    assert!(!crate::apps::secret_matches(&overlap, &stored("busy").await, "wrong").await);
    w.store.take_calls();
    assert!(crate::apps::secret_matches(&overlap, &stored("busy").await, "s3cret-busy").await);
    assert_eq!(
        w.store.take_calls(),
        [("get", 1), ("update", 1)],
        "one write moves the hash to the new root"
    );
    assert!(crate::apps::secret_matches(&overlap, &stored("busy").await, "s3cret-busy").await);
    assert_eq!(w.store.take_calls(), [("get", 1)], "and only once");

    let after = w.after();
    assert!(crate::apps::secret_matches(&after, &stored("busy").await, "s3cret-busy").await);
    assert!(
        !crate::apps::secret_matches(&after, &stored("idle").await, "s3cret-idle").await,
        "an app unused during the overlap needs a new secret once the old root is gone"
    );
}

#[tokio::test]
async fn an_instance_still_on_the_old_root_reads_what_was_moved_to_the_new_one_but_never_moves_it_back(
) {
    let w = World::new().await;
    // Enrolled, then moved to B by an instance of step 2.
    let (secret, _) = enrol(&w, &w.before()).await;
    w.clock.advance(totp::STEP_SECS);
    let overlap = w.overlap();
    let ch = challenge(&w, &overlap).await;
    let code = totp::code_at(&secret, w.step());
    totp::login_totp(&overlap, &ch, &code, &ClientInfo::default())
        .await
        .unwrap();
    let sealed_b = w.user().await.totp_secret.unwrap();
    assert_eq!(totp::open(&w.after(), USER, &sealed_b).unwrap(), secret);

    // An instance of step 1 (rootKey A, nextRootKey B) signs the user in and leaves it under B.
    w.clock.advance(totp::STEP_SECS);
    let announced = w.announced();
    let ch = challenge(&w, &announced).await;
    let code = totp::code_at(&secret, w.step());
    totp::login_totp(&announced, &ch, &code, &ClientInfo::default())
        .await
        .expect("a secret sealed under the announced root opens");
    let still = w.user().await.totp_secret.unwrap();
    assert_eq!(
        totp::open(&w.after(), USER, &still).unwrap(),
        secret,
        "still sealed under the new root"
    );

    // A partner secret already hashed under B: matched, and its hash is not moved back to A.
    w.store
        .put(app(&Keys::from_root(B), "moved", "s3cret-moved"), None)
        .await
        .unwrap();
    let item = w
        .store
        .get(&crate::apps::app_key("moved"))
        .await
        .unwrap()
        .unwrap();
    w.store.take_calls();
    let app = crate::apps::App::from_item(&item);
    assert!(crate::apps::secret_matches(&announced, &app, "s3cret-moved").await);
    assert_eq!(w.store.take_calls(), [], "no write-back to the old root");
}
