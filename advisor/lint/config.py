"""Lint configuration: found upward from the working folder, validated against the rules.

Sources, first match wins: ``--config FILE``; else the nearest folder, walking up from the
working folder, that has ``.advisor.yaml`` (or ``.advisor.yml``) or a ``pyproject.toml``
with a ``[tool.advisor]`` table; else defaults. ``--isolated`` skips files altogether.
Settings may also sit in a ``lint`` sub-table. Every key is checked: an unknown key, rule,
option or value is an :class:`AdvisorError` that names it (exit 2), never a silent default.
"""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from advisor.ingest import safe_yaml
from advisor.errors import AdvisorError
from advisor.ingest import safe_open
from advisor.lint.rule import SEVERITIES, Rule
from advisor.lint.targets import DEFAULT_TARGET, TARGETS, model_minimum

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10 has no tomllib; tomli is the same parser
    try:
        import tomli as tomllib
    except ImportError:
        tomllib = None  # type: ignore[assignment]

# Sub-tables of [tool.advisor] that belong to other commands; lint leaves them alone.
OTHER_COMMANDS = frozenset({"analyze", "simulate", "prescribe", "cost", "report", "traffic", "chat"})
KEYS = {
    "select": "list of rule codes, prefixes or names",
    "ignore": "list of rule codes, prefixes or names",
    "exclude": "list of glob patterns",
    "fail_on": "one of error, warning, info",
    "tokenizer": "a tokenizer name or path",
    "static_variables": "list of variable names that are constant across requests",
    "dynamic_variables": "list of variable names that vary per request even if listed as static by default",
    "section_markers": "list of regular expressions marking section headings",
    "target": "where the prompts are served: an engine (sglang, vllm) or a hosted API (openai, anthropic, ...)",
    "model": "the served model, a catalog name (nemotron-h-8b, qwen3-next-80b, ...) or a path to its config.json",
    "gpu": "the GPU the engine runs on, a catalog name (h100, b200, a100, ...); needs 'model'",
    "trim_blocks": "boolean",
    "lstrip_blocks": "boolean",
    "rules": "table of rule code or name -> {severity, options}",
}


@dataclass(frozen=True)
class LintConfig:
    select: tuple[str, ...] = ("ALL",)
    ignore: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    fail_on: str | None = None
    tokenizer: str | None = None
    static_variables: tuple[str, ...] = ()
    dynamic_variables: tuple[str, ...] = ()
    section_markers: tuple[str, ...] = ()
    trim_blocks: bool = False
    lstrip_blocks: bool = False
    target: str = DEFAULT_TARGET  # advisor.lint.targets: whose prefix cache PC301 measures against
    # The served model (a catalog name, or a config.json path, resolved against the config file's
    # folder) and GPU: an engine target's minimum becomes its cache block on it (targets.model_minimum).
    model: str | None = None
    gpu: str | None = None
    rules: dict[str, dict[str, Any]] = field(default_factory=dict)  # code -> {"severity": ..., option: ...}
    origin: str | None = None  # the file it came from


@dataclass(frozen=True)
class ActiveRule:
    rule: Rule
    severity: str
    options: dict[str, Any]


def _norm(key: str) -> str:
    return key.replace("-", "_")


def discover(start: Path) -> Path | None:
    for folder in (start, *start.parents):
        for name in (".advisor.yaml", ".advisor.yml"):
            if (folder / name).is_file():
                return folder / name
        pyproject = folder / "pyproject.toml"
        if pyproject.is_file() and tomllib is not None:
            try:
                raw = safe_open.read_bytes(pyproject, max_bytes=safe_open.MAX_CONFIG_BYTES, what="config")
                data = tomllib.loads(raw.decode("utf-8"))
            except (AdvisorError, UnicodeDecodeError, tomllib.TOMLDecodeError):
                continue  # an unrelated broken pyproject is not ours to judge unless named
            if isinstance(data.get("tool"), dict) and "advisor" in data["tool"]:
                return pyproject
    return None


