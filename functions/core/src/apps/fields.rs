//! The fields an admin registers an app with, and their checks (`check`): names, URLs, scopes,
//! the sign-out addresses and the privacy policy. Split from `admin` (the registry's routes).

use super::{urls, Names, SCOPES};
use crate::error::{Error, Result};
use crate::{Ciam, Reason};
use std::borrow::Cow;

const MAX_URLS: usize = 20;
/// What an admin sends to create an app, already parsed into domain values.
#[derive(Clone, Debug, Default)]
pub struct AppFields {
    pub name: Option<Names>,
    pub description: Option<String>,
    pub logo: Option<String>,
    /// https only: a policy page the consent screen links to.
    pub privacy_url: Option<String>,
    pub service_urls: Option<Vec<String>>,
    pub frame_origins: Option<Vec<String>>,
    pub post_logout_redirect_uris: Option<Vec<String>>,
    /// Empty: none.
    pub backchannel_logout_uri: Option<String>,
    /// Empty: none.
    pub logout_url: Option<String>,
    pub scopes: Option<Vec<String>>,
    /// What the app asks of organizations.
    pub organization: Option<super::OrgSetting>,
    pub recommended: Option<bool>,
    /// Empty: none. Who is told when Ciam disables one of the app's webhook endpoints.
    pub owner_mail: Option<String>,
}

pub(super) fn invalid(field: &'static str, zh: &'static str, en: &'static str) -> Error {
    Error::field(Reason::INVALID_PARAMETER, field, zh, en)
}

fn name(field: &'static str, raw: &str) -> Result<String> {
    crate::validate::required_text(field, raw, 64)
}

/// Checks each entry of a list; an entry's error names it as the JSON body's path does
/// (`serviceUrls[2]`), a list too long names the list.
fn check_list<T>(
    field: &'static str,
    raw: Vec<String>,
    one: impl Fn(Cow<'static, str>, &str) -> Result<T>,
) -> Result<Vec<T>> {
    if raw.len() > MAX_URLS {
        return Err(invalid(field, "数量过多", "Too many entries"));
    }
    raw.iter()
        .enumerate()
        .map(|(i, r)| one(format!("{field}[{i}]").into(), r))
        .collect()
}

/// Parses and checks the fields an admin sent; `creating` requires names and service URLs.
pub fn check(f: AppFields, creating: bool) -> Result<AppFields> {
    let names = match f.name {
        Some(n) => Some(Names {
            zh_cn: name("name.zh-CN", &n.zh_cn)?,
            en_us: name("name.en-US", &n.en_us)?,
        }),
        None if creating => return Err(invalid("name", "请填写应用名称", "Give the app's names")),
        None => None,
    };
    let service_urls = match f.service_urls {
        Some(v) => {
            let v = check_list("serviceUrls", v, urls::service_url)?;
            if v.is_empty() {
                return Err(invalid(
                    "serviceUrls",
                    "至少需要一个服务地址",
                    "Give at least one service URL",
                ));
            }
            Some(v)
        }
        None if creating => {
            return Err(invalid(
                "serviceUrls",
                "至少需要一个服务地址",
                "Give at least one service URL",
            ))
        }
        None => None,
    };
    let frame_origins = f
        .frame_origins
        .map(|v| check_list("frameOrigins", v, urls::origin))
        .transpose()?;
    let post_logout_redirect_uris = f
        .post_logout_redirect_uris
        .map(|v| check_list("postLogoutRedirectUris", v, urls::service_url))
        .transpose()?;
    let backchannel_logout_uri = f
        .backchannel_logout_uri
        .map(|u| urls::notice_url("backchannelLogoutUri", u))
        .transpose()?;
    let logout_url = f
        .logout_url
        .map(|u| urls::notice_url("logoutUrl", u))
        .transpose()?;
    let scopes = f
        .scopes
        .map(|v| {
            check_list("scopes", v, |field, s| {
                if SCOPES.contains(&s) {
                    Ok(s.to_owned())
                } else {
                    Err(Error {
                        field: Some(field.clone()),
                        ..invalid("scopes", "未知的授权范围", "Unknown scope")
                            .raw_message(format!("{field}: {s} is not one of {}", SCOPES.join(",")))
                    })
                }
            })
        })
        .transpose()?
        .map(|mut v| {
            v.sort();
            v.dedup();
            v
        });
    let description = f
        .description
        .map(|d| crate::validate::prose("description", &d, 500))
        .transpose()?;
    let logo = match f.logo {
        Some(l) if !l.is_empty() => Some(urls::web_url("logo".into(), &l)?.to_string()),
        l => l,
    };
    let privacy_url = match f.privacy_url {
        Some(p) if !p.is_empty() => {
            let u = urls::web_url("privacyUrl".into(), &p)?;
            if u.scheme() != "https" {
                return Err(invalid(
                    "privacyUrl",
                    "隐私政策地址必须使用 https",
                    "The privacy policy URL must use https",
                ));
            }
            Some(u.to_string())
        }
        p => p,
    };
    let owner_mail = match f.owner_mail {
        Some(m) if !m.trim().is_empty() => Some(
            crate::validate::Email::parse(&m)
                .map_err(|e| Error {
                    field: Some("ownerMail".into()),
                    ..e
                })?
                .as_str()
                .to_owned(),
        ),
        Some(_) => Some(String::new()),
        None => None,
    };
    Ok(AppFields {
        name: names,
        description,
        logo,
        privacy_url,
        service_urls,
        frame_origins,
        post_logout_redirect_uris,
        backchannel_logout_uri,
        logout_url,
        scopes,
        organization: f.organization,
        recommended: f.recommended,
        owner_mail,
    })
}

/// Refuses (INVALID_PARAMETER) a server-to-server notice URL over http (`http://localhost`,
/// which `check` lets through) unless this deployment serves local http itself
/// (`urls::local_http_allowed`): in production the back-channel is https only.
pub(super) fn check_notice_scheme(ciam: &Ciam, f: &AppFields) -> Result<()> {
    let fields = [
        ("backchannelLogoutUri", &f.backchannel_logout_uri),
        ("logoutUrl", &f.logout_url),
    ];
    for (field, v) in fields {
        if v.as_deref().is_some_and(|u| u.starts_with("http:")) && !urls::local_http_allowed(ciam) {
            return Err(invalid(
                field,
                "请使用 https 地址",
                "Use an https URL (http://localhost only when Ciam itself serves local http)",
            ));
        }
    }
    Ok(())
}
