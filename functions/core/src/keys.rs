//! Over 500 lines because each purpose's overlap, resolved on its own (issue 30), sits beside the
//! derivation and the logout signer it changes.
//!
//! The `Keys` port: one root secret, from which every purpose derives its own key
//! (HMAC-SHA256(root, label)), so no two uses ever share a key. In AWS the root is read from
//! Secrets Manager once at init (`ciam_lambdas`); locally it is generated into the data folder on
//! first start.
//!
//! Rotation: `Keys` may also hold the previous root. Everything is derived from the current root;
//! the paths that look up long-lived things by a keyed hash or open what an old root sealed
//! (sessions, two-factor secrets, backup codes, partner app secrets) also try the previous one
//! while it is there. The OpenID Connect signer is another seam kept here: derived from the root
//! unless a deployment installs its own (`with_oidc_signer`, AWS KMS in the Lambdas).
//!
//! Reach: a holder may be restricted to some key purposes (`restricted`, `key_purpose.rs`), and
//! in AWS a function holds only its purposes' keys by label (`with_labels`), never the root.

use crate::signer::OidcSigner;
use async_trait::async_trait;
use hmac::{Hmac, Mac};
use sha2::Sha256;

use crate::key_purpose::{KeyPurpose, Purposes};
use serde_json::Value as Json;
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

type HmacSha256 = Hmac<Sha256>;

#[derive(Clone)]
pub struct Keys {
    /// Where keys come from: the root, or the keys of some labels derived from it elsewhere
    /// (a function in AWS holds only its purposes' keys, `with_labels`).
    source: Source,
    /// The purposes this holder may use; None: all (see `restricted`).
    allowed: Option<Purposes>,
    /// Whether deriving an undeclared purpose panics (debug builds) besides being logged and
    /// marking the request.
    panics: bool,
    /// The root before the last rotation, accepted for verification during the overlap; or,
    /// while a rotation is announced, the next root (see `writes_back`).
    previous: Option<Arc<Keys>>,
    /// Whether something found only under `previous` is written back under the current root.
    /// False while the next root is merely announced: an instance still on the old root must
    /// never move what newer instances already moved to the new one back to the old.
    writes_back: bool,
    /// The signer installed by the deployment; None: ES256 keys derived from the root.
    signer: Option<Arc<dyn OidcSigner>>,
    /// The signer of logout tokens installed by the deployment (a KMS key of its own); None:
    /// an ES256 key derived from the root for logout tokens only.
    logout_signer: Option<Arc<dyn OidcSigner>>,
    /// ES256 keys already derived, by version and use (id_tokens: false, logout tokens: true):
    /// each is derived once per process (shared by clones, which have the same root).
    es256: Arc<Mutex<HashMap<(u32, bool), Es256Key>>>,
}

#[derive(Clone)]
enum Source {
    Root([u8; 32]),
    /// label -> HMAC-SHA256(root, label), for the labels of some purposes.
    Labels(Arc<BTreeMap<String, [u8; 32]>>),
}

impl std::fmt::Debug for Keys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Keys(..)")
    }
}

/// Why a root secret string was refused. Never carries the value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RootError {
    #[error("must be at least 32 characters")]
    TooShort,
}

impl Keys {
    pub fn from_root(root: [u8; 32]) -> Self {
        Keys::from_source(Source::Root(root))
    }

    fn from_source(source: Source) -> Self {
        Keys {
            source,
            allowed: None,
            panics: cfg!(debug_assertions),
            previous: None,
            writes_back: true,
            signer: None,
            logout_signer: None,
            es256: Arc::default(),
        }
    }

    /// Parses 64 hex characters.
    pub fn from_hex(s: &str) -> Option<Self> {
        let bytes = hex::decode(s.trim()).ok()?;
        Some(Keys::from_root(bytes.try_into().ok()?))
    }

    /// The 32-byte root of a secret string: its hex decoding when it is exactly 64 hex
    /// characters, else SHA-256 of its UTF-8 bytes, which then must be at least 32 characters
    /// (a generated 64-character string without punctuation, or a typed passphrase).
    pub fn root_from_secret(s: &str) -> Result<[u8; 32], RootError> {
        if s.len() == 64 && s.bytes().all(|b| b.is_ascii_hexdigit()) {
            let mut root = [0u8; 32];
            if hex::decode_to_slice(s, &mut root).is_ok() {
                return Ok(root);
            }
        }
        if s.chars().count() < 32 {
            return Err(RootError::TooShort);
        }
        use sha2::Digest;
        Ok(Sha256::digest(s.as_bytes()).into())
    }