def load_file(path: Path, registry: dict[str, Rule]) -> LintConfig:
    shown = str(path)
    if not os.path.lexists(path):
        raise AdvisorError(f"{shown}: config file not found")
    # Regular files only, capped: `--config /dev/zero` is refused, not read for ever.
    raw = safe_open.read_bytes(path, max_bytes=safe_open.MAX_CONFIG_BYTES, what="config", shown=shown)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise AdvisorError(f"{shown}: cannot read config ({exc})") from None
    if path.suffix == ".toml":
        if tomllib is None:
            raise AdvisorError(f"{shown}: reading TOML on Python 3.10 needs the 'tomli' package; use .advisor.yaml or pip install tomli")
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise AdvisorError(f"{shown}: invalid TOML: {exc}") from None
        table = data.get("tool", {}).get("advisor", {}) if isinstance(data.get("tool"), dict) else {}
        where = "[tool.advisor]"
    else:
        try:
            table = safe_yaml.safe_load(text) or {}
        except safe_yaml.YAMLError as exc:
            raise AdvisorError(f"{shown}:{safe_yaml.error_line(exc)}: invalid YAML: "
                               f"{safe_yaml.error_reason(exc)}") from None
        where = "config"
    if not isinstance(table, dict):
        raise AdvisorError(f"{shown}: {where} must be a table of settings")
    return parse(table, f"{shown} {where}", registry, origin=shown)


def parse(table: dict[str, Any], where: str, registry: dict[str, Rule], origin: str | None = None) -> LintConfig:
    flat: dict[str, Any] = {}
    for key, value in table.items():
        k = _norm(str(key))
        if k == "lint":
            if not isinstance(value, dict):
                raise AdvisorError(f"{where}: 'lint' must be a table")
            flat.update({_norm(str(kk)): vv for kk, vv in value.items()})
        elif k in OTHER_COMMANDS:
            continue
        else:
            flat[k] = value
    values: dict[str, Any] = {}
    for key, value in flat.items():
        if key not in KEYS:
            raise AdvisorError(f"{where}: unknown key '{key}' (allowed: {', '.join(sorted(KEYS))})")
        if key in ("select", "ignore", "exclude", "static_variables", "dynamic_variables", "section_markers"):
            if isinstance(value, str):
                value = [value]
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise AdvisorError(f"{where}: '{key}' must be a {KEYS[key]}")
            if key in ("select", "ignore"):
                for sel in value:
                    if not matching(sel, registry):
                        raise AdvisorError(f"{where}: '{key}' names unknown rule '{sel}'")
            if key == "section_markers":
                for pattern in value:
                    try:
                        re.compile(pattern)
                    except re.error as exc:
                        raise AdvisorError(f"{where}: 'section_markers' has an invalid regular expression {pattern!r}: {exc}") from None
            values[key] = tuple(value)
        elif key == "fail_on":
            if value not in SEVERITIES:
                raise AdvisorError(f"{where}: 'fail_on' must be one of {', '.join(SEVERITIES)}, not {value!r}")
            values[key] = value
        elif key == "tokenizer":
            if not isinstance(value, str):
                raise AdvisorError(f"{where}: 'tokenizer' must be a string")
            values[key] = value
        elif key == "target":
            if value not in TARGETS:
                raise AdvisorError(f"{where}: 'target' must be one of {', '.join(TARGETS)}, not {value!r}")
            values[key] = value
        elif key in ("trim_blocks", "lstrip_blocks"):
            if not isinstance(value, bool):
                raise AdvisorError(f"{where}: '{key}' must be true or false")
            values[key] = value
        elif key in ("model", "gpu"):
            if not isinstance(value, str) or not value.strip():
                raise AdvisorError(f"{where}: '{key}' must be {KEYS[key]}")
            values[key] = value.strip()
        elif key == "rules":
            values[key] = _rules(value, where, registry)
    if "gpu" in values and "model" not in values:
        raise AdvisorError(f"{where}: 'gpu' needs 'model' (the GPU only matters for a model's cache block)")
    if "model" in values:
        values["model"] = _model(values["model"], values.get("gpu"), values.get("target", DEFAULT_TARGET), where, origin)
    return LintConfig(**values, origin=origin)


