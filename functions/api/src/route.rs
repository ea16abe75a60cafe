//! Over 500 lines because a route row is one type with every fact the router, the Lambda
//! binaries, the OpenAPI checks and the generator read: its builder methods belong beside it.
//! What a route is: one row of the route table (`routes/mod.rs`), with every fact about it that
//! anything else needs — the router, the OpenAPI checks, the Lambda binaries, and the template
//! generator (`ciam-gen`, which writes template.yaml's per-route resources, `infra/routes.json`
//! and the action table of docs/operations.md §2 from these rows). docs/adding-a-route.md.

use crate::AppState;
use axum::routing::MethodRouter;
use ciam_core::federation::{Facts, ProviderId};
use ciam_core::{Error, KeyPurpose, Purposes, Reason};

/// Who may call a route: the credentials it reads. Each is one `security` of docs/openapi.json
/// (`Auth::openapi_security`, checked by functions/api/tests/openapi.rs). Every check it names
/// runs before the body is read (the extractors that read the session come before `Json`). A
/// finer check lives in core: a fresh proof of identity (`totp::require_fresh`) outside the
/// console is asked of a session after it is authenticated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Auth {
    /// Anyone: no credentials are read.
    Public,
    /// A live session: `Authorization: Bearer <token>` (`extract::Authed`), else 401
    /// AUTHORIZATION_FAILED before the body is read.
    Session,
    /// A console route (`/admin/...`): a live session as `Session`, past `console::gate` with
    /// this role (docs/console-design.md §2), a fresh proof when the method changes something:
    /// the handler takes `extract::Op`, which reads this role from the row (the router puts it in
    /// the request, `extract::RowAuth`), so no handler names one. The role walk of
    /// functions/api/tests/api/console.rs checks each row against its role.
    Console(ciam_core::console::Role),
    /// A session, or a one-time code in the body instead (`extract::MaybeAuthed`):
    /// `PATCH /auth/pwd` changes the password with one and resets it with the other.
    SessionOrCode,
    /// A partner app's id and secret, by HTTP Basic or in the query or form.
    App,
    /// An OpenID Connect access token, in the `Authorization` header only.
    AccessToken,
    /// An OpenID Connect access token, in the `Authorization` header or the form body.
    AccessTokenOrForm,
}

impl Auth {
    /// The `security` of an operation with this requirement in docs/openapi.json: the schemes
    /// of each alternative, `[]` being "no credentials". A public operation may also leave
    /// `security` out.
    pub fn openapi_security(self) -> &'static [&'static [&'static str]] {
        match self {
            Auth::Public => &[&[]],
            Auth::Session | Auth::Console(_) => &[&["bearer"]],
            Auth::SessionOrCode => &[&["bearer"], &[]],
            Auth::App => &[&[], &["appBasic"]],
            Auth::AccessToken => &[&["oidcAccessToken"]],
            Auth::AccessTokenOrForm => &[&["oidcAccessToken"], &[]],
        }
    }

    /// Whether the row refuses a request without a live session (401 AUTHORIZATION_FAILED).
    pub fn needs_session(self) -> bool {
        matches!(self, Auth::Session | Auth::Console(_))
    }
}

/// The request body a route accepts, and so its limit. A body over the limit (by
/// `Content-Length`, or cut while streaming) is refused before the handler reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Body {
    /// JSON (or nothing): 64 KiB, 400 INVALID_PARAMETER on `body`.
    Json,
    /// The web app's anonymous error report: 8 KiB, 400 INVALID_PARAMETER on `body`.
    Report,
    /// The avatar image: 1 MiB, 400 AVATAR_TOO_LARGE.
    Avatar,
}

/// The limit of `Body::Json`, the default.
pub const BODY_LIMIT: usize = 64 * 1024;
/// The limit of `Body::Report`.
pub const CLIENT_ERROR_LIMIT: usize = 8 * 1024;