    /// The same keys, also accepting `previous` (the root before a rotation) where verification
    /// looks for something made under it.
    pub fn with_previous(mut self, previous: [u8; 32]) -> Self {
        self.previous = Some(Arc::new(self.sibling(previous)));
        self.writes_back = true;
        self
    }

    /// The same keys, also accepting `next` (the root a rotation has announced) for reading
    /// only: nothing found under it is written back under the current root.
    pub fn with_next(mut self, next: [u8; 32]) -> Self {
        self.previous = Some(Arc::new(self.sibling(next)));
        self.writes_back = false;
        self
    }

    /// Keys of another root with this holder's restriction.
    fn sibling(&self, root: [u8; 32]) -> Keys {
        Keys {
            allowed: self.allowed,
            panics: self.panics,
            ..Keys::from_root(root)
        }
    }

    /// Whether a two-factor secret or an app secret hash found only under the other root is
    /// rewritten under the current one (true outside an announcement).
    pub fn writes_back(&self) -> bool {
        self.writes_back
    }

    /// The keys of the previous root, during a rotation's overlap.
    pub fn previous(&self) -> Option<&Keys> {
        self.previous.as_deref()
    }

    /// The same keys, signing id_tokens with `signer` instead of a key derived from the root.
    pub fn with_oidc_signer(mut self, signer: Arc<dyn OidcSigner>) -> Self {
        self.signer = Some(signer);
        self
    }

    /// What signs id_tokens and fills the JWKS: the installed signer, else the ES256 keys
    /// derived from the root for key version `version` (ignored by an installed signer).
    pub fn oidc_signer(&self, version: u32) -> Arc<dyn OidcSigner> {
        match &self.signer {
            Some(s) => s.clone(),
            None => Arc::new(DerivedSigner::new(self, version)),
        }
    }

    /// The same keys, signing logout tokens with `signer` (a key used for nothing else) instead
    /// of a key derived from the root.
    pub fn with_logout_signer(mut self, signer: Arc<dyn OidcSigner>) -> Self {
        self.logout_signer = Some(signer);
        self
    }

    /// What signs Back-Channel Logout tokens, and only them: the installed logout signer, else
    /// the ES256 logout key derived from the root for key version `version`. Its key is
    /// published in the JWKS beside the id_token keys, under its own `kid`, so the function
    /// that sends logout tokens to partner hosts never holds the key of id_tokens.
    /// A deployment that installs an id_token signer and no logout signer (a stack from before
    /// the logout key) signs logout tokens with the id_token signer, as it did then.
    pub fn logout_signer(&self, version: u32) -> Arc<dyn OidcSigner> {
        match (&self.logout_signer, &self.signer) {
            (Some(s), _) | (None, Some(s)) => s.clone(),
            (None, None) => Arc::new(DerivedSigner::logout(self, version)),
        }
    }

    /// HMAC-SHA256(root, label). A label outside the purposes this holder may use (see
    /// `restricted`), or not among the keys it was given (`with_labels`), is a programming
    /// error: logged, the request marked (its store refuses, the answer is 503), a panic in
    /// debug builds, and a fresh random key returned that matches nothing.
    pub fn derive(&self, label: &str) -> [u8; 32] {
        let purpose = KeyPurpose::of_label(label);
        let declared = match (self.allowed, purpose) {
            (None, _) => true,
            (Some(allowed), Some(p)) => allowed.contains(p),
            (Some(_), None) => false,
        };
        let key = match &self.source {
            _ if !declared => None,
            Source::Root(root) => Some(self.mac_with(root, label.as_bytes())),
            Source::Labels(keys) => keys.get(label).copied(),
        };
        key.unwrap_or_else(|| self.undeclared(label, purpose))
    }

    #[cold]
    fn undeclared(&self, label: &str, purpose: Option<KeyPurpose>) -> [u8; 32] {
        let purpose = purpose.map_or("none", KeyPurpose::name);
        let route = crate::key_purpose::mark_undeclared().unwrap_or("-");
        tracing::error!(
            label,
            purpose,
            route,
            "key of an undeclared purpose: the request answers 503 (declare the purpose on the \
             route's row)"
        );
        if self.panics {
            panic!("key {label:?} of purpose {purpose} used but not declared by the route {route}");
        }
        random::<32>(&OsEntropy)
    }

