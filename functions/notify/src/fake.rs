//! Local fakes of both providers (feature `fake`, tests only): HTTP servers that check each
//! request's signature the way the provider does (rebuilt from what arrived on the wire, with
//! the fake's own copy of the secret) and answer the documented bodies: success, per-number
//! flow control, the account's throttle, a refused number, a bad signature, a 5xx.

use crate::sign::{acs3_canonical, acs3_query, acs3_signature, sha256_hex, tc3, Tc3Request};
use axum::body::Bytes;
use axum::extract::{RawQuery, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::Router;
use serde_json::json;
use std::sync::{Arc, Mutex};

/// What the fake answers to a correctly signed request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Answer {
    Ok,
    /// The number's minute (Aliyun) / 30-second (Tencent) limit.
    NumberTooQuick,
    /// The number's day limit.
    NumberDayLimit,
    /// A number the provider will not text.
    BadNumber,
    /// The whole account is throttled.
    Throttled,
    /// HTTP 500 (Aliyun, with its body) / 502 (Tencent, a bare gateway error).
    ServerError,
}

/// A message the fake accepted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Received {
    pub phone: String,
    pub sign_name: String,
    pub template: String,
    pub params: serde_json::Value,
}

#[derive(Default)]
struct Inner {
    answer: Option<Answer>,
    received: Vec<Received>,
    calls: usize,
    bad_signatures: usize,
}

/// A running fake; it stops with the test's runtime.
#[derive(Clone)]
pub struct Fake {
    pub url: String,
    pub key_id: String,
    pub secret: String,
    inner: Arc<Mutex<Inner>>,
}

impl Fake {
    pub fn answer(&self, a: Answer) {
        self.lock().answer = Some(a);
    }
    pub fn received(&self) -> Vec<Received> {
        self.lock().received.clone()
    }
    /// Every request that reached the fake, whatever it answered.
    pub fn calls(&self) -> usize {
        self.lock().calls
    }
    pub fn bad_signatures(&self) -> usize {
        self.lock().bad_signatures
    }
    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }
    fn now_answer(&self) -> Answer {
        self.lock().answer.unwrap_or(Answer::Ok)
    }
}

async fn serve(router: Router) -> std::io::Result<String> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let url = format!("http://{}", listener.local_addr()?);
    tokio::spawn(async move {
        let _ = axum::serve(listener, router).await;
    });
    Ok(url)
}

fn new_fake(key_id: &str, secret: &str) -> Fake {
    Fake {
        url: String::new(),
        key_id: key_id.to_owned(),
        secret: secret.to_owned(),
        inner: Arc::default(),
    }
}

fn header<'a>(h: &'a HeaderMap, name: &str) -> &'a str {
    h.get(name)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
}

/// `a=b,c=d` (Aliyun) or `a=b, c=d` (Tencent) after the algorithm name.
fn auth_field<'a>(auth: &'a str, name: &str) -> Option<&'a str> {
    let (_, rest) = auth.split_once(' ')?;
    rest.split(',')
        .map(str::trim)
        .find_map(|kv| kv.strip_prefix(name)?.strip_prefix('='))
}

fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = b
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok());
        match (b[i], hex.and_then(|h| u8::from_str_radix(h, 16).ok())) {
            (b'%', Some(v)) => {
                out.push(v);
                i += 3;
            }
            (c, _) => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The Aliyun fake (dysmsapi `SendSms`, ACS3 signatures).
pub async fn aliyun(key_id: &str, secret: &str) -> std::io::Result<Fake> {
    let mut fake = new_fake(key_id, secret);
    let state = fake.clone();
    fake.url = serve(
        Router::new()
            .route("/", post(aliyun_send))
            .with_state(state),
    )
    .await?;
    Ok(fake)
}

fn aliyun_body(status: StatusCode, code: &str, message: &str) -> Response {
    let body = json!({"Code": code, "Message": message, "RequestId": "F655A8D5-B967-440B-8683-DAD6FF8DE990"});
    (status, axum::Json(body)).into_response()
}

async fn aliyun_send(
    State(fake): State<Fake>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    fake.lock().calls += 1;
    let auth = header(&headers, "authorization");
    let pairs: Vec<(String, String)> = query
        .unwrap_or_default()
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            (percent_decode(k), percent_decode(v))
        })
        .collect();
    let refs: Vec<(&str, &str)> = pairs
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    let signed_names = auth_field(auth, "SignedHeaders").unwrap_or_default();
    let signed: Vec<(String, String)> = signed_names
        .split(';')
        .map(|n| (n.to_owned(), header(&headers, n).to_owned()))
        .collect();
    let payload = sha256_hex(&body);
    let (canonical, _) = acs3_canonical("POST", "/", &acs3_query(&refs), &signed, &payload);
    let good = auth.starts_with("ACS3-HMAC-SHA256 ")
        && auth_field(auth, "Credential") == Some(fake.key_id.as_str())
        && [
            "host",
            "x-acs-action",
            "x-acs-date",
            "x-acs-signature-nonce",
        ]
        .iter()
        .all(|h| signed_names.split(';').any(|n| n == *h))
        && header(&headers, "x-acs-content-sha256") == payload
        && auth_field(auth, "Signature") == Some(acs3_signature(&canonical, &fake.secret).as_str());
    if !good {
        fake.lock().bad_signatures += 1;
        return aliyun_body(
            StatusCode::BAD_REQUEST,
            "SignatureDoesNotMatch",
            "Specified signature is not matched with our calculation.",
        );
    }
    let get = |k: &str| {
        pairs
            .iter()
            .find(|(n, _)| n == k)
            .map(|(_, v)| v.clone())
            .unwrap_or_default()
    };
    match fake.now_answer() {
        Answer::Ok => {
            fake.lock().received.push(Received {
                phone: get("PhoneNumbers"),
                sign_name: get("SignName"),
                template: get("TemplateCode"),
                params: serde_json::from_str(&get("TemplateParam")).unwrap_or_default(),
            });
            (
                StatusCode::OK,
                axum::Json(json!({"Code": "OK", "Message": "OK", "BizId": "9006197469364984400", "RequestId": "F655A8D5-B967-440B-8683-DAD6FF8DE990"})),
            )
                .into_response()
        }
        Answer::NumberTooQuick => aliyun_body(
            StatusCode::OK,
            "isv.BUSINESS_LIMIT_CONTROL",
            "触发分钟级流控Permits:1",
        ),
        Answer::NumberDayLimit => aliyun_body(
            StatusCode::OK,
            "isv.BUSINESS_LIMIT_CONTROL",
            "触发天级流控Permits:10",
        ),
        Answer::BadNumber => aliyun_body(StatusCode::OK, "isv.MOBILE_NUMBER_ILLEGAL", "非法手机号"),
        Answer::Throttled => aliyun_body(
            StatusCode::BAD_REQUEST,
            "Throttling.User",
            "Request was denied due to user flow control.",
        ),
        Answer::ServerError => aliyun_body(
            StatusCode::INTERNAL_SERVER_ERROR,
            "InternalError",
            "The request processing has failed due to some unknown error.",
        ),
    }
}

/// The Tencent Cloud fake (SMS `SendSms` 2021-01-11, TC3 signatures).
pub async fn tencent(secret_id: &str, secret_key: &str) -> std::io::Result<Fake> {
    let mut fake = new_fake(secret_id, secret_key);
    let state = fake.clone();
    fake.url = serve(
        Router::new()
            .route("/", post(tencent_send))
            .with_state(state),
    )
    .await?;
    Ok(fake)
}

