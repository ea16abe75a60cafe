//! The phone proof of a pending identity (docs/federation-design.md §4.1 step 3): a public
//! provider's new subject (the link: `links.rs`), or a person an organization's connection
//! vouched for without a company mail (`org_phone.rs`).

use super::links::{
    link_exists, link_ops, owner_signing_in, prove_for_sign_up, read_pending, told_ops, unlock_op,
    PhoneProof,
};
use super::ProviderId;
use crate::accounts::{first_write, Who};
use crate::client::ClientInfo;
use crate::error::Result;
use crate::lang::Lang;
use crate::notifier::{tell_account, Notice};
use crate::user::unique_key;
use crate::validate::{self, Identity, Phone};
use crate::{codes, Ciam, Purpose, Reason};
use ciam_store::TxOp;

/// `POST /auth/federation/phone`: the pending identity `token` of this browser (`bind`) proves
/// `phone` with a code of purpose `link`. The code is judged by the codes module (CODE_ERROR,
/// VERIFICATION_CODE_LIMIT, ...). The phone's account, active and not suspended, is linked (one
/// transaction: the link, the code's use, the pending item's end, the session) and signed in as
/// a password sign-in ends; a suspended or deactivated owner gets CODE_ERROR, the code used up
/// (the code sign-in's answer). No account: the code's use and the proven phone on the pending
/// item, then sign-up. Round trips: 1 (pending), 1 (code), 1 (the phone's owner), 1 (the
/// owner), 1 (the transaction).
pub async fn prove_phone(
    ciam: &Ciam,
    token: &str,
    bind: &str,
    phone: &str,
    code: &str,
    client: &ClientInfo,
) -> Result<PhoneProof> {
    let phone = Identity::Phone(Phone::parse(phone)?);
    let code = validate::code("code", code)?;
    let pending = read_pending(ciam, token, bind).await?;
    crate::numbers::note_method(crate::numbers::Method::Linked(pending.provider));
    let verified = codes::check(ciam, &phone, Purpose::Link, &code).await?;
    let owner = ciam.store.get(&unique_key(phone.unique_pk())).await?;
    let owner_id = owner
        .as_ref()
        .and_then(|o| o.s("userId"))
        .map(str::to_owned);
    if pending.provider == ProviderId::Org {
        return super::org_phone::prove(ciam, pending, &phone, verified, owner_id, client).await;
    }
    let Some(uid) = owner_id else {
        // No account has the phone: prove it on the pending item, sign-up comes next.
        return prove_for_sign_up(ciam, &pending, &phone, verified).await;
    };
    let (user, verified) = owner_signing_in(ciam, &uid, verified).await?;
    let mut ops = link_ops(ciam, &pending, &user.id, "phone");
    ops.push(verified.consume);
    ops.extend(unlock_op(&user));
    let who = Who {
        amr: vec!["sms"],
        method: Some(crate::org::policy::method_of_provider(pending.provider)),
        ..Who::from(&user)
    };
    let (session, answer) = first_write(ciam, &who, client);
    ops.push(TxOp::Put {
        item: session,
        cond: None,
    });
    // A way in added to an existing account: its owner sees it in the security activity, its
    // consenting partners hear it, and its first address is told (after the change).
    let p = pending.provider;
    ops.extend(told_ops(ciam, &user, p, true, client));
    match ciam.store.transact(ops).await {
        Ok(()) => {
            let lang = pending.item.s("lang").and_then(Lang::parse_tag);
            let notice = Notice::IdentityLinked {
                provider: p.name().to_owned(),
            };
            tell_account(ciam, &user, notice, lang.unwrap_or_default()).await;
            answer.map(PhoneProof::SignedIn)
        }
        Err(e) if e.condition_failed_at(0) || e.condition_failed_at(1) => Err(link_exists()),
        Err(e) if e.condition_failed_at(2) => Err(Reason::CODE_ERROR.into()),
        Err(e) if e.condition_failed_at(3) => Err(Reason::AUTHORIZATION_FAILED.into()),
        Err(e) if e.condition_failed_at(4) => Err(Reason::VERIFYCODE_NOT_FOUND.into()),
        Err(e) => Err(e.into()),
    }
}
