//! Standard Webhooks signatures (<https://www.standardwebhooks.com>): `webhook-signature` =
//! `v1,` + base64(HMAC-SHA256(secret bytes, `id.timestamp.body`)), one per valid secret,
//! space-separated while a rotation overlaps. Secrets are `whsec_` + base64 of 32 random bytes.

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use hmac::{Hmac, Mac};
use sha2::Sha256;

pub const SECRET_PREFIX: &str = "whsec_";

/// The shown form of secret bytes.
pub fn secret_text(bytes: &[u8]) -> String {
    format!("{SECRET_PREFIX}{}", STANDARD.encode(bytes))
}

/// The bytes of a shown secret (`whsec_<base64>`), or None when it is not one.
pub fn secret_bytes(text: &str) -> Option<Vec<u8>> {
    STANDARD
        .decode(text.strip_prefix(SECRET_PREFIX)?)
        .ok()
        .filter(|b| !b.is_empty())
}

/// One signature (`v1,<base64>`) of `body` sent as message `id` at `timestamp`.
pub fn signature(secret: &[u8], id: &str, timestamp: i64, body: &str) -> String {
    // HMAC takes keys of any length: this never fails.
    let Ok(mut mac) = Hmac::<Sha256>::new_from_slice(secret) else {
        return String::new();
    };
    mac.update(format!("{id}.{timestamp}.").as_bytes());
    mac.update(body.as_bytes());
    format!("v1,{}", STANDARD.encode(mac.finalize().into_bytes()))
}

/// The three headers of a delivery, a signature per secret (the current one first).
pub fn headers(
    secrets: &[Vec<u8>],
    id: &str,
    timestamp: i64,
    body: &str,
) -> Vec<(&'static str, String)> {
    let sigs: Vec<String> = secrets
        .iter()
        .map(|s| signature(s, id, timestamp, body))
        .collect();
    vec![
        ("webhook-id", id.to_owned()),
        ("webhook-timestamp", timestamp.to_string()),
        ("webhook-signature", sigs.join(" ")),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_specification_example_signs_alike() {
        // The example of the Standard Webhooks specification.
        let secret = secret_bytes("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw").unwrap();
        let body = r#"{"test": 2432232314}"#;
        assert_eq!(
            signature(&secret, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, body),
            "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
        );
        let h = headers(&[secret.clone(), secret], "msg_1", 5, "{}");
        assert_eq!(h[2].1.split(' ').count(), 2);
        assert_eq!(secret_bytes("nope"), None);
        assert_eq!(
            secret_text(&secret_bytes("whsec_AAAA").unwrap()),
            "whsec_AAAA"
        );
    }
}
