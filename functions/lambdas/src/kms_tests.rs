//! Fixed vectors for the DER -> JOSE conversion and the SubjectPublicKeyInfo parse. The real
//! signatures were made once by OpenSSL (Python `cryptography`) with the P-256 key of RFC 6979
//! A.2.5 over `MESSAGE`, and chosen for their shapes: both integers with the high bit set (a
//! 0x00 sign byte each), a short r, a short s, and neither padded nor short.

use super::*;
use p256::ecdsa::signature::Verifier;

const MESSAGE: &[u8] = b"eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJjaWFtIn0";
const SPKI: &str = "3059301306072a8648ce3d020106082a8648ce3d0301070342000460fed4ba255a9d31c961eb74c6356d68c049b8923b61fa6ce669622e60f29fb67903fe1008b8bc99a41ae9e95628bc64f2f1b20c2d7e9f5177a3c294d4462299";
/// r and s of 33 bytes: 0x00, then a byte with the high bit set.
const BOTH_PADDED: &str = "3046022100b60faddc8824162922d8df4bd34e0dd3061be04822157157ecb5ceea643065ff022100b4350b9ce6ee80f89490b3375efe2b4e9a1ffb888fef59a39bc2578619a46ae4";
/// r of 31 bytes (its top byte was zero), s padded.
const SHORT_R: &str = "3044021f42f63e6d953b20128ce192ee53a10e5182b2d15340b541dbdaadde8eb28d6d022100b7a1b264b4343a3f60b347b525c97c0db067177341b88ced77ca217d09c7c85a";
/// s of 31 bytes.
const SHORT_S: &str = "3043022011f03d2dd420c0e0899e01dfd83539d2db9e3e5d146e0c1e10b79bc060707bfe021f074fb559973b45c077f46c1876f5bd9ee0f522e72394ffec8e58b9c65f6690";
/// 32 bytes each, no padding.
const PLAIN: &str = "304402206f887a52f09adca9d9dcd2d58151202198ec1fb835f4ef798d9949c6dac590e902203782560efdc029c1b9b248a0fc4d26ade859846e84ea2ddfca9dea0d0b21f07b";
/// The order n of P-256.
const N: &str = "ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551";

fn bytes(h: &str) -> Vec<u8> {
    hex::decode(h).unwrap()
}

fn key() -> p256::ecdsa::VerifyingKey {
    spki_to_key(&bytes(SPKI)).unwrap()
}

#[test]
fn real_signatures_of_every_shape_convert_and_verify() {
    for (name, der) in [
        ("both padded", BOTH_PADDED),
        ("short r", SHORT_R),
        ("short s", SHORT_S),
        ("plain", PLAIN),
    ] {
        let jose = der_to_jose(&bytes(der)).unwrap_or_else(|e| panic!("{name}: {e}"));
        let sig = p256::ecdsa::Signature::from_slice(&jose).unwrap();
        assert!(
            key().verify(MESSAGE, &sig).is_ok(),
            "{name} does not verify"
        );
        assert!(key().verify(b"another message", &sig).is_err(), "{name}");
    }
}

#[test]
fn the_sign_byte_is_dropped_and_short_integers_are_left_padded() {
    let jose = der_to_jose(&bytes(BOTH_PADDED)).unwrap();
    assert_eq!(hex::encode(&jose[..32]), &BOTH_PADDED[10..74]);
    assert_eq!(hex::encode(&jose[32..]), &BOTH_PADDED[80..]);
    let jose = der_to_jose(&bytes(SHORT_R)).unwrap();
    assert_eq!(jose[0], 0, "a 31-byte r starts with one zero byte");
    assert_eq!(hex::encode(&jose[1..32]), &SHORT_R[8..70]);
    let jose = der_to_jose(&bytes(SHORT_S)).unwrap();
    assert_eq!(jose[32], 0);
    assert_eq!(hex::encode(&jose[33..]), &SHORT_S[76..]);
    // The shortest: r = 1, s = 2.
    let jose = der_to_jose(&[0x30, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x02]).unwrap();
    let mut expected = [0u8; 64];
    expected[31] = 1;
    expected[63] = 2;
    assert_eq!(jose, expected);
}

