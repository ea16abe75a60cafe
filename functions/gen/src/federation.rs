//! What the provider list (`ciam_core::federation::PROVIDERS`) writes into the stacks
//! (docs/federation-design.md §1.5): each provider's template parameters (one per `Setting`), its
//! client secret (a generated placeholder the operator replaces) and the output that names that
//! secret. A new provider is a `Facts` entry and its rows: no parameter, secret or output is
//! written by hand (template.yaml's regions `federation-parameters`, `federation-secrets`,
//! `federation-outputs`; infra/cn.yaml copies them with the rest of template.yaml).

use ciam_core::federation::Facts;

use crate::quoted;

/// The callback's path (registered at the provider as the redirect URI).
fn callback(f: &Facts) -> String {
    format!("<PublicUrl>/ciam/v1/auth/{}/callback", f.name)
}

/// One `String` parameter per setting, empty by default (an unset provider is off). The first
/// says where to register Ciam and where its secret goes.
pub fn render_parameters(providers: &[Facts]) -> String {
    let mut out = String::new();
    for f in providers {
        for (i, s) in f.settings.iter().enumerate() {
            let mut text = format!("{} - {}", f.title, s.description);
            if i == 0 {
                text.push_str(&format!(
                    " Register {} there as the redirect URI, then put the {} into the {}Arn \
                     output's secret (docs/operations.md §8).",
                    callback(f),
                    f.secret_field,
                    f.secret()
                ));
            }
            out.push_str(&format!(
                "  {}:\n    Type: String\n    Default: \"\"\n    Description: {}\n",
                f.parameter(s),
                quoted(&text)
            ));
        }
    }
    out
}

/// Each provider's secret: generated as a placeholder so the stack never carries the value;
/// retained (a replaced or deleted stack keeps it), replicated like the root secret.
pub fn render_secrets(providers: &[Facts]) -> String {
    let mut out = Vec::new();
    for f in providers {
        out.push(format!(
            "  # {title}: the {field} at the provider. Generated as a placeholder so the stack never\n  \
             # carries it; the operator puts the real one (docs/operations.md §8).\n  \
             {secret}:\n    Type: AWS::SecretsManager::Secret\n    DeletionPolicy: RetainExceptOnCreate\n    \
             UpdateReplacePolicy: Retain\n    Properties:\n      \
             Description: !Sub \"Ciam (${{AWS::StackName}}) {lower} - JSON {field}; replace the generated placeholder.\"\n      \
             GenerateSecretString:\n        SecretStringTemplate: \"{{}}\"\n        GenerateStringKey: {field}\n        \
             PasswordLength: 48\n        ExcludePunctuation: true\n      \
             ReplicaRegions: !If [HasSecretReplica, [{{Region: !Ref SecretReplicaRegion}}], !Ref AWS::NoValue]\n",
            title = f.title,
            lower = f.title.to_lowercase(),
            field = f.secret_field,
            secret = f.secret(),
        ));
    }
    out.join("\n")
}

/// The outputs naming each provider's secret (the ARN, never the value).
pub fn render_outputs(providers: &[Facts]) -> String {
    providers
        .iter()
        .map(|f| {
            let text = format!(
                "{}: put the {} here as {{\"{}\":\"...\"}} (docs/operations.md §8).",
                f.title, f.secret_field, f.secret_field
            );
            format!(
                "  {}Arn:\n    Description: {}\n    Value: !Ref {}\n",
                f.secret(),
                quoted(&text),
                f.secret()
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ciam_core::federation::STAFF;

    #[test]
    fn staff_keeps_its_parameter_secret_and_output_names() {
        let p = render_parameters(&[STAFF]);
        let names: Vec<&str> = p.lines().filter(|l| !l.starts_with("   ")).collect();
        assert_eq!(
            names,
            ["  StaffIssuer:", "  StaffClientId:", "  StaffMfaAcr:"]
        );
        assert!(p.contains("<PublicUrl>/ciam/v1/auth/staff/callback"));
        let s = render_secrets(&[STAFF]);
        assert!(s.contains("  StaffSecret:\n    Type: AWS::SecretsManager::Secret\n"));
        assert!(s.contains("GenerateStringKey: clientSecret\n"));
        assert!(s.contains("DeletionPolicy: RetainExceptOnCreate\n"));
        let o = render_outputs(&[STAFF]);
        assert!(o.starts_with("  StaffSecretArn:\n"));
        assert!(o.ends_with("    Value: !Ref StaffSecret\n"));
    }
}
