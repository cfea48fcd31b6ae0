"""Fast Downward's exit codes by name (genplan.stages.fd_codes): the names and values are the installed
driver's own (read from its driver/returncodes.py, so a Fast Downward that adds or renumbers a code fails
here), and every code gets the status its meaning says, its name in the reason where it is an error."""

from __future__ import annotations

import ast

import pytest

from genplan.stages import fast_downward as fd
from genplan.stages import fd_codes
from genplan.stages.fd_codes import ExitCode
from genplan.tools import fast_downward_driver


def _driver_codes() -> dict[str, int]:
    tree = ast.parse((fast_downward_driver().parent / "driver" / "returncodes.py").read_text())
    return {node.targets[0].id: node.value.value for node in tree.body
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
            and node.targets[0].id.isupper() and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, int)}


def test_every_driver_code_is_named_with_its_value():
    driver = _driver_codes()
    assert len(driver) >= 20, driver
    assert {c.name: c.value for c in ExitCode} == driver


@pytest.mark.parametrize("code", [c for c in ExitCode if c != ExitCode.SUCCESS])
def test_every_code_has_the_status_its_meaning_says(tmp_path, code):
    spec = fd.CONFIGS["lama_first"]
    (tmp_path / "plan").write_text("(a)\n(b)\n")
    res = fd._result("lama_first", spec, int(code), "last line", tmp_path / "plan", 5.0, time_limit=60)
    if code in fd_codes.PLAN_FOUND_OUT_OF:
        assert res.status == "satisficing" and len(res.plan) == 2 and code.name in res.reason
    elif code in fd_codes.UNSOLVABLE:
        assert res.status == "unsolvable" and code.name in res.reason
    elif code in fd_codes.RESOURCE:
        assert res.status == "timeout" and res.plan is None
    else:  # the incomplete search, the input, critical and unsupported errors: an error that names its code
        assert res.status == "error" and res.plan is None and f"{code.name} ({int(code)})" in res.reason


def test_a_code_without_a_name_is_an_error_with_its_number(tmp_path):
    res = fd._result("lama_first", fd.CONFIGS["lama_first"], 99, "boom", tmp_path / "plan", 1.0)
    assert res.status == "error" and res.reason.startswith("exit 99: boom")
    assert fd_codes.name(-15) == "SIGTERM (-15)" and fd_codes.name(241) == "SIGTERM (241)"
