//! The `Keys` port: one root secret, from which every purpose derives its own key
//! (HMAC-SHA256(root, label)), so no two uses ever share a key. In AWS the root comes from the
//! environment (filled from Secrets Manager at deploy); locally it is generated into the data
//! folder on first start.

use hmac::{Hmac, Mac};
use sha2::Sha256;

type HmacSha256 = Hmac<Sha256>;

#[derive(Clone)]
pub struct Keys {
    root: [u8; 32],
}

impl std::fmt::Debug for Keys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Keys(..)")
    }
}

impl Keys {
    pub fn from_root(root: [u8; 32]) -> Self {
        Keys { root }
    }

    /// Parses 64 hex characters.
    pub fn from_hex(s: &str) -> Option<Self> {
        let bytes = hex::decode(s.trim()).ok()?;
        Some(Keys {
            root: bytes.try_into().ok()?,
        })
    }

    pub fn derive(&self, label: &str) -> [u8; 32] {
        self.mac_with(&self.root, label.as_bytes())
    }

    /// A keyed hash of `data` under the key for `label`, as hex.
    pub fn keyed_hash(&self, label: &str, data: &[u8]) -> String {
        hex::encode(self.mac_with(&self.derive(label), data))
    }

    fn mac_with(&self, key: &[u8], data: &[u8]) -> [u8; 32] {
        let mut mac = match HmacSha256::new_from_slice(key) {
            Ok(m) => m,
            // HMAC takes keys of any length; this arm cannot happen.
            Err(_) => return [0; 32],
        };
        mac.update(data);
        mac.finalize().into_bytes().into()
    }
}

/// Randomness, injected like time. Production uses the OS generator.
pub trait Entropy: Send + Sync {
    fn fill(&self, buf: &mut [u8]);
}

#[derive(Clone, Copy, Debug, Default)]
pub struct OsEntropy;

impl Entropy for OsEntropy {
    fn fill(&self, buf: &mut [u8]) {
        use rand::RngCore;
        rand::rngs::OsRng.fill_bytes(buf);
    }
}

pub fn random<const N: usize>(e: &dyn Entropy) -> [u8; N] {
    let mut b = [0u8; N];
    e.fill(&mut b);
    b
}

/// A uniformly random string of `n` decimal digits.
pub fn random_digits(e: &dyn Entropy, n: usize) -> String {
    let mut out = String::with_capacity(n);
    while out.len() < n {
        let [b] = random::<1>(e);
        // Reject 250..=255 so every digit is equally likely.
        if b < 250 {
            out.push(char::from(b'0' + b % 10));
        }
    }
    out
}
