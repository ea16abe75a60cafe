"""The operator console can be turned off (issue 21), and lives in a stack of its own (issue 30
item 6, infra/console.yaml): `Console=false` leaves out that stack (every console function, the
roles only they run as, their HTTP API) and CloudFront's items for it, and nothing else; the
console's functions get the audit retention setting."""

import json

from conftest import resolve
from template_facts import functions, route_facts


def console_functions(template):
    return [f for f in functions(template) if template["Resources"][f]["Properties"]["Environment"]["Variables"]["CIAM_ROUTE"].startswith("admin_")]


def test_the_console_parameter_and_condition(template):
    p = template["Parameters"]["Console"]
    assert p["Default"] == "true" and p["AllowedValues"] == ["true", "false"]
    assert template["Conditions"]["ConsoleOn"] == {"Fn::Equals": [{"Ref": "Console"}, "true"]}
    assert template["Parameters"]["AuditRetentionDays"]["Default"] == 400


def test_the_console_is_a_stack_of_its_own_that_exists_only_when_on(
    main_template, console_template, main_transformed, console_transformed
):
    """Issue 30 item 6: every console function, the roles only they run as, and their HTTP API
    are in infra/console.yaml, the nested stack `ConsoleStack` (under ConsoleOn); the main stack
    has none of them, and nothing else in it is under ConsoleOn but the stack and CloudFront's
    items that send /ciam/v1/admin/* to it."""
    facts = route_facts()
    console_ids = {i for i, r in facts.items() if r["auth"].startswith("console:")}
    assert len(console_ids) >= 10
    nested = functions(console_template)
    assert set(nested.values()) == console_ids
    assert not console_ids & set(functions(main_template).values())
    stack = main_template["Resources"]["ConsoleStack"]
    assert stack["Type"] == "AWS::Serverless::Application"
    assert stack["Condition"] == "ConsoleOn"
    assert stack["Properties"]["Location"] == "infra/console.yaml"
    conditional = [n for n, r in main_transformed["Resources"].items() if r.get("Condition") == "ConsoleOn"]
    assert conditional == ["ConsoleStack"], conditional
    assert main_transformed["Resources"]["ConsoleStack"]["Type"] == "AWS::CloudFormation::Stack"
    # Inside the console's stack nothing is conditional (the stack is).
    assert not [n for n, r in console_transformed["Resources"].items() if "Condition" in r]
    # Every console route is on the console's own API, none on the main one.
    def api_paths(transformed):
        (api,) = [r for r in transformed["Resources"].values() if r["Type"] == "AWS::ApiGatewayV2::Api"]
        return {p for p in api["Properties"]["Body"]["paths"] if p != "$default"}
    console_paths = {facts[i]["path"] for i in console_ids}
    assert api_paths(console_transformed) == console_paths
    assert not api_paths(main_transformed) & console_paths
    # The main stack has room for what comes next: the budget is in test_template_deploys.py.


def test_the_console_stack_is_given_every_parameter_and_nothing_more(main_template, console_template):
    passed = main_template["Resources"]["ConsoleStack"]["Properties"]["Parameters"]
    assert set(passed) == set(console_template["Parameters"])
    # Each is the main stack's own resource or parameter of the same name, or an attribute
    # or expression the generator names (a role of the main stack: `<Role>Arn`).
    for name, value in passed.items():
        if value == {"Ref": name}:
            assert name in main_template["Resources"] or name in main_template["Parameters"], name
        elif name.endswith("Arn") and "Fn::GetAtt" in value:
            target = value["Fn::GetAtt"]
            target = target[0] if isinstance(target, list) else target.split(".")[0]
            assert name == f"{target}Arn" and target in main_template["Resources"], name
        else:
            assert name in ("PublicUrl", "ParentStackName"), (name, value)


def test_a_console_function_is_the_same_in_its_stack_as_it_would_be_in_the_main_one(
    main_template, console_transformed, transformed
):
    """Its own stack copies template.yaml's Globals (functions/gen/src/console.rs): after the
    transform, each console function of the nested stack, its parameters resolved to what the
    main stack passes, is the function the main stack would have made (runtime, architecture,
    handler, tags, logging, every environment variable, memory, timeout, role)."""
    params = main_template["Resources"]["ConsoleStack"]["Properties"]["Parameters"]
    nested = {n: r for n, r in console_transformed["Resources"].items() if r["Type"] == "AWS::Lambda::Function"}
    assert nested
    for name, r in nested.items():
        alone = resolve(r["Properties"], params)
        merged = transformed["Resources"][name]["Properties"]
        for key in ("Runtime", "Architectures", "Handler", "MemorySize", "Timeout", "Role", "Environment", "LoggingConfig", "Tags"):
            got, want = alone.get(key), merged.get(key)
            if key == "Tags":
                # The parent's name for CiamStack (the Lambda alarms select the stack's
                # functions by it), SAM's own tag as always.
                got = sorted((t["Key"], json.dumps(t["Value"], sort_keys=True)) for t in got)
                want = sorted((t["Key"], json.dumps(t["Value"], sort_keys=True)) for t in want)
                assert ("CiamStack", json.dumps({"Ref": "AWS::StackName"})) in got, name
            assert json.loads(json.dumps(got)) == json.loads(json.dumps(want)), (name, key)


def test_the_console_api_is_the_main_apis_twin(main_template, console_template):
    """The same throttles and access log (one source: functions/gen/src/lib.rs API_SETTINGS),
    `$default` to the main stack's version function (Ciam's own 404 and 405), which it may
    invoke, and a 5xx alarm of its own."""
    params = main_template["Resources"]["ConsoleStack"]["Properties"]["Parameters"]
    main = main_template["Resources"]["Api"]["Properties"]
    console = resolve(console_template["Resources"]["ConsoleApi"]["Properties"], params)
    for key in ("DefaultRouteSettings", "AccessLogSettings"):
        assert json.loads(json.dumps(console[key])) == json.loads(json.dumps(main[key])), key
    route = console["DefinitionBody"]["paths"]["$default"]["x-amazon-apigateway-any-method"]
    assert "${VersionFunction.Arn}" in route["x-amazon-apigateway-integration"]["uri"]["Fn::Sub"]
    permission = resolve(console_template["Resources"]["ConsoleDefaultRoutePermission"]["Properties"], params)
    assert permission["FunctionName"] == {"Fn::GetAtt": ["VersionFunction", "Arn"]}
    assert "${ConsoleApi}" in permission["SourceArn"]["Fn::Sub"]
    alarm = console_template["Resources"]["ConsoleApi5xxAlarm"]["Properties"]
    assert alarm["Dimensions"] == [{"Name": "ApiId", "Value": {"Ref": "ConsoleApi"}}]
    assert console_template["Outputs"]["ApiDomain"]["Value"] == {
        "Fn::Sub": "${ConsoleApi}.execute-api.${AWS::Region}.${AWS::URLSuffix}"
    }


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