impl Body {
    pub const fn limit(self) -> usize {
        match self {
            Body::Json => BODY_LIMIT,
            Body::Report => CLIENT_ERROR_LIMIT,
            Body::Avatar => ciam_core::avatar::MAX_BYTES,
        }
    }

    /// The refusal of a body over the limit.
    pub fn too_large(self) -> Error {
        match self {
            Body::Avatar => Error::new(Reason::AVATAR_TOO_LARGE),
            Body::Json | Body::Report => crate::error::too_large(self.limit()),
        }
    }
}

/// What the route's function may do with the table (its managed policy).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Table {
    /// Never touches it: no policy, no warm-up at init.
    None,
    /// `TableReadPolicy`: GetItem, BatchGetItem, Query.
    Read,
    /// `TableWritePolicy`: the reads plus PutItem, UpdateItem, DeleteItem, ConditionCheckItem.
    Write,
    /// GetItem only, inline (the embedded page reads one app item).
    GetItem,
}

/// Avatar images: where the untrusted bytes are decoded (issue 22: never in a function that
/// holds a key, the table or a bucket).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Images {
    None,
    /// Sends uploads to the decoding function (`IMAGE_DECODER`), the only function it may invoke.
    Invoke,
    /// Decodes them: an internal function with no route, no secret, no table, no bucket.
    Decode,
}

/// The federated sign-in provider a function serves, and which part: what settings and secret
/// it gets (from the provider's `ciam_core::federation::Facts`) and which provider the generic
/// handlers (`routes::federation`) serve, through `extract::RowProvider`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fed {
    None,
    /// The start: the provider's public settings (it redirects there).
    Start(ProviderId),
    /// The callback: those, the callback-only ones and the provider's secret (the code
    /// exchange only).
    Callback(ProviderId),
    /// The list of providers offered (`GET /auth/federation`): the public settings of every
    /// provider that signs in through links, no secret, no provider of its own.
    List,
}

impl Fed {
    /// The provider, for either part.
    pub const fn provider(self) -> Option<ProviderId> {
        match self {
            Fed::None | Fed::List => None,
            Fed::Start(p) | Fed::Callback(p) => Some(p),
        }
    }

    /// The provider whose secret the function reads: the callback's only.
    pub const fn secret(self) -> Option<&'static Facts> {
        match self {
            Fed::Callback(p) => Some(p.facts()),
            Fed::None | Fed::Start(_) | Fed::List => None,
        }
    }

    /// `(environment variable, template parameter)` of every setting of the provider this
    /// part reads, in the provider's order (the list: every linking provider's public ones).
    pub fn settings(self) -> Vec<(String, String)> {
        let (facts, callback) = match self {
            Fed::None => return Vec::new(),
            Fed::List => {
                return ciam_core::federation::PROVIDERS
                    .iter()
                    .filter(|f| f.link == ciam_core::federation::LinkRule::ProvePhone)
                    .flat_map(|f| Fed::Start(f.id).settings())
                    .collect()
            }
            Fed::Start(p) => (p.facts(), false),
            Fed::Callback(p) => (p.facts(), true),
        };
        facts
            .settings
            .iter()
            .filter(|s| callback || !s.callback_only)
            .map(|s| (facts.env_var(s), facts.parameter(s)))
            .collect()
    }
}

/// The S3 objects a function reads or writes (objects only, never the bucket).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum S3 {
    None,
    /// Puts the new avatar and deletes the one it replaces.
    AvatarWrite,
    /// Reads avatars.
    AvatarRead,
    /// Reads the web bucket's `index.html`.
    WebIndex,
}

/// The OpenID Connect signing keys in KMS: id_tokens' (`OidcSigningKey`) and logout tokens'
/// (`LogoutSigningKey`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kms {
    None,
    /// Signs with the current key (and reads its public key).
    Sign,
    /// Signs logout tokens with the logout key (`LogoutSigningKey`, and reads its public key),
    /// never with an id_token key.
    SignLogout,
    /// Reads the public keys of the current and the previous id_token keys (to check an
    /// `id_token_hint`).
    PublicKeys,
    /// Reads those and the logout key's public key: the JWKS, which publishes them all.
    Jwks,
}

