//! The checks of a connection's settings and secret, per protocol ([`super::Protocol::fields`]):
//! every refusal is INVALID_PARAMETER on the field, in both languages.

use super::{Kind, Protocol, SECRET_MAX};
use crate::error::{Error, Message, Result};
use crate::Reason;
use std::borrow::Cow;
use std::collections::BTreeMap;

/// INVALID_PARAMETER on `field` (a setting's name, so not always a `'static` one).
fn bad(field: &str, zh: &'static str, en: &'static str) -> Error {
    Error {
        field: Some(Cow::Owned(field.to_owned())),
        message: Some(Message::Text { zh, en }),
        ..Error::new(Reason::INVALID_PARAMETER)
    }
}

/// A loopback host of an `http://` issuer (tests and `ciam serve`).
fn loopback(host: &str) -> bool {
    let name = host.rsplit_once(':').map_or(host, |(h, port)| {
        if port.bytes().all(|b| b.is_ascii_digit()) {
            h
        } else {
            host
        }
    });
    matches!(name, "127.0.0.1" | "localhost" | "[::1]")
}

fn issuer_ok(v: &str) -> bool {
    if v.len() > 300
        || v.contains(['?', '#'])
        || v.chars().any(|c| c.is_whitespace() || c.is_control())
    {
        return false;
    }
    let (https, rest) = match (v.strip_prefix("https://"), v.strip_prefix("http://")) {
        (Some(r), _) => (true, r),
        (None, Some(r)) => (false, r),
        _ => return false,
    };
    let host = rest.split('/').next().unwrap_or_default();
    let host_ok = !host.is_empty()
        && !host.contains('@')
        && host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b".-:[]".contains(&b));
    host_ok && (https || loopback(host))
}

fn check(field: &str, kind: Kind, v: &str) -> Result<()> {
    let ok = match kind {
        Kind::Issuer => issuer_ok(v),
        Kind::Id => {
            (1..=128).contains(&v.len())
                && v.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"_.:-".contains(&b))
        }
        Kind::Scopes => {
            v.len() <= 200
                && v.split(' ').all(|t| {
                    !t.is_empty()
                        && t.bytes()
                            .all(|b| b.is_ascii_graphic() && b != b'"' && b != b'\\')
                })
        }
        Kind::Region => matches!(v, "feishu" | "lark"),
        Kind::Number => (1..=20).contains(&v.len()) && v.bytes().all(|b| b.is_ascii_digit()),
    };
    if ok {
        return Ok(());
    }
    Err(match kind {
        Kind::Issuer => bad(
            field,
            "签发者须为 https:// 地址（不含查询参数）",
            "The issuer must be an https:// URL without a query",
        ),
        Kind::Id => bad(
            field,
            "须为 1 到 128 个字母、数字或 _ . : -",
            "Use 1 to 128 letters, digits or _ . : -",
        ),
        Kind::Scopes => bad(
            field,
            "范围须为以空格分隔的词，最多 200 个字符",
            "Scopes are words separated by single spaces, at most 200 characters",
        ),
        Kind::Region => bad(field, "可选值：feishu lark", "One of: feishu lark"),
        Kind::Number => bad(field, "须为 1 到 20 位数字", "Use 1 to 20 digits"),
    })
}

/// The settings of `protocol` in `given`, each checked; a missing required one, an unknown one
/// or a bad value is INVALID_PARAMETER on its name. Empty optional values are left out.
pub fn check_settings(
    protocol: Protocol,
    given: &BTreeMap<String, String>,
) -> Result<BTreeMap<String, String>> {
    let fields = protocol.fields();
    if let Some(unknown) = given
        .keys()
        .find(|k| !fields.iter().any(|f| f.name == k.as_str()))
    {
        return Err(bad(
            unknown,
            "该协议不接受此设置",
            "This protocol takes no such setting",
        ));
    }
    let mut out = BTreeMap::new();
    for f in fields {
        let v = given.get(f.name).map(|v| v.trim()).unwrap_or_default();
        if v.is_empty() {
            if f.required {
                return Err(bad(f.name, "此项为必填项", "This setting is required"));
            }
            continue;
        }
        check(f.name, f.kind, v)?;
        out.insert(f.name.to_owned(), v.to_owned());
    }
    Ok(out)
}

/// The secret as given: 1 to [`SECRET_MAX`] bytes of visible ASCII (client secrets are).
pub fn check_secret(raw: &str) -> Result<String> {
    if (1..=SECRET_MAX).contains(&raw.len()) && raw.bytes().all(|b| b.is_ascii_graphic()) {
        Ok(raw.to_owned())
    } else {
        Err(bad(
            "secret",
            "密钥须为 1 到 512 个可见 ASCII 字符",
            "The secret must be 1 to 512 visible ASCII characters",
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn given(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    fn refused_on(protocol: Protocol, pairs: &[(&str, &str)]) -> String {
        let e = check_settings(protocol, &given(pairs)).expect_err("refused");
        assert_eq!(e.reason, Reason::INVALID_PARAMETER);
        e.field.as_deref().unwrap_or_default().to_owned()
    }

    /// The platforms' settings: each one's pinned tenant is required, WeCom's AgentID is a
    /// number, and a setting of another protocol is refused on its name.
    #[test]
    fn the_platforms_settings_are_checked_on_their_field() {
        let (wecom, dingtalk, feishu) = (Protocol::Wecom, Protocol::Dingtalk, Protocol::Feishu);
        for (protocol, pairs, field) in [
            (
                wecom,
                &[("corpId", "ww0123"), ("agentId", "app-1")][..],
                "agentId",
            ),
            (wecom, &[("agentId", "1000002")][..], "corpId"),
            (wecom, &[("corpId", "ww0123")][..], "agentId"),
            (dingtalk, &[("clientId", "dingabc")][..], "corpId"),
            (dingtalk, &[("corpId", "ding0123")][..], "clientId"),
            (feishu, &[("appId", "cli_1")][..], "tenantKey"),
            (
                feishu,
                &[("appId", "cli 1"), ("tenantKey", "t1")][..],
                "appId",
            ),
            (
                feishu,
                &[("appId", "cli_1"), ("tenantKey", "t1"), ("corpId", "x")][..],
                "corpId",
            ),
        ] {
            assert_eq!(refused_on(protocol, pairs), field, "{pairs:?}");
        }
        let ok = check_settings(
            wecom,
            &given(&[("corpId", " ww0123 "), ("agentId", "1000002")]),
        )
        .expect("wecom");
        assert_eq!(ok["corpId"], "ww0123");
        check_settings(
            feishu,
            &given(&[("appId", "cli_1"), ("tenantKey", "t1"), ("region", "")]),
        )
        .expect("feishu without a region");
    }
}
