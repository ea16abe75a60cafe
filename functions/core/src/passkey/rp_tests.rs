//! The relying party's tests (`rp.rs`), kept apart so the module itself reads in one sitting:
//! each ceremony against a software authenticator (`crate::testing::passkey`) and its refusals.

use super::*;
use crate::testing::passkey::{SoftAuthenticator, BE, BS, UP, UV};

const ORIGIN: &str = "http://localhost:8080";
const UID: [u8; 16] = [
    0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0, 1, 2, 3, 4, 5, 6, 7,
];

fn cfg() -> PasskeyConfig {
    PasskeyConfig::new(Some(ORIGIN), None, &[]).unwrap()
}

fn register(soft: &mut SoftAuthenticator) -> Result<StoredPasskey, Refusal> {
    let (options, state) = registration_options(&cfg(), UID, "ann", "Ann", &[]).unwrap();
    let answer = soft.create(&options);
    verify_registration(&cfg(), &state, &answer)
}

fn sign_in(
    soft: &mut SoftAuthenticator,
    stored: &StoredPasskey,
    tops: Option<&[String]>,
) -> Result<Asserted, Refusal> {
    let (options, state) = signin_options(&cfg()).unwrap();
    let answer = soft.get(&options, &UID);
    assert_eq!(assertion_ids(&answer).unwrap().0, Some(UID));
    verify_signin(&cfg(), &state, &answer, UID, stored, tops)
}

#[test]
fn options_ask_for_a_resident_verified_credential() {
    let (o, _) = registration_options(&cfg(), UID, "ann", "Ann", &[]).unwrap();
    let o = o.get("publicKey").unwrap_or(&o);
    assert_eq!(o["rp"]["id"], "localhost");
    assert_eq!(o["authenticatorSelection"]["residentKey"], "required");
    assert_eq!(o["authenticatorSelection"]["userVerification"], "required");
    assert_eq!(o["attestation"], "none");
    let (s, _) = signin_options(&cfg()).unwrap();
    let s = s.get("publicKey").unwrap_or(&s);
    assert_eq!(s["userVerification"], "required");
    assert!(s
        .get("allowCredentials")
        .is_none_or(|a| a.as_array().is_some_and(Vec::is_empty)));
}

#[test]
fn a_registration_and_assertions_round_trip() {
    let mut soft = SoftAuthenticator::new(3, "localhost", ORIGIN);
    soft.flags = UP | UV | BE | BS;
    soft.aaguid = [0xab; 16];
    let stored = register(&mut soft).unwrap();
    assert_eq!(stored.cred_id, vec![3; 32]);
    assert_eq!((stored.uv, stored.be, stored.bs), (true, true, true));
    assert_eq!(stored.alg, -7);
    assert_eq!(stored.sign_count, 1);
    assert_eq!(stored.transports, ["internal"]);
    assert_eq!(stored.attachment.as_deref(), Some("platform"));
    assert_eq!(
        stored.aaguid.as_deref(),
        Some("abababababababababababababababab")
    );
    let a = sign_in(&mut soft, &stored, None).unwrap();
    assert_eq!(a.sign_count, 2);
    let stored = StoredPasskey {
        sign_count: a.sign_count,
        ..stored
    };
    assert_eq!(sign_in(&mut soft, &stored, None).unwrap().sign_count, 3);
}

#[test]
fn a_zero_aaguid_is_not_kept() {
    let mut soft = SoftAuthenticator::new(4, "localhost", ORIGIN);
    assert_eq!(register(&mut soft).unwrap().aaguid, None);
}

#[test]
fn another_rp_id_or_origin_is_refused() {
    let mut soft = SoftAuthenticator::new(5, "localhost", ORIGIN);
    let stored = register(&mut soft).unwrap();
    soft.rp_id = "evil.example".into();
    assert!(matches!(
        sign_in(&mut soft, &stored, None),
        Err(Refusal::Failed(_))
    ));
    soft.rp_id = "localhost".into();
    soft.origin = "http://localhost:9999".into();
    assert!(matches!(
        sign_in(&mut soft, &stored, None),
        Err(Refusal::Failed(_))
    ));

    let mut evil = SoftAuthenticator::new(6, "evil.example", ORIGIN);
    assert!(matches!(register(&mut evil), Err(Refusal::Failed(_))));
    let mut elsewhere = SoftAuthenticator::new(6, "localhost", "https://evil.example");
    assert!(matches!(register(&mut elsewhere), Err(Refusal::Failed(_))));
}

