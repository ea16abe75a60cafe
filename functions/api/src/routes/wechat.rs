//! WeChat sign-in (docs/federation-design.md §3.1): the browser leaves from
//! `/auth/wechat/start` and comes back to `/auth/wechat/callback`, both the generic handlers of
//! `federation.rs` serving the row's provider; the protocol is `crate::federation::wechat`. A
//! linked WeChat account comes back with `wechatCode` (redeemed by `POST
//! /auth/login/federation`), a new one with `wechatPending` (the phone proof, `POST
//! /auth/federation/phone`), a refusal with `wechatError=<REASON>`.

/// The operations WeChat's rows publish for the generic handlers (`federation::{start,
/// callback}`), read by `ciam-gen` for docs/openapi.json.
#[cfg(feature = "openapi")]
#[allow(dead_code, non_camel_case_types)]
enum Operations {
    /// WeChat sign-in: leave for WeChat
    ///
    /// A browser navigation, not an API call. On a desktop browser: WeChat's website QR login
    /// (`open.weixin.qq.com/connect/qrconnect`, scope `snsapi_login`, the website app's AppID).
    /// Inside WeChat's own browser (`MicroMessenger` in the User-Agent, not WeCom's `wxwork`): the
    /// Official Account's web authorization (`connect/oauth2/authorize`, scope `snsapi_userinfo`),
    /// or, without an Official Account configured, back to sign-in with
    /// `wechatError=FEDERATION_OPEN_IN_BROWSER` before anything is stored. Stores the state (10
    /// minutes: language, which surface, the query to return to, bindHash); redirect_uri
    /// `<public url>/ciam/v1/auth/wechat/callback`. Not configured: `wechatError=UNAVAILABLE`; no
    /// valid bindHash: `wechatError=INVALID_PARAMETER`.
    ///
    /// Reasons: none.
    ///
    /// `GET /auth/wechat/start?lang=&query=&bindHash=`: every answer is a 302 (the source's); a
    /// refusal goes back to sign-in with `wechatError=<REASON>`, so the reasons above are only the
    /// deadline's and a panic's. Round trips: 1 (the state).
    start,

    /// WeChat sign-in: back from WeChat
    ///
    /// The redirect URI registered at WeChat. Consumes the state (single use: a replayed,
    /// unknown, expired or another provider's state is `wechatError=AUTHORIZATION_FAILED`), then
    /// exchanges the code with the app that the state's surface used (`sns/oauth2/access_token`;
    /// 3 s per call): a snapshot-mode person (`is_snapshotuser: 1`) is
    /// `wechatError=FEDERATION_SNAPSHOT_USER` with nothing written; an invalid, used or expired
    /// code AUTHORIZATION_FAILED; no code (declined) FEDERATION_CANCELLED; WeChat down, slow or a
    /// wrong secret SERVICE_UNAVAILABLE. The person is the `unionid`. Linked to an active account:
    /// `/{lang}/passport/signin?wechatCode=<one-time code, 60 s, bound to the state's
    /// bindHash>&<query>`; a suspended or deactivated account is AUTHORIZATION_FAILED, as a
    /// refused code. Not linked: `?wechatPending=<token>` (15 minutes), the phone proof next
    /// (POST /auth/federation/phone). Never a token in a URL.
    ///
    /// Reasons: none.
    ///
    /// `GET /auth/wechat/callback?code&state`: every answer is a 302 (the source's), refusals as
    /// `wechatError=<REASON>`. Round trips: 2 (state read and delete), 1 (the link), 1 or 2 (the
    /// account and the login code, or the pending identity); plus WeChat's token and, for a new
    /// person, userinfo calls.
    callback,
}
