//! The avatar: an uploaded picture becomes a 256 x 256 PNG made afresh from its pixels.
//!
//! What a client sends is never stored or served as it came. It is recognised by its magic bytes
//! only (PNG, JPEG or WebP; the declared content type and any file name count for nothing),
//! refused when it carries markup a browser could run (SVG, HTML, polyglots), decoded under a
//! pixel and memory limit (decompression bombs fail before their pixels are allocated), turned
//! upright (EXIF orientation), center-cropped to a square, scaled and encoded as a new PNG. The
//! new file has only the PNG chunks that hold pixels: no EXIF, ICC, XMP or text survives.
//!
//! The PNG keeps transparency and is lossless; at 256 x 256 it stays small (tens of KB).
//!
//! Objects are stored through the `BlobStore` port under keys the server makes:
//! `<userId>-<128 random bits in hex>.png`. A new key per upload busts every cache, so the
//! image can be served as immutable.

use crate::error::{Error, Result};
use crate::sessions::Session;
use crate::user::{profile_key, User};
use crate::{random, Ciam, Reason};
use ciam_store::{Cond, StoreError, Update};
use image::codecs::png::{CompressionType, FilterType as PngFilter, PngEncoder};
use image::imageops::FilterType;
use image::{DynamicImage, ImageDecoder, ImageEncoder, ImageFormat, ImageReader, Limits};
use std::io::Cursor;

/// The largest upload: 1 MiB, enforced on the streamed body.
pub const MAX_BYTES: usize = 1024 * 1024;
/// Decoding refuses wider or taller images before allocating their pixels.
pub const MAX_SIDE: u32 = 4096;
/// Decoding refuses images whose pixels need more memory than this.
pub const MAX_ALLOC: u64 = 64 * 1024 * 1024;
/// The side of the stored square.
pub const SIDE: u32 = 256;
/// What is stored and served.
pub const CONTENT_TYPE: &str = "image/png";
/// Where the API serves an avatar: `UserInfo.avatar` is this followed by the key.
pub const PATH_PREFIX: &str = "/ciam/v1/avatar/";

/// Markup that would make a file dangerous if anything ever rendered it as a document.
const MARKUP: &[&[u8]] = &[b"<script", b"<html", b"<svg", b"<?php"];

/// The format, by magic bytes only.
pub fn sniff(bytes: &[u8]) -> Option<ImageFormat> {
    if bytes.starts_with(&[0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A]) {
        Some(ImageFormat::Png)
    } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Some(ImageFormat::Jpeg)
    } else if bytes.len() >= 12 && bytes.starts_with(b"RIFF") && &bytes[8..12] == b"WEBP" {
        Some(ImageFormat::WebP)
    } else {
        None
    }
}

/// True when `bytes` hold, anywhere and in any letter case, one of the tags of `MARKUP`
/// followed by what ends a tag name (whitespace, `>`, `/`) or by the end. The ending byte is
/// what an HTML parser needs to see a tag (WHATWG mimesniff asks the same); requiring it keeps
/// chance matches in compressed pixel data rare.
pub fn has_markup(bytes: &[u8]) -> bool {
    bytes.iter().enumerate().any(|(i, &b)| {
        b == b'<'
            && MARKUP.iter().any(|tag| {
                let end = i + tag.len();
                bytes.len() >= end
                    && bytes[i..end].eq_ignore_ascii_case(tag)
                    && bytes.get(end).is_none_or(|&c| {
                        matches!(c, b' ' | b'\t' | b'\n' | b'\r' | 0x0C | b'>' | b'/')
                    })
            })
    })
}

fn invalid(cause: impl Into<String>) -> Error {
    Error {
        cause: Some(cause.into()),
        ..Error::new(Reason::AVATAR_INVALID)
    }
}

fn decode_error(e: image::ImageError) -> Error {
    match e {
        image::ImageError::Limits(l) => invalid(format!("over the pixel limit: {l}")),
        other => invalid(format!("undecodable: {other}")),
    }
}

