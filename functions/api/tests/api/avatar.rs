//! The avatar: uploads become a fresh 256 x 256 PNG under a new key, served as an image that a
//! browser cannot mistake for anything else; oversized, disguised and hostile files are refused.

use crate::helpers::{request, TestApp, PASSWORD};
use axum::body::{Body, Bytes};
use axum::http::Method;
use image::{DynamicImage, ImageBuffer, ImageFormat, Rgb};
use std::io::Cursor;

const MIB: usize = 1024 * 1024;

async fn signed_in(app: &TestApp) -> (String, String) {
    let uid = app.sign_up("ann", "ann@example.com").await;
    let token = app.sign_in("ann@example.com", PASSWORD).await;
    (uid, token)
}

fn gradient(w: u32, h: u32) -> DynamicImage {
    DynamicImage::ImageRgb8(ImageBuffer::from_fn(w, h, |x, y| {
        Rgb([(x * 255 / w) as u8, (y * 255 / h) as u8, 90])
    }))
}

fn encode(img: &DynamicImage, format: ImageFormat) -> Vec<u8> {
    let mut out = Cursor::new(Vec::new());
    img.write_to(&mut out, format).expect("encode");
    out.into_inner()
}

/// Pixels that do not compress: a PNG of them is large for its size.
fn noise(w: u32, h: u32) -> DynamicImage {
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    DynamicImage::ImageRgb8(ImageBuffer::from_fn(w, h, |_, _| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let b = state.to_le_bytes();
        Rgb([b[0], b[1], b[2]])
    }))
}

