//! The two providers' request signatures, as pure functions of fixed inputs (the adapters add
//! the clock and the nonce), so the worked examples of each provider's documentation and the
//! official SDKs can check them byte for byte (tests below, `examples/sign.rs`,
//! infra/tests/test_sms_signatures.py).
//!
//! - Aliyun: the V3 header signature `ACS3-HMAC-SHA256` (help.aliyun.com "V3版本请求体&签名机制",
//!   the current one for every product in OpenAPI Explorer, dysmsapi included; V2 `HMAC-SHA1`
//!   query signatures are the legacy path the docs tell callers to leave).
//! - Tencent Cloud: API 3.0 `TC3-HMAC-SHA256` (cloud.tencent.com/document/api/382/52072).

use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256};

pub fn sha256_hex(data: &[u8]) -> String {
    hex::encode(Sha256::digest(data))
}

fn hmac_sha256(key: &[u8], msg: &[u8]) -> Vec<u8> {
    // HMAC takes a key of any length (a longer one is hashed first): `new_from_slice` cannot fail.
    #[allow(clippy::expect_used)]
    let mut mac = Hmac::<Sha256>::new_from_slice(key).expect("HMAC accepts any key length");
    mac.update(msg);
    mac.finalize().into_bytes().to_vec()
}

/// RFC 3986 percent-encoding as Aliyun's canonical query wants it: only `A-Z a-z 0-9 - _ . ~`
/// stay as they are (so a space is `%20`, `*` is `%2A`, UTF-8 bytes are `%XX` upper case).
pub fn percent_encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// `yyyy-mm-ddThh:mm:ssZ` of a Unix time (Aliyun's `x-acs-date`).
pub fn iso8601(unix: i64) -> String {
    let (y, m, d) = ciam_core::days::civil(unix.div_euclid(86_400));
    let s = unix.rem_euclid(86_400);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        s / 3600,
        s % 3600 / 60,
        s % 60
    )
}

/// `yyyy-mm-dd` (UTC) of a Unix time (Tencent's credential scope).
pub fn utc_date(unix: i64) -> String {
    let (y, m, d) = ciam_core::days::civil(unix.div_euclid(86_400));
    format!("{y:04}-{m:02}-{d:02}")
}

/// One Aliyun V3 request to sign: an RPC-style action with its parameters in the query.
#[derive(Clone, Debug)]
pub struct Acs3Request<'a> {
    pub method: &'a str,
    /// `host[:port]`, as the `host` header carries it.
    pub host: &'a str,
    pub action: &'a str,
    pub version: &'a str,
    /// `x-acs-date`, e.g. `2023-10-26T10:22:32Z`.
    pub date: &'a str,
    pub nonce: &'a str,
    pub query: &'a [(&'a str, &'a str)],
    pub body: &'a [u8],
}

/// The signed request: the headers to send (Authorization last) and the query string to put
/// on the URL (it must be the canonical one, byte for byte).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Acs3Signed {
    pub query: String,
    pub canonical_request: String,
    pub signature: String,
    pub headers: Vec<(String, String)>,
}

/// The canonical query: parameters sorted by name, names and values percent-encoded.
pub fn acs3_query(params: &[(&str, &str)]) -> String {
    let mut pairs: Vec<(String, String)> = params
        .iter()
        .map(|(k, v)| (percent_encode(k), percent_encode(v)))
        .collect();
    pairs.sort();
    pairs
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join("&")
}

/// Signs with `ACS3-HMAC-SHA256`: the signed headers are `host` and every `x-acs-*` header.
pub fn acs3(req: &Acs3Request, key_id: &str, secret: &str) -> Acs3Signed {
    let query = acs3_query(req.query);
    let payload = sha256_hex(req.body);
    // Already in the canonical order (sorted by lower-case name).
    let headers = vec![
        ("host".to_owned(), req.host.to_owned()),
        ("x-acs-action".to_owned(), req.action.to_owned()),
        ("x-acs-content-sha256".to_owned(), payload.clone()),
        ("x-acs-date".to_owned(), req.date.to_owned()),
        ("x-acs-signature-nonce".to_owned(), req.nonce.to_owned()),
        ("x-acs-version".to_owned(), req.version.to_owned()),
    ];
    let (canonical_request, signed) = acs3_canonical(req.method, "/", &query, &headers, &payload);
    let string_to_sign = format!(
        "ACS3-HMAC-SHA256\n{}",
        sha256_hex(canonical_request.as_bytes())
    );
    let signature = hex::encode(hmac_sha256(secret.as_bytes(), string_to_sign.as_bytes()));
    let mut headers = headers;
    headers.push((
        "authorization".to_owned(),
        format!(
            "ACS3-HMAC-SHA256 Credential={key_id},SignedHeaders={signed},Signature={signature}"
        ),
    ));
    Acs3Signed {
        query,
        canonical_request,
        signature,
        headers,
    }
}