/// The whole pipeline, on the calling thread (CPU-bound: see `thumbnail`). Returns the PNG.
pub fn make_thumbnail(bytes: &[u8]) -> Result<Vec<u8>> {
    if bytes.len() > MAX_BYTES {
        return Err(Reason::AVATAR_TOO_LARGE.into());
    }
    let format = sniff(bytes).ok_or_else(|| invalid("not PNG, JPEG or WebP by magic bytes"))?;
    if has_markup(bytes) {
        return Err(invalid("contains markup (polyglot)"));
    }
    let mut limits = Limits::default();
    limits.max_image_width = Some(MAX_SIDE);
    limits.max_image_height = Some(MAX_SIDE);
    limits.max_alloc = Some(MAX_ALLOC);
    let mut reader = ImageReader::with_format(Cursor::new(bytes), format);
    reader.limits(limits);
    let mut decoder = reader.into_decoder().map_err(decode_error)?;
    // The decoders check these too; checked here as well so that no decoder's leniency
    // (max_alloc is advisory for some) lets a bomb allocate.
    let (w, h) = decoder.dimensions();
    if w == 0 || h == 0 || w > MAX_SIDE || h > MAX_SIDE || decoder.total_bytes() > MAX_ALLOC {
        return Err(invalid(format!("over the pixel limit: {w}x{h}")));
    }
    let orientation = decoder.orientation().map_err(decode_error)?;
    let mut img = DynamicImage::from_decoder(decoder).map_err(decode_error)?;
    img.apply_orientation(orientation);
    let (w, h) = (img.width(), img.height());
    let side = w.min(h);
    let square = img
        .crop_imm((w - side) / 2, (h - side) / 2, side, side)
        .resize_exact(SIDE, SIDE, FilterType::CatmullRom);
    drop(img);
    let (pixels, color) = if square.color().has_alpha() {
        (
            square.to_rgba8().into_raw(),
            image::ExtendedColorType::Rgba8,
        )
    } else {
        (square.to_rgb8().into_raw(), image::ExtendedColorType::Rgb8)
    };
    let mut out = Vec::new();
    PngEncoder::new_with_quality(&mut out, CompressionType::Best, PngFilter::Adaptive)
        .write_image(&pixels, SIDE, SIDE, color)
        .map_err(|e| Error::internal(format!("png encode: {e}")))?;
    Ok(out)
}

/// `make_thumbnail` on a blocking thread, so decoding never stalls the async workers.
pub async fn thumbnail(bytes: Vec<u8>) -> Result<Vec<u8>> {
    tokio::task::spawn_blocking(move || make_thumbnail(&bytes))
        .await
        .map_err(|e| Error::internal(format!("thumbnail task: {e}")))?
}

/// True for keys this module makes: `<32 hex userId>-<32 hex>.png`, lower case.
pub fn is_key(key: &str) -> bool {
    let hex32 = |s: &str| {
        s.len() == 32
            && s.bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    };
    key.strip_suffix(".png")
        .and_then(|stem| stem.split_once('-'))
        .is_some_and(|(user, nonce)| hex32(user) && hex32(nonce))
}

/// The key inside an avatar path from `UserInfo.avatar`, if it is one of ours.
pub fn key_of(path: &str) -> Option<&str> {
    path.strip_prefix(PATH_PREFIX).filter(|k| is_key(k))
}

/// Attempts at the conditional write when concurrent uploads of the same account keep changing
/// the avatar under it.
const ATTEMPTS: usize = 3;

