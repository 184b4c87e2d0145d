"""The hand-written package list in pyproject.toml must cover every package folder."""

from __future__ import annotations

import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]


def test_every_package_folder_is_listed() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    listed = set(config["tool"]["setuptools"]["packages"])
    found = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "advisor").rglob("__init__.py")}
    assert found - listed == set(), "add these to [tool.setuptools] packages"
    assert "advisor.rules" in listed
    assert config["tool"]["setuptools"]["package-dir"]["advisor.rules"] == "rules"


def test_rule_data_files_are_package_data() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    patterns = config["tool"]["setuptools"]["package-data"]["advisor.rules"]
    suffixes = {p.removeprefix("*") for p in patterns}
    for path in (ROOT / "rules").iterdir():
        if path.is_file() and path.suffix != ".py":
            assert path.suffix in suffixes, f"{path.name} would be missing from the wheel"
