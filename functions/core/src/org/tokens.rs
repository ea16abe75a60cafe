//! The organization in tokens (issue 35 item 5, docs/oidc.md "Organizations"): which of a
//! person's organizations goes into an OpenID Connect code or a ticket, and what it says when
//! the token is redeemed (`org_id`, `org_roles`).
//!
//! - What a request asks ([`Want`]): nothing, an organization when the person has one
//!   (`optional`), or one without which the person is refused (`required`).
//! - The screen's step ([`step`]): the person's active organizations (only the named one when the
//!   request named one), or why they cannot go on ([`Refusal`]).
//! - The choice at Allow ([`pick`]): the only choice, or the one the person picked.
//! - A session that signed in through an organization's connection defaults to it
//!   ([`step_of_session`]).
//! - Each choice carries what its organization's policy asks of the session (`need`:
//!   `org::policy::of_session`, its `mfaRequired` and `allowedMethods`); [`pick`] refuses a
//!   choice that still needs something (ORG_MFA_REQUIRED, ORG_METHOD_NOT_ALLOWED).
//! - At redemption ([`current`]): the membership and the organization are read again; a person
//!   removed since, or an organization suspended since, no longer claims it.

use super::policy::{self, Need};
use super::{memberships_of, with_membership, Membership, OrgId, Role, Status};
use crate::error::{Error, Result};
use crate::sessions::Session;
use crate::{Ciam, Lang, Reason};
use ciam_store::{Key, Store, StoreError};
use serde::Serialize;

/// The OpenID Connect scope (and authorize parameter) that asks for the organization.
pub const SCOPE: &str = "organization";

/// What a request asks of organizations.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub enum Want {
    #[default]
    No,
    /// The person's organization when they have one.
    Optional,
    /// An organization, or the person is refused at Ciam.
    Required,
}

impl Want {
    pub fn as_str(self) -> &'static str {
        match self {
            Want::No => "no",
            Want::Optional => "optional",
            Want::Required => "required",
        }
    }

    pub fn parse(s: &str) -> Want {
        match s {
            "optional" => Want::Optional,
            "required" => Want::Required,
            _ => Want::No,
        }
    }

    /// What the app's setting asks.
    pub fn of_app(s: crate::apps::OrgSetting) -> Want {
        match s {
            crate::apps::OrgSetting::None => Want::No,
            crate::apps::OrgSetting::Optional => Want::Optional,
            crate::apps::OrgSetting::Required => Want::Required,
        }
    }
}

/// One organization the person may carry into the token.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "openapi", schemars(rename = "OrgChoice"))]
#[serde(rename_all = "camelCase")]
pub struct Choice {
    pub org_id: String,
    /// in the request's language
    pub name: String,
    /// the person's role in it
    pub role: Role,
    /// what the organization's policy asks of this session before it goes into the token
    /// (null: nothing): `stepUp` (prove the second factor the account has), `secondFactor`
    /// (turn one on first), `method` (sign in again with one of `allowedMethods`)
    pub need: Option<Need>,
    /// the sign-in methods the organization allows (`org::policy::METHODS`; empty: all), told
    /// when `need` is `method`
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub allowed_methods: Vec<String>,
}

/// Why the person cannot go on to the app.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "openapi", schemars(rename = "OrgRefusal"))]
#[serde(rename_all = "camelCase")]
pub enum Refusal {
    /// The app requires an organization and the person is an active member of none.
    Required,
    /// The request named an organization the person is not an active member of.
    NotMember,
}

/// The organization step of the consent screen.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "openapi", schemars(rename = "OrgStep"))]
#[serde(rename_all = "camelCase")]
pub struct Step {
    /// the app requires an organization
    pub required: bool,
    /// the organizations that may go into the token (several: the person picks one)
    pub choices: Vec<Choice>,
    /// why the person cannot go on; null when they can
    pub refused: Option<Refusal>,
}

fn choice(o: &super::Organization, m: &Membership, s: &Session, lang: Lang) -> Choice {
    let (first, other) = match lang {
        Lang::EnUs => (&o.name_en, &o.name_zh),
        Lang::ZhCn => (&o.name_zh, &o.name_en),
    };
    let name = if first.is_empty() { other } else { first };
    let need = policy::of_session(&o.settings, s);
    Choice {
        org_id: o.org_id.to_string(),
        name: name.clone(),
        role: m.role,
        need,
        allowed_methods: match need {
            Some(Need::Method) => o.settings.allowed_methods.clone(),
            _ => Vec::new(),
        },
    }
}