fn tencent_error(code: &str, message: &str) -> Response {
    let body = json!({"Response": {"Error": {"Code": code, "Message": message}, "RequestId": "ed93f3cb-f35e-473f-b9f3-0d451b8b79c6"}});
    (StatusCode::OK, axum::Json(body)).into_response()
}

fn tencent_status(phone: &str, code: &str, message: &str) -> Response {
    let body = json!({"Response": {"SendStatusSet": [{
        "SerialNo": if code == "Ok" { "5000:1045710669157053657849499619" } else { "" },
        "PhoneNumber": phone, "Fee": u8::from(code == "Ok"), "SessionContext": "",
        "Code": code, "Message": message, "IsoCode": "CN"}],
        "RequestId": "a0aabda6-cf91-4f3e-a81f-9198114a2279"}});
    (StatusCode::OK, axum::Json(body)).into_response()
}

async fn tencent_send(State(fake): State<Fake>, headers: HeaderMap, body: Bytes) -> Response {
    fake.lock().calls += 1;
    let auth = header(&headers, "authorization");
    let timestamp: i64 = header(&headers, "x-tc-timestamp").parse().unwrap_or(0);
    let signed_names = auth_field(auth, "SignedHeaders").unwrap_or_default();
    let extra: Vec<(&str, &str)> = signed_names
        .split(';')
        .filter(|n| *n != "content-type" && *n != "host")
        .map(|n| (n, header(&headers, n)))
        .collect();
    let lower: Vec<(String, String)> = extra
        .iter()
        .map(|(k, v)| ((*k).to_owned(), v.to_ascii_lowercase()))
        .collect();
    let extra: Vec<(&str, &str)> = lower
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    let expected = tc3(
        &Tc3Request {
            host: header(&headers, "host"),
            service: "sms",
            content_type: header(&headers, "content-type"),
            extra: &extra,
            timestamp,
            body: &body,
        },
        &fake.key_id,
        &fake.secret,
    );
    let good = signed_names.split(';').any(|n| n == "content-type")
        && signed_names.split(';').any(|n| n == "host")
        && header(&headers, "x-tc-action") == "SendSms"
        && header(&headers, "x-tc-version") == "2021-01-11"
        && auth == expected.authorization;
    if !good {
        fake.lock().bad_signatures += 1;
        return tencent_error(
            "AuthFailure.SignatureFailure",
            "The provided credentials could not be validated. Please check your signature is correct.",
        );
    }
    let req: serde_json::Value = serde_json::from_slice(&body).unwrap_or_default();
    let phone = req["PhoneNumberSet"][0]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    match fake.now_answer() {
        Answer::Ok => {
            fake.lock().received.push(Received {
                phone: phone.trim_start_matches("+86").to_owned(),
                sign_name: req["SignName"].as_str().unwrap_or_default().to_owned(),
                template: req["TemplateId"].as_str().unwrap_or_default().to_owned(),
                params: req["TemplateParamSet"].clone(),
            });
            tencent_status(&phone, "Ok", "send success")
        }
        Answer::NumberTooQuick => tencent_status(
            &phone,
            "LimitExceeded.PhoneNumberThirtySecondLimit",
            "the number of SMS messages sent from a single mobile number within 30 seconds exceeds the upper limit",
        ),
        Answer::NumberDayLimit => tencent_status(
            &phone,
            "LimitExceeded.PhoneNumberDailyLimit",
            "the number of SMS messages sent from a single mobile number every day exceeds the upper limit",
        ),
        Answer::BadNumber => tencent_status(
            &phone,
            "InvalidParameterValue.IncorrectPhoneNumber",
            "incorrect phone number",
        ),
        Answer::Throttled => tencent_error(
            "RequestLimitExceeded",
            "Your current request times equals to `3001` in a second, which exceeds the frequency limit `3000` for a second. Please reduce the frequency of calls.",
        ),
        Answer::ServerError => (StatusCode::BAD_GATEWAY, "502 Bad Gateway").into_response(),
    }
}