    /// The same keys, usable for `purposes` only (the previous or next root's too). The HTTP
    /// layer runs each route with its row's purposes.
    pub fn restricted(mut self, purposes: Purposes) -> Self {
        self.allowed = Some(purposes);
        if let Some(p) = &self.previous {
            self.previous = Some(Arc::new(p.as_ref().clone().restricted(purposes)));
        }
        self
    }

    /// The same keys, answering an undeclared purpose without panicking in debug builds too
    /// (the production path: logged, 503). For the tests of that path.
    pub fn without_panics(mut self) -> Self {
        self.panics = false;
        if let Some(p) = &self.previous {
            self.previous = Some(Arc::new(p.as_ref().clone().without_panics()));
        }
        self
    }

    /// The purposes this holder may use, None for all.
    pub fn allowed(&self) -> Option<Purposes> {
        self.allowed
    }

    /// Keys given as label -> key (hex) pairs instead of a root: what a function in AWS reads
    /// from its purposes' secrets. Every other label is undeclared. None if a value is not 64
    /// hex characters.
    pub fn with_labels<'a>(labels: impl IntoIterator<Item = (&'a str, &'a str)>) -> Option<Self> {
        let mut keys = BTreeMap::new();
        for (label, hex_key) in labels {
            let mut k = [0u8; 32];
            hex::decode_to_slice(hex_key, &mut k).ok()?;
            keys.insert(label.to_owned(), k);
        }
        Some(Keys::from_source(Source::Labels(Arc::new(keys))))
    }

    /// The same keys, with `previous` accepted as `with_previous` does, given as keys too.
    pub fn with_previous_keys(mut self, previous: Keys, writes_back: bool) -> Self {
        self.previous = Some(Arc::new(previous));
        self.writes_back = writes_back;
        self
    }

    /// The keys of the labels of `purposes` derived from this root, as hex: what the key
    /// distributor writes into each purpose's secret. Empty for keys given by label.
    pub fn purpose_keys(&self, purpose: KeyPurpose) -> BTreeMap<&'static str, String> {
        match &self.source {
            Source::Root(root) => purpose
                .labels()
                .iter()
                .map(|l| (*l, hex::encode(self.mac_with(root, l.as_bytes()))))
                .collect(),
            Source::Labels(_) => BTreeMap::new(),
        }
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

/// An ES256 (ECDSA P-256, SHA-256) signing key of the OpenID Connect provider, derived from the
/// root for one key version, so every instance of every function signs with the same key and a
/// rotation is a change of `Config::oidc_key_version`, not a stored secret. Used where no other
/// signer is installed (`ciam serve`, tests).
#[derive(Clone)]
pub struct Es256Key {
    version: u32,
    kid: String,
    key: p256::ecdsa::SigningKey,
}

impl std::fmt::Debug for Es256Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Es256Key({})", self.kid)
    }
}

impl Es256Key {
    pub fn version(&self) -> u32 {
        self.version
    }

    /// `<version>-<base64url of 9 bytes of SHA-256(version, public point)>`.
    pub fn kid(&self) -> &str {
        &self.kid
    }

    /// The signature `r || s` (64 bytes) of `data`, as JWS ES256 wants it.
    pub fn sign(&self, data: &[u8]) -> [u8; 64] {
        use p256::ecdsa::signature::Signer;
        let sig: p256::ecdsa::Signature = self.key.sign(data);
        let mut out = [0u8; 64];
        out.copy_from_slice(&sig.to_bytes());
        out
    }

    pub fn verifying_key(&self) -> p256::ecdsa::VerifyingKey {
        *self.key.verifying_key()
    }

    /// The public key as a JWK: `{kty, crv, x, y, kid, use, alg}`.
    pub fn public_jwk(&self) -> serde_json::Value {
        use base64::engine::general_purpose::URL_SAFE_NO_PAD;
        use base64::Engine;
        let point = self.key.verifying_key().to_encoded_point(false);
        let coord = |c: Option<&p256::FieldBytes>| {
            URL_SAFE_NO_PAD.encode(c.map(|b| b.as_slice()).unwrap_or_default())
        };
        serde_json::json!({
            "kty": "EC",
            "crv": "P-256",
            "x": coord(point.x()),
            "y": coord(point.y()),
            "kid": self.kid,
            "use": "sig",
            "alg": "ES256",
        })
    }
}

