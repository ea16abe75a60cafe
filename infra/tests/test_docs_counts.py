"""The few counts the docs must state, computed (issue 31 item 6): how many functions the stacks
hold and which binaries they run. Everything else the docs used to count (roles, routes, rows,
resources) is left to the command that prints it; these two stay in README.md because an
operator reads them before a deploy, so this test keeps them true.

- functions: the AWS::Serverless::Function resources of template.yaml and infra/console.yaml
  (the console's nested stack), cross-checked with infra/routes.json (every row's function is
  there, running the row's binary);
- binaries: the distinct `Metadata.BuildProperties.Binary` of those functions.

README.md states both in one sentence, "<N> functions ... <word> binaries (`a`, `b`, ...)",
and no other "<number> functions" or "<word> binaries" in README.md may say otherwise. The same
holds for the present-tense sentences of docs/operations.md §10 ("The shape: ...")."""

import json
import re

from template_facts import ROOT

README = ROOT / "README.md"
OPERATIONS = ROOT / "docs" / "operations.md"
ROUTES = ROOT / "infra" / "routes.json"
WORDS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight"}
NUMBER_WORDS = "|".join(WORDS.values())
# "<N> functions ... <word> binaries (`a`, `b`)" within one sentence (a full stop ends it; the dot
# of a file name does not).
SENTENCE = rf"(\d[\d,]*) functions(?:[^.]|\.(?!\s))*?\b({NUMBER_WORDS}) binaries \(([^)]*)\)"


def functions_of(template):
    """{logical id: binary} of a template's functions (the Globals' Handler when a function names
    no binary of its own)."""
    default = template.get("Globals", {}).get("Function", {}).get("Handler")
    out = {}
    for name, r in template["Resources"].items():
        if r["Type"] != "AWS::Serverless::Function":
            continue
        binary = r.get("Metadata", {}).get("BuildProperties", {}).get("Binary", default)
        assert binary, f"{name}: no binary"
        out[name] = binary
    return out


def counted(main_template, console_template, org_template):
    main, console, orgs = functions_of(main_template), functions_of(console_template), functions_of(org_template)
    assert not set(main) & set(console), "a function in both stacks"
    assert not (set(main) | set(console)) & set(orgs), "a function in two stacks"
    return {**main, **console, **orgs}


def test_the_route_table_and_the_templates_name_the_same_functions(main_template, console_template, org_template):
    functions = counted(main_template, console_template, org_template)
    rows = json.loads(ROUTES.read_text())["functions"]
    for row in rows:
        assert row["function"] in functions, f"{row['function']} (infra/routes.json) is in no template"
        assert functions[row["function"]] == row["binary"], row["function"]
    # The functions that are no row are written by hand or by the generator's other parts (the
    # key distributor, ...): each still runs a known binary.
    assert set(functions.values()) >= {r["binary"] for r in rows}


def test_readme_states_how_many_functions_and_which_binaries(main_template, console_template, org_template):
    functions = counted(main_template, console_template, org_template)
    binaries = sorted(set(functions.values()))
    n, word = len(functions), WORDS[len(binaries)]
    text = " ".join(README.read_text().split())  # sentences wrap across lines
    stated = re.search(SENTENCE, text)
    assert stated, "README.md: no sentence '<N> functions ... <word> binaries (`a`, `b`, ...)'"
    want = f"{n} functions ... {word} binaries ({', '.join(f'`{b}`' for b in binaries)})"
    assert int(stated.group(1).replace(",", "")) == n, f"README.md says {stated.group(1)} functions: write {want}"
    assert stated.group(2) == word, f"README.md says {stated.group(2)} binaries: write {want}"
    named = re.findall(r"`([a-z_]+)`", stated.group(3))
    assert sorted(named) == binaries, f"README.md names the binaries {named}: write {want}"
    for other in re.findall(r"\b(\d[\d,]*) (?:Lambda )?functions\b", text):
        assert int(other.replace(",", "")) == n, f"README.md says '{other} functions' (there are {n})"
    for other in re.findall(rf"\b({NUMBER_WORDS}) (?:Lambda )?binaries\b", text, re.IGNORECASE):
        assert other.lower() == word, f"README.md says '{other} binaries' (there are {word})"


def test_the_build_shape_in_operations_says_how_many_binaries(main_template, console_template, org_template):
    binaries = sorted(set(counted(main_template, console_template, org_template).values()))
    word = WORDS[len(binaries)]
    text = OPERATIONS.read_text()
    heading = re.search(rf"^### The shape: ({NUMBER_WORDS}) binaries", text, re.MULTILINE)
    assert heading and heading.group(1) == word, f"docs/operations.md §10: '### The shape: {word} binaries, ...'"
    runs = re.search(rf"Every function runs one of ({NUMBER_WORDS}) binaries", " ".join(text.split()))
    assert runs and runs.group(1) == word, f"docs/operations.md §10: 'Every function runs one of {word} binaries'"
    section = text.split("### The shape:", 1)[1].split("\n### ", 1)[0]
    for b in binaries:
        assert f"`{b}` (`functions/lambdas/src/bin/{b}.rs`)" in section, f"docs/operations.md §10 does not describe `{b}`"


def test_the_check_can_fail():
    """The sentence pattern finds a wrong count (so a stale README fails the test above)."""
    text = "A clean build for all 93 functions (two binaries (`bootstrap`, `passkeys`)) takes minutes."
    stated = re.search(SENTENCE, text)
    assert stated and stated.group(1) == "93" and stated.group(2) == "two"
