//! Tests of `keys.rs`: the root, ES256 keys, and purposes (restriction, distributed keys).

#[cfg(test)]
mod es256_tests {
    use crate::keys::*;
    use p256::ecdsa::signature::Verifier;

    #[test]
    fn keys_are_deterministic_per_root_and_version() {
        let a = Keys::from_root([1; 32]);
        let b = Keys::from_root([2; 32]);
        assert_eq!(a.es256(1).kid(), a.es256(1).kid());
        assert_eq!(a.es256(1).public_jwk(), a.es256(1).public_jwk());
        assert_ne!(a.es256(1).kid(), a.es256(2).kid());
        assert_ne!(a.es256(1).kid(), b.es256(1).kid());
        assert!(a.es256(3).kid().starts_with("3-"));
    }

    #[test]
    fn signatures_verify_with_the_public_key_only() {
        let k = Keys::from_root([3; 32]).es256(1);
        let sig = k.sign(b"header.payload");
        let sig = p256::ecdsa::Signature::from_slice(&sig).unwrap();
        assert!(k.verifying_key().verify(b"header.payload", &sig).is_ok());
        assert!(k.verifying_key().verify(b"header.payloaD", &sig).is_err());
        let jwk = k.public_jwk();
        assert_eq!(jwk["kty"], "EC");
        assert_eq!(jwk["crv"], "P-256");
        assert_eq!(jwk["x"].as_str().unwrap().len(), 43);
        assert_eq!(jwk["y"].as_str().unwrap().len(), 43);
    }
}

#[cfg(test)]
mod root_tests {
    use crate::keys::*;

    #[test]
    fn a_64_hex_character_secret_is_the_root_itself() {
        let hex = "00112233445566778899aabbccddeeff00112233445566778899AABBCCDDEEFF";
        let root = Keys::root_from_secret(hex).unwrap();
        assert_eq!(root[0], 0x00);
        assert_eq!(root[31], 0xff);
        assert_eq!(
            Keys::from_root(root).derive("x"),
            Keys::from_hex(hex).unwrap().derive("x")
        );
    }

    #[test]
    fn any_other_secret_of_32_characters_or_more_is_hashed() {
        use sha2::Digest;
        // 64 characters, but not all hex: the template's generated string looks like this.
        let generated = "Zk3q".repeat(16);
        let expected: [u8; 32] = sha2::Sha256::digest(generated.as_bytes()).into();
        assert_eq!(Keys::root_from_secret(&generated), Ok(expected));
        let thirty_two = "a".repeat(32);
        assert!(Keys::root_from_secret(&thirty_two).is_ok());
        // Characters, not bytes: 32 CJK characters are enough, 31 are not.
        assert!(Keys::root_from_secret(&"钥".repeat(32)).is_ok());
        assert_eq!(
            Keys::root_from_secret(&"钥".repeat(31)),
            Err(RootError::TooShort)
        );
        assert_eq!(
            Keys::root_from_secret(&"a".repeat(31)),
            Err(RootError::TooShort)
        );
        assert_eq!(Keys::root_from_secret(""), Err(RootError::TooShort));
    }

    #[test]
    fn the_previous_root_is_kept_apart_and_shared_by_clones() {
        let keys = Keys::from_root([1; 32]).with_previous([2; 32]);
        assert_eq!(keys.derive("x"), Keys::from_root([1; 32]).derive("x"));
        let previous = keys.clone();
        let previous = previous.previous().unwrap();
        assert_eq!(previous.derive("x"), Keys::from_root([2; 32]).derive("x"));
        assert!(previous.previous().is_none());
        assert!(Keys::from_root([1; 32]).previous().is_none());
        assert_eq!(format!("{keys:?}"), "Keys(..)");
    }
}

#[cfg(test)]
mod purpose_tests {
    use crate::keys::*;
    use crate::{KeyPurpose, Purposes};

    /// Every label's key, from the root and from the distributed per-purpose keys: equal, so
    /// everything made before purposes existed (sessions, seals, hashes) still verifies.
    #[test]
    fn per_purpose_keys_are_the_root_derivations() {
        let root = Keys::from_root([7; 32]);
        let pairs: Vec<(&str, String)> = KeyPurpose::ALL
            .into_iter()
            .flat_map(|p| root.purpose_keys(p))
            .collect();
        let given = Keys::with_labels(pairs.iter().map(|(l, k)| (*l, k.as_str()))).unwrap();
        for p in KeyPurpose::ALL {
            for label in p.labels() {
                assert_eq!(given.derive(label), root.derive(label), "{label}");
                assert_eq!(
                    given.keyed_hash(label, b"x"),
                    root.keyed_hash(label, b"x"),
                    "{label}"
                );
            }
        }
        assert!(root.purpose_keys(KeyPurpose::Es256).is_empty());
        assert!(Keys::with_labels([("session", "zz")]).is_none());
    }

    #[test]
    fn a_restricted_holder_derives_its_purposes_as_before() {
        let root = Keys::from_root([7; 32]).with_previous([8; 32]);
        let only = root
            .clone()
            .restricted(Purposes::of(&[KeyPurpose::Session, KeyPurpose::Seal]));
        assert_eq!(only.derive("session"), root.derive("session"));
        assert_eq!(only.derive("totp-secret"), root.derive("totp-secret"));
        let prev = only.previous().unwrap();
        assert_eq!(prev.allowed(), only.allowed());
        assert_eq!(prev.derive("mfa"), root.previous().unwrap().derive("mfa"));
    }

    #[test]
    #[should_panic(expected = "purpose Captcha used but not declared")]
    fn an_undeclared_purpose_panics_in_debug_builds() {
        let keys = Keys::from_root([7; 32]).restricted(Purposes::of(&[KeyPurpose::Session]));
        keys.derive("captcha");
    }

    #[test]
    #[should_panic(expected = "purpose Es256 used but not declared")]
    fn es256_keys_are_not_taken_from_the_shared_cache_when_undeclared() {
        let keys = Keys::from_root([7; 32]);
        keys.es256(1);
        keys.restricted(Purposes::NONE).es256(1);
    }

    #[test]
    #[should_panic(expected = "key \"session\" of purpose Session")]
    fn a_label_not_given_is_undeclared() {
        let keys = Keys::with_labels([("captcha", &*hex::encode([1u8; 32]))]).unwrap();
        keys.derive("session");
    }

    #[tokio::test]
    async fn without_panics_an_undeclared_key_matches_nothing_and_marks_the_request() {
        let root = Keys::from_root([7; 32]);
        let keys = root
            .clone()
            .restricted(Purposes::of(&[KeyPurpose::Captcha]))
            .without_panics();
        let (k, outcome) = crate::within_request("r", async { keys.derive("session") }).await;
        assert_ne!(k, root.derive("session"));
        assert_eq!(outcome, crate::Outcome::Undeclared);
        let (_, outcome) = crate::within_request("r", async { keys.derive("captcha") }).await;
        assert_eq!(outcome, crate::Outcome::Clean);
    }
}