fn crc32(data: &[u8]) -> u32 {
    let mut crc = 0xFFFF_FFFFu32;
    for &b in data {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// A PNG chunk: length, type, data, CRC.
fn chunk(kind: &[u8; 4], data: &[u8]) -> Vec<u8> {
    let mut c = (data.len() as u32).to_be_bytes().to_vec();
    c.extend_from_slice(kind);
    c.extend_from_slice(data);
    c.extend_from_slice(&crc32(&c[4..]).to_be_bytes());
    c
}

/// A JPEG with an EXIF APP1 segment right after its start marker.
fn jpeg_with_exif(payload: &[u8]) -> Vec<u8> {
    let jpeg = encode(&gradient(600, 400), ImageFormat::Jpeg);
    let mut exif = b"Exif\0\0MM\0\x2A\0\0\0\x08\0\0\0\0\0\0".to_vec();
    exif.extend_from_slice(payload);
    let mut out = jpeg[..2].to_vec();
    out.extend_from_slice(&[0xFF, 0xE1]);
    out.extend_from_slice(&(exif.len() as u16 + 2).to_be_bytes());
    out.extend_from_slice(&exif);
    out.extend_from_slice(&jpeg[2..]);
    out
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

#[tokio::test]
async fn png_jpeg_and_webp_become_a_square_png_served_as_an_immutable_image() {
    let app = TestApp::spawn().await;
    let (uid, token) = signed_in(&app).await;
    for (format, declared) in [
        (ImageFormat::Png, "image/png"),
        (ImageFormat::Jpeg, "image/jpeg"),
        (ImageFormat::WebP, "image/webp"),
    ] {
        let body = encode(&gradient(600, 400), format);
        let res = app
            .patch_avatar(Some(&token), body, Some(declared))
            .await
            .ok(200);
        let path = res["avatar"].as_str().expect("avatar path").to_owned();
        let prefix = format!("/ciam/v1/avatar/{uid}-");
        assert!(
            path.starts_with(&prefix) && path.ends_with(".png"),
            "{path}"
        );
        assert_eq!(app.get_info(&token).await.ok(200)["avatar"], path.as_str());

        let img = app.get_avatar(&path).await;
        assert_eq!(img.status.as_u16(), 200, "{format:?}");
        assert_eq!(img.header("content-type"), "image/png");
        assert_eq!(img.header("x-content-type-options"), "nosniff");
        assert_eq!(
            img.header("cache-control"),
            "public, max-age=31536000, immutable"
        );
        let back = image::load_from_memory_with_format(&img.bytes, ImageFormat::Png)
            .expect("a PNG comes back");
        assert_eq!((back.width(), back.height()), (256, 256), "{format:?}");
    }
}

#[tokio::test]
async fn the_declared_content_type_counts_for_nothing_the_magic_bytes_decide() {
    let app = TestApp::spawn().await;
    let (_, token) = signed_in(&app).await;
    let jpeg = encode(&gradient(300, 300), ImageFormat::Jpeg);
    for declared in [None, Some("application/octet-stream"), Some("image/png")] {
        app.patch_avatar(Some(&token), jpeg.clone(), declared)
            .await
            .ok(200);
    }
}

#[tokio::test]
async fn a_new_upload_gets_a_new_key_and_the_old_image_is_deleted() {
    let app = TestApp::spawn().await;
    let (_, token) = signed_in(&app).await;
    let first = app
        .patch_avatar(
            Some(&token),
            encode(&gradient(600, 400), ImageFormat::Png),
            None,
        )
        .await
        .ok(200)["avatar"]
        .as_str()
        .expect("path")
        .to_owned();
    assert_eq!(app.get_avatar(&first).await.status.as_u16(), 200);
    let second = app
        .patch_avatar(
            Some(&token),
            encode(&gradient(200, 500), ImageFormat::Png),
            None,
        )
        .await
        .ok(200)["avatar"]
        .as_str()
        .expect("path")
        .to_owned();
    assert_ne!(first, second, "a new key busts every cache");
    assert_eq!(
        app.get_info(&token).await.ok(200)["avatar"],
        second.as_str()
    );
    assert_eq!(app.get_avatar(&second).await.status.as_u16(), 200);
    let gone = app.get_avatar(&first).await;
    gone.as_text().error(404, "NOT_FOUND");
}

#[tokio::test]
async fn an_image_between_64_kib_and_1_mib_is_accepted_on_this_route() {
    let app = TestApp::spawn().await;
    let (_, token) = signed_in(&app).await;
    let big = encode(&noise(560, 560), ImageFormat::Png);
    assert!((64 * 1024..MIB).contains(&big.len()), "{}", big.len());
    app.patch_avatar(Some(&token), big, Some("image/png"))
        .await
        .ok(200);
}

#[tokio::test]
async fn over_1_mib_by_content_length_is_too_large() {
    let app = TestApp::spawn().await;
    let (_, token) = signed_in(&app).await;
    let mut body = encode(&gradient(100, 100), ImageFormat::Png);
    body.resize(MIB + 1, 0);
    app.patch_avatar(Some(&token), body, Some("image/png"))
        .await
        .error(400, "AVATAR_TOO_LARGE");
    assert_eq!(
        app.get_info(&token).await.ok(200)["avatar"],
        serde_json::Value::Null
    );
}

#[tokio::test]
async fn over_1_mib_streamed_without_content_length_is_too_large() {
    let app = TestApp::spawn().await;
    let (_, token) = signed_in(&app).await;
    let head = encode(&gradient(100, 100), ImageFormat::Png);
    let chunks: Vec<Result<Bytes, std::io::Error>> = std::iter::once(Bytes::from(head))
        .chain((0..20).map(|_| Bytes::from(vec![0u8; 64 * 1024])))
        .map(Ok)
        .collect();
    let req = request(Method::PATCH, "/auth/avatar")
        .header("authorization", format!("Bearer {token}"))
        .header("content-type", "image/png")
        .body(Body::from_stream(futures_util::stream::iter(chunks)))
        .expect("request");
    assert!(req.headers().get("content-length").is_none());
    app.call(req).await.error(400, "AVATAR_TOO_LARGE");
    assert_eq!(
        app.get_info(&token).await.ok(200)["avatar"],
        serde_json::Value::Null
    );
}

#[tokio::test]
async fn svg_html_and_polyglots_are_refused_whatever_they_claim_to_be() {
    let app = TestApp::spawn().await;
    let (_, token) = signed_in(&app).await;
    let mut png_with_script = encode(&gradient(64, 64), ImageFormat::Png);
    png_with_script.extend_from_slice(b"<script>alert(document.cookie)</script>");
    // Markup inside the file, in a text chunk before the pixels.
    let png = encode(&gradient(64, 64), ImageFormat::Png);
    let mut png_with_svg = png[..33].to_vec();
    png_with_svg.extend(chunk(b"tEXt", b"Comment\0<SVG onload=alert(1)>"));
    png_with_svg.extend_from_slice(&png[33..]);
    let mut jpeg_with_php = encode(&gradient(64, 64), ImageFormat::Jpeg);
    jpeg_with_php.extend_from_slice(b"<?php system($_GET['c']); ?>");
    let cases: [(&str, Vec<u8>); 8] = [
        (
            "svg",
            br#"<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>"#.to_vec(),
        ),
        (
            "xml svg",
            br#"<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"/>"#.to_vec(),
        ),
        (
            "html",
            b"<!doctype html><html><body>hi</body></html>".to_vec(),
        ),
        ("gif", b"GIF89a\x01\x00\x01\x00\x80\x00\x00".to_vec()),
        ("empty", Vec::new()),
        ("png with a script appended", png_with_script),
        ("png with svg in a text chunk", png_with_svg),
        ("jpeg with php appended", jpeg_with_php),
    ];
    for (case, body) in cases {
        let res = app
            .patch_avatar(Some(&token), body, Some("image/png"))
            .await;
        assert_eq!(
            (res.status.as_u16(), res.reason()),
            (400, "AVATAR_INVALID".to_owned()),
            "{case}: {}",
            res.text
        );
    }
    assert_eq!(
        app.get_info(&token).await.ok(200)["avatar"],
        serde_json::Value::Null
    );
}

#[tokio::test]
async fn a_decompression_bomb_is_refused_by_the_pixel_limit() {
    let app = TestApp::spawn().await;
    let (_, token) = signed_in(&app).await;
    // A valid PNG whose header (with a correct CRC) claims 100000 x 100000 pixels: 30 GB.
    let mut bomb = encode(&gradient(8, 8), ImageFormat::Png);
    bomb[16..20].copy_from_slice(&100_000u32.to_be_bytes());
    bomb[20..24].copy_from_slice(&100_000u32.to_be_bytes());
    let crc = crc32(&bomb[12..29]);
    bomb[29..33].copy_from_slice(&crc.to_be_bytes());
    app.patch_avatar(Some(&token), bomb, Some("image/png"))
        .await
        .error(400, "AVATAR_INVALID");
}

#[tokio::test]
async fn metadata_does_not_survive_the_re_encoding() {
    let app = TestApp::spawn().await;
    let (_, token) = signed_in(&app).await;
    let marker = b"CIAM-GPS-51.5007N-0.1246W";
    let jpeg = jpeg_with_exif(marker);
    let png_src = encode(&gradient(300, 300), ImageFormat::Png);
    let mut png = png_src[..33].to_vec();
    png.extend(chunk(b"tEXt", &[&b"Author\0"[..], marker].concat()));
    png.extend_from_slice(&png_src[33..]);
    for (case, body) in [("jpeg exif", jpeg), ("png text", png)] {
        assert!(contains(&body, marker), "{case}: the upload carries it");
        let path = app.patch_avatar(Some(&token), body, None).await.ok(200)["avatar"]
            .as_str()
            .expect("path")
            .to_owned();
        let out = app.get_avatar(&path).await.bytes;
        assert!(!contains(&out, marker), "{case}: the stored image does not");
        for meta in [&b"eXIf"[..], b"tEXt", b"iTXt", b"zTXt", b"iCCP", b"Exif"] {
            assert!(
                !contains(&out, meta),
                "{case}: no {:?}",
                String::from_utf8_lossy(meta)
            );
        }
    }
}

#[tokio::test]
async fn only_a_live_session_may_upload() {
    let app = TestApp::spawn().await;
    let (_, token) = signed_in(&app).await;
    let png = encode(&gradient(100, 100), ImageFormat::Png);
    app.patch_avatar(None, png.clone(), Some("image/png"))
        .await
        .error(401, "AUTHORIZATION_FAILED");
    app.logout(&token).await.ok(200);
    app.patch_avatar(Some(&token), png, Some("image/png"))
        .await
        .error(401, "AUTHORIZATION_FAILED");
}

#[tokio::test]
async fn keys_that_are_not_ours_are_not_found_not_followed() {
    let app = TestApp::spawn().await;
    let (uid, token) = signed_in(&app).await;
    let path = app
        .patch_avatar(
            Some(&token),
            encode(&gradient(64, 64), ImageFormat::Png),
            None,
        )
        .await
        .ok(200)["avatar"]
        .as_str()
        .expect("path")
        .to_owned();
    let key = path.rsplit('/').next().expect("key");
    for bad in [
        "..%2F..%2Fsecret.key".to_owned(),
        "%2e%2e%2fciam.db".to_owned(),
        "..".to_owned(),
        "../../openapi.json".to_owned(),
        "secret.key".to_owned(),
        key.to_uppercase(),
        format!("{key}%00.png"),
        format!("{uid}-{}.png", "0".repeat(32)),
    ] {
        let res = app.get_avatar(&format!("/ciam/v1/avatar/{bad}")).await;
        assert_eq!(res.status.as_u16(), 404, "{bad}: {}", res.as_text().text);
        assert_eq!(res.as_text().reason(), "NOT_FOUND", "{bad}");
        assert_eq!(res.header("cache-control"), "no-store", "{bad}");
    }
}

#[tokio::test]
async fn deactivation_deletes_the_avatar_image() {
    let app = TestApp::spawn().await;
    let (_, token) = signed_in(&app).await;
    let png = encode(&gradient(300, 300), ImageFormat::Png);
    let url = app.patch_avatar(Some(&token), png, None).await.ok(200)["avatar"]
        .as_str()
        .expect("path")
        .to_owned();
    assert_eq!(app.get_avatar(&url).await.status.as_u16(), 200);
    let proof = serde_json::json!({ "password": crate::helpers::PASSWORD });
    app.deactivate(&token, &proof).await.ok(200);
    app.get_avatar(&url).await.as_text().error(404, "NOT_FOUND");
}