impl Keys {
    /// The ES256 key of `version`: the scalar is `derive("oidc-es256-v<version>")`, or, in the
    /// negligible case that it is zero or not below the curve order, the first valid
    /// `derive("oidc-es256-v<version>-<n>")`. Derived once per version, then cached.
    pub fn es256(&self, version: u32) -> Es256Key {
        self.cached_es256(version, false)
    }

    /// The ES256 key of logout tokens of `version`: as [`Keys::es256`] with the labels
    /// `oidc-es256-v<version>-logout` (then `...-logout-<n>`), and a `kid` of the form
    /// `<version>-logout-<...>`: another key, never an id_token's.
    pub fn logout_es256(&self, version: u32) -> Es256Key {
        self.cached_es256(version, true)
    }

    fn cached_es256(&self, version: u32, logout: bool) -> Es256Key {
        if self.allowed.is_some_and(|a| !a.contains(KeyPurpose::Es256)) {
            // Not from the cache shared with unrestricted clones: `derive` refuses.
            return self.derive_es256(version, logout);
        }
        let mut cache = self.es256.lock().unwrap_or_else(|e| e.into_inner());
        cache
            .entry((version, logout))
            .or_insert_with(|| self.derive_es256(version, logout))
            .clone()
    }

    fn derive_es256(&self, version: u32, logout: bool) -> Es256Key {
        let base = if logout {
            format!("oidc-es256-v{version}-logout")
        } else {
            format!("oidc-es256-v{version}")
        };
        let mut counter = 0u32;
        let key = loop {
            let label = if counter == 0 {
                base.clone()
            } else {
                format!("{base}-{counter}")
            };
            let scalar = self.derive(&label);
            if let Ok(k) = p256::ecdsa::SigningKey::from_bytes(&scalar.into()) {
                break k;
            }
            counter += 1;
        };
        use base64::engine::general_purpose::URL_SAFE_NO_PAD;
        use base64::Engine;
        use sha2::Digest;
        let point = key.verifying_key().to_encoded_point(false);
        let mut h = Sha256::new();
        h.update(version.to_be_bytes());
        h.update(point.as_bytes());
        let digest = h.finalize();
        let use_ = if logout { "-logout" } else { "" };
        let kid = format!("{version}{use_}-{}", URL_SAFE_NO_PAD.encode(&digest[..9]));
        Es256Key { version, kid, key }
    }
}

/// ES256 keys derived from the root per key version (`Keys::es256`): signs with version N and
/// publishes N, N+1 (so a rotation switches to a key clients have already cached) and N-1 (so
/// id_tokens signed just before a rotation still verify). During a root rotation's overlap the
/// previous root's key N is published too, for id_tokens signed before the switch.
pub struct DerivedSigner {
    current: Es256Key,
    published: Vec<Json>,
}

impl DerivedSigner {
    pub fn new(keys: &Keys, version: u32) -> Self {
        let version = version.max(1);
        let current = keys.es256(version);
        let mut published: Vec<Json> = [
            version.checked_add(1),
            version.checked_sub(1).filter(|v| *v >= 1),
        ]
        .into_iter()
        .flatten()
        .map(|v| keys.es256(v).public_jwk())
        .collect();
        published.insert(0, current.public_jwk());
        if let Some(previous) = keys.previous() {
            published.push(previous.es256(version).public_jwk());
        }
        DerivedSigner { current, published }
    }

    /// The signer of logout tokens: the logout key of `version` (and, during a root rotation's
    /// overlap, the previous root's, for tokens signed before the switch).
    pub fn logout(keys: &Keys, version: u32) -> Self {
        let version = version.max(1);
        let current = keys.logout_es256(version);
        let mut published = vec![current.public_jwk()];
        if let Some(previous) = keys.previous() {
            published.push(previous.logout_es256(version).public_jwk());
        }
        DerivedSigner { current, published }
    }
}

#[async_trait]
impl OidcSigner for DerivedSigner {
    fn kid(&self) -> &str {
        self.current.kid()
    }

    async fn sign(&self, signing_input: &[u8]) -> Result<[u8; 64], String> {
        Ok(self.current.sign(signing_input))
    }

    fn jwks(&self) -> Vec<Json> {
        self.published.clone()
    }
}