pub use crate::waf::Waf;

/// The route-level throttle of the HTTP API (`RouteSettings`), across all clients.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Throttle {
    pub burst: u32,
    /// Requests per second.
    pub rate: u32,
}

/// The route's function in AWS: what it may touch, its size and its limits. Rows start from one
/// of the per-area defaults below (`Lambda::WRITES` and so on) and change what differs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lambda {
    pub table: Table,
    /// The key purposes its handler uses (`ciam_core::KeyPurpose`; the table adds `Session` to
    /// the rows that authenticate one, `with_session_key`). The router runs the handler
    /// with its keys restricted to them; in AWS the function reads those purposes' secrets
    /// (`<Purpose>KeySecret`) and nothing else, the root never.
    pub keys: Purposes,
    /// The federated sign-in provider it serves (`Lambda::fed`).
    pub fed: Fed,
    /// Sends codes or notices by mail (SES, from `MailFrom`).
    pub messages: bool,
    /// Sends them by SMS too (SNS, to phone numbers). `.messages()` sets both, `.mail()` mail
    /// only (the webhook delivery: it talks to partner-chosen hosts and needs no SMS).
    pub sms: bool,
    pub s3: S3,
    pub kms: Kms,
    /// MB; CPU scales with it.
    pub memory: u32,
    /// Seconds.
    pub timeout: u32,
    /// Its reserved concurrency is the `PasswordHashingConcurrency` parameter (argon2 routes).
    pub hashing: bool,
    pub throttle: Option<Throttle>,
    pub waf: Waf,
    /// CloudFront calls it through its function URL rather than the HTTP API (one API Gateway
    /// request less per call; the busiest route only).
    pub function_url: bool,
    /// A critical route deployed gradually: its function gets the alias `live` and a CodeDeploy
    /// canary (`DeploymentType`) that rolls back when the new version errs (ciam-gen writes
    /// `AutoPublishAlias`, `DeploymentPreference` and the `<Stem>CanaryErrorsAlarm`;
    /// docs/operations.md §7).
    pub gradual: bool,
    pub images: Images,
    /// Takes sign-ups, so it knows the cells (docs/multi-region.md §14): ciam-gen gives it
    /// `CIAM_CELL` (its stack's cell) and `CIAM_OTHER_CELL` (the `OtherCellUrl` parameter).
    pub sign_ups: bool,
}

impl Lambda {
    /// Touches nothing: no table, no keys (the OpenAPI document, the version, discovery).
    pub const STATIC: Lambda = Lambda {
        table: Table::None,
        keys: Purposes::NONE,
        fed: Fed::None,
        messages: false,
        sms: false,
        s3: S3::None,
        kms: Kms::None,
        memory: 256,
        timeout: 10,
        hashing: false,
        throttle: None,
        waf: Waf::None,
        function_url: false,
        gradual: false,
        images: Images::None,
        sign_ups: false,
    };
    /// Derives keys (of the purposes its row names with `.keys(..)`), never touches the table
    /// (the captcha, passkey sign-in options).
    pub const KEYS: Lambda = Lambda::STATIC;
    /// Reads the table (and derives the keys its row names).
    pub const READS: Lambda = Lambda {
        table: Table::Read,
        ..Lambda::KEYS
    };
    /// Writes the table (and derives the keys its row names): every signed-in route (the session's idle deadline
    /// moves) and the anonymous ones that store codes, counters, sessions or requests.
    pub const WRITES: Lambda = Lambda {
        table: Table::Write,
        ..Lambda::KEYS
    };
    /// Hashes or verifies a password (argon2id): 1024 MB for the CPU, and a reserved
    /// concurrency so a flood cannot take what every other route needs.
    pub const HASHING: Lambda = Lambda {
        memory: 1024,
        hashing: true,
        ..Lambda::WRITES
    };

