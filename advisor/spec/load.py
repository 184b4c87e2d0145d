"""Read and validate a workload spec: one-line errors naming the file, line and key path."""

from __future__ import annotations

import importlib.resources
import math
import os
from pathlib import Path
from typing import Any

from yaml.nodes import MappingNode, Node, SequenceNode

from advisor.errors import AdvisorError
from advisor.ingest import safe_open, safe_yaml
from advisor.spec.model import (
    MIN_TOKENS,
    Conversation,
    Engine,
    Length,
    Message,
    Section,
    Spec,
    Tenants,
    Vary,
)

EXAMPLES = ("rag", "agent", "support-chat", "multi-tenant", "single-shot", "scrambled")
# Roles whose content the built-in chat layout renders as text (a tool result is rendered
# as a JSON string, which would change its tokens).
ROLES = ("system", "developer", "user", "assistant")
SHARE_TOLERANCE = 1e-6
MAX_REQUESTS = 1_000_000


class SpecError(AdvisorError):
    pass


def example_path(name: str) -> Path:
    if name not in EXAMPLES:
        raise AdvisorError(f"unknown example '{name}': use {', '.join(EXAMPLES)}")
    return Path(str(importlib.resources.files("advisor.spec").joinpath(f"examples/{name}.yaml")))


def load_example(name: str) -> Spec:
    return load_spec(example_path(name), label=f"example {name}")


def load_spec(path: Path, label: str | None = None) -> Spec:
    where = label or str(path)
    if not os.path.lexists(path):
        raise AdvisorError(f"{path}: spec file not found")
    raw = safe_open.read_bytes(path, max_bytes=safe_open.MAX_CONFIG_BYTES, what="spec")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise AdvisorError(f"{path}: cannot read the spec ({exc})") from None
    return parse_spec(text, where)


def parse_spec(text: str, where: str) -> Spec:
    try:
        data = safe_yaml.safe_load(text)
        node = safe_yaml.safe_compose(text)
    except safe_yaml.YAMLError as exc:
        raise SpecError(f"{where}:{safe_yaml.error_line(exc)}: {safe_yaml.error_reason(exc)}") from None
    lines: dict[str, int] = {}
    if node is not None:
        _lines(node, "", lines)
    return _Reader(where, lines).spec(data)


def _lines(node: Node, path: str, out: dict[str, int]) -> None:
    out.setdefault(path, node.start_mark.line + 1)
    if isinstance(node, MappingNode):
        for key, value in node.value:
            sub = f"{path}.{key.value}" if path else str(key.value)
            out[sub] = key.start_mark.line + 1
            _lines(value, sub, out)
    elif isinstance(node, SequenceNode):
        for i, item in enumerate(node.value):
            _lines(item, f"{path}[{i}]", out)