/// `PATCH /auth/avatar`: stores the thumbnail under a new key, points the user at it, then
/// deletes the previous one. Returns the new avatar path.
///
/// The user write is conditional on the session generation (a revoked session cannot write) and
/// on the avatar it replaces, so of concurrent uploads each previous blob is deleted exactly
/// once and none is orphaned. Round trips: 1 blob put, 1 conditional update, 1 blob delete
/// (plus 1 read and 1 update per lost race).
pub async fn upload(ciam: &Ciam, s: &Session, body: Vec<u8>) -> Result<String> {
    let png = thumbnail(body).await?;
    let key = format!(
        "{}-{}.png",
        s.user.id,
        hex::encode(random::<16>(ciam.entropy.as_ref()))
    );
    let path = format!("{PATH_PREFIX}{key}");
    ciam.blobs
        .put(&key, png, CONTENT_TYPE)
        .await
        .map_err(|e| Error::internal(format!("avatar put: {e}")))?;
    let mut previous = s.user.avatar.clone();
    for _ in 0..ATTEMPTS {
        let replaces = match &previous {
            Some(p) => Cond::eq("avatar", p.as_str()),
            None => Cond::attr_not_exists("avatar"),
        };
        let cond = Cond::Exists
            .and(Cond::eq("sessGen", s.user.sess_gen))
            .and(replaces);
        let ops = vec![Update::Set("avatar".into(), path.as_str().into())];
        match ciam
            .store
            .update(&profile_key(&s.user.id), ops, Some(cond))
            .await
        {
            Ok(_) => {
                if let Some(old) = previous.as_deref().and_then(key_of) {
                    if let Err(cause) = ciam.blobs.delete(old).await {
                        // The user points at the new image; an orphan costs storage only.
                        tracing::warn!(cause = %cause, key = old, "could not delete the previous avatar");
                    }
                }
                return Ok(path);
            }
            Err(StoreError::ConditionFailed) => {
                // A revoked session, or another upload won the race: read which.
                let current = match ciam.store.get(&profile_key(&s.user.id)).await {
                    Ok(item) => item.as_ref().and_then(User::from_item),
                    Err(e) => {
                        discard(ciam, &key).await;
                        return Err(e.into());
                    }
                };
                match current {
                    Some(u) if u.sess_gen == s.user.sess_gen && !u.deactivated => {
                        previous = u.avatar;
                    }
                    _ => {
                        discard(ciam, &key).await;
                        return Err(Error {
                            cause: Some("session revoked during the upload".into()),
                            ..Error::new(Reason::AUTHORIZATION_FAILED)
                        });
                    }
                }
            }
            Err(e) => {
                discard(ciam, &key).await;
                return Err(e.into());
            }
        }
    }
    discard(ciam, &key).await;
    Err(Error {
        cause: Some("the avatar kept changing under the upload".into()),
        ..Error::new(Reason::SERVICE_UNAVAILABLE)
    })
}

/// Removes a blob that no user points at (the write that would have pointed at it failed).
async fn discard(ciam: &Ciam, key: &str) {
    if let Err(cause) = ciam.blobs.delete(key).await {
        tracing::warn!(cause = %cause, key, "could not delete an unused avatar");
    }
}

/// `GET /avatar/{key}`: the stored PNG, or None for a key that is not ours or not stored.
/// Round trips: 1 blob get (no table access).
pub async fn fetch(ciam: &Ciam, key: &str) -> Result<Option<Vec<u8>>> {
    if !is_key(key) {
        return Ok(None);
    }
    let blob = ciam
        .blobs
        .get(key)
        .await
        .map_err(|e| Error::internal(format!("avatar get: {e}")))?;
    Ok(blob.map(|b| b.bytes))
}

#[cfg(test)]
mod tests {
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
    pub fn png_claiming(w: u32, h: u32) -> Vec<u8> {
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

    struct Silent;

    #[async_trait::async_trait]
    impl crate::Notifier for Silent {
        async fn send_code(&self, _: &crate::CodeMessage) -> std::result::Result<(), String> {
            Ok(())
        }
        async fn send_notice(&self, _: &crate::NoticeMessage) -> std::result::Result<(), String> {
            Ok(())
        }
    }

    /// A Ciam over an in-memory store and in-memory blobs, with one signed-in user.
    async fn signed_in() -> (Ciam, std::sync::Arc<crate::MemoryBlobs>, Session) {
        use std::sync::Arc;
        let clock = crate::ManualClock::new(1_800_000_000);
        let store = ciam_store::sqlite::SqliteStore::in_memory(Arc::new(clock.clone())).unwrap();
        ciam_store::Store::ensure_schema(&store).await.unwrap();
        let blobs = Arc::new(crate::MemoryBlobs::default());
        let ciam = Ciam {
            store: Arc::new(store),
            clock: Arc::new(clock),
            entropy: Arc::new(crate::OsEntropy),
            keys: crate::Keys::from_root([5; 32]),
            notifier: Arc::new(Silent),
            blobs: blobs.clone(),
            config: crate::Config::default(),
        };
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
}
