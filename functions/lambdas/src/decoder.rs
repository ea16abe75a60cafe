//! Image decoding in a function of its own (issue 22). `auth_avatar` holds the root key, the
//! table and the avatar bucket; the image decoders parse bytes an attacker chose. So the upload
//! function sends the bytes to the decoding function (`ciam_api::IMAGE_DECODER`, no route, its
//! role only its log group) with one synchronous `Invoke`, and stores what comes back.
//!
//! The exchange is JSON: `{"image": base64}` in, `{"png": base64}` or
//! `{"error": {"reason", "cause"}}` out. The upload function trusts little of the answer: an
//! error reason other than AVATAR_INVALID or AVATAR_TOO_LARGE counts as AVATAR_INVALID, a
//! function error (a crash, a timeout, memory exhausted: what a hostile image does) is
//! AVATAR_INVALID, and the PNG must still look like one (magic bytes, no markup) before it is
//! stored. The Lambda API unreachable or throttling is 503.
//!
//! Locally (`ciam serve`) the same pipeline runs in process (`ciam_core::avatar::InProcessDecoder`).

use async_trait::async_trait;
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use ciam_core::avatar::{self, ImageDecoder};
use ciam_core::{Error, Reason, Result};
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;

/// The decoding function's name, on the functions whose row says `Images::Invoke`.
pub const FUNCTION_VAR: &str = "CIAM_IMAGE_DECODER_FUNCTION";
/// The longest the upload waits for the decoder (its own timeout is shorter).
pub const INVOKE_TIMEOUT: Duration = Duration::from_secs(7);

/// What one `Invoke` returned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invoked {
    /// Lambda's `FunctionError` (`Unhandled`): the function failed rather than answered.
    pub function_error: Option<String>,
    pub payload: Vec<u8>,
}

/// A synchronous invocation: the Lambda API, or a fake in tests.
#[async_trait]
pub trait Invoke: Send + Sync {
    async fn invoke(
        &self,
        function: &str,
        payload: Vec<u8>,
    ) -> std::result::Result<Invoked, String>;
}

/// The Lambda API (`aws-sdk-lambda`).
pub struct SdkInvoke(pub aws_sdk_lambda::Client);

#[async_trait]
impl Invoke for SdkInvoke {
    async fn invoke(
        &self,
        function: &str,
        payload: Vec<u8>,
    ) -> std::result::Result<Invoked, String> {
        let call = self
            .0
            .invoke()
            .function_name(function)
            .payload(aws_sdk_lambda::primitives::Blob::new(payload))
            .send();
        let out = tokio::time::timeout(INVOKE_TIMEOUT, call)
            .await
            .map_err(|_| format!("no answer within {INVOKE_TIMEOUT:?}"))?
            .map_err(|e| aws_sdk_lambda::error::DisplayErrorContext(&e).to_string())?;
        Ok(Invoked {
            function_error: out.function_error().map(str::to_owned),
            payload: out
                .payload()
                .map(|b| b.as_ref().to_vec())
                .unwrap_or_default(),
        })
    }
}

/// `ImageDecoder` over `Invoke`.
pub struct LambdaDecoder {
    invoke: Arc<dyn Invoke>,
    function: String,
}

impl LambdaDecoder {
    pub fn new(invoke: Arc<dyn Invoke>, function: impl Into<String>) -> Self {
        LambdaDecoder {
            invoke,
            function: function.into(),
        }
    }

    /// From `CIAM_IMAGE_DECODER_FUNCTION`, which a function whose row invokes the decoder must
    /// have: without it the upload would decode in the function that holds the keys.
    pub fn from_env(sdk: &aws_config::SdkConfig) -> std::result::Result<Self, String> {
        let function = std::env::var(FUNCTION_VAR)
            .ok()
            .filter(|v| !v.trim().is_empty())
            .ok_or_else(|| {
                format!("{FUNCTION_VAR} is required by a function that uploads avatars")
            })?;
        let client = aws_sdk_lambda::Client::new(sdk);
        Ok(Self::new(Arc::new(SdkInvoke(client)), function))
    }
}

fn invalid(cause: String) -> Error {
    Error {
        cause: Some(cause),
        ..Error::new(Reason::AVATAR_INVALID)
    }
}

