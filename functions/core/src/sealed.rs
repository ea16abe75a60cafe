//! Short secrets sealed at rest: AES-256-GCM under a key derived from the root for a label
//! (`Keys::derive`), bound to the id of what holds it (associated data: a sealed value copied to
//! another user or endpoint does not open). The stored form is `nonce (12 bytes) || ciphertext`.
//! The authenticator's secret (`totp`), a webhook endpoint's signing secret (`webhooks`) and
//! WeCom's cached corp token (the api crate's `federation::wecom`) are sealed this way.

use crate::error::{Error, Result};
use crate::{random, Entropy, Keys};
use aes_gcm::aead::{Aead, KeyInit, Payload};
use aes_gcm::{Aes256Gcm, Nonce};

fn cipher(keys: &Keys, label: &str) -> Result<Aes256Gcm> {
    Aes256Gcm::new_from_slice(&keys.derive(label)).map_err(Error::internal)
}

/// `plain` sealed under `label`'s key of `keys`, bound to `aad`.
pub fn seal(
    keys: &Keys,
    entropy: &dyn Entropy,
    label: &str,
    aad: &str,
    plain: &[u8],
) -> Result<Vec<u8>> {
    let nonce = random::<12>(entropy);
    let ct = cipher(keys, label)?
        .encrypt(
            Nonce::from_slice(&nonce),
            Payload {
                msg: plain,
                aad: aad.as_bytes(),
            },
        )
        .map_err(Error::internal)?;
    Ok([nonce.as_slice(), &ct].concat())
}

/// The value `sealed` holds, when it was sealed under `label`'s key of `keys` for `aad`; None
/// when it does not open under these keys (another root, another holder). A value too short to
/// be sealed at all is an error.
pub fn open(keys: &Keys, label: &str, aad: &str, sealed: &[u8]) -> Result<Option<Vec<u8>>> {
    if sealed.len() < 12 {
        return Err(Error::internal("sealed secret too short"));
    }
    let (nonce, ct) = sealed.split_at(12);
    Ok(cipher(keys, label)?
        .decrypt(
            Nonce::from_slice(nonce),
            Payload {
                msg: ct,
                aad: aad.as_bytes(),
            },
        )
        .ok())
}