#[test]
fn a_framed_assertion_needs_an_allowed_top_origin() {
    let mut soft = SoftAuthenticator::new(7, "localhost", ORIGIN);
    let stored = register(&mut soft).unwrap();
    let shop = vec!["https://shop.example.com".to_owned()];
    soft.top_origin = Some("https://shop.example.com".into());
    let a = sign_in(&mut soft, &stored, Some(&shop)).unwrap();
    let stored = StoredPasskey {
        sign_count: a.sign_count,
        ..stored
    };
    // No app bound: a framed assertion is refused.
    assert!(matches!(
        sign_in(&mut soft, &stored, None),
        Err(Refusal::Failed(_))
    ));
    soft.top_origin = Some("https://evil.example".into());
    assert!(matches!(
        sign_in(&mut soft, &stored, Some(&shop)),
        Err(Refusal::Failed(_))
    ));
    // crossOrigin without topOrigin (older browsers), app bound: pinned, whatever the crate
    // decides (docs/passkeys-design.md §9 asked for this case).
    soft.top_origin = Some(String::new());
    let without_top = sign_in(&mut soft, &stored, Some(&shop));
    assert!(
        without_top.is_ok(),
        "crossOrigin without topOrigin: {without_top:?}"
    );
}

#[test]
fn a_counter_going_back_is_refused_unless_always_zero() {
    let mut soft = SoftAuthenticator::new(8, "localhost", ORIGIN);
    soft.counter = 5;
    let stored = register(&mut soft).unwrap();
    soft.counter = 3;
    assert_eq!(
        sign_in(&mut soft, &stored, None),
        Err(Refusal::CounterWentBack)
    );
    soft.counter = 5;
    assert_eq!(
        sign_in(&mut soft, &stored, None),
        Err(Refusal::CounterWentBack)
    );

    let mut zero = SoftAuthenticator::new(9, "localhost", ORIGIN);
    zero.counter = 0;
    zero.counting = false;
    let stored = register(&mut zero).unwrap();
    for _ in 0..3 {
        assert_eq!(sign_in(&mut zero, &stored, None).unwrap().sign_count, 0);
    }
}

#[test]
fn user_verification_is_required() {
    let mut soft = SoftAuthenticator::new(10, "localhost", ORIGIN);
    soft.flags = UP;
    assert!(matches!(register(&mut soft), Err(Refusal::Failed(_))));
    soft.flags = UP | UV;
    let stored = register(&mut soft).unwrap();
    soft.flags = UP;
    assert!(matches!(
        sign_in(&mut soft, &stored, None),
        Err(Refusal::Failed(_))
    ));
}

#[test]
fn another_users_handle_or_key_is_refused() {
    let mut soft = SoftAuthenticator::new(11, "localhost", ORIGIN);
    let stored = register(&mut soft).unwrap();
    let (options, state) = signin_options(&cfg()).unwrap();
    let answer = soft.get(&options, &UID);
    let other = [9u8; 16];
    assert!(verify_signin(&cfg(), &state, &answer, other, &stored, None).is_err());
    let mut thief = SoftAuthenticator::new(12, "localhost", ORIGIN);
    thief.cred_id = stored.cred_id.clone();
    let (options, state) = signin_options(&cfg()).unwrap();
    let forged = thief.get(&options, &UID);
    assert!(matches!(
        verify_signin(&cfg(), &state, &forged, UID, &stored, None),
        Err(Refusal::Failed(_))
    ));
    assert!(matches!(
        verify_signin(&cfg(), b"junk", &forged, UID, &stored, None),
        Err(Refusal::Malformed(_))
    ));
    assert!(matches!(
        assertion_ids(&serde_json::json!({"id": "x"})),
        Err(Refusal::Malformed(_))
    ));
}

#[test]
fn precis_refusals_fall_back_to_the_user_name_then_the_mask() {
    assert_eq!(
        user_names("ann@example.com", "Ann", "ann", "a**@example.com"),
        ("ann@example.com".into(), "Ann".into())
    );
    // A control character is refused by both profiles.
    assert_eq!(
        user_names("bad\u{7}", "bad\u{7}", "ann", "a**"),
        ("ann".into(), "ann".into())
    );
    assert_eq!(
        user_names("", "", "\u{7}", "a**"),
        ("a**".into(), "a**".into())
    );
    assert_eq!(user_names("", "", "", ""), ("user".into(), "user".into()));
}
