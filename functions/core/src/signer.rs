//! The OpenID Connect signing seam: what signs id_tokens (ES256) and which public keys the JWKS
//! publishes. `Keys::oidc_signer` hands out the deployment's signer: in AWS a KMS key that never
//! leaves KMS (`ciam_lambdas`), elsewhere `keys::DerivedSigner`, keys derived from the root.
//! The trait speaks in bytes and JSON only, so the domain stays free of any cloud SDK.

use async_trait::async_trait;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use serde_json::{json, Value as Json};

/// Signs with one ES256 (ECDSA P-256, SHA-256) key and names the public keys to publish.
#[async_trait]
pub trait OidcSigner: Send + Sync {
    /// The `kid` of the key that signs now, for the JWS header.
    fn kid(&self) -> &str;

    /// The JWS ES256 signature of `signing_input`: `r || s`, 32 bytes each. An error is the
    /// cause for the log (the signer is unreachable or answered nonsense), never a secret.
    async fn sign(&self, signing_input: &[u8]) -> Result<[u8; 64], String>;

    /// The public keys as JWKs (`kty`, `crv`, `x`, `y`, `kid`, `use`, `alg`), the signing key
    /// first, then any other key a client may still meet or will soon meet.
    fn jwks(&self) -> Vec<Json>;
}

/// A compact JWS of `payload`: base64url(header).base64url(payload).base64url(r || s).
pub async fn sign_jwt(signer: &dyn OidcSigner, payload: &Json) -> Result<String, String> {
    sign_typed_jwt(signer, "JWT", payload).await
}

