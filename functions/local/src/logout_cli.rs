//! `ciam admin logout-notices <userId> <sid>`: what the apps a session signed in to would be
//! told if it ended now (`ciam_core::oidc::logout::notices`): a Back-Channel Logout token for
//! each app's `backchannelLogoutUri` and the same token for each ticket app's `logoutUrl`. One JSON
//! line per notice `{appId, receiver, url, contentType, body}`. Sends nothing: `ciam serve` sends
//! them when the session ends (and then forgets the session's apps, so for an ended session this
//! prints nothing). For an operator checking a partner's sign-out set-up. The tokens are signed
//! with this data folder's keys and name `--public-url` as their issuer: give the one `ciam
//! serve` runs with.

use crate::{admin_cli, StoreOptions};

/// The notices of the session `sid` of `user_id`, one JSON line each.
pub async fn notice_lines(
    user_id: &str,
    sid: &str,
    public_url: &str,
    opts: &StoreOptions,
) -> Result<Vec<String>, String> {
    let mut ciam = admin_cli::ciam(opts).await?;
    ciam.config.public_url = public_url.trim_end_matches('/').to_owned();
    let notices = ciam_core::oidc::logout::notices(&ciam, user_id, sid)
        .await
        .map_err(|e| format!("{}: {}", e.reason.code(), e.cause.unwrap_or_default()))?;
    Ok(notices
        .iter()
        .map(|n| {
            serde_json::json!({
                "appId": n.app_id,
                "receiver": n.receiver.name(),
                "url": n.url,
                "contentType": n.content_type,
                "body": n.body,
            })
            .to_string()
        })
        .collect())
}
