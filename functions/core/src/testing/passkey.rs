//! A software authenticator for the passkey tests (docs/passkeys-design.md §5.3): one ES256 key,
//! CBOR written with ciborium, and the WebAuthn L3 JSON a browser's `toJSON()` gives. Every knob
//! a negative case needs is a public field: RP ID, origin, top origin, flags, counter, user
//! handle. Test code only; the server parses nothing by hand.

use ciborium::value::Value;
use data_encoding::BASE64URL_NOPAD as B64;
use p256::ecdsa::signature::Signer;
use p256::ecdsa::{Signature, SigningKey};
use serde_json::{json, Value as Json};
use sha2::{Digest, Sha256};

/// The DER prefix of a P-256 SubjectPublicKeyInfo before its uncompressed point.
const SPKI_P256: [u8; 26] = [
    0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01, 0x06, 0x08, 0x2a,
    0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00,
];

pub const UP: u8 = 0x01;
pub const UV: u8 = 0x04;
pub const BE: u8 = 0x08;
pub const BS: u8 = 0x10;
const AT: u8 = 0x40;

/// One authenticator holding one discoverable credential.
pub struct SoftAuthenticator {
    key: SigningKey,
    pub cred_id: Vec<u8>,
    /// The RP ID whose hash goes into authenticatorData.
    pub rp_id: String,
    /// `clientDataJSON.origin`.
    pub origin: String,
    /// Some: a framed ceremony (`crossOrigin: true` and this `topOrigin`, or none when empty).
    pub top_origin: Option<String>,
    /// UP, UV, BE, BS.
    pub flags: u8,
    /// The signature counter of the next ceremony; `counting` adds 1 after each.
    pub counter: u32,
    pub counting: bool,
    pub aaguid: [u8; 16],
}

fn cbor(v: &Value) -> Vec<u8> {
    let mut out = Vec::new();
    ciborium::ser::into_writer(v, &mut out).unwrap_or_else(|e| panic!("CBOR: {e}"));
    out
}

impl SoftAuthenticator {
    /// A key from `seed` (deterministic), credential id `[seed; 32]`, for `rp_id` and `origin`,
    /// flags UP|UV, counter 1 and counting.
    pub fn new(seed: u8, rp_id: &str, origin: &str) -> Self {
        let mut scalar = [seed; 32];
        scalar[0] = 0x01;
        SoftAuthenticator {
            key: SigningKey::from_bytes(&scalar.into()).unwrap_or_else(|e| panic!("scalar: {e}")),
            cred_id: vec![seed; 32],
            rp_id: rp_id.into(),
            origin: origin.into(),
            top_origin: None,
            flags: UP | UV,
            counter: 1,
            counting: true,
            aaguid: [0; 16],
        }
    }

    fn point(&self) -> p256::EncodedPoint {
        self.key.verifying_key().to_encoded_point(false)
    }

    fn auth_data(&self, attested: bool) -> Vec<u8> {
        let mut d = Sha256::digest(self.rp_id.as_bytes()).to_vec();
        d.push(self.flags | if attested { AT } else { 0 });
        d.extend_from_slice(&self.counter.to_be_bytes());
        if attested {
            let p = self.point();
            d.extend_from_slice(&self.aaguid);
            d.extend_from_slice(&(self.cred_id.len() as u16).to_be_bytes());
            d.extend_from_slice(&self.cred_id);
            d.extend_from_slice(&cbor(&Value::Map(vec![
                (Value::Integer(1.into()), Value::Integer(2.into())),
                (Value::Integer(3.into()), Value::Integer((-7).into())),
                (Value::Integer((-1).into()), Value::Integer(1.into())),
                (
                    Value::Integer((-2).into()),
                    Value::Bytes(p.x().map(|x| x.to_vec()).unwrap_or_default()),
                ),
                (
                    Value::Integer((-3).into()),
                    Value::Bytes(p.y().map(|y| y.to_vec()).unwrap_or_default()),
                ),
            ])));
        }
        d
    }

    fn client_data(&self, ty: &str, challenge: &str) -> Vec<u8> {
        let mut v = json!({"type": ty, "challenge": challenge, "origin": self.origin,
            "crossOrigin": self.top_origin.is_some()});
        if let Some(t) = self.top_origin.as_deref().filter(|t| !t.is_empty()) {
            v["topOrigin"] = t.into();
        }
        v.to_string().into_bytes()
    }

    fn tick(&mut self) {
        if self.counting {
            self.counter += 1;
        }
    }

    /// Answers creation options (`options` as the server made them: `challenge` at the top or
    /// under `publicKey`) with a `RegistrationResponseJSON`, attestation `none`.
    pub fn create(&mut self, options: &Json) -> Json {
        let ad = self.auth_data(true);
        let att = Value::Map(vec![
            (Value::Text("fmt".into()), Value::Text("none".into())),
            (Value::Text("attStmt".into()), Value::Map(vec![])),
            (Value::Text("authData".into()), Value::Bytes(ad.clone())),
        ]);
        let spki = [SPKI_P256.as_slice(), self.point().as_bytes()].concat();
        let cd = self.client_data("webauthn.create", challenge(options));
        self.tick();
        json!({"id": B64.encode(&self.cred_id), "rawId": B64.encode(&self.cred_id),
            "type": "public-key",
            "response": {"clientDataJSON": B64.encode(&cd),
                "attestationObject": B64.encode(&cbor(&att)), "authenticatorData": B64.encode(&ad),
                "publicKey": B64.encode(&spki), "publicKeyAlgorithm": -7,
                "transports": ["internal"]},
            "clientExtensionResults": {}, "authenticatorAttachment": "platform"})
    }

    /// Answers request options with an `AuthenticationResponseJSON` for `user_handle`.
    pub fn get(&mut self, options: &Json, user_handle: &[u8]) -> Json {
        let cd = self.client_data("webauthn.get", challenge(options));
        let ad = self.auth_data(false);
        let msg = [ad.as_slice(), &Sha256::digest(&cd)].concat();
        let sig: Signature = self.key.sign(&msg);
        self.tick();
        json!({"id": B64.encode(&self.cred_id), "rawId": B64.encode(&self.cred_id),
            "type": "public-key",
            "response": {"clientDataJSON": B64.encode(&cd), "authenticatorData": B64.encode(&ad),
                "signature": B64.encode(sig.to_der().as_bytes()),
                "userHandle": B64.encode(user_handle)},
            "clientExtensionResults": {}, "authenticatorAttachment": "platform"})
    }
}

/// The challenge of options JSON (`publicKey.challenge` or `challenge`).
pub fn challenge(options: &Json) -> &str {
    options["publicKey"]["challenge"]
        .as_str()
        .or(options["challenge"].as_str())
        .unwrap_or_default()
}
