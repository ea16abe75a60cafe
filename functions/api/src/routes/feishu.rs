//! Feishu (or Lark) sign-in (docs/federation-design.md §3.4): the browser leaves from
//! `/auth/feishu/start` and comes back to `/auth/feishu/callback`, both the generic handlers of
//! `federation.rs` serving the row's provider; the protocol is `crate::federation::feishu`. A
//! linked Feishu account comes back with `feishuCode` (redeemed by `POST
//! /auth/login/federation`), a new one with `feishuPending` (the phone proof), a refusal with
//! `feishuError=<REASON>`.

/// The operations Feishu's rows publish for the generic handlers (`federation::{start,
/// callback}`), read by `ciam-gen` for docs/openapi.json.
#[cfg(feature = "openapi")]
#[allow(dead_code, non_camel_case_types)]
enum Operations {
    /// Feishu sign-in: leave for Feishu
    ///
    /// A browser navigation, not an API call. Stores the state (10 minutes: language, the query
    /// to return to, bindHash, and a PKCE verifier; no nonce) and redirects to Feishu's
    /// authorization page (`accounts.feishu.cn/open-apis/authen/v1/authorize`, or Lark's
    /// `accounts.larksuite.com` when the region is `lark`; client_id, response_type=code,
    /// redirect_uri `<public url>/ciam/v1/auth/feishu/callback`, state, the verifier's S256
    /// code_challenge). Not configured: `feishuError=UNAVAILABLE`; no valid bindHash:
    /// `feishuError=INVALID_PARAMETER`.
    ///
    /// Reasons: none.
    ///
    /// `GET /auth/feishu/start?lang=&query=&bindHash=`: every answer is a 302 (the source's); a
    /// refusal goes back to sign-in with `feishuError=<REASON>`, so the reasons above are only
    /// the deadline's and a panic's. Round trips: 1 (the state).
    start,

    /// Feishu sign-in: back from Feishu
    ///
    /// The redirect URL registered at Feishu. Consumes the state (single use: a replayed,
    /// unknown, expired or another provider's state is `feishuError=AUTHORIZATION_FAILED`),
    /// exchanges the code with the state's PKCE verifier and the redirect URI
    /// (`open-apis/authen/v2/oauth/token`, then `open-apis/authen/v1/user_info`; 3 s per call):
    /// an invalid, used or expired code, or a verifier Feishu refuses, is AUTHORIZATION_FAILED; a
    /// person outside the app's availability (20010) FEDERATION_NOT_PERMITTED; declined
    /// (`error=access_denied`, no code) FEDERATION_CANCELLED; Feishu down, slow or a wrong secret
    /// SERVICE_UNAVAILABLE. The person is the `union_id`. Linked to an active account:
    /// `/{lang}/passport/signin?feishuCode=<one-time code, 60 s, bound to the state's
    /// bindHash>&<query>`; a suspended or deactivated account is AUTHORIZATION_FAILED, as a
    /// refused code. Not linked: `?feishuPending=<token>` (15 minutes), the phone proof next
    /// (POST /auth/federation/phone; Feishu's phone and mail are never a proof). Never a token in
    /// a URL.
    ///
    /// Reasons: none.
    ///
    /// `GET /auth/feishu/callback?code&state`: every answer is a 302 (the source's), refusals as
    /// `feishuError=<REASON>`. Round trips: 2 (state read and delete), 1 (the link), 1 or 2 (the
    /// account and the login code, or the pending identity); plus Feishu's two calls.
    callback,
}
