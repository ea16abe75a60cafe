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
//! The decoders see untrusted bytes, so the pipeline runs behind the `ImageDecoder` port: in
//! process locally (`InProcessDecoder`, `ciam serve` and the tests), in a function of its own in
//! AWS that holds no secret, no table and no bucket (`ciam_lambdas::decoder`): a decoder bug an
//! image exploits reaches nothing worth having.
//!
//! Objects are stored through the `BlobStore` port under keys the server makes:
//! `<userId>-<128 random bits in hex>.png`. A new key per upload busts every cache, so the
//! image can be served as immutable.

use crate::error::{Error, Result};
use crate::sessions::Session;
use crate::user::{profile_key, User};
use crate::{random, Ciam, Reason};
use async_trait::async_trait;
use ciam_store::{Cond, Update};
use image::codecs::png::{CompressionType, FilterType as PngFilter, PngEncoder};
use image::imageops::FilterType;
use image::{DynamicImage, ImageDecoder as _, ImageEncoder, ImageFormat, ImageReader, Limits};
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

/// True for what `make_thumbnail` makes: a PNG by magic bytes with no markup in it (checked
/// again on what the decoding function answers before it is stored).
pub fn is_clean_png(bytes: &[u8]) -> bool {
    sniff(bytes) == Some(ImageFormat::Png) && !has_markup(bytes)
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

/// Makes the thumbnail of an upload (`make_thumbnail`'s answers: the PNG, or AVATAR_INVALID,
/// AVATAR_TOO_LARGE), wherever the decoding runs.
#[async_trait]
pub trait ImageDecoder: Send + Sync {
    async fn thumbnail(&self, bytes: Vec<u8>) -> Result<Vec<u8>>;
}

/// The decoding on a blocking thread of this process.
#[derive(Clone, Copy, Debug, Default)]
pub struct InProcessDecoder;

#[async_trait]
impl ImageDecoder for InProcessDecoder {
    async fn thumbnail(&self, bytes: Vec<u8>) -> Result<Vec<u8>> {
        thumbnail(bytes).await
    }
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
/// deletes the previous one. Returns the new avatar path. The thumbnail comes from
/// `ciam.images` (in AWS, one invocation of the decoding function).
///
/// The user write is conditional on the session generation (a revoked session cannot write) and
/// on the avatar it replaces, so of concurrent uploads each previous blob is deleted exactly
/// once and none is orphaned. Round trips: 1 blob put, 1 conditional update, 1 blob delete
/// (plus 1 read and 1 update per lost race).
pub async fn upload(ciam: &Ciam, s: &Session, body: Vec<u8>) -> Result<String> {
    if body.len() > MAX_BYTES {
        return Err(Reason::AVATAR_TOO_LARGE.into());
    }
    let png = ciam.images.thumbnail(body).await?;
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
    // A partner with the `avatar` scope hears the new picture (the key is new: it always
    // changes), in the write that points the user at it.
    let after = User {
        avatar: Some(path.clone()),
        ..s.user.clone()
    };
    let event = crate::events::profile_changes(ciam, &s.user, &after)
        .and_then(|d| crate::events::op_for(ciam, &s.user, crate::events::Kind::UserUpdated, d));
    for _ in 0..ATTEMPTS {
        let replaces = match &previous {
            Some(p) => Cond::eq("avatar", p.as_str()),
            None => Cond::attr_not_exists("avatar"),
        };
        let cond = Cond::Exists
            .and(Cond::eq("sessGen", s.user.sess_gen))
            .and(replaces);
        let ops = vec![Update::Set("avatar".into(), path.as_str().into())];
        let user_key = profile_key(&s.user.id);
        match crate::events::update_with(ciam, &user_key, ops, Some(cond), event.clone()).await {
            Ok(_) => {
                // Only this account's own images are ever deleted on its behalf.
                let old = previous.as_deref().and_then(key_of);
                if let Some(old) = old.filter(|k| k.starts_with(s.user.id.as_str())) {
                    if let Err(cause) = ciam.blobs.delete(old).await {
                        // The user points at the new image; an orphan costs storage only.
                        tracing::warn!(cause = %cause, key = old, "could not delete the previous avatar");
                    }
                }
                return Ok(path);
            }
            Err(e) if e.is_condition_failed() => {
                // A revoked session, or another upload won the race: read which.
                let current = match ciam.store.get(&profile_key(&s.user.id)).await {
                    Ok(item) => item.as_ref().and_then(User::from_item),
                    Err(e) => {
                        discard(ciam, &key).await;
                        return Err(e.into());
                    }
                };
                match current {
                    Some(u) if u.sess_gen == s.user.sess_gen && u.usable() => {
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
mod tests;
