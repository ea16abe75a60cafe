//! The Lambda adapter of the avatar decoder over a fake `Invoke`: the round trip through the
//! decoding function's own answer, and what the upload makes of everything else.

use super::*;
use std::sync::Mutex;

/// Answers as the decoding function would (its `answer`), or as told; records each call.
#[derive(Default)]
struct Fake {
    calls: Mutex<Vec<(String, Value)>>,
    canned: Option<std::result::Result<Invoked, String>>,
}

#[async_trait]
impl Invoke for Fake {
    async fn invoke(
        &self,
        function: &str,
        payload: Vec<u8>,
    ) -> std::result::Result<Invoked, String> {
        let request: Value = serde_json::from_slice(&payload).map_err(|e| e.to_string())?;
        self.calls
            .lock()
            .unwrap()
            .push((function.to_owned(), request.clone()));
        if let Some(canned) = &self.canned {
            return canned.clone();
        }
        Ok(Invoked {
            function_error: None,
            payload: answer(request).await.to_string().into_bytes(),
        })
    }
}

fn jpeg(w: u32, h: u32) -> Vec<u8> {
    let img = image::DynamicImage::ImageRgb8(image::ImageBuffer::from_fn(w, h, |x, y| {
        image::Rgb([(x % 256) as u8, (y % 256) as u8, 90])
    }));
    let mut out = std::io::Cursor::new(Vec::new());
    img.write_to(&mut out, image::ImageFormat::Jpeg).unwrap();
    out.into_inner()
}

fn decoder(fake: Fake) -> (Arc<Fake>, LambdaDecoder) {
    let fake = Arc::new(fake);
    let d = LambdaDecoder::new(fake.clone(), "stack-AvatarDecodeFunction-x");
    (fake, d)
}

fn canned(function_error: Option<&str>, payload: Value) -> Fake {
    Fake {
        canned: Some(Ok(Invoked {
            function_error: function_error.map(str::to_owned),
            payload: payload.to_string().into_bytes(),
        })),
        ..Fake::default()
    }
}

#[tokio::test]
async fn an_upload_goes_to_the_decoding_function_and_its_png_comes_back() {
    let (fake, d) = decoder(Fake::default());
    let input = jpeg(300, 200);
    let png = d.thumbnail(input.clone()).await.unwrap();
    assert!(avatar::is_clean_png(&png));
    let img = image::load_from_memory(&png).unwrap();
    assert_eq!((img.width(), img.height()), (avatar::SIDE, avatar::SIDE));
    // Same as decoding in process.
    assert_eq!(png, avatar::make_thumbnail(&input).unwrap());
    let calls = fake.calls.lock().unwrap();
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].0, "stack-AvatarDecodeFunction-x");
    assert_eq!(
        STANDARD
            .decode(calls[0].1["image"].as_str().unwrap())
            .unwrap(),
        input
    );
}

#[tokio::test]
async fn the_decoders_refusals_keep_their_reason() {
    let (_, d) = decoder(Fake::default());
    let err = d
        .thumbnail(b"<svg onload=alert(1)>".to_vec())
        .await
        .unwrap_err();
    assert_eq!(err.reason, Reason::AVATAR_INVALID);
    let mut polyglot = jpeg(20, 20);
    polyglot.extend_from_slice(b"<script>alert(1)</script>");
    let err = d.thumbnail(polyglot).await.unwrap_err();
    assert_eq!(err.reason, Reason::AVATAR_INVALID);
    let (_, d) = decoder(canned(
        None,
        json!({"error": {"reason": "AVATAR_TOO_LARGE"}}),
    ));
    assert_eq!(
        d.thumbnail(vec![1]).await.unwrap_err().reason,
        Reason::AVATAR_TOO_LARGE
    );
}

