//! The viewer's address, for the cn cell's per-client limits (docs/multi-region.md §13) and both
//! cells' audit log.
//!
//! The limiter keys on the address CloudFront saw (`ciam_api`'s `extract::viewer_ip`: the
//! CloudFront-Viewer-Address header, else the connection's peer). Neither can be trusted as it
//! arrives in a Lambda: the header reaches an origin only through an origin request policy that
//! names it (the managed AllViewerExceptHostHeader does not, and no policy can forward every
//! viewer header but Host and add a CloudFront header too), that CloudFront in China sets it at
//! all is undocumented, and a viewer may send a header of that name itself; the HTTP API's
//! `sourceIp` is the CloudFront edge that connected, shared by every viewer behind it.
//!
//! What is trusted instead is X-Forwarded-For as CloudFront forwards it to a custom origin: the
//! viewer's own entries (anything it wrote) first, then the viewer's address, which CloudFront
//! appends from the TCP connection. API Gateway may append its own peer after it (that is
//! `sourceIp`). So the viewer is the last entry once trailing entries equal to `sourceIp` are
//! dropped; with none left, `sourceIp` itself. The request reaches the function only through
//! CloudFront (the origin header, `origin.rs`), so nothing after CloudFront's entry is the
//! viewer's to write. What a real China account must still show: that the entry CloudFront
//! appends is the viewer's there too, and that the HTTP API appends `sourceIp` rather than
//! taking it from the header (docs/multi-region.md §13, "Proved here, and not").

use axum::extract::{ConnectInfo, Request};
use lambda_http::request::RequestContext;
use lambda_http::RequestExt;
use std::net::{IpAddr, SocketAddr};

/// The viewer's address from X-Forwarded-For and the HTTP API's `sourceIp` (see above). None
/// when neither gives an address (then every such request counts as one client).
pub fn viewer(forwarded_for: Option<&str>, source_ip: Option<IpAddr>) -> Option<IpAddr> {
    let mut entries: Vec<Option<IpAddr>> = forwarded_for
        .unwrap_or_default()
        .split(',')
        .map(str::trim)
        .filter(|e| !e.is_empty())
        .map(|e| e.parse().ok())
        .collect();
    while source_ip.is_some() && entries.last() == Some(&source_ip) {
        entries.pop();
    }
    // An entry that is no address where CloudFront's should be: the header is not as CloudFront
    // sends it, and nothing in it is trusted.
    match entries.last() {
        Some(last) => *last,
        None => source_ip,
    }
}

/// `req` with its viewer as the connection's peer (`ConnectInfo`, what `ciam serve`'s socket
/// gives) and without a CloudFront-Viewer-Address header, which would otherwise outrank it.
pub fn mark(mut req: Request) -> Request {
    let source_ip = match req.request_context_ref() {
        Some(RequestContext::ApiGatewayV2(ctx)) => {
            ctx.http.source_ip.as_deref().and_then(|s| s.parse().ok())
        }
        _ => None,
    };
    let forwarded = req
        .headers()
        .get("x-forwarded-for")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    req.headers_mut().remove("cloudfront-viewer-address");
    if let Some(ip) = viewer(forwarded.as_deref(), source_ip) {
        req.extensions_mut()
            .insert(ConnectInfo(SocketAddr::new(ip, 0)));
    }
    req
}

/// `router` marking each request's viewer ([`mark`]), in every cell: the cn cell's limits and
/// both cells' audit log read it (`ciam_api`'s `extract::viewer_ip`).
pub fn layer(router: axum::Router) -> axum::Router {
    router.layer(axum::middleware::map_request(|req: Request| async move {
        mark(req)
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap_or(IpAddr::from([0, 0, 0, 0]))
    }

    const EDGE: &str = "130.176.1.2";

    #[test]
    fn the_viewer_is_the_entry_cloudfront_appended() {
        // CloudFront's own entry, then API Gateway's (its peer, the edge).
        let edge = Some(ip(EDGE));
        let got = viewer(Some("203.0.113.7, 130.176.1.2"), edge);
        assert_eq!(got, Some(ip("203.0.113.7")));
        // What the viewer wrote before it never counts.
        let got = viewer(Some("10.9.9.9, 1.1.1.1, 203.0.113.7, 130.176.1.2"), edge);
        assert_eq!(got, Some(ip("203.0.113.7")));
        // An API Gateway that does not append: CloudFront's entry is the last.
        let got = viewer(Some("10.9.9.9, 2001:db8::1"), edge);
        assert_eq!(got, Some(ip("2001:db8::1")));
    }

    #[test]
    fn without_a_forwarded_entry_the_peer_is_the_viewer() {
        let peer = Some(ip("198.51.100.4"));
        assert_eq!(viewer(None, peer), peer);
        assert_eq!(viewer(Some("198.51.100.4"), peer), peer);
        assert_eq!(viewer(Some(" , "), peer), peer);
        assert_eq!(viewer(None, None), None);
    }

    #[test]
    fn a_malformed_last_entry_trusts_nothing_in_the_header() {
        let edge = Some(ip(EDGE));
        assert_eq!(
            viewer(Some("203.0.113.7, not-an-ip, 130.176.1.2"), edge),
            None
        );
        // An earlier malformed entry is the viewer's own writing: ignored.
        let got = viewer(Some("junk, 203.0.113.7, 130.176.1.2"), edge);
        assert_eq!(got, Some(ip("203.0.113.7")));
    }

    #[test]
    fn a_forged_viewer_address_header_is_removed_and_the_peer_set() {
        let req = axum::http::Request::builder()
            .header("cloudfront-viewer-address", "9.9.9.9:443")
            .header("x-forwarded-for", "9.9.9.9, 203.0.113.7")
            .body(axum::body::Body::empty())
            .unwrap_or_default();
        let marked = mark(req);
        assert!(marked.headers().get("cloudfront-viewer-address").is_none());
        let peer = marked
            .extensions()
            .get::<ConnectInfo<SocketAddr>>()
            .map(|c| c.0.ip());
        assert_eq!(peer, Some(ip("203.0.113.7")));
    }
}