/// [`sign_jwt`] with another header `typ` (a Back-Channel Logout token is `logout+jwt`).
pub async fn sign_typed_jwt(
    signer: &dyn OidcSigner,
    typ: &str,
    payload: &Json,
) -> Result<String, String> {
    let header = json!({ "alg": "ES256", "typ": typ, "kid": signer.kid() });
    let input = format!(
        "{}.{}",
        URL_SAFE_NO_PAD.encode(header.to_string().as_bytes()),
        URL_SAFE_NO_PAD.encode(payload.to_string().as_bytes())
    );
    let sig = signer.sign(input.as_bytes()).await?;
    Ok(format!("{input}.{}", URL_SAFE_NO_PAD.encode(sig)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keys::{DerivedSigner, Keys};
    use p256::ecdsa::signature::Verifier;

    fn kids(s: &dyn OidcSigner) -> Vec<String> {
        s.jwks()
            .iter()
            .map(|k| k["kid"].as_str().unwrap_or_default().to_owned())
            .collect()
    }

    #[test]
    fn the_derived_signer_publishes_the_current_the_next_and_the_one_before() {
        let keys = Keys::from_root([4; 32]);
        let kid = |v: u32| keys.es256(v).kid().to_owned();
        assert_eq!(kids(&DerivedSigner::new(&keys, 1)), [kid(1), kid(2)]);
        let two = DerivedSigner::new(&keys, 2);
        assert_eq!(kids(&two), [kid(2), kid(3), kid(1)]);
        assert_eq!(two.kid(), kid(2));
    }

    #[test]
    fn during_a_root_rotation_the_previous_roots_key_stays_published() {
        let old = Keys::from_root([5; 32]);
        let keys = Keys::from_root([6; 32]).with_previous([5; 32]);
        let signer = keys.oidc_signer(1);
        assert_eq!(signer.kid(), keys.es256(1).kid());
        assert_ne!(signer.kid(), old.es256(1).kid());
        assert!(kids(signer.as_ref()).contains(&old.es256(1).kid().to_owned()));
    }

    #[tokio::test]
    async fn a_signed_jwt_verifies_with_the_published_key_of_its_kid() {
        let keys = Keys::from_root([7; 32]);
        let signer = keys.oidc_signer(3);
        let jwt = sign_jwt(signer.as_ref(), &json!({"sub": "x"}))
            .await
            .unwrap();
        let parts: Vec<&str> = jwt.split('.').collect();
        let header: Json =
            serde_json::from_slice(&URL_SAFE_NO_PAD.decode(parts[0]).unwrap()).unwrap();
        assert_eq!(header["kid"], keys.es256(3).kid());
        assert_eq!(header["alg"], "ES256");
        let sig =
            p256::ecdsa::Signature::from_slice(&URL_SAFE_NO_PAD.decode(parts[2]).unwrap()).unwrap();
        let input = format!("{}.{}", parts[0], parts[1]);
        let key = keys.es256(3).verifying_key();
        assert!(key.verify(input.as_bytes(), &sig).is_ok());
        assert!(keys
            .es256(2)
            .verifying_key()
            .verify(input.as_bytes(), &sig)
            .is_err());
    }

    fn verifies(key: &crate::keys::Es256Key, jwt: &str) -> bool {
        let parts: Vec<&str> = jwt.split('.').collect();
        let sig =
            p256::ecdsa::Signature::from_slice(&URL_SAFE_NO_PAD.decode(parts[2]).unwrap()).unwrap();
        let input = format!("{}.{}", parts[0], parts[1]);
        key.verifying_key().verify(input.as_bytes(), &sig).is_ok()
    }

    #[tokio::test]
    async fn logout_tokens_are_signed_by_a_key_of_their_own_published_beside_the_id_token_keys() {
        let keys = Keys::from_root([3; 32]);
        let (id, logout) = (keys.oidc_signer(1), keys.logout_signer(1));
        assert_ne!(id.kid(), logout.kid());
        assert!(logout.kid().starts_with("1-logout-"), "{}", logout.kid());
        assert!(!kids(id.as_ref()).contains(&logout.kid().to_owned()));
        let jwt = sign_typed_jwt(logout.as_ref(), "logout+jwt", &json!({"sub": "x"}))
            .await
            .unwrap();
        assert!(verifies(&keys.logout_es256(1), &jwt));
        assert!(!verifies(&keys.es256(1), &jwt), "never an id_token key");
        // The JWKS: the id_token keys, then the logout key, each under its own kid.
        let mut ciam = crate::testing::Builder::new(1_800_000_000).build().await;
        ciam.keys = keys.clone();
        let published: Vec<String> = crate::oidc::jwks(&ciam)["keys"]
            .as_array()
            .unwrap()
            .iter()
            .map(|k| k["kid"].as_str().unwrap().to_owned())
            .collect();
        assert_eq!(
            published,
            [keys.es256(1).kid(), keys.es256(2).kid(), logout.kid()]
        );
        // ID tokens still verify with the key of their kid.
        let id_token = sign_jwt(id.as_ref(), &json!({"sub": "x"})).await.unwrap();
        assert!(verifies(&keys.es256(1), &id_token));
    }

    #[test]
    fn an_installed_logout_signer_replaces_the_derived_logout_key_only() {
        let keys = Keys::from_root([8; 32]).with_logout_signer(std::sync::Arc::new(Fixed));
        assert_eq!(keys.logout_signer(1).kid(), "fixed");
        assert_eq!(keys.oidc_signer(1).kid(), keys.es256(1).kid());
    }

    struct Fixed;

    #[async_trait]
    impl OidcSigner for Fixed {
        fn kid(&self) -> &str {
            "fixed"
        }
        async fn sign(&self, _: &[u8]) -> Result<[u8; 64], String> {
            Err("unreachable signer".into())
        }
        fn jwks(&self) -> Vec<Json> {
            vec![json!({"kid": "fixed"})]
        }
    }

    #[tokio::test]
    async fn an_installed_signer_replaces_the_derived_keys_whatever_the_version() {
        let keys = Keys::from_root([8; 32]).with_oidc_signer(std::sync::Arc::new(Fixed));
        assert_eq!(keys.oidc_signer(1).kid(), "fixed");
        assert_eq!(keys.oidc_signer(9).jwks(), vec![json!({"kid": "fixed"})]);
        let err = sign_jwt(keys.oidc_signer(1).as_ref(), &json!({}))
            .await
            .unwrap_err();
        assert_eq!(err, "unreachable signer");
        // Clones share the installed signer.
        assert_eq!(keys.clone().oidc_signer(1).kid(), "fixed");
    }
}
