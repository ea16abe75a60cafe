//! The framing policy: only the embedded sign-in may be framed, and only by the origins its
//! app registered.

use super::find;
use crate::error::Result;
use crate::{Ciam, Reason};

/// The `frame-ancestors` value for the embedded sign-in of `app_id` framed for `service_url`:
/// the app's registered frame origins, space-separated, or `'none'` for an unknown app, one
/// without any, or a serviceUrl that is not exactly one of the app's registered ones (so a frame
/// that could post to an unregistered origin never renders). Read on every request (nothing
/// cached), so an admin's change applies to the next page load. Values that are not plain
/// origins (never stored by `check`) are left out, so the header cannot be widened or split.
/// Round trips: 1 (none for an id that cannot exist).
pub async fn frame_ancestors(ciam: &Ciam, app_id: &str, service_url: &str) -> Result<String> {
    let app = match find(ciam, app_id).await {
        Ok(app) => app,
        Err(e) if e.reason == Reason::APPID_NOT_FOUND => return Ok(NO_FRAMING.to_owned()),
        Err(e) => return Err(e),
    };
    if !app.registers(service_url) {
        return Ok(NO_FRAMING.to_owned());
    }
    let plain = |o: &String| {
        !o.is_empty()
            && o.bytes().all(|b| {
                b.is_ascii_alphanumeric() || matches!(b, b':' | b'/' | b'.' | b'-' | b'[' | b']')
            })
    };
    let origins: Vec<String> = app.frame_origins.into_iter().filter(plain).collect();
    Ok(if origins.is_empty() {
        NO_FRAMING.to_owned()
    } else {
        origins.join(" ")
    })
}

/// `frame-ancestors` for every page but the embedded sign-in.
pub const NO_FRAMING: &str = "'none'";

/// The `Content-Security-Policy` value for every page but the embedded sign-in.
pub const NO_FRAMING_CSP: &str = "frame-ancestors 'none'";

/// The `Content-Security-Policy` value for `ancestors` (from `frame_ancestors`), or
/// `NO_FRAMING_CSP` if it holds a byte a header value cannot carry.
pub fn frame_ancestors_csp(ancestors: &str) -> String {
    if ancestors
        .bytes()
        .all(|b| b == b'\t' || (b >= 0x20 && b != 0x7f))
    {
        format!("frame-ancestors {ancestors}")
    } else {
        NO_FRAMING_CSP.to_owned()
    }
}

/// The embedded sign-in page, the only page another site may frame:
/// `/{zh-CN|en-US}/embedded/signin` (a trailing slash allowed).
pub fn is_embedded_signin(path: &str) -> bool {
    matches!(
        path.trim_end_matches('/'),
        "/zh-CN/embedded/signin" | "/en-US/embedded/signin"
    )
}
