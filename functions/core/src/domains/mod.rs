//! Organizations' verified domains (issue 35 item 3; docs/organizations-domains.md): the name
//! rules, the DNS TXT proof and its lookup port, the claim and owner items.

pub mod claims;
#[cfg(feature = "dns")]
pub mod dns;
#[cfg(test)]
#[cfg(feature = "dns")]
mod dns_tests;
pub mod enrol;
pub mod manage;
pub mod name;
pub mod public;
pub mod sign_in;
pub mod txt;
pub mod verify;

pub use claims::{Claim, Enrolment, Method, Owner, SignIn};
pub use name::DomainName;
pub use txt::{LookupError, TxtLookup};