    /// Also uses the keys of `purposes`.
    pub const fn keys(self, purposes: &[KeyPurpose]) -> Self {
        Lambda {
            keys: self.keys.union(Purposes::of(purposes)),
            ..self
        }
    }
    pub const fn table(self, table: Table) -> Self {
        Lambda { table, ..self }
    }
    pub const fn fed(self, fed: Fed) -> Self {
        Lambda { fed, ..self }
    }
    pub const fn messages(self) -> Self {
        Lambda {
            messages: true,
            sms: true,
            ..self
        }
    }
    /// Takes sign-ups (the code request and the registration): knows the cells.
    pub const fn sign_ups(self) -> Self {
        Lambda {
            sign_ups: true,
            ..self
        }
    }
    /// Sends mail, never SMS.
    pub const fn mail(self) -> Self {
        Lambda {
            messages: true,
            ..self
        }
    }
    pub const fn s3(self, s3: S3) -> Self {
        Lambda { s3, ..self }
    }
    pub const fn kms(self, kms: Kms) -> Self {
        Lambda { kms, ..self }
    }
    pub const fn memory(self, memory: u32) -> Self {
        Lambda { memory, ..self }
    }
    /// Seconds (a federated callback's calls to its platform: docs/federation-design.md §3.6).
    pub const fn timeout(self, timeout: u32) -> Self {
        Lambda { timeout, ..self }
    }
    pub const fn throttle(self, burst: u32, rate: u32) -> Self {
        Lambda {
            throttle: Some(Throttle { burst, rate }),
            ..self
        }
    }
    pub const fn waf(self, waf: Waf) -> Self {
        Lambda { waf, ..self }
    }
    pub const fn images(self, images: Images) -> Self {
        Lambda { images, ..self }
    }
    pub const fn function_url(self) -> Self {
        Lambda {
            function_url: true,
            ..self
        }
    }
    pub const fn gradual(self) -> Self {
        Lambda {
            gradual: true,
            ..self
        }
    }
}

/// The binary a route's function runs (docs/operations.md §10).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Binary {
    /// `ROUTES` and the pages.
    Bootstrap,
    /// `CEREMONY_ROUTES`, the WebAuthn ceremonies: the only binary that links the relying party.
    Passkeys,
    /// The webhook pipeline's functions (`WEBHOOK_FUNCTIONS`): a stream and a queue consumer,
    /// no HTTP route; the only binary that links the SQS client.
    Webhooks,
    /// The image decoder (`INTERNAL`, `IMAGE_DECODER`): no HTTP route, no table, key or secret;
    /// the only binary that links the image crates.
    Decoder,
    /// `DOMAIN_ROUTES`, the verification of a domain: the only binary that links the DNS
    /// resolver (docs/organizations-domains.md §1.1).
    Domains,
}

impl Binary {
    /// The file in functions/lambdas/src/bin and template.yaml's `BuildProperties.Binary`.
    pub const fn name(self) -> &'static str {
        match self {
            Binary::Bootstrap => "bootstrap",
            Binary::Passkeys => "passkeys",
            Binary::Webhooks => "webhooks",
            Binary::Decoder => "decoder",
            Binary::Domains => "domains",
        }
    }
}