#[tokio::test]
async fn what_the_upload_does_not_trust_in_an_answer() {
    // A reason the decoder has no business giving.
    let (_, d) = decoder(canned(
        None,
        json!({"error": {"reason": "AUTHORIZATION_FAILED"}}),
    ));
    assert_eq!(
        d.thumbnail(vec![1]).await.unwrap_err().reason,
        Reason::AVATAR_INVALID
    );
    // The function died on the image (a crash, a timeout, out of memory).
    let (_, d) = decoder(canned(
        Some("Unhandled"),
        json!({"errorType": "Runtime.ExitError"}),
    ));
    let err = d.thumbnail(vec![1]).await.unwrap_err();
    assert_eq!(err.reason, Reason::AVATAR_INVALID);
    assert!(err.cause.unwrap_or_default().contains("Unhandled"));
    // Something that is not a PNG, or a PNG carrying markup, is never stored.
    let not_png = STANDARD.encode(b"<html>hi</html>");
    let (_, d) = decoder(canned(None, json!({ "png": not_png })));
    assert_eq!(
        d.thumbnail(vec![1]).await.unwrap_err().reason,
        Reason::INTERNAL_SERVER_ERROR
    );
    let mut marked = avatar::make_thumbnail(&jpeg(10, 10)).unwrap();
    marked.extend_from_slice(b"<svg>");
    let (_, d) = decoder(canned(None, json!({ "png": STANDARD.encode(marked) })));
    assert_eq!(
        d.thumbnail(vec![1]).await.unwrap_err().reason,
        Reason::INTERNAL_SERVER_ERROR
    );
    // A clean PNG of another size, or heavier than a 256 x 256 one can be, is never stored.
    let good = avatar::make_thumbnail(&jpeg(10, 10)).unwrap();
    let mut wide = good.clone();
    wide[16..20].copy_from_slice(&4096u32.to_be_bytes());
    let mut heavy = good.clone();
    heavy.splice(33..33, vec![0u8; 300 * 1024]);
    for forged in [wide, heavy] {
        assert!(avatar::is_clean_png(&forged));
        let (_, d) = decoder(canned(None, json!({ "png": STANDARD.encode(forged) })));
        assert_eq!(
            d.thumbnail(vec![1]).await.unwrap_err().reason,
            Reason::INTERNAL_SERVER_ERROR
        );
    }
    // The real thing passes.
    let (_, d) = decoder(canned(None, json!({ "png": STANDARD.encode(&good) })));
    assert_eq!(d.thumbnail(vec![1]).await.unwrap(), good);
    let (_, d) = decoder(canned(None, json!({"nothing": true})));
    assert_eq!(
        d.thumbnail(vec![1]).await.unwrap_err().reason,
        Reason::INTERNAL_SERVER_ERROR
    );
}

#[tokio::test]
async fn the_lambda_api_failing_is_a_503() {
    let (_, d) = decoder(Fake {
        canned: Some(Err("TooManyRequestsException: Rate Exceeded".into())),
        ..Fake::default()
    });
    let err = d.thumbnail(jpeg(10, 10)).await.unwrap_err();
    assert_eq!(err.reason, Reason::SERVICE_UNAVAILABLE);
}

#[tokio::test]
async fn the_function_answers_a_request_without_an_image_with_a_refusal() {
    let a = answer(json!({"nope": 1})).await;
    assert_eq!(a["error"]["reason"], "AVATAR_INVALID");
    let a = answer(json!({"image": "***"})).await;
    assert_eq!(a["error"]["reason"], "AVATAR_INVALID");
}

#[test]
fn an_uploading_function_without_the_decoders_name_fails_its_init() {
    // The variable is not set in tests.
    let sdk = aws_config::SdkConfig::builder().build();
    let err = LambdaDecoder::from_env(&sdk).err().unwrap_or_default();
    assert!(err.contains(FUNCTION_VAR), "{err}");
}

#[test]
fn binary_decoder_serves_the_image_decoder_only() {
    assert_eq!(decoder_id(Some("avatar_decode")), Ok("avatar_decode"));
    assert_eq!(decoder_id(Some(" avatar_decode ")), Ok("avatar_decode"));
    for missing in [None, Some(""), Some("  ")] {
        let e = decoder_id(missing).unwrap_err();
        assert!(e.contains("CIAM_ROUTE is not set"), "{e}");
    }
    let e = decoder_id(Some("auth_avatar")).unwrap_err();
    assert!(
        e.contains("\"auth_avatar\" is not the image decoder"),
        "{e}"
    );
}