#[async_trait]
impl ImageDecoder for LambdaDecoder {
    async fn thumbnail(&self, bytes: Vec<u8>) -> Result<Vec<u8>> {
        let request = json!({ "image": STANDARD.encode(&bytes) }).to_string();
        let out = self
            .invoke
            .invoke(&self.function, request.into_bytes())
            .await
            .map_err(|e| Error {
                cause: Some(format!("image decoder: {e}")),
                ..Error::new(Reason::SERVICE_UNAVAILABLE)
            })?;
        if let Some(kind) = out.function_error {
            return Err(invalid(format!("the image decoder failed on it ({kind})")));
        }
        let answer: Value = serde_json::from_slice(&out.payload)
            .map_err(|_| Error::internal("image decoder: the answer is not JSON"))?;
        if let Some(err) = answer.get("error") {
            let cause = err["cause"].as_str().unwrap_or("").to_owned();
            return Err(match err["reason"].as_str() {
                Some(r) if r == Reason::AVATAR_TOO_LARGE.code() => Reason::AVATAR_TOO_LARGE.into(),
                _ => invalid(cause),
            });
        }
        let png = answer["png"]
            .as_str()
            .and_then(|b| STANDARD.decode(b).ok())
            .ok_or_else(|| Error::internal("image decoder: no png in the answer"))?;
        // What is stored and served must still be a PNG with nothing a browser could run.
        if !avatar::is_clean_png(&png) {
            return Err(Error::internal(
                "image decoder: the answer is not a clean PNG",
            ));
        }
        // ... and what the pipeline makes: SIDE x SIDE and no larger than such a PNG can be (a
        // decoder environment is shared by uploads, so a compromised one must not store a
        // poster or megabytes as someone's avatar).
        if !is_thumbnail_shaped(&png) {
            return Err(Error::internal(
                "image decoder: the answer is not a 256 x 256 thumbnail",
            ));
        }
        Ok(png)
    }
}

/// The most a SIDE x SIDE PNG can weigh: every pixel stored raw as RGBA (filter bytes and
/// chunk overhead within the margin).
const MAX_THUMBNAIL_BYTES: usize = (avatar::SIDE * avatar::SIDE * 4) as usize + 16 * 1024;

/// Whether `png`'s header (IHDR, the first chunk: width at bytes 16..20, height at 20..24) says
/// SIDE x SIDE and its length fits such an image.
fn is_thumbnail_shaped(png: &[u8]) -> bool {
    let side = avatar::SIDE.to_be_bytes();
    png.len() <= MAX_THUMBNAIL_BYTES
        && png.get(12..16) == Some(b"IHDR".as_slice())
        && png.get(16..20) == Some(side.as_slice())
        && png.get(20..24) == Some(side.as_slice())
}

/// The decoding function's answer to one invocation (never a function error of its own: a bad
/// image is an answer).
pub async fn answer(request: Value) -> Value {
    let Some(bytes) = request["image"]
        .as_str()
        .and_then(|b| STANDARD.decode(b).ok())
    else {
        return json!({"error": {"reason": Reason::AVATAR_INVALID.code(), "cause": "no base64 image"}});
    };
    match avatar::thumbnail(bytes).await {
        Ok(png) => json!({ "png": STANDARD.encode(png) }),
        Err(e) => json!({"error": {"reason": e.reason.code(), "cause": e.cause}}),
    }
}

/// The entry of binary `decoder`: `CIAM_ROUTE` must name the decoder (`ciam_api::IMAGE_DECODER`,
/// the one function of that binary); anything else fails the init (logged, nonzero exit), as an
/// HTTP binary refuses an id of another's table.
pub async fn run_from_env() -> std::result::Result<(), lambda_http::Error> {
    crate::setup::init_tracing();
    let value = std::env::var(crate::ROUTE_VAR).ok();
    if let Err(e) = decoder_id(value.as_deref()) {
        tracing::error!(binary = ciam_api::Binary::Decoder.name(), error = %e, "init failed");
        return Err(e.into());
    }
    run().await
}

/// `CIAM_ROUTE`'s value checked: the decoder's id, or why not.
pub fn decoder_id(value: Option<&str>) -> std::result::Result<&'static str, String> {
    let id = ciam_api::IMAGE_DECODER.id;
    match value.map(str::trim) {
        Some(v) if v == id => Ok(id),
        Some(v) if !v.is_empty() => Err(format!(
            "{}={v:?} is not the image decoder ({id}): binary decoder serves nothing else",
            crate::ROUTE_VAR
        )),
        _ => Err(format!(
            "{} is not set: the image decoder's function sets {}={id}",
            crate::ROUTE_VAR,
            crate::ROUTE_VAR
        )),
    }
}

/// The decoding function: reads nothing at init (no settings, secret, SDK client or store) and
/// answers invocations until the environment shuts down.
pub async fn run() -> std::result::Result<(), lambda_http::Error> {
    crate::setup::init_tracing();
    let handler = lambda_http::service_fn(|event: lambda_http::LambdaEvent<Value>| async move {
        Ok::<Value, lambda_http::Error>(answer(event.payload).await)
    });
    lambda_http::lambda_runtime::run(handler).await
}

#[cfg(test)]
#[path = "decoder_tests.rs"]
mod tests;
