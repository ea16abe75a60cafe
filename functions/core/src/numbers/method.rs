//! How a sign-in was made ([`Method`]), and the method a request to a row every linking provider
//! shares learns on its way ([`note_method`]).

use crate::federation::ProviderId;

/// How a sign-in was made: the route row's method (`RouteDef::sign_in`), or, on the rows every
/// linking provider shares, the provider the request turned out to be for ([`note_method`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    Password,
    Code,
    Passkey,
    Staff,
    /// The two-factor second step: the authenticator's code or a backup code.
    Totp,
    /// Through a link of a provider that signs in through links (WeChat, DingTalk, …): the
    /// redemption of its login code, or the phone proof that links an account.
    Linked(ProviderId),
}

impl Method {
    /// The methods of their own rows.
    const FIXED: [Method; 5] = [
        Method::Password,
        Method::Code,
        Method::Passkey,
        Method::Staff,
        Method::Totp,
    ];

    /// Every method: the fixed ones, then one per linking provider (the provider list's order).
    pub fn all() -> impl Iterator<Item = Method> {
        Method::FIXED
            .into_iter()
            .chain(ProviderId::linking().map(Method::Linked))
    }

    /// The route row's name of the method (`password`, `code`, `passkey`, `staff`, `totp`), or
    /// the provider's (`wechat`).
    pub fn name(self) -> &'static str {
        match self {
            Method::Password => "password",
            Method::Code => "code",
            Method::Passkey => "passkey",
            Method::Staff => "staff",
            Method::Totp => "totp",
            Method::Linked(p) => p.name(),
        }
    }

    pub fn from_name(name: &str) -> Option<Method> {
        Method::all().find(|m| m.name() == name)
    }

    pub(super) fn letter(self) -> char {
        match self {
            Method::Password => 'p',
            Method::Code => 'c',
            Method::Passkey => 'k',
            Method::Staff => 's',
            Method::Totp => 't',
            Method::Linked(p) => p.facts().letter,
        }
    }
}

tokio::task_local! {
    static NOTED: std::cell::Cell<Option<Method>>;
}

/// Runs `work` (a request to a row whose method is its provider's, `RouteDef::sign_in` `*`)
/// with room for the method the request learns on its way ([`note_method`]); answers its
/// output and that method, if one was noted.
pub async fn with_noted_method<F: std::future::Future>(work: F) -> (F::Output, Option<Method>) {
    NOTED
        .scope(std::cell::Cell::new(None), async {
            let out = work.await;
            (out, NOTED.with(std::cell::Cell::get))
        })
        .await
}

/// The sign-in under way is by `method` (the federation code's or pending identity's
/// provider, once read): counted so by [`with_noted_method`]'s caller. Outside one, nothing.
pub fn note_method(method: Method) {
    let _ = NOTED.try_with(|c| c.set(Some(method)));
}
