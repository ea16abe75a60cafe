//! OpenID Connect signing with an AWS KMS key (KeySpec ECC_NIST_P256, KeyUsage SIGN_VERIFY): the
//! private key never leaves KMS. The token function asks `kms:Sign` (ECDSA_SHA_256 over the
//! SHA-256 digest of the JWS signing input, MessageType DIGEST) and turns the DER signature
//! KMS returns into the JOSE `r || s`; the JWKS is built once at init from `kms:GetPublicKey`
//! (SubjectPublicKeyInfo DER -> the P-256 point), and each key's `kid` is its RFC 7638
//! thumbprint, so it follows from the public key alone.

use async_trait::async_trait;
use aws_sdk_kms::error::DisplayErrorContext;
use aws_sdk_kms::primitives::Blob;
use aws_sdk_kms::types::{KeyUsageType, MessageType, SigningAlgorithmSpec};
use aws_sdk_kms::Client;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use ciam_core::OidcSigner;
use serde_json::{json, Value as Json};
use sha2::{Digest, Sha256};
use std::time::Duration;

pub const KEY_VAR: &str = "CIAM_OIDC_KMS_KEY_ID";
pub const PREVIOUS_VAR: &str = "CIAM_OIDC_KMS_PREVIOUS_KEY_IDS";
/// The logout tokens' own key.
pub const LOGOUT_KEY_VAR: &str = "CIAM_LOGOUT_KMS_KEY_ID";
/// One `kms:Sign` per token request: a stuck call fails the request, not the function.
pub const SIGN_TIMEOUT: Duration = Duration::from_secs(3);

/// Why a DER signature was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DerError {
    #[error("malformed DER ECDSA signature")]
    Malformed,
    #[error("r or s is out of range for P-256")]
    OutOfRange,
}

/// One DER length; only the short form occurs (a P-256 signature is at most 72 bytes) and the
/// long form of so small a length would not be DER.
fn der_len(b: &[u8]) -> Result<(usize, &[u8]), DerError> {
    match b.split_first() {
        Some((&n, rest)) if n < 0x80 => Ok((usize::from(n), rest)),
        _ => Err(DerError::Malformed),
    }
}

/// One DER INTEGER holding a positive value of at most 32 bytes, left-padded into `out`.
fn der_uint<'a>(b: &'a [u8], out: &mut [u8]) -> Result<&'a [u8], DerError> {
    let Some((&0x02, rest)) = b.split_first() else {
        return Err(DerError::Malformed);
    };
    let (len, rest) = der_len(rest)?;
    if len == 0 || rest.len() < len {
        return Err(DerError::Malformed);
    }
    let (mut value, rest) = rest.split_at(len);
    if value[0] & 0x80 != 0 {
        return Err(DerError::Malformed); // negative
    }
    if value[0] == 0 && value.len() > 1 {
        if value[1] & 0x80 == 0 {
            return Err(DerError::Malformed); // a zero byte DER would not write
        }
        value = &value[1..];
    }
    if value.len() > out.len() {
        return Err(DerError::OutOfRange);
    }
    let start = out.len() - value.len();
    out[start..].copy_from_slice(value);
    Ok(rest)
}

/// A DER `ECDSA-Sig-Value ::= SEQUENCE { r INTEGER, s INTEGER }` as JOSE `r || s` (RFC 7518
/// §3.4): each integer without its sign byte, left-padded with zeros to 32 bytes. Anything but
/// exactly one such sequence, with both values in 1..n, is refused.
pub fn der_to_jose(der: &[u8]) -> Result<[u8; 64], DerError> {
    let Some((&0x30, rest)) = der.split_first() else {
        return Err(DerError::Malformed);
    };
    let (len, body) = der_len(rest)?;
    if body.len() != len {
        return Err(DerError::Malformed);
    }
    let mut jose = [0u8; 64];
    let (r, s) = jose.split_at_mut(32);
    let rest = der_uint(body, r)?;
    let rest = der_uint(rest, s)?;
    if !rest.is_empty() {
        return Err(DerError::Malformed);
    }
    // Zero, or not below the group order: no valid signature has them.
    p256::ecdsa::Signature::from_slice(&jose).map_err(|_| DerError::OutOfRange)?;
    Ok(jose)
}

/// The DER prefix of a P-256 SubjectPublicKeyInfo with an uncompressed point: SEQUENCE {
/// SEQUENCE { id-ecPublicKey, prime256v1 }, BIT STRING (no unused bits) 04 || x || y }.
/// DER has one encoding per value, so the whole prefix is fixed.
const P256_SPKI_PREFIX: [u8; 27] = [
    0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01, 0x06, 0x08, 0x2a,
    0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00, 0x04,
];

/// The public key of a P-256 SubjectPublicKeyInfo (what `GetPublicKey` answers), checked to be
/// a point of the curve.
pub fn spki_to_key(spki: &[u8]) -> Result<p256::ecdsa::VerifyingKey, String> {
    let point = spki
        .strip_prefix(&P256_SPKI_PREFIX[..])
        .filter(|xy| xy.len() == 64)
        .ok_or("the public key is not a P-256 SubjectPublicKeyInfo")?;
    let sec1 = [&[0x04u8][..], point].concat();
    p256::ecdsa::VerifyingKey::from_sec1_bytes(&sec1)
        .map_err(|_| "the public key is not a point of P-256".to_owned())
}

