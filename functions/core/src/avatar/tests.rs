//! The avatar pipeline and its storage flow.

use super::*;
use image::{ImageBuffer, Rgb, Rgba};

fn encode(img: &DynamicImage, format: ImageFormat) -> Vec<u8> {
    let mut out = Cursor::new(Vec::new());
    img.write_to(&mut out, format).unwrap();
    out.into_inner()
}

fn gradient(w: u32, h: u32) -> DynamicImage {
    DynamicImage::ImageRgb8(ImageBuffer::from_fn(w, h, |x, y| {
        Rgb([(x % 256) as u8, (y % 256) as u8, 128])
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

/// A valid PNG whose IHDR (with a correct CRC) claims `w` x `h`.
fn png_claiming(w: u32, h: u32) -> Vec<u8> {
    let mut png = encode(&gradient(8, 8), ImageFormat::Png);
    // Signature (8), IHDR length (4), "IHDR" (4), width (4), height (4), ...: 13 data bytes.
    png[16..20].copy_from_slice(&w.to_be_bytes());
    png[20..24].copy_from_slice(&h.to_be_bytes());
    let crc = crc32(&png[12..29]);
    png[29..33].copy_from_slice(&crc.to_be_bytes());
    png
}

#[test]
fn formats_are_known_by_their_magic_bytes_alone() {
    let img = gradient(4, 4);
    assert_eq!(
        sniff(&encode(&img, ImageFormat::Png)),
        Some(ImageFormat::Png)
    );
    assert_eq!(
        sniff(&encode(&img, ImageFormat::Jpeg)),
        Some(ImageFormat::Jpeg)
    );
    assert_eq!(
        sniff(&encode(&img, ImageFormat::WebP)),
        Some(ImageFormat::WebP)
    );
    for other in [
        &b"<svg xmlns=\"http://www.w3.org/2000/svg\"/>"[..],
        b"<?xml version=\"1.0\"?><svg/>",
        b"<!doctype html><html></html>",
        b"GIF89a\x01\x00\x01\x00",
        b"BM\x00\x00",
        b"RIFF\x00\x00\x00\x00WAVEfmt ",
        b"RIFF",
        b"\x89PNG",
        b"\xFF\xD8",
        b"",
    ] {
        assert_eq!(sniff(other), None, "{:?}", String::from_utf8_lossy(other));
    }
}

#[test]
fn markup_is_found_in_any_case_and_anywhere() {
    for bad in [
        &b"xx<script>alert(1)</script>"[..],
        b"\x00\x01<SCRIPT src=x>",
        b"<Html>",
        b"...<svg/onload=alert(1)>",
        b"<?php echo 1; ?>",
        b"<html",
    ] {
        assert!(has_markup(bad), "{:?}", String::from_utf8_lossy(bad));
    }
    for fine in [&b"<scripts"[..], b"<svgx", b"plain bytes < 3", b"<htm", b""] {
        assert!(!has_markup(fine), "{:?}", String::from_utf8_lossy(fine));
    }
}

#[test]
fn a_picture_becomes_a_square_png_of_256_pixels() {
    for format in [ImageFormat::Png, ImageFormat::Jpeg, ImageFormat::WebP] {
        let out = make_thumbnail(&encode(&gradient(600, 400), format)).unwrap();
        assert_eq!(sniff(&out), Some(ImageFormat::Png), "{format:?}");
        let back = image::load_from_memory_with_format(&out, ImageFormat::Png).unwrap();
        assert_eq!((back.width(), back.height()), (SIDE, SIDE), "{format:?}");
    }
}

#[test]
fn transparency_survives_and_small_pictures_are_scaled_up() {
    let img = DynamicImage::ImageRgba8(ImageBuffer::from_pixel(40, 90, Rgba([9, 9, 9, 0])));
    let out = make_thumbnail(&encode(&img, ImageFormat::Png)).unwrap();
    let back = image::load_from_memory(&out).unwrap();
    assert_eq!((back.width(), back.height()), (SIDE, SIDE));
    assert_eq!(back.to_rgba8().get_pixel(128, 128)[3], 0);
}

#[test]
fn a_header_claiming_a_huge_picture_is_refused_by_the_pixel_limit() {
    let e = make_thumbnail(&png_claiming(100_000, 100_000)).unwrap_err();
    assert_eq!(e.reason, Reason::AVATAR_INVALID);
    assert!(e.cause.unwrap_or_default().contains("limit"));
    // Just over the side limit, in either direction.
    for (w, h) in [(MAX_SIDE + 1, 8), (8, MAX_SIDE + 1)] {
        let e = make_thumbnail(&png_claiming(w, h)).unwrap_err();
        assert!(e.cause.unwrap_or_default().contains("limit"), "{w}x{h}");
    }
}

#[test]
fn polyglots_svg_and_oversized_files_are_refused() {
    let mut polyglot = encode(&gradient(16, 16), ImageFormat::Png);
    polyglot.extend_from_slice(b"<script>alert(1)</script>");
    assert_eq!(
        make_thumbnail(&polyglot).unwrap_err().reason,
        Reason::AVATAR_INVALID
    );
    let svg = b"<svg xmlns=\"http://www.w3.org/2000/svg\"><script>alert(1)</script></svg>";
    assert_eq!(
        make_thumbnail(svg).unwrap_err().reason,
        Reason::AVATAR_INVALID
    );
    let truncated = &encode(&gradient(64, 64), ImageFormat::Png)[..60];
    assert_eq!(
        make_thumbnail(truncated).unwrap_err().reason,
        Reason::AVATAR_INVALID
    );
    let big = vec![0u8; MAX_BYTES + 1];
    assert_eq!(
        make_thumbnail(&big).unwrap_err().reason,
        Reason::AVATAR_TOO_LARGE
    );
}

#[test]
fn a_photo_is_turned_upright_by_its_exif_orientation_before_the_metadata_goes() {
    // Left half red, right half blue; EXIF says "rotate 90 degrees clockwise to view".
    let img = DynamicImage::ImageRgb8(ImageBuffer::from_fn(400, 200, |x, _| {
        if x < 200 {
            Rgb([255, 0, 0])
        } else {
            Rgb([0, 0, 255])
        }
    }));
    let jpeg = encode(&img, ImageFormat::Jpeg);
    let mut tiff = b"Exif\0\0MM\0\x2A\0\0\0\x08\0\x01".to_vec();
    tiff.extend_from_slice(&[0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 6, 0, 0, 0, 0, 0, 0]);
    let mut with_exif = jpeg[..2].to_vec();
    with_exif.extend_from_slice(&[0xFF, 0xE1]);
    with_exif.extend_from_slice(&(tiff.len() as u16 + 2).to_be_bytes());
    with_exif.extend_from_slice(&tiff);
    with_exif.extend_from_slice(&jpeg[2..]);
    let out = image::load_from_memory(&make_thumbnail(&with_exif).unwrap())
        .unwrap()
        .to_rgb8();
    // Upright, the red half is on top: a point in the upper right is red, not blue.
    let p = out.get_pixel(200, 40);
    assert!(p[0] > 200 && p[2] < 60, "{p:?}");
}

#[test]
fn trailing_bytes_after_the_image_are_ignored() {
    let mut png = encode(&gradient(32, 32), ImageFormat::Png);
    png.extend_from_slice(b"harmless trailing bytes");
    assert!(make_thumbnail(&png).is_ok());
}

/// A Ciam over an in-memory store and in-memory blobs, with one signed-in user.
async fn signed_in() -> (Ciam, std::sync::Arc<crate::MemoryBlobs>, Session) {
    use std::sync::Arc;
    let blobs = Arc::new(crate::MemoryBlobs::default());
    let ciam = crate::testing::Builder::new(1_800_000_000)
        .keys(crate::Keys::from_root([5; 32]))
        .blobs(blobs.clone())
        .build()
        .await;
    let user = User {
        id: "0123456789abcdef0123456789abcdef".into(),
        user_name: "pic".into(),
        ..Default::default()
    };
    ciam.store.put(user.to_item(), None).await.unwrap();
    let (token, item) = crate::sessions::mint(&ciam, &user, &Default::default());
    ciam.store.put(item, None).await.unwrap();
    let s = crate::sessions::authenticate(&ciam, Some(&token))
        .await
        .unwrap();
    (ciam, blobs, s)
}

fn picture() -> Vec<u8> {
    encode(&gradient(300, 200), ImageFormat::Png)
}

#[tokio::test]
async fn a_session_revoked_during_the_upload_cannot_write_and_leaves_no_blob() {
    let (ciam, blobs, s) = signed_in().await;
    // Every session ends (a password change elsewhere) after this one was checked.
    let key = profile_key(&s.user.id);
    let bump = vec![Update::Set("sessGen".into(), (s.user.sess_gen + 1).into())];
    ciam.store.update(&key, bump, None).await.unwrap();
    let e = upload(&ciam, &s, picture()).await.unwrap_err();
    assert_eq!(e.reason, Reason::AUTHORIZATION_FAILED);
    assert!(blobs.keys().is_empty(), "the new blob is discarded");
    let user = User::from_item(&ciam.store.get(&key).await.unwrap().unwrap()).unwrap();
    assert_eq!(user.avatar, None);
}

#[tokio::test]
async fn a_concurrent_upload_is_replaced_and_its_blob_deleted_not_orphaned() {
    let (ciam, blobs, s) = signed_in().await;
    // Another upload of the same account landed after this session was read.
    let other = format!("{}-{}.png", s.user.id, "f".repeat(32));
    ciam.blobs.put(&other, vec![1], CONTENT_TYPE).await.unwrap();
    let set = vec![Update::Set(
        "avatar".into(),
        format!("{PATH_PREFIX}{other}").into(),
    )];
    let key = profile_key(&s.user.id);
    ciam.store.update(&key, set, None).await.unwrap();
    let path = upload(&ciam, &s, picture()).await.unwrap();
    let user = User::from_item(&ciam.store.get(&key).await.unwrap().unwrap()).unwrap();
    assert_eq!(user.avatar.as_deref(), Some(path.as_str()));
    assert_eq!(blobs.keys(), vec![key_of(&path).unwrap().to_owned()]);
    assert!(fetch(&ciam, key_of(&path).unwrap())
        .await
        .unwrap()
        .is_some());
}

#[test]
fn keys_have_one_shape() {
    let k = format!("{}-{}.png", "a".repeat(32), "0".repeat(32));
    assert!(is_key(&k));
    assert_eq!(key_of(&format!("{PATH_PREFIX}{k}")), Some(k.as_str()));
    for bad in [
        "../secret.key".to_owned(),
        format!("{}-{}.PNG", "a".repeat(32), "0".repeat(32)),
        format!("{}-{}.png", "A".repeat(32), "0".repeat(32)),
        format!("{}-{}.png", "a".repeat(31), "0".repeat(32)),
        format!("{}/{}.png", "a".repeat(32), "0".repeat(32)),
        format!("{}-{}.png.png", "a".repeat(32), "0".repeat(32)),
    ] {
        assert!(!is_key(&bad), "{bad}");
    }
    assert_eq!(key_of(&k), None, "a bare key is not an avatar path");
}