/// The step for a request that wants `want`, naming `named` or not, for the person of session
/// `s` (each choice with what its organization asks of `s`). None when it wants nothing. Round
/// trips: 0; 1 for a named organization (it and the membership together); else 2 (the person's
/// memberships, then their organizations together).
async fn step(
    ciam: &Ciam,
    s: &Session,
    want: Want,
    named: Option<&str>,
    lang: Lang,
) -> Result<Option<Step>> {
    if want == Want::No {
        return Ok(None);
    }
    let store = ciam.store.as_ref();
    let mut choices = Vec::new();
    if let Some(named) = named {
        if let Some(org) = OrgId::parse(named) {
            if let (Some(o), Some(m)) = with_membership(store, &org, &s.user.id).await? {
                if o.status == Status::Active {
                    choices.push(choice(&o, &m, s, lang));
                }
            }
        }
        let refused = choices.is_empty().then_some(Refusal::NotMember);
        return Ok(Some(Step {
            required: want == Want::Required,
            choices,
            refused,
        }));
    }
    let mine = memberships_of(store, &s.user.id).await?;
    if !mine.is_empty() {
        let keys: Vec<Key> = mine.iter().map(|m| super::org_key(&m.org_id)).collect();
        let orgs = store.get_many(&keys).await?;
        for (m, o) in mine.iter().zip(orgs) {
            let o = o.as_ref().and_then(super::Organization::from_item);
            if let Some(o) = o.filter(|o| o.status == Status::Active) {
                choices.push(choice(&o, m, s, lang));
            }
        }
    }
    // The picker lists them by name (in the request's language), whatever their ids.
    choices.sort_by(|a, b| (&a.name, &a.org_id).cmp(&(&b.name, &b.org_id)));
    let refused = (choices.is_empty() && want == Want::Required).then_some(Refusal::Required);
    Ok(Some(Step {
        required: want == Want::Required,
        choices,
        refused,
    }))
}

/// [`step`] for a session: a request that names no organization defaults to the session's
/// (`Session::org`, signed in through that organization's connection: docs/organizations-
/// connections.md §3), no picker, while the person is an active member of it and it is active;
/// else the normal rules. A named organization still wins. Round trips: as [`step`] (1 for the
/// session's organization; 1 more then 2 when it no longer counts).
pub async fn step_of_session(
    ciam: &Ciam,
    s: &Session,
    want: Want,
    named: Option<&str>,
    lang: Lang,
) -> Result<Option<Step>> {
    if let (None, Some(org)) = (named, s.org.as_deref()) {
        let own = step(ciam, s, want, Some(org), lang).await?;
        if own.as_ref().is_none_or(|st| st.refused.is_none()) {
            return Ok(own);
        }
    }
    step(ciam, s, want, named, lang).await
}

/// The organization that goes into the code or ticket at Allow: `picked` (the person's choice)
/// when it is one of the choices, else the only choice; none when there are none. Refused:
/// ORG_NOT_FOUND when the step refuses or `picked` is no choice; INVALID_PARAMETER
/// (`organization`) when there are several choices and none was picked; ORG_MFA_REQUIRED or
/// ORG_METHOD_NOT_ALLOWED when the chosen organization's policy still needs something of the
/// session (its `need`: `org::policy::refusal`).
pub fn pick(step: Option<&Step>, picked: Option<&str>) -> Result<Option<OrgId>> {
    let Some(step) = step else {
        return Ok(None);
    };
    if step.refused.is_some() {
        return Err(Error {
            cause: Some("the request's organization is not the person's".into()),
            ..Error::new(Reason::ORG_NOT_FOUND)
        });
    }
    let chosen = match (picked, step.choices.as_slice()) {
        (_, []) => return Ok(None),
        (Some(p), all) => all.iter().find(|c| c.org_id == p).ok_or_else(|| Error {
            cause: Some("the organization picked is not one of the person's".into()),
            ..Error::new(Reason::ORG_NOT_FOUND)
        })?,
        (None, [only]) => only,
        (None, _) => {
            return Err(Error::field(
                Reason::INVALID_PARAMETER,
                "organization",
                "请选择一个组织",
                "Choose one of your organizations",
            ))
        }
    };
    if let Some(need) = chosen.need {
        return Err(policy::refusal(need));
    }
    Ok(OrgId::parse(&chosen.org_id))
}

/// The person's role in `org` now, when they are still a member and it is still active (a
/// removed member, a suspended or deleted organization: None). Round trips: 1.
pub async fn current(
    store: &dyn Store,
    org: &str,
    user_id: &str,
) -> std::result::Result<Option<Role>, StoreError> {
    let Some(org) = OrgId::parse(org) else {
        return Ok(None);
    };
    Ok(match with_membership(store, &org, user_id).await? {
        (Some(o), Some(m)) if o.status == Status::Active => Some(m.role),
        _ => None,
    })
}

/// The role in the organization of the items read with [`keys`] (the organization, the
/// membership), when still a member of an active one.
pub fn role_in(org: Option<&ciam_store::Item>, member: Option<&ciam_store::Item>) -> Option<Role> {
    let o = org.and_then(super::Organization::from_item)?;
    let m = member.and_then(Membership::from_item)?;
    (o.status == Status::Active).then_some(m.role)
}

/// The organization's and the membership's keys, to be read with other items in one round trip
/// (userinfo reads them with the user and the consent).
pub fn keys(org: &str, user_id: &str) -> Option<[Key; 2]> {
    let org = OrgId::parse(org)?;
    Some([super::org_key(&org), super::member_key(&org, user_id)])
}

/// `org_roles`: the person's roles in the organization, as an array (one today; the claim is an
/// array so that more than one role can come later without changing its type).
pub fn roles(role: Role) -> Vec<String> {
    vec![role.as_str().to_owned()]
}
