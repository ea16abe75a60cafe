//! The sealed challenge token (docs/passkeys-design.md §2.2): the options routes answer it as
//! `passkeyChallenge`, the finish opens it. It holds the ceremony (in the AAD), the expiry, the
//! binding (who or what the ceremony is for) and the relying-party crate's server state, sealed
//! with AES-256-GCM under `keys.derive("passkey-challenge")`. The options routes write nothing;
//! single use is the finish's `PASSKEYUSED#` marker. During a root rotation's overlap a token
//! sealed under the previous root still opens.

use crate::{random, Entropy, Error, Keys, Reason, Result};
use aes_gcm::aead::{Aead, KeyInit, Payload};
use aes_gcm::{Aes256Gcm, Nonce};
use data_encoding::BASE64URL_NOPAD;

/// How long a challenge lives, in seconds.
pub const TTL_SECS: i64 = 300;

const NONCE: usize = 12;
/// The longest token accepted, as text (a server state of a few hundred bytes at most).
const MAX_TOKEN: usize = 2048;

/// The ceremony a token was made for; a token of one never finishes another.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ceremony {
    Register,
    Signin,
    Mfa,
    Reauth,
}

impl Ceremony {
    pub fn as_str(self) -> &'static str {
        match self {
            Ceremony::Register => "register",
            Ceremony::Signin => "signin",
            Ceremony::Mfa => "mfa",
            Ceremony::Reauth => "reauth",
        }
    }
}

/// What a token carries.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    pub ceremony: Ceremony,
    /// Unix seconds after which the token is refused.
    pub exp: i64,
    /// `register`/`reauth`: the userId and the keyed hash of the session; `mfa`: the keyed hash
    /// of the MFA challenge; `signin`: the appId or empty.
    pub binding: String,
    /// The relying-party crate's server state (its own binary encoding).
    pub state: Vec<u8>,
}

fn expired() -> Error {
    Error::new(Reason::PASSKEY_CHALLENGE_EXPIRED)
}

fn cipher(keys: &Keys) -> Result<Aes256Gcm> {
    Aes256Gcm::new_from_slice(&keys.derive("passkey-challenge")).map_err(Error::internal)
}

fn aad(ceremony: Ceremony) -> Vec<u8> {
    format!("ciam-passkey-v1|{}", ceremony.as_str()).into_bytes()
}

impl Token {
    /// A token for `ceremony` expiring `TTL_SECS` after `now`.
    pub fn new(ceremony: Ceremony, now: i64, binding: impl Into<String>, state: Vec<u8>) -> Self {
        Token {
            ceremony,
            exp: now + TTL_SECS,
            binding: binding.into(),
            state,
        }
    }

    /// base64url(nonce ‖ AES-256-GCM(exp ‖ binding length ‖ binding ‖ state)).
    pub fn seal(&self, keys: &Keys, entropy: &dyn Entropy) -> Result<String> {
        let binding = self.binding.as_bytes();
        let len = u16::try_from(binding.len()).map_err(Error::internal)?;
        let mut plain = Vec::with_capacity(10 + binding.len() + self.state.len());
        plain.extend_from_slice(&self.exp.to_be_bytes());
        plain.extend_from_slice(&len.to_be_bytes());
        plain.extend_from_slice(binding);
        plain.extend_from_slice(&self.state);
        let nonce = random::<NONCE>(entropy);
        let aad = aad(self.ceremony);
        let ct = cipher(keys)?
            .encrypt(
                Nonce::from_slice(&nonce),
                Payload {
                    msg: &plain,
                    aad: &aad,
                },
            )
            .map_err(Error::internal)?;
        Ok(BASE64URL_NOPAD.encode(&[nonce.as_slice(), &ct].concat()))
    }

    /// Opens `token` for `ceremony` and checks its binding and expiry. Every failure (malformed,
    /// another ceremony or binding, expired, sealed under an unknown root) is
    /// `PASSKEY_CHALLENGE_EXPIRED`. Single use is the caller's (the `PASSKEYUSED#` marker).
    pub fn open(
        keys: &Keys,
        ceremony: Ceremony,
        binding: &str,
        now: i64,
        token: &str,
    ) -> Result<Token> {
        let t = Self::open_unbound(keys, ceremony, now, token)?;
        if t.binding != binding {
            return Err(expired());
        }
        Ok(t)
    }

