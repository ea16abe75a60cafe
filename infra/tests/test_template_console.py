"""The operator console can be turned off (issue 21): `Console=false` leaves out every console
function, its role, permission and log group, and the HTTP API's console paths, and nothing else;
the console's functions get the audit retention setting."""

import json
import re

from template_facts import functions, role_of


def console_functions(template):
    return [f for f in functions(template) if template["Resources"][f]["Properties"]["Environment"]["Variables"]["CIAM_ROUTE"].startswith("admin_")]


def test_the_console_parameter_and_condition(template):
    p = template["Parameters"]["Console"]
    assert p["Default"] == "true" and p["AllowedValues"] == ["true", "false"]
    assert template["Conditions"]["ConsoleOn"] == {"Fn::Equals": [{"Ref": "Console"}, "true"]}
    assert template["Parameters"]["AuditRetentionDays"]["Default"] == 400


def test_every_console_resource_is_conditional_and_no_other(template, transformed):
    console = console_functions(template)
    assert len(console) >= 10, console
    resources = transformed["Resources"]
    stems = [f[: -len("Function")] for f in console]
    own = re.compile(rf"^({'|'.join(stems)})(Function(Role|ApiPermission)?|Logs)$")
    # A shared role (one per permission set) is the console's when only console functions run
    # as it.
    users = {}
    for name, r in resources.items():
        if r["Type"] == "AWS::Lambda::Function":
            users.setdefault(role_of(transformed, name), set()).add(name)
    console_roles = {role for role, fns in users.items() if fns <= set(console)}
    for name, r in resources.items():
        if own.match(name) or name in console_roles:
            assert r.get("Condition") == "ConsoleOn", f"{name} is not under ConsoleOn"
        else:
            assert r.get("Condition") != "ConsoleOn", f"{name} is under ConsoleOn but is not the console's"
    # Nothing unconditional names a console resource (it would not exist with Console=false).
    for name, r in resources.items():
        if r.get("Condition") == "ConsoleOn" or r["Type"] == "AWS::ApiGatewayV2::Api":
            continue
        text = json.dumps(r)
        for f in console:
            assert f'"{f}' not in text and f"${{{f}" not in text, f"{name} refers to {f}"


def test_the_api_leaves_out_the_console_paths_when_off(transformed):
    api = next(r for r in transformed["Resources"].values() if r["Type"] == "AWS::ApiGatewayV2::Api")
    paths = api["Properties"]["Body"]["paths"]
    admin = [p for p in paths if p.startswith("/ciam/v1/admin/")]
    assert len(admin) >= 8
    def on_console(v):
        return isinstance(v, dict) and list(v) == ["Fn::If"] and v["Fn::If"][0] == "ConsoleOn"

    for p, item in paths.items():
        # The whole path under ConsoleOn, or (the API has a DefinitionBody for its `$default`
        # route, and SAM then makes the operations conditional, not the path) each operation:
        # with Console=false the path has no operation, so API Gateway makes no route of it.
        conditional = on_console(item) or (bool(item) and all(on_console(op) for op in item.values()))
        assert conditional == p.startswith("/ciam/v1/admin/"), p


def test_console_functions_get_the_audit_retention(template):
    for f in console_functions(template):
        env = template["Resources"][f]["Properties"]["Environment"]["Variables"]
        assert env["CIAM_AUDIT_RETENTION_DAYS"] == {"Ref": "AuditRetentionDays"}, f


def test_the_staff_callback_reads_which_provider_acr_is_a_second_factor(template):
    """A staff session whose company provider did a second factor enters the console: the
    callback, which reads the provider's id_token, gets `StaffMfaAcr` (and only it needs it)."""
    assert template["Parameters"]["StaffMfaAcr"]["Default"] == ""
    having = [
        f
        for f in functions(template)
        if "CIAM_STAFF_MFA_ACR" in template["Resources"][f]["Properties"]["Environment"]["Variables"]
    ]
    assert having == ["AuthStaffCallbackFunction"]
    env = template["Resources"]["AuthStaffCallbackFunction"]["Properties"]["Environment"]["Variables"]
    assert env["CIAM_STAFF_MFA_ACR"] == {"Ref": "StaffMfaAcr"}