#[test]
fn malformed_der_is_refused() {
    let one_two = |r: &[u8], s: &[u8]| {
        let mut body = vec![0x02, r.len() as u8];
        body.extend_from_slice(r);
        body.extend([0x02, s.len() as u8]);
        body.extend_from_slice(s);
        let mut der = vec![0x30, body.len() as u8];
        der.extend(body);
        der
    };
    let mut trailing = bytes(PLAIN);
    trailing.push(0);
    let mut long_form = vec![0x30, 0x81, 0x44];
    long_form.extend_from_slice(&bytes(PLAIN)[2..]);
    let mut truncated = bytes(PLAIN);
    truncated.pop();
    let mut wrong_tag = bytes(PLAIN);
    wrong_tag[0] = 0x31;
    let mut bit_string = bytes(PLAIN);
    bit_string[2] = 0x03;
    let cases: Vec<(&str, Vec<u8>, DerError)> = vec![
        ("empty", vec![], DerError::Malformed),
        ("not a sequence", wrong_tag, DerError::Malformed),
        ("not an integer", bit_string, DerError::Malformed),
        ("trailing byte", trailing.clone(), DerError::Malformed),
        ("short sequence length", truncated, DerError::Malformed),
        ("long-form length", long_form, DerError::Malformed),
        (
            "one integer",
            vec![0x30, 0x03, 0x02, 0x01, 0x01],
            DerError::Malformed,
        ),
        ("empty integer", one_two(&[], &[1]), DerError::Malformed),
        ("negative r", one_two(&[0x80], &[1]), DerError::Malformed),
        (
            "needless zero",
            one_two(&[0x00, 0x01], &[1]),
            DerError::Malformed,
        ),
        (
            "r of 33 bytes",
            one_two(&[0x7f; 33], &[1]),
            DerError::OutOfRange,
        ),
        (
            "r of 34 bytes",
            one_two(&[&[0u8][..], &[0xff; 33]].concat(), &[1]),
            DerError::OutOfRange,
        ),
        ("r zero", one_two(&[0], &[1]), DerError::OutOfRange),
        (
            "s equal to n",
            one_two(&[1], &[&[0u8][..], &bytes(N)].concat()),
            DerError::OutOfRange,
        ),
    ];
    for (name, der, expected) in cases {
        assert_eq!(der_to_jose(&der), Err(expected), "{name}");
    }
    // One below n is still a valid scalar.
    let mut below = bytes(N);
    below[31] -= 1;
    assert!(der_to_jose(&one_two(&[1], &[&[0u8][..], &below].concat())).is_ok());
}

#[test]
fn the_public_key_comes_from_a_p256_spki_only() {
    let jwk = public_jwk(&key());
    assert_eq!(jwk["kty"], "EC");
    assert_eq!(jwk["crv"], "P-256");
    assert_eq!(jwk["alg"], "ES256");
    let x = URL_SAFE_NO_PAD.decode(jwk["x"].as_str().unwrap()).unwrap();
    assert_eq!(hex::encode(x), &SPKI[54..118]);
    let mut spki = bytes(SPKI);
    assert!(spki_to_key(&spki[..90]).is_err(), "truncated");
    spki[60] ^= 1;
    assert!(spki_to_key(&spki).is_err(), "a point off the curve");
    let mut other_curve = bytes(SPKI);
    other_curve[22] = 0x08; // the OID of another curve
    assert!(spki_to_key(&other_curve).is_err());
}

#[test]
fn the_kid_is_the_rfc_7638_thumbprint() {
    // Computed apart (Python: json.dumps with sorted keys and no spaces, then SHA-256).
    let jwk = public_jwk(&key());
    assert_eq!(jwk["x"], "YP7UuiVanTHJYet0xjVtaMBJuJI7Yfps5mliLmDyn7Y");
    assert_eq!(jwk["y"], "eQP-EAi4vJmkGunpVii8ZPLxsgwtfp9Rd6PClNRGIpk");
    assert_eq!(jwk["kid"], "DOvxvJiAdIqVWIkFt5hDtCunXLF0BV4-JGv4f-ALSm0");
}
