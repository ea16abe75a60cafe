//! `ciam-gen`: writes template.yaml's per-route resources, the console's stack
//! (infra/console.yaml), the cn cell's stacks (infra/cn.yaml, infra/cn-console.yaml), infra/routes.json
//! and the action table of docs/operations.md §2 from
//! the route table. `ciam-gen --check` writes nothing and
//! fails, naming the files, when any differs from what the table generates (`npm test`).
//! `ciam-gen --count` prints the hand-written lines of template.yaml.

use std::process::ExitCode;

fn main() -> ExitCode {
    let arg = std::env::args().nth(1);
    let root = ciam_gen::root();
    let files = ciam_gen::table_functions(&root).and_then(|fns| ciam_gen::generate(&root, &fns));
    let files = match files {
        Ok(files) => files,
        Err(e) => {
            eprintln!("ciam-gen: {e}");
            return ExitCode::FAILURE;
        }
    };
    match arg.as_deref() {
        Some("--count") => {
            let text = std::fs::read_to_string(root.join("template.yaml")).unwrap_or_default();
            println!("{}", ciam_gen::hand_written_lines(&text));
            ExitCode::SUCCESS
        }
        Some("--check") => {
            let stale: Vec<String> = files
                .iter()
                .filter(|(path, text)| std::fs::read_to_string(path).ok().as_ref() != Some(text))
                .map(|(path, _)| path.display().to_string())
                .collect();
            if stale.is_empty() {
                println!("ciam-gen: template.yaml, infra/console.yaml, infra/cn.yaml, infra/cn-console.yaml, infra/waf.yaml, docs/operations.md, infra/routes.json and docs/openapi.json match the code");
                ExitCode::SUCCESS
            } else {
                eprintln!(
                    "ciam-gen: not what the route table generates: {}\n  run `npm run gen` and commit the result",
                    stale.join(", ")
                );
                ExitCode::FAILURE
            }
        }
        None => {
            for (path, text) in &files {
                if let Err(e) = std::fs::write(path, text) {
                    eprintln!("ciam-gen: {}: {e}", path.display());
                    return ExitCode::FAILURE;
                }
                println!("ciam-gen: wrote {}", path.display());
            }
            ExitCode::SUCCESS
        }
        Some(other) => {
            eprintln!("ciam-gen: unknown argument {other:?} (none, --check or --count)");
            ExitCode::FAILURE
        }
    }
}