def _model(name: str, gpu: str | None, target: str, where: str, origin: str | None) -> str:
    """The configured model as the engine will look it up (a config.json path relative to the
    config file's folder, when the name is not a catalog model), checked now so that a bad name
    is an error naming the config file. advisor.cost is imported only here, for a set model."""
    from advisor.cost.catalog import load_catalog

    if origin is not None and not os.path.isabs(name) and not _in_catalog(name, load_catalog()):
        beside = Path(origin).parent / name
        if name.endswith(".json") or os.path.lexists(beside):
            name = str(beside)
    from advisor.cost.catalog import resolve_gpu, resolve_model

    for key, check in (("model", lambda: resolve_model(name)), ("gpu", lambda: gpu is None or resolve_gpu(gpu)),
                       # the engine's geometry on the model: a config.json it cannot use fails here
                       ("model", lambda: model_minimum(target, name, gpu))):
        try:
            check()
        except AdvisorError as exc:
            raise AdvisorError(f"{where}: '{key}': {' '.join(str(exc).split())}") from None
    return name


def _in_catalog(name: str, catalog: Any) -> bool:
    key = name.strip().lower()
    return any(key in {m.id.lower(), m.id.split("/")[-1].lower(), *m.aliases} for m in catalog.models)


def _rules(table: Any, where: str, registry: dict[str, Rule]) -> dict[str, dict[str, Any]]:
    if not isinstance(table, dict):
        raise AdvisorError(f"{where}: 'rules' must be a table of rule code -> settings")
    out: dict[str, dict[str, Any]] = {}
    for name, settings in table.items():
        rule = _find(str(name), registry)
        if rule is None:
            raise AdvisorError(f"{where}: rules.{name}: unknown rule (see `advisor rules`)")
        if not isinstance(settings, dict):
            raise AdvisorError(f"{where}: rules.{name} must be a table")
        checked: dict[str, Any] = {}
        for key, value in settings.items():
            k = _norm(str(key))
            if k == "severity":
                if value not in SEVERITIES:
                    raise AdvisorError(f"{where}: rules.{name}.severity must be one of {', '.join(SEVERITIES)}, not {value!r}")
            elif k not in rule.options:
                allowed = ", ".join(["severity", *sorted(rule.options)])
                raise AdvisorError(f"{where}: rules.{name}: unknown option '{key}' for {rule.code} (allowed: {allowed})")
            elif (problem := rule.options[k].problem(value)) is not None:
                raise AdvisorError(f"{where}: rules.{name}.{key} {problem}")
            checked[k] = value
        out.setdefault(rule.code, {}).update(checked)
    return out


def _find(name: str, registry: dict[str, Rule]) -> Rule | None:
    for rule in registry.values():
        if name.upper() == rule.code or name.lower() == rule.name:
            return rule
    return None


def matching(selector: str, registry: dict[str, Rule]) -> list[str]:
    """Codes a selector names: ALL, a code, a code prefix (PC1) or a rule name."""
    sel = selector.strip()
    if sel.upper() == "ALL":
        return sorted(registry)
    if sel.lower() in {r.name for r in registry.values()}:
        return [r.code for r in registry.values() if r.name == sel.lower()]
    return sorted(code for code in registry if code.startswith(sel.upper()) and sel)


def resolve(config_path: str | None, isolated: bool, cwd: Path, registry: dict[str, Rule]) -> LintConfig:
    if isolated:
        return LintConfig()
    if config_path:
        return load_file(Path(config_path), registry)
    found = discover(cwd.resolve())
    return load_file(found, registry) if found else LintConfig()


def active_rules(config: LintConfig, registry: dict[str, Rule]) -> list[ActiveRule]:
    selected: set[str] = set()
    for sel in config.select:
        selected.update(matching(sel, registry))
    for sel in config.ignore:
        selected.difference_update(matching(sel, registry))
    out = []
    for code in sorted(selected):
        rule = registry[code]
        settings = config.rules.get(code, {})
        options = rule.default_options()
        options.update({k: v for k, v in settings.items() if k != "severity"})
        out.append(ActiveRule(rule, settings.get("severity", rule.severity), options))
    return out