/// One route under `/ciam/v1`. `handler` builds its method router (the method is written once,
/// in the table).
#[derive(Clone, Copy, Debug)]
pub struct RouteDef {
    /// Also the `CIAM_ROUTE` of its function, whose logical id is the id in CamelCase.
    pub id: &'static str,
    pub method: &'static str,
    /// Under `/ciam/v1` (`crate::BASE`).
    pub path: &'static str,
    pub handler: fn() -> MethodRouter<AppState>,
    /// The handler as written in the row (`auth::login_password`): `ciam-gen` reads its doc
    /// comment (the operation's summary, description and reasons; docs/adding-a-route.md).
    pub handler_name: &'static str,
    /// What the handler's signature says of its request and answers (`doc::Described`).
    #[cfg(feature = "openapi")]
    pub shape: fn(&mut crate::doc::Generators) -> crate::doc::Shape,
    pub auth: Auth,
    /// The `operationId` of its operation in docs/openapi.json; its `summary` is the function's
    /// description.
    pub operation_id: &'static str,
    pub body: Body,
    /// The sign-in method of the `sign-in` outcome line (`sign_in.rs`), for the routes
    /// that issue a session.
    pub sign_in: Option<&'static str>,
    pub lambda: Lambda,
}

impl RouteDef {
    /// The key purposes its handler may use (its function's, `Lambda::keys`).
    pub const fn purposes(&self) -> Purposes {
        self.lambda.keys
    }

    /// This row as a sign-in route of `method` (password, code, totp, staff, passkey).
    pub const fn sign_in(self, method: &'static str) -> Self {
        RouteDef {
            sign_in: Some(method),
            ..self
        }
    }

    /// This row as a sign-in route every linking provider shares: its method is the provider
    /// the request turns out to be for (`crate::sign_in::PER_PROVIDER`).
    pub const fn sign_in_per_provider(self) -> Self {
        self.sign_in(crate::sign_in::PER_PROVIDER)
    }
    /// This row with another body than JSON.
    pub const fn body(self, body: Body) -> Self {
        RouteDef { body, ..self }
    }
}

/// A function with no route at all, invoked by another function through the Lambda API (binary
/// `bootstrap`; its role is its row's, and nothing calls it over HTTP).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InternalDef {
    /// Also its `CIAM_ROUTE`.
    pub id: &'static str,
    /// Its function's description.
    pub summary: &'static str,
    pub lambda: Lambda,
}

/// `lambda` with `Session` among its keys when `auth` authenticates a session (the bearer
/// extractors look it up by its keyed hash): the table's macro applies it to every row.
pub const fn with_session_key(auth: Auth, lambda: Lambda) -> Lambda {
    match auth {
        Auth::Session | Auth::Console(_) | Auth::SessionOrCode => {
            lambda.keys(&[KeyPurpose::Session])
        }
        _ => lambda,
    }
}

/// A page outside `/ciam/v1`, served by its own function and not described in
/// docs/openapi.json.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PageDef {
    /// Also the `CIAM_ROUTE` of its function.
    pub id: &'static str,
    pub method: &'static str,
    /// As in template.yaml.
    pub path: &'static str,
    /// Its function's description.
    pub summary: &'static str,
    pub lambda: Lambda,
}

/// A table row: `route!(id, METHOD, path, handler, auth, operationId, lambda)`; `.sign_in(..)`
/// and `.body(..)` follow when they apply.
macro_rules! route {
    ($id:literal, $method:ident, $path:literal, $handler:path, Console($role:ident), $op:literal, $lambda:expr) => {
        $crate::route::RouteDef {
            auth: $crate::route::Auth::Console(ciam_core::console::Role::$role),
            ..$crate::route::route!($id, $method, $path, $handler, Session, $op, $lambda)
        }
    };
    ($id:literal, $method:ident, $path:literal, $handler:path, $auth:ident, $op:literal, $lambda:expr) => {
        $crate::route::RouteDef {
            id: $id,
            method: stringify!($method),
            path: $path,
            handler: || axum::routing::on(axum::routing::MethodFilter::$method, $handler),
            handler_name: stringify!($handler),
            #[cfg(feature = "openapi")]
            shape: |gens| $crate::doc::shape_of($handler, gens),
            auth: $crate::route::Auth::$auth,
            operation_id: $op,
            body: $crate::route::Body::Json,
            sign_in: None,
            lambda: $crate::route::with_session_key($crate::route::Auth::$auth, $lambda),
        }
    };
}
pub(crate) use route;
