"""The advisory's engine comparison, timings and decision (advisor.advise, advisor.cost.compute).

Figures derived by hand from the catalog (REFERENCE.md §5-§8): Llama 3.1 8B has N = 6,979,588,096
non-embedding parameters, 32 layers of 32 heads × 128; Llama 3.1 70B has 70,553,706,496
parameters, an untied 128,256 × 8,192 embedding and head (N = 68,452,360,192), 80 layers of 64
heads × 128. Dense BF16 peaks: H100 SXM 989.4 TFLOPS, A100 SXM 312; bandwidth 3,350 GB/s.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from advisor.advise.decide import Thresholds, decide
from advisor.cost import engine_timings, estimate_cost, prefill_tokens_per_second, resolve_gpu, resolve_model
from tests.conftest import DEMO_TRAFFIC, ROOT

N8, N70 = 6_979_588_096, 70_553_706_496 - 2 * 128_256 * 8_192
T = 2048  # the cold prompt of the stated prefill figure


def hand_prefill_tokens_s(n: int, layers: int, heads: int, head_dim: int, tflops: float, tp: int,
                          mfu: float = 0.5) -> float:
    flops = 2 * n * T + layers * 2 * heads * (2 * head_dim) * T * T / 2
    return T / (flops / (tp * tflops * 1e12 * mfu))


@pytest.mark.parametrize("model, gpu, tp, expected", [
    ("llama-3.1-8b", "h100", 1, hand_prefill_tokens_s(N8, 32, 32, 128, 989.4, 1)),  # ≈ 34,127 tokens/s
    ("llama-3.1-8b", "a100", 1, hand_prefill_tokens_s(N8, 32, 32, 128, 312, 1)),  # ≈ 10,762
    ("llama-3.1-70b", "h100", 4, hand_prefill_tokens_s(N70, 80, 64, 128, 989.4, 4)),  # ≈ 14,176
    ("llama-3.1-70b", "a100", 4, hand_prefill_tokens_s(N70, 80, 64, 128, 312, 4)),  # ≈ 4,470
])
def test_prefill_tokens_per_second_from_the_catalog(model, gpu, tp, expected):
    t = engine_timings(resolve_model(model), resolve_gpu(gpu), tp=tp)
    assert prefill_tokens_per_second(t, T) == pytest.approx(expected, rel=1e-9)
    assert round(expected) in {34_127, 10_762, 14_176, 4_470}


def test_decode_step_from_the_catalog():
    bw = 3350e9 * 0.75
    # 8B, one sequence of 2,048 tokens: 16,060,522,496 B of weights + 2,048 × 131,072 B of KV.
    t8 = engine_timings(resolve_model("llama-3.1-8b"), resolve_gpu("h100"))
    assert t8.decode_seconds(1, 2048, 1) == pytest.approx((16_060_522_496 + 2048 * 131_072) / bw, rel=1e-9)
    assert t8.decode_seconds(1, 2048, 1) * 1e3 == pytest.approx(6.499, abs=0.001)
    # 70B on 4 GPUs: each reads a quarter of 141,107,412,992 B and a quarter of the KV heads.
    t70 = engine_timings(resolve_model("llama-3.1-70b"), resolve_gpu("h100"), tp=4)
    expected = (141_107_412_992 / 4 + 2048 * 327_680 / 4) / bw
    assert t70.decode_seconds(1, 2048, 1) == pytest.approx(expected, rel=1e-9)  # ≈ 14.107 ms
    # A batch of 64 such sequences reads the weights once and 64 sequences' KV.
    assert t8.decode_seconds(64, 64 * 2048, 1) == pytest.approx((16_060_522_496 + 64 * 2048 * 131_072) / bw)
    # Steps add a token a sequence: three steps of 2 sequences cost 3 base steps + (0+1+2)·2 tokens.
    kv = 131_072 / bw
    assert t8.decode_seconds(2, 4096, 3) == pytest.approx(3 * t8.decode_seconds(2, 4096, 1) + 6 * kv)
    assert t8.steps_within(2, 4096, t8.decode_seconds(2, 4096, 3)) == 3


def test_moe_decode_reads_the_experts_the_batch_touches():
    oss = resolve_model("gpt-oss-120b")
    t = engine_timings(oss, resolve_gpu("h100"))
    # one token routes to 4 of 128 experts; a large batch touches nearly all of them
    assert t.weights_read_seconds(1) == pytest.approx(t.decode_step_s + t.experts_s * 4 / 128)
    assert t.weights_read_seconds(4096) == pytest.approx(t.decode_step_s + t.experts_s, rel=1e-6)


def test_overrides_change_the_timings():
    m, g = resolve_model("llama-3.1-8b"), resolve_gpu("h100")
    base, fast = engine_timings(m, g), engine_timings(m, g, mfu=1.0, bandwidth_util=1.0)
    assert base.prefill_token_s == pytest.approx(2 * fast.prefill_token_s)
    assert base.decode_step_s == pytest.approx(fast.decode_step_s / 0.75)
    fp8 = engine_timings(m, g, weight_dtype="fp8", kv_dtype="fp8")
    assert fp8.prefill_token_s == pytest.approx(base.prefill_token_s * 989.4 / 1978.9)  # FP8 GEMMs
    assert fp8.decode_step_s == pytest.approx(base.decode_step_s / 2)


# --- the advisory --------------------------------------------------------------------------------


def _report(cli, *args) -> dict:
    res = cli("report", *args, "--format", "json", "--output", "-")
    assert res.code == 0, res.err
    return json.loads(res.out)


def test_70b_tp4_timings_differ_from_8b_as_the_arithmetic_says(cli):
    rag = DEMO_TRAFFIC / "rag_tools.jsonl"
    small = _report(cli, "--traffic", rag)
    big = _report(cli, "--traffic", rag, "--model", "llama-3.1-70b")
    # report picks the fewest GPUs that fit (4) and carries it to the launch command
    assert big["input"]["tp"] == 4 and small["input"]["tp"] == 1
    assert "--tensor-parallel-size 4" in big["rollout"]["vllm_command"]
    assert "--tp 4" in big["rollout"]["sglang_command"]
    # stated timings: prefill per token N70/4 against N8 (2.452×), decode base 35.28 / 16.06 GB (2.197×)
    assert big["timings"]["prefill_token_s"] / small["timings"]["prefill_token_s"] == pytest.approx(N70 / 4 / N8)
    assert big["timings"]["decode_step_s"] / small["timings"]["decode_step_s"] == pytest.approx(
        141_107_412_992 / 4 / 16_060_522_496)
    # simulated: with no caching every prompt token is prefilled, so the prefill seconds scale
    # between the linear ratio and the attention ratio (80·64 / (32·32) / 4 = 1.25); the 70B
    # is slower in the same direction on throughput and TTFT.
    e8 = small["simulation"]["engines"]["setups"]["none"]
    e70 = big["simulation"]["engines"]["setups"]["none"]
    ratio = e70["prefill_seconds"] / e8["prefill_seconds"]
    assert 1.25 < ratio < N70 / 4 / N8 * 1.0001 and ratio > 2.2
    # A decode step reads 2.197× the weights but, per GPU, 0.625× the KV a token (81,920 B
    # against 131,072 B): the decode seconds land between the two ratios.
    decode = e70["decode_seconds"] / e8["decode_seconds"]
    assert 327_680 / 4 / 131_072 < decode < 141_107_412_992 / 4 / 16_060_522_496
    for k in ("sglang", "vllm", "none"):
        s8 = small["simulation"]["engines"]["setups"][k]
        s70 = big["simulation"]["engines"]["setups"][k]
        assert s70["throughput_tokens_s"] < s8["throughput_tokens_s"]
        assert s70["ttft_p50_s"] > s8["ttft_p50_s"]


def scheduler_workload(path: Path) -> Path:
    """16 groups of 8 requests sharing a 30,720-token (60-block) prefix, interleaved, all at once:
    960 blocks of prefixes against an 816-block pool. FCFS over LRU evicts each group's
    prefix before its next request; SGLang's lpm serves a group while its prefix is resident
    (128 waiting requests: within lpm's limit)."""
    rng = random.Random(1)
    groups = [[rng.randrange(10**6) for _ in range(60)] for _ in range(16)]
    with path.open("w") as f:
        for _ in range(8):
            for g in groups:
                ids = g + [rng.randrange(10**6, 2 * 10**6)]
                f.write(json.dumps({"hash_ids": ids, "input_length": 512 * 60 + 300, "output_length": 16}) + "\n")
    return path


def test_scheduler_makes_the_difference(cli, tmp_path):
    data = _report(cli, "--traffic", scheduler_workload(tmp_path / "groups.jsonl"))
    cmp = data["simulation"]["engines"]
    add = cmp["sglang_over_vllm"]
    assert cmp["setups"]["vllm"]["hit_rate"] < 0.05
    assert add["hit_rate_points_scheduler"] > 0.5 and add["throughput_gain"] > 1.0
    assert data["decision"] == "go" and data["engine"] == "sglang"
    assert any(r.startswith("SGLang is worth the change of engine") for r in data["reasons"])
    assert data["rollout"]["command"].startswith("python -m sglang.launch_server")
    assert "--schedule-policy lpm" in data["rollout"]["command"]


def _facts(hit: float, gain: float, ttft: float, points: float) -> dict:
    setup = {"speedup": 1.5, "ttft_p90_s": 0.1}
    return {"traffic": {"hit_rate": hit, "hit_rate_after_prescription": hit, "findings": []},
            "simulation": {"engines": {
                "setups": {"vllm": setup, "sglang": setup}, "decode_share_no_cache": 0.3, "speedup_ceiling": 3.3,
                "sglang_over_vllm": {"hit_rate_points": points, "hit_rate_points_cache": points,
                                     "hit_rate_points_scheduler": 0.0, "throughput_gain": gain,
                                     "ttft_p90_gain": ttft}},
                "at_pool": {"fcfs": {"hit_rate": hit}, "lpm": {"hit_rate": hit}}, "optimal_at_pool": hit,
                "unlimited_hit_rate": hit, "starvation": []},
            "cost": {"kv_pool_tokens": 1000, "tp": 1, "gpu": "g"}}


@pytest.mark.parametrize("hit, gain, ttft, points, expected", [
    (0.6, 0.049, 0.099, 0.029, ("no-go", "vllm")),  # just under every bar: keep vLLM
    (0.6, 0.05, 0.0, 0.0, ("go", "sglang")),  # throughput bar
    (0.6, 0.0, 0.10, 0.0, ("go", "sglang")),  # TTFT bar
    (0.6, 0.0, 0.0, 0.03, ("go", "sglang")),  # hit-rate bar
    (0.35, 0.5, 0.5, 0.2, ("trial", "sglang")),  # between the hit-rate thresholds
    (0.2, 0.5, 0.5, 0.2, ("no-go", "vllm")),  # caching does not pay
])
def test_decision_rules(hit, gain, ttft, points, expected):
    got = decide(_facts(hit, gain, ttft, points), Thresholds())
    assert (got["decision"], got["engine"]) == expected
    assert any("1.50×" in r for r in got["reasons"]) or hit < 0.3


def test_demo_advisory_shows_the_engines_and_a_speedup_with_its_decode_share():
    text = (ROOT / "outputs" / "skill-radix-scheduler-advisor.md").read_text()
    import re

    section = re.split(r"^## \d+\. SGLang against vLLM against no caching$", text, flags=re.M)[1].split("\n## ")[0]
    for row in ("| no caching |", "| vLLM (block 16, block LRU, FCFS) |", "| SGLang lpm (page 1, leaf LRU) |"):
        assert row in section
    assert "speedup | decode share |" in section
    assert "saturated throughput is" in text.split("## 1.")[0]  # the decision's reasons cite it


# --- command line ----------------------------------------------------------------------------------


def test_traffic_file_where_templates_are_expected(cli):
    a, b = DEMO_TRAFFIC / "rag_tools.jsonl", DEMO_TRAFFIC / "single_shot.jsonl"
    res = cli("report", "-t", a, b)
    assert res.code == 2 and res.out == ""
    assert res.err.strip() == (f"advisor: error: {b}: a traffic file given where templates are expected; "
                               f"--traffic takes one file each time (--traffic {b})")


def test_format_json_prints_json_and_output_names_the_markdown(cli, tmp_path):
    md = tmp_path / "advice.md"
    res = cli("report", "--traffic", DEMO_TRAFFIC / "rag_templated.jsonl", "--format", "json", "--output", md)
    assert res.code == 0, res.err
    data = json.loads(res.out)
    assert data["decision"] in ("go", "no-go", "trial")
    assert md.read_text().startswith("# SGLang radix-cache and scheduler advisory")
    assert md.with_suffix(".png").exists()


def test_report_with_tp_that_does_not_fit_is_one_line_error(cli):
    res = cli("report", "--traffic", DEMO_TRAFFIC / "rag_templated.jsonl", "--model", "llama-3.1-70b", "--tp", "1",
              "--format", "json", "--output", "-")
    assert res.code == 2 and res.out == ""
    assert "use --tp 4 (the fewest GPUs that fit)" in res.err and res.err.count("\n") == 1


def test_cost_output_writes_the_file(cli, tmp_path):
    out = tmp_path / "cost.json"
    res = cli("cost", "--model", "llama-3.1-8b", "--gpu", "h100", "--format", "json", "--output", out)
    assert res.code == 0 and res.out == ""
    assert json.loads(out.read_text())["kv_bytes_per_token"] == 131_072
    md = tmp_path / "cost.md"
    assert cli("cost", "--model", "llama-3.1-8b", "--gpu", "h100", "--output", md).code == 0
    assert md.read_text().startswith("| quantity | value | how |")


def test_estimate_cost_states_the_timings():
    e = estimate_cost(resolve_model("llama-3.1-8b"), resolve_gpu("h100"))
    assert round(e.prefill_tokens_per_s) == 34_127
    assert e.decode_step_seconds_batch1 * 1e3 == pytest.approx(6.499, abs=0.001)


@pytest.mark.parametrize("args", [("report", "--bogus"), ("cost", "--tp", "x"), ("simulate", "--nope"), ("nosuch",)])
def test_every_usage_error_has_one_line_form(cli, args):
    res = cli(*args)
    assert res.code == 2 and res.out == ""
    lines = res.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("advisor: error: "), res.err