/// The canonical request of ACS3 over `headers` (lower-case names, sorted), and the signed
/// header list. Shared with the fake provider, which rebuilds it from what it received.
pub fn acs3_canonical(
    method: &str,
    uri: &str,
    query: &str,
    headers: &[(String, String)],
    payload_hash: &str,
) -> (String, String) {
    let mut sorted: Vec<(String, String)> = headers
        .iter()
        .map(|(k, v)| (k.to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    sorted.sort();
    let canonical_headers: String = sorted.iter().map(|(k, v)| format!("{k}:{v}\n")).collect();
    let signed = sorted
        .iter()
        .map(|(k, _)| k.as_str())
        .collect::<Vec<_>>()
        .join(";");
    (
        format!("{method}\n{uri}\n{query}\n{canonical_headers}\n{signed}\n{payload_hash}"),
        signed,
    )
}

/// The signature of an ACS3 string to sign with `secret` (for the fake's check).
pub fn acs3_signature(canonical_request: &str, secret: &str) -> String {
    let sts = format!(
        "ACS3-HMAC-SHA256\n{}",
        sha256_hex(canonical_request.as_bytes())
    );
    hex::encode(hmac_sha256(secret.as_bytes(), sts.as_bytes()))
}

/// One Tencent Cloud API 3.0 request to sign (POST, JSON body, no query).
#[derive(Clone, Debug)]
pub struct Tc3Request<'a> {
    /// `host[:port]`.
    pub host: &'a str,
    /// The product (`sms`), the credential scope's service.
    pub service: &'a str,
    pub content_type: &'a str,
    /// Headers signed beside `content-type` and `host`, e.g. `("x-tc-action", "sendsms")`
    /// (values lower-cased, as the SDKs sign them).
    pub extra: &'a [(&'a str, &'a str)],
    pub timestamp: i64,
    pub body: &'a [u8],
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tc3Signed {
    pub canonical_request: String,
    pub string_to_sign: String,
    pub signature: String,
    pub authorization: String,
}

/// Signs with `TC3-HMAC-SHA256`.
pub fn tc3(req: &Tc3Request, secret_id: &str, secret_key: &str) -> Tc3Signed {
    let mut headers: Vec<(String, String)> = vec![
        ("content-type".into(), req.content_type.to_ascii_lowercase()),
        ("host".into(), req.host.to_ascii_lowercase()),
    ];
    headers.extend(
        req.extra
            .iter()
            .map(|(k, v)| (k.to_ascii_lowercase(), v.to_ascii_lowercase())),
    );
    headers.sort();
    let canonical_headers: String = headers.iter().map(|(k, v)| format!("{k}:{v}\n")).collect();
    let signed = headers
        .iter()
        .map(|(k, _)| k.as_str())
        .collect::<Vec<_>>()
        .join(";");
    let canonical_request = format!(
        "POST\n/\n\n{canonical_headers}\n{signed}\n{}",
        sha256_hex(req.body)
    );
    let date = utc_date(req.timestamp);
    let scope = format!("{date}/{}/tc3_request", req.service);
    let string_to_sign = format!(
        "TC3-HMAC-SHA256\n{}\n{scope}\n{}",
        req.timestamp,
        sha256_hex(canonical_request.as_bytes())
    );
    let k_date = hmac_sha256(format!("TC3{secret_key}").as_bytes(), date.as_bytes());
    let k_service = hmac_sha256(&k_date, req.service.as_bytes());
    let k_signing = hmac_sha256(&k_service, b"tc3_request");
    let signature = hex::encode(hmac_sha256(&k_signing, string_to_sign.as_bytes()));
    let authorization = format!(
        "TC3-HMAC-SHA256 Credential={secret_id}/{scope}, SignedHeaders={signed}, Signature={signature}"
    );
    Tc3Signed {
        canonical_request,
        string_to_sign,
        signature,
        authorization,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The worked example of Aliyun's "V3 request structure and signature" page (RunInstances
    /// on ecs.cn-shanghai with the placeholder keys, a fixed date and nonce): its canonical
    /// request hash and its signature.
    #[test]
    fn acs3_matches_aliyuns_worked_example() {
        let query = [
            (
                "ImageId",
                "win2019_1809_x64_dtc_zh-cn_40G_alibase_20230811.vhd",
            ),
            ("RegionId", "cn-shanghai"),
        ];
        let req = Acs3Request {
            method: "POST",
            host: "ecs.cn-shanghai.aliyuncs.com",
            action: "RunInstances",
            version: "2014-05-26",
            date: "2023-10-26T10:22:32Z",
            nonce: "3156853299f313e23d1673dc12e1703d",
            query: &query,
            body: b"",
        };
        let s = acs3(&req, "YourAccessKeyId", "YourAccessKeySecret");
        assert_eq!(
            s.query,
            "ImageId=win2019_1809_x64_dtc_zh-cn_40G_alibase_20230811.vhd&RegionId=cn-shanghai"
        );
        assert_eq!(
            sha256_hex(s.canonical_request.as_bytes()),
            "7ea06492da5221eba5297e897ce16e55f964061054b7695beedaac1145b1e259"
        );
        assert_eq!(
            s.headers.last().map(|(_, v)| v.as_str()),
            Some("ACS3-HMAC-SHA256 Credential=YourAccessKeyId,SignedHeaders=host;x-acs-action;x-acs-content-sha256;x-acs-date;x-acs-signature-nonce;x-acs-version,Signature=06563a9e1b43f5dfe96b81484da74bceab24a1d853912eee15083a6f0f3283c0")
        );
    }

    /// The worked example of Tencent Cloud's "Signature v3" page (DescribeInstances on cvm,
    /// SecretKey `Gu5t9xGARNpq86cd98joQYCN3EXAMPLE`, timestamp 1551113065): payload hash,
    /// canonical request hash, string to sign and signature.
    #[test]
    fn tc3_matches_tencents_worked_example() {
        let body = br#"{"Limit": 1, "Filters": [{"Values": ["\u672a\u547d\u540d"], "Name": "instance-name"}]}"#;
        let s = tc3(
            &Tc3Request {
                host: "cvm.tencentcloudapi.com",
                service: "cvm",
                content_type: "application/json; charset=utf-8",
                extra: &[],
                timestamp: 1_551_113_065,
                body,
            },
            "AKIDz8krbsJ5yKBZQpn74WFkmLPx3EXAMPLE",
            "Gu5t9xGARNpq86cd98joQYCN3EXAMPLE",
        );
        assert!(s
            .canonical_request
            .ends_with("35e9c5b0e3ae67532d3c9f17ead6c90222632e5b1ff7f6e89887f1398934f064"));
        assert_eq!(
            s.string_to_sign,
            "TC3-HMAC-SHA256\n1551113065\n2019-02-25/cvm/tc3_request\n5ffe6a04c0664d6b969fab9a13bdab201d63ee709638e2749d62a09ca18d7031"
        );
        assert_eq!(
            s.authorization,
            "TC3-HMAC-SHA256 Credential=AKIDz8krbsJ5yKBZQpn74WFkmLPx3EXAMPLE/2019-02-25/cvm/tc3_request, SignedHeaders=content-type;host, Signature=72e494ea809ad7a8c8f7a4507b9bddcbaa8e581f516e8da2f66e2c5a96525168"
        );
    }

    #[test]
    fn percent_encoding_keeps_only_the_unreserved_characters() {
        assert_eq!(percent_encode("AZaz09-_.~"), "AZaz09-_.~");
        assert_eq!(percent_encode("a b*c+/="), "a%20b%2Ac%2B%2F%3D");
        assert_eq!(percent_encode("云"), "%E4%BA%91");
        assert_eq!(
            percent_encode(r#"{"code":"1"}"#),
            "%7B%22code%22%3A%221%22%7D"
        );
    }

    #[test]
    fn dates_are_utc() {
        // 1551113065 is 2019-02-26 00:44:25 in Beijing, still the 25th in UTC.
        assert_eq!(utc_date(1_551_113_065), "2019-02-25");
        assert_eq!(iso8601(1_551_113_065), "2019-02-25T16:44:25Z");
        assert_eq!(iso8601(0), "1970-01-01T00:00:00Z");
    }
}