    /// As [`Token::open`] without the binding check, for a ceremony whose binding the finish
    /// reads from the token (the sign-in's appId).
    pub fn open_unbound(keys: &Keys, ceremony: Ceremony, now: i64, token: &str) -> Result<Token> {
        if token.len() > MAX_TOKEN {
            return Err(expired());
        }
        let raw = BASE64URL_NOPAD
            .decode(token.as_bytes())
            .map_err(|_| expired())?;
        if raw.len() < NONCE {
            return Err(expired());
        }
        let (nonce, ct) = raw.split_at(NONCE);
        let aad = aad(ceremony);
        let open = |k: &Keys| -> Result<Option<Vec<u8>>> {
            Ok(cipher(k)?
                .decrypt(Nonce::from_slice(nonce), Payload { msg: ct, aad: &aad })
                .ok())
        };
        let plain = match open(keys)? {
            Some(p) => p,
            None => match keys.previous() {
                Some(prev) => open(prev)?.ok_or_else(expired)?,
                None => return Err(expired()),
            },
        };
        let t = Self::parse(ceremony, &plain).ok_or_else(expired)?;
        if t.exp <= now {
            return Err(expired());
        }
        Ok(t)
    }

    fn parse(ceremony: Ceremony, plain: &[u8]) -> Option<Token> {
        let exp = i64::from_be_bytes(plain.get(..8)?.try_into().ok()?);
        let len = usize::from(u16::from_be_bytes(plain.get(8..10)?.try_into().ok()?));
        let binding = String::from_utf8(plain.get(10..10 + len)?.to_vec()).ok()?;
        let state = plain.get(10 + len..)?.to_vec();
        Some(Token {
            ceremony,
            exp,
            binding,
            state,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::OsEntropy;

    const NOW: i64 = 1_800_000_000;

    fn token() -> Token {
        Token::new(Ceremony::Signin, NOW, "app-1", vec![1, 2, 3])
    }

    #[test]
    fn a_sealed_token_opens_once_sealed_and_only_as_made() {
        let keys = Keys::from_root([7; 32]);
        let s = token().seal(&keys, &OsEntropy).unwrap();
        assert_eq!(
            Token::open(&keys, Ceremony::Signin, "app-1", NOW + 299, &s).unwrap(),
            token()
        );
        let refused =
            |r: Result<Token>| assert_eq!(r.unwrap_err().reason, Reason::PASSKEY_CHALLENGE_EXPIRED);
        refused(Token::open(&keys, Ceremony::Signin, "app-1", NOW + 300, &s));
        refused(Token::open(&keys, Ceremony::Mfa, "app-1", NOW, &s));
        refused(Token::open(&keys, Ceremony::Signin, "app-2", NOW, &s));
        refused(Token::open(
            &Keys::from_root([8; 32]),
            Ceremony::Signin,
            "app-1",
            NOW,
            &s,
        ));
        refused(Token::open(
            &keys,
            Ceremony::Signin,
            "app-1",
            NOW,
            "not base64!",
        ));
        refused(Token::open(&keys, Ceremony::Signin, "app-1", NOW, "AAAA"));
        let mut raw = BASE64URL_NOPAD.decode(s.as_bytes()).unwrap();
        let last = raw.len() - 1;
        raw[last] ^= 1;
        refused(Token::open(
            &keys,
            Ceremony::Signin,
            "app-1",
            NOW,
            &BASE64URL_NOPAD.encode(&raw),
        ));
    }

    #[test]
    fn a_token_of_the_previous_root_opens_during_the_overlap() {
        let old = Keys::from_root([1; 32]);
        let s = token().seal(&old, &OsEntropy).unwrap();
        let rotated = Keys::from_root([2; 32]).with_previous([1; 32]);
        assert!(Token::open(&rotated, Ceremony::Signin, "app-1", NOW, &s).is_ok());
        assert!(Token::open(
            &Keys::from_root([2; 32]),
            Ceremony::Signin,
            "app-1",
            NOW,
            &s
        )
        .is_err());
    }
}
