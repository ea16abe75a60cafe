//! One IAM role per permission set (issue 30 item 7): rows that grant the same share a role named
//! from what it allows, rows that differ never do, and a new row gets a role without an edit.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use ciam_api::{Auth, Binary, Lambda};
use ciam_gen::roles::{role_name, shared_roles};
use ciam_gen::{root, table_functions, Function};

fn sample(id: &str, lambda: Lambda) -> Function {
    Function {
        id: id.into(),
        method: "GET".into(),
        path: format!("/ciam/v1/auth/{id}"),
        binary: Binary::Bootstrap,
        summary: "A sample".into(),
        sign_in: None,
        auth: Auth::Session,
        lambda,
        internal: false,
    }
}

#[test]
fn the_table_shares_roles_and_every_function_names_its_own() {
    let fns = table_functions(&root()).unwrap();
    let roles = shared_roles(&fns).unwrap();
    let routes = fns.iter().filter(|f| f.binary != Binary::Webhooks).count();
    assert!(
        roles.len() * 2 < routes,
        "{} roles for {routes} functions",
        roles.len()
    );
    // The main stack's roles are in template.yaml, those only the console's functions run as in
    // its own stack (infra/console.yaml), where a console function names a main stack's role by
    // the parameter the main stack passes (`!Ref <Role>Arn`).
    let main = std::fs::read_to_string(root().join("template.yaml")).unwrap();
    let console = std::fs::read_to_string(root().join(ciam_gen::console::PATH)).unwrap();
    // "My company"'s functions are in the organizations' stack, their roles the main stack's.
    let orgs = std::fs::read_to_string(root().join(ciam_gen::console::ORGS.path)).unwrap();
    for r in &roles {
        let home = if r.console_only { &console } else { &main };
        assert!(
            home.contains(&format!("\n  {}:\n    Type: AWS::IAM::Role\n", r.name)),
            "{}",
            r.name
        );
        for f in &r.functions {
            let (template, role) = match main.find(&format!("\n  {f}:\n")) {
                Some(_) => (&main, format!("Role: !GetAtt {}.Arn", r.name)),
                None if orgs.contains(&format!("\n  {f}:\n")) => {
                    (&orgs, format!("Role: !Ref {}Arn", r.name))
                }
                None if r.console_only => (&console, format!("Role: !GetAtt {}.Arn", r.name)),
                None => (&console, format!("Role: !Ref {}Arn", r.name)),
            };
            let at = template.find(&format!("\n  {f}:\n")).unwrap();
            let body = &template[at..];
            let end = body[4..]
                .find("\n  # ")
                .into_iter()
                .chain(body[4..].find("\n\n  "))
                .min()
                .unwrap_or(body.len() - 4);
            assert!(body[..end + 4].contains(&role), "{f} runs as {}", r.name);
        }
    }
    // Names are unique and end in Role; the functions of a role all give it that name.
    let mut names: Vec<&str> = roles.iter().map(|r| r.name.as_str()).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), roles.len());
    for f in fns.iter().filter(|f| f.binary != Binary::Webhooks) {
        let name = role_name(f);
        assert!(name.ends_with("Role"), "{name}");
        let r = roles.iter().find(|r| r.name == name).unwrap();
        assert!(r.functions.contains(&f.logical_id()));
    }
}

#[test]
fn rows_that_grant_the_same_share_a_role_and_rows_that_differ_do_not() {
    let a = sample("sample_a", Lambda::WRITES);
    let b = sample("sample_b", Lambda::WRITES);
    let c = sample("sample_c", Lambda::READS);
    let mut d = sample("sample_d", Lambda::WRITES);
    d.lambda.messages = true;
    let roles = shared_roles(&[a, b, c, d]).unwrap();
    let by = |f: &str| {
        roles
            .iter()
            .find(|r| r.functions.iter().any(|x| x == f))
            .unwrap()
            .name
            .clone()
    };
    assert_eq!(by("SampleAFunction"), by("SampleBFunction"));
    assert_ne!(by("SampleAFunction"), by("SampleCFunction"));
    assert_ne!(by("SampleAFunction"), by("SampleDFunction"));
    assert_eq!(roles.len(), 3);
    // Named from what they allow; memory, timeout or throttle change nothing.
    let mut e = sample("sample_e", Lambda::WRITES);
    e.lambda.memory = 2048;
    e.lambda.timeout = 29;
    assert_eq!(role_name(&e), by("SampleAFunction"));
    assert!(by("SampleDFunction").contains("Messages"));
    assert!(by("SampleCFunction").starts_with("TableRead"));
}

#[test]
fn a_console_only_role_exists_only_with_the_console() {
    let mut admin = sample("admin_sample", Lambda::WRITES);
    admin.auth = Auth::Console(ciam_core::console::Role::Viewer);
    let lone = shared_roles(std::slice::from_ref(&admin)).unwrap();
    assert!(lone[0].console_only);
    let shared = shared_roles(&[admin, sample("sample_a", Lambda::WRITES)]).unwrap();
    assert!(
        !shared[0].console_only,
        "a role a customer route runs as is always there"
    );
}