class _Reader:
    def __init__(self, where: str, lines: dict[str, int]) -> None:
        self.where = where
        self.lines = lines

    def fail(self, path: str, reason: str) -> SpecError:
        probe = path
        while probe and probe not in self.lines:
            probe = probe.rsplit(".", 1)[0] if "." in probe else probe.rsplit("[", 1)[0] if "[" in probe else ""
        line = self.lines.get(probe, 1)
        return SpecError(f"{self.where}:{line}: {path or 'spec'}: {reason}")

    def mapping(self, value: Any, path: str, allowed: tuple[str, ...], required: tuple[str, ...] = ()) -> dict:
        if not isinstance(value, dict):
            raise self.fail(path, f"must be a mapping with keys {', '.join(allowed)}")
        for key in value:
            if key not in allowed:
                raise self.fail(f"{path}.{key}" if path else str(key),
                                f"unknown key (allowed: {', '.join(allowed)})")
        for key in required:
            if key not in value:
                raise self.fail(path, f"missing required key '{key}'")
        return value

    def integer(self, value: Any, path: str, minimum: int = 1) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(path, f"must be a whole number (got {value!r})")
        if value < minimum:
            what = "negative" if value < 0 else "too small"
            raise self.fail(path, f"must be at least {minimum} (got {value}: {what})")
        return value

    def number(self, value: Any, path: str, positive: bool = True) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise self.fail(path, f"must be a number (got {value!r})")
        if value < 0 or (positive and value == 0):
            raise self.fail(path, f"must be {'positive' if positive else 'zero or more'} (got {value})")
        return float(value)

    def string(self, value: Any, path: str) -> str:
        if not isinstance(value, str) or not value.strip():
            raise self.fail(path, f"must be a non-empty string (got {value!r})")
        return value

    def shares(self, value: Any, path: str, count: int | None) -> tuple[float, ...]:
        if not isinstance(value, list) or not value:
            raise self.fail(path, "must be a list of fractions that sum to one")
        out = tuple(self.number(v, f"{path}[{i}]", positive=False) for i, v in enumerate(value))
        if count is not None and len(out) != count:
            raise self.fail(path, f"has {len(out)} entries for {count}")
        total = sum(out)
        if abs(total - 1.0) > SHARE_TOLERANCE:
            raise self.fail(path, f"must sum to 1 (they sum to {total:g})")
        return out

    def length(self, value: Any, path: str, minimum: int = MIN_TOKENS) -> Length:
        if isinstance(value, dict):
            if "mean" in value or "sd" in value:
                self.mapping(value, path, ("mean", "sd"), ("mean", "sd"))
                return Length(mean=self.number(value["mean"], f"{path}.mean"),
                              sd=self.number(value["sd"], f"{path}.sd", positive=False), minimum=minimum)
            self.mapping(value, path, ("min", "max"), ("min", "max"))
            low = self.integer(value["min"], f"{path}.min", minimum)
            high = self.integer(value["max"], f"{path}.max", minimum)
            if high < low:
                raise self.fail(f"{path}.max", f"must not be below min ({high} < {low})")
            return Length(low=low, high=high, minimum=minimum)
        return Length(fixed=self.integer(value, path, minimum), minimum=minimum)

    def vary(self, value: Any, path: str, spec: dict) -> Vary:
        if isinstance(value, str):
            if value not in ("static", "tenant", "session", "request"):
                raise self.fail(path, f"unknown variability '{value}' (use static, tenant, session, request, "
                                      "or a mapping: variants, clock, retrieved)")
            if value == "tenant" and not spec.get("tenants"):
                raise self.fail(path, "'tenant' needs a tenants block")
            return Vary(kind=value)
        body = self.mapping(value, path, ("variants", "clock", "retrieved"))
        if len(body) != 1:
            raise self.fail(path, "give exactly one of variants, clock, retrieved")
        kind, inner = next(iter(body.items()))
        sub = f"{path}.{kind}"
        if kind == "variants":
            self.mapping(inner, sub, ("count", "weights"), ("count",))
            count = self.integer(inner["count"], f"{sub}.count")
            weights = self.shares(inner["weights"], f"{sub}.weights", count) if "weights" in inner else None
            return Vary(kind="variants", count=count, weights=weights)
        if kind == "clock":
            self.mapping(inner, sub, ("resolution_seconds",), ("resolution_seconds",))
            return Vary(kind="clock", resolution=self.number(inner["resolution_seconds"], f"{sub}.resolution_seconds"))
        self.mapping(inner, sub, ("documents", "k", "popularity"), ("documents", "k"))
        docs = self.integer(inner["documents"], f"{sub}.documents")
        k = self.integer(inner["k"], f"{sub}.k")
        if k > docs:
            raise self.fail(f"{sub}.k", f"{k} is larger than the corpus ({docs} documents)")
        zipf = None
        pop = inner.get("popularity", "uniform")
        if pop != "uniform":
            if not isinstance(pop, dict):
                raise self.fail(f"{sub}.popularity", f"must be 'uniform' or {{zipf: EXPONENT}} (got {pop!r})")
            self.mapping(pop, f"{sub}.popularity", ("zipf",), ("zipf",))
            zipf = self.number(pop["zipf"], f"{sub}.popularity.zipf")
        return Vary(kind="retrieved", count=docs, k=k, zipf=zipf)

    def message(self, value: Any, path: str, spec: dict, names: dict[str, str]) -> Message:
        m = self.mapping(value, path, ("role", "shuffle", "sections"), ("role", "sections"))
        role = m["role"]
        if role not in ROLES:
            raise self.fail(f"{path}.role", f"unknown role {role!r} (use {', '.join(ROLES)})")
        shuffle = m.get("shuffle", False)
        if not isinstance(shuffle, bool):
            raise self.fail(f"{path}.shuffle", f"must be true or false (got {shuffle!r})")
        raw = m["sections"]
        if not isinstance(raw, list) or not raw:
            raise self.fail(f"{path}.sections", "must be a non-empty list of sections")
        sections = []
        for i, item in enumerate(raw):
            sp = f"{path}.sections[{i}]"
            s = self.mapping(item, sp, ("name", "tokens", "vary"), ("name", "tokens"))
            name = self.string(s["name"], f"{sp}.name")
            if name in names:
                raise self.fail(f"{sp}.name", f"duplicate section name '{name}' (first at {names[name]})")
            names[name] = sp
            sections.append(Section(name=name, tokens=self.length(s["tokens"], f"{sp}.tokens"),
                                    vary=self.vary(s.get("vary", "static"), f"{sp}.vary", spec)))
        return Message(role=role, sections=tuple(sections), shuffle=shuffle)

    def spec(self, data: Any) -> Spec:
        top = ("name", "description", "requests", "seed", "tokenizer", "model", "gpu", "engine", "arrival",
               "tenants", "conversation", "output_tokens", "messages")
        d = self.mapping(data, "", top, ("name", "messages"))
        names: dict[str, str] = {}
        kwargs: dict[str, Any] = {"name": self.string(d["name"], "name")}
        if "description" in d:
            if not isinstance(d["description"], str):
                raise self.fail("description", "must be a string")
            kwargs["description"] = d["description"]
        if "requests" in d:
            kwargs["requests"] = self.integer(d["requests"], "requests")
            if kwargs["requests"] > MAX_REQUESTS:
                raise self.fail("requests", f"at most {MAX_REQUESTS:,} (got {kwargs['requests']:,})")
        if "seed" in d:
            kwargs["seed"] = self.integer(d["seed"], "seed", minimum=0)
        for key in ("tokenizer", "model", "gpu"):
            if key in d:
                kwargs[key] = self.string(d[key], key)
        if "engine" in d:
            e = self.mapping(d["engine"], "engine", ("name", "page_size", "tp", "kv_dtype"))
            engine = Engine()
            if "name" in e and e["name"] not in ("sglang", "vllm"):
                raise self.fail("engine.name", f"unknown engine {e['name']!r} (use sglang or vllm)")
            if "kv_dtype" in e and e["kv_dtype"] not in ("bf16", "fp8"):
                raise self.fail("engine.kv_dtype", f"unknown KV dtype {e['kv_dtype']!r} (use bf16 or fp8)")
            kwargs["engine"] = Engine(name=e.get("name", engine.name),
                                      page_size=self.integer(e.get("page_size", 1), "engine.page_size"),
                                      tp=self.integer(e.get("tp", 1), "engine.tp"),
                                      kv_dtype=e.get("kv_dtype", engine.kv_dtype))
        if "arrival" in d:
            a = self.mapping(d["arrival"], "arrival", ("rate", "timestamps"))
            if "rate" in a:
                kwargs["rate"] = self.number(a["rate"], "arrival.rate")
            if "timestamps" in a:
                if not isinstance(a["timestamps"], bool):
                    raise self.fail("arrival.timestamps", f"must be true or false (got {a['timestamps']!r})")
                kwargs["timestamps"] = a["timestamps"]
        if d.get("tenants") is not None:
            t = self.mapping(d["tenants"], "tenants", ("count", "names", "shares"))
            count = self.integer(t["count"], "tenants.count") if "count" in t else None
            if "names" in t:
                raw = t["names"]
                if not isinstance(raw, list) or not raw:
                    raise self.fail("tenants.names", "must be a non-empty list of names")
                tnames = tuple(self.string(n, f"tenants.names[{i}]") for i, n in enumerate(raw))
                if len(set(tnames)) != len(tnames):
                    raise self.fail("tenants.names", "names must be distinct")
                if count is not None and count != len(tnames):
                    raise self.fail("tenants.count", f"is {count} but {len(tnames)} names are given")
            else:
                if count is None:
                    raise self.fail("tenants", "give count or names")
                tnames = tuple(f"tenant-{i + 1}" for i in range(count))
            shares = (self.shares(t["shares"], "tenants.shares", len(tnames)) if "shares" in t
                      else tuple(1.0 / len(tnames) for _ in tnames))
            kwargs["tenants"] = Tenants(tnames, shares)
        if "output_tokens" in d:
            kwargs["output_tokens"] = self.length(d["output_tokens"], "output_tokens", 1)
        raw_messages = d["messages"]
        if not isinstance(raw_messages, list) or not raw_messages:
            raise self.fail("messages", "must be a non-empty list of messages")
        kwargs["messages"] = tuple(self.message(m, f"messages[{i}]", d, names) for i, m in enumerate(raw_messages))
        if d.get("conversation") is not None:
            c = self.mapping(d["conversation"], "conversation", ("turns", "think_seconds", "append"), ("turns",))
            append = c.get("append", [])
            if not isinstance(append, list):
                raise self.fail("conversation.append", "must be a list of messages")
            kwargs["conversation"] = Conversation(
                turns=self.length(c["turns"], "conversation.turns", 1),
                think_seconds=self.number(c.get("think_seconds", 30), "conversation.think_seconds", positive=False),
                append=tuple(self.message(m, f"conversation.append[{i}]", d, names) for i, m in enumerate(append)))
        return Spec(**kwargs)
