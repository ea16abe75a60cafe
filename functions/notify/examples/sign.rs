//! Prints the Rust signers' answer for fixed inputs, as JSON, so the providers' official SDKs
//! can be compared with it (infra/tests/test_sms_signatures.py). Deterministic: the date,
//! nonce and timestamp are inputs.
//!
//! `cargo run -p ciam-notify --example sign -- '{"provider":"aliyun",...}'`
//! - aliyun: host, action, version, date, nonce, query ({name: value}), keyId, secret
//! - tencent: host, service, action, timestamp, body, contentType, secretId, secretKey,
//!   signAction (bool: also sign `x-tc-action`, as the newer documentation example does)

use ciam_notify::sign::{acs3, tc3, Acs3Request, Tc3Request};
use serde_json::{json, Value};

fn s<'a>(v: &'a Value, k: &str) -> &'a str {
    v[k].as_str().unwrap_or_default()
}

fn main() {
    let arg = std::env::args().nth(1).unwrap_or_default();
    let v: Value = match serde_json::from_str(&arg) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("sign: the argument is not JSON: {e}");
            std::process::exit(2);
        }
    };
    let out = match s(&v, "provider") {
        "aliyun" => {
            let query: Vec<(&str, &str)> = v["query"]
                .as_object()
                .map(|m| {
                    m.iter()
                        .map(|(k, x)| (k.as_str(), x.as_str().unwrap_or_default()))
                        .collect()
                })
                .unwrap_or_default();
            let signed = acs3(
                &Acs3Request {
                    method: "POST",
                    host: s(&v, "host"),
                    action: s(&v, "action"),
                    version: s(&v, "version"),
                    date: s(&v, "date"),
                    nonce: s(&v, "nonce"),
                    query: &query,
                    body: s(&v, "body").as_bytes(),
                },
                s(&v, "keyId"),
                s(&v, "secret"),
            );
            let auth = signed
                .headers
                .iter()
                .find(|(k, _)| k == "authorization")
                .map(|(_, a)| a.clone())
                .unwrap_or_default();
            json!({"authorization": auth, "signature": signed.signature, "query": signed.query,
                   "canonicalRequest": signed.canonical_request})
        }
        "tencent" => {
            let action = s(&v, "action").to_ascii_lowercase();
            let extra = [("x-tc-action", action.as_str())];
            let sign_action = v["signAction"].as_bool().unwrap_or(false);
            let signed = tc3(
                &Tc3Request {
                    host: s(&v, "host"),
                    service: s(&v, "service"),
                    content_type: v["contentType"]
                        .as_str()
                        .unwrap_or("application/json; charset=utf-8"),
                    extra: if sign_action { &extra } else { &[] },
                    timestamp: v["timestamp"].as_i64().unwrap_or_default(),
                    body: s(&v, "body").as_bytes(),
                },
                s(&v, "secretId"),
                s(&v, "secretKey"),
            );
            json!({"authorization": signed.authorization, "signature": signed.signature,
                   "canonicalRequest": signed.canonical_request})
        }
        other => {
            eprintln!("sign: provider `{other}`: aliyun or tencent");
            std::process::exit(2);
        }
    };
    println!("{out}");
}
