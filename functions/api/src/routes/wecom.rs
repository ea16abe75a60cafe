//! WeCom sign-in (docs/federation-design.md §3.2): the browser leaves from `/auth/wecom/start`
//! and comes back to `/auth/wecom/callback`, both the generic handlers of `federation.rs` serving
//! the row's provider; the protocol is `crate::federation::wecom`. A linked WeCom member comes
//! back with `wecomCode` (redeemed by `POST /auth/login/federation`), a new one with
//! `wecomPending` (the phone proof), a refusal with `wecomError=<REASON>`.

/// The operations WeCom's rows publish for the generic handlers (`federation::{start,
/// callback}`), read by `ciam-gen` for docs/openapi.json.
#[cfg(feature = "openapi")]
#[allow(dead_code, non_camel_case_types)]
enum Operations {
    /// WeCom sign-in: leave for WeCom
    ///
    /// A browser navigation, not an API call. On a desktop browser: WeCom's web login
    /// (`login.work.weixin.qq.com/wwlogin/sso/login`, login_type=CorpApp, appid the CorpID,
    /// agentid, lang). Inside WeCom's own browser (`wxwork` in the User-Agent): the in-client
    /// authorization (`open.weixin.qq.com/connect/oauth2/authorize`, scope `snsapi_privateinfo`,
    /// agentid). Stores the state (10 minutes: language, which surface, the query to return to,
    /// bindHash); redirect_uri `<public url>/ciam/v1/auth/wecom/callback` (its host the app's
    /// trusted domain). Not configured: `wecomError=UNAVAILABLE`; no valid bindHash:
    /// `wecomError=INVALID_PARAMETER`.
    ///
    /// Reasons: none.
    ///
    /// `GET /auth/wecom/start?lang=&query=&bindHash=`: every answer is a 302 (the source's); a
    /// refusal goes back to sign-in with `wecomError=<REASON>`, so the reasons above are only the
    /// deadline's and a panic's. Round trips: 1 (the state).
    start,

    /// WeCom sign-in: back from WeCom
    ///
    /// The redirect URI registered as the app's trusted domain. Consumes the state (single use:
    /// a replayed, unknown, expired or another provider's state is
    /// `wecomError=AUTHORIZATION_FAILED`), then asks WeCom who the code names with the corp token
    /// cached in the table (fetched by `cgi-bin/gettoken` only when none is usable, by one caller
    /// at a time; dropped and fetched again once on WeCom's invalid-token answer 40014 or 42001):
    /// `cgi-bin/auth/getuserinfo`, and inside WeCom `cgi-bin/auth/getuserdetail` with the member's
    /// `user_ticket`; 3 s per call. An invalid, used or expired code is AUTHORIZATION_FAILED; not a
    /// member of the corp (an `openid`), or inside WeCom a member outside the app's visible range
    /// (no `user_ticket`), FEDERATION_NOT_PERMITTED; no code (declined) FEDERATION_CANCELLED;
    /// WeCom down, slow, a wrong secret or a callback outside the trusted domain
    /// SERVICE_UNAVAILABLE. The person is `<corpid>/<userid>`. Linked to an active account:
    /// `/{lang}/passport/signin?wecomCode=<one-time code, 60 s, bound to the state's
    /// bindHash>&<query>`; a suspended or deactivated account is AUTHORIZATION_FAILED, as a
    /// refused code. Not linked: `?wecomPending=<token>` (15 minutes), the phone proof next (POST
    /// /auth/federation/phone; the phone the corp's admins recorded is never a proof). Never a
    /// token in a URL.
    ///
    /// Reasons: none.
    ///
    /// `GET /auth/wecom/callback?code&state`: every answer is a 302 (the source's), refusals as
    /// `wecomError=<REASON>`. Round trips: 2 (state read and delete), 1 (the corp token, cached;
    /// with the lease and the put when fetched), 1 (the link), 1 or 2 (the account and the login
    /// code, or the pending identity); plus WeCom's one or two calls.
    callback,
}
