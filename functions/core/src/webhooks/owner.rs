//! The app owner's notice when Ciam disables one of its endpoints (issue 23: "an endpoint failing
//! for days is disabled with a notice to the app's owner"). The owner is the registry's
//! `ownerMail`; an app without one is only logged (`webhooks: endpoint disabled`) and shows the
//! endpoint's `disabledAt` in the registry and the console.

use super::endpoints::Endpoint;
use crate::notifier::{Notice, NoticeMessage};
use crate::validate::{Email, Identity};
use crate::{Ciam, Lang};

/// Tells the owner of `e`'s app that `e` was disabled (`gone`: it answered 410). Best effort:
/// the endpoint stays disabled whether or not the mail goes out (a failure is logged). Round
/// trips: 1 read (the app), 1 send.
pub async fn tell_disabled(ciam: &Ciam, e: &Endpoint, gone: bool) {
    let app = match crate::apps::find(ciam, &e.app_id).await {
        Ok(app) => app,
        Err(err) => {
            tracing::warn!(app = %e.app_id, endpoint = %e.endpoint_id, reason = %err.reason,
                "webhooks: endpoint disabled; its app could not be read to tell the owner");
            return;
        }
    };
    let Ok(to) = Email::parse(&app.owner_mail) else {
        tracing::warn!(app = %e.app_id, endpoint = %e.endpoint_id,
            "webhooks: endpoint disabled; the app has no ownerMail to tell");
        return;
    };
    let msg = NoticeMessage {
        to: Identity::Mail(to),
        notice: Notice::WebhookDisabled {
            app: (app.name.zh_cn.clone(), app.name.en_us.clone()),
            app_id: e.app_id.clone(),
            endpoint_id: e.endpoint_id.clone(),
            url: e.url.clone(),
            gone,
        },
        lang: Lang::ZhCn,
    };
    match ciam.notifier.send_notice(&msg).await {
        Ok(()) => tracing::info!(app = %e.app_id, endpoint = %e.endpoint_id,
            "webhooks: endpoint disabled; its owner was told"),
        Err(cause) => tracing::warn!(app = %e.app_id, endpoint = %e.endpoint_id, %cause,
            "webhooks: endpoint disabled; the owner's notice could not be sent"),
    }
}