/// The JWK of a P-256 public key, its `kid` the RFC 7638 thumbprint (base64url SHA-256 of
/// `{"crv","kty","x","y"}` in that order, no spaces).
pub fn public_jwk(key: &p256::ecdsa::VerifyingKey) -> Json {
    let point = key.to_encoded_point(false);
    let coord = |c: Option<&p256::FieldBytes>| {
        URL_SAFE_NO_PAD.encode(c.map(|b| b.as_slice()).unwrap_or_default())
    };
    let (x, y) = (coord(point.x()), coord(point.y()));
    let canonical = format!(r#"{{"crv":"P-256","kty":"EC","x":"{x}","y":"{y}"}}"#);
    let kid = URL_SAFE_NO_PAD.encode(Sha256::digest(canonical.as_bytes()));
    json!({ "kty": "EC", "crv": "P-256", "x": x, "y": y, "kid": kid, "use": "sig", "alg": "ES256" })
}

/// The id_token signer of a KMS key, with the JWKS read at init.
pub struct KmsSigner {
    client: Client,
    key_id: String,
    kid: String,
    published: Vec<Json>,
}

impl std::fmt::Debug for KmsSigner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "KmsSigner({}, kid {})", self.key_id, self.kid)
    }
}

/// `GetPublicKey` of one key, checked to be a P-256 signing key: its JWK.
async fn public_key(client: &Client, var: &str, key_id: &str) -> Result<Json, String> {
    let out = client
        .get_public_key()
        .key_id(key_id)
        .send()
        .await
        .map_err(|e| {
            format!(
                "{var}: kms:GetPublicKey of {key_id}: {}",
                DisplayErrorContext(&e)
            )
        })?;
    // The key spec is checked by the parse below: only a P-256 key has that encoding.
    if out.key_usage() != Some(&KeyUsageType::SignVerify) {
        return Err(format!("{var}: {key_id} is not a SIGN_VERIFY key"));
    }
    let spki = out
        .public_key()
        .ok_or_else(|| format!("{var}: kms:GetPublicKey of {key_id} answered no key"))?;
    let key = spki_to_key(spki.as_ref()).map_err(|e| format!("{var}: {key_id}: {e}"))?;
    Ok(public_jwk(&key))
}

impl KmsSigner {
    /// Reads the public key of `key_id` (which signs) and of each of `previous` (published
    /// only), concurrently and within `timeout`. The token function passes no previous keys:
    /// its role may read only the current one.
    pub async fn load(
        client: Client,
        key_id: &str,
        previous: &[String],
        timeout: Duration,
    ) -> Result<KmsSigner, String> {
        Self::load_as(KEY_VAR, client, key_id, previous, timeout).await
    }

    /// [`KmsSigner::load`] of the key named by the variable `key_var` (for messages: the
    /// logout key is `CIAM_LOGOUT_KMS_KEY_ID`).
    pub async fn load_as(
        key_var: &'static str,
        client: Client,
        key_id: &str,
        previous: &[String],
        timeout: Duration,
    ) -> Result<KmsSigner, String> {
        let mut reads = tokio::task::JoinSet::new();
        for (i, id) in std::iter::once(key_id)
            .chain(previous.iter().map(String::as_str))
            .enumerate()
        {
            let (client, id) = (client.clone(), id.to_owned());
            let var = if i == 0 { key_var } else { PREVIOUS_VAR };
            reads.spawn(async move { (i, public_key(&client, var, &id).await) });
        }
        let mut jwks: Vec<(usize, Json)> = Vec::new();
        let all = async {
            while let Some(done) = reads.join_next().await {
                let (i, jwk) = done.map_err(|e| format!("{key_var}: {e}"))?;
                jwks.push((i, jwk?));
            }
            Ok::<(), String>(())
        };
        tokio::time::timeout(timeout, all)
            .await
            .map_err(|_| format!("{key_var}: no answer from KMS within {timeout:?}"))??;
        jwks.sort_by_key(|(i, _)| *i);
        let mut published: Vec<Json> = Vec::with_capacity(jwks.len());
        for (_, jwk) in jwks {
            // The same key listed twice is published once.
            if !published.iter().any(|k| k["kid"] == jwk["kid"]) {
                published.push(jwk);
            }
        }
        let kid = published
            .first()
            .and_then(|k| k["kid"].as_str())
            .map(str::to_owned)
            .ok_or_else(|| format!("{key_var}: no public key"))?;
        Ok(KmsSigner {
            client,
            key_id: key_id.to_owned(),
            kid,
            published,
        })
    }
}

#[async_trait]
impl OidcSigner for KmsSigner {
    fn kid(&self) -> &str {
        &self.kid
    }

    async fn sign(&self, signing_input: &[u8]) -> Result<[u8; 64], String> {
        let digest = Sha256::digest(signing_input);
        let call = self
            .client
            .sign()
            .key_id(&self.key_id)
            .message(Blob::new(digest.to_vec()))
            .message_type(MessageType::Digest)
            .signing_algorithm(SigningAlgorithmSpec::EcdsaSha256)
            .send();
        let out = tokio::time::timeout(SIGN_TIMEOUT, call)
            .await
            .map_err(|_| format!("kms:Sign: no answer within {SIGN_TIMEOUT:?}"))?
            .map_err(|e| format!("kms:Sign: {}", DisplayErrorContext(&e)))?;
        let der = out.signature().ok_or("kms:Sign answered no signature")?;
        der_to_jose(der.as_ref()).map_err(|e| format!("kms:Sign: {e}"))
    }

    fn jwks(&self) -> Vec<Json> {
        self.published.clone()
    }
}

#[cfg(test)]
#[path = "kms_tests.rs"]
mod tests;
