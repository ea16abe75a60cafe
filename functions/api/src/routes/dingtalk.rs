//! DingTalk sign-in (docs/federation-design.md §3.3): the browser leaves from
//! `/auth/dingtalk/start` and comes back to `/auth/dingtalk/callback`, both the generic handlers
//! of `federation.rs` serving the row's provider; the protocol is `crate::federation::dingtalk`.
//! A linked DingTalk account comes back with `dingtalkCode` (redeemed by `POST
//! /auth/login/federation`), a new one with `dingtalkPending` (the phone proof), a refusal with
//! `dingtalkError=<REASON>`.

/// The operations DingTalk's rows publish for the generic handlers (`federation::{start,
/// callback}`), read by `ciam-gen` for docs/openapi.json.
#[cfg(feature = "openapi")]
#[allow(dead_code, non_camel_case_types)]
enum Operations {
    /// DingTalk sign-in: leave for DingTalk
    ///
    /// A browser navigation, not an API call. Stores the state (10 minutes: language, the query
    /// to return to, bindHash) and redirects to DingTalk's authorization page
    /// (`login.dingtalk.com/oauth2/auth`, response_type=code, scope `openid`, or `openid corpid`
    /// when one organization is required, prompt=consent, redirect_uri `<public
    /// url>/ciam/v1/auth/dingtalk/callback`). Not configured: `dingtalkError=UNAVAILABLE`; no
    /// valid bindHash: `dingtalkError=INVALID_PARAMETER`.
    ///
    /// Reasons: none.
    ///
    /// `GET /auth/dingtalk/start?lang=&query=&bindHash=`: every answer is a 302 (the source's); a
    /// refusal goes back to sign-in with `dingtalkError=<REASON>`, so the reasons above are only
    /// the deadline's and a panic's. Round trips: 1 (the state).
    start,

    /// DingTalk sign-in: back from DingTalk
    ///
    /// The redirect URI registered at DingTalk, which sends the code as `authCode`. Consumes the
    /// state (single use: a replayed, unknown, expired or another provider's state is
    /// `dingtalkError=AUTHORIZATION_FAILED`), exchanges the code (`v1.0/oauth2/userAccessToken`,
    /// then `v1.0/contact/users/me`; 3 s per call): an invalid, used or expired code is
    /// AUTHORIZATION_FAILED; a token for another organization than the required one
    /// FEDERATION_NOT_PERMITTED; no code (declined) FEDERATION_CANCELLED; DingTalk down, slow, a
    /// wrong secret or a missing permission SERVICE_UNAVAILABLE. The person is the `unionId`.
    /// Linked to an active account: `/{lang}/passport/signin?dingtalkCode=<one-time code, 60 s,
    /// bound to the state's bindHash>&<query>`; a suspended or deactivated account is
    /// AUTHORIZATION_FAILED, as a refused code. Not linked: `?dingtalkPending=<token>` (15
    /// minutes), the phone proof next (POST /auth/federation/phone; DingTalk's phone is never a
    /// proof). Never a token in a URL.
    ///
    /// Reasons: none.
    ///
    /// `GET /auth/dingtalk/callback?authCode&state`: every answer is a 302 (the source's),
    /// refusals as `dingtalkError=<REASON>`. Round trips: 2 (state read and delete), 1 (the link),
    /// 1 or 2 (the account and the login code, or the pending identity); plus DingTalk's two calls.
    callback,
}
