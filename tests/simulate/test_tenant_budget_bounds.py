"""`--tenant-budget` that could change nothing is refused, not ignored (issue 34): a tenant the
traffic does not have, a budget without a finite pool to divide, traffic with fewer than two
tenants, a tenant named twice."""

from __future__ import annotations

import json

import pytest

from advisor.errors import AdvisorError
from advisor.simulate.runner import parse_budget

TENANTS = ["t0", "t1", "t2"]


@pytest.mark.parametrize("text,tenants,finite,words", [
    ("t9=0.5", TENANTS, True, "--tenant-budget names tenant 't9', which the traffic does not have (tenants: t0, t1, t2)"),
    ("t0=0.5", TENANTS, False, "--tenant-budget divides a finite pool: give --capacity-tokens, or --model and --gpu"),
    ("equal", TENANTS, False, "--tenant-budget divides a finite pool"),
    ("equal", ["solo"], True, "--tenant-budget needs traffic with at least two tenants (it has only 'solo')"),
    ("solo=0.5", ["solo"], True, "at least two tenants"),
    ("t0=0.5", [], True, "at least two tenants (it has no 'tenant' field)"),
    ("t0=0.3,t0=0.3", TENANTS, True, "--tenant-budget gives tenant 't0' twice"),
])
def test_budgets_that_change_nothing_are_refused(text, tenants, finite, words):
    with pytest.raises(AdvisorError) as info:
        parse_budget(text, tenants, finite=finite)
    assert words in str(info.value)


def test_valid_budgets_still_parse():
    assert parse_budget("t0=0.5,t1=0.3", TENANTS) == (("t0", 0.5), ("t1", 0.3), ("*", pytest.approx(0.2)))
    assert parse_budget("equal", ["b", "a"]) == (("a", 0.5), ("b", 0.5))
    assert parse_budget(None, [], finite=False) is None


def _traffic(path, tenants=("t0", "t1", "t2")):
    path.write_text("".join(
        json.dumps({"hash_ids": [1, 2, 3 + i % 4, 100 + i], "input_length": 2000, "timestamp": i * 100,
                    "tenant": tenants[i % len(tenants)]}) + "\n" for i in range(60)))
    return path


@pytest.mark.parametrize("args,words", [
    (["--tenant-budget", "t0=0.5"], "divides a finite pool"),
    (["--tenant-budget", "t9=0.5", "--capacity-tokens", "8000"], "names tenant 't9'"),
])
def test_cli_refuses_with_exit_2(cli, tmp_path, args, words):
    res = cli("simulate", _traffic(tmp_path / "t.jsonl"), "-f", "json", *args)
    assert res.code == 2, res.err
    assert len(res.err.strip().splitlines()) == 1 and words in res.err and res.out == ""


def test_cli_takes_a_budget_of_known_tenants_with_a_pool(cli, tmp_path):
    res = cli("simulate", _traffic(tmp_path / "t.jsonl"), "-f", "json", "--tenant-budget", "t0=0.5",
              "--capacity-tokens", "8000")
    assert res.code == 0, res.err
    budgets = [r.get("tenant_budget") for r in json.loads(res.out)["runs"]]
    assert {"t0": 0.5, "*": 0.5} in budgets
