"""The model whose cache semantics a command applies: named, or read from ``--model-dir``."""

from __future__ import annotations

from pathlib import Path

from advisor.console import log
from advisor.cost.catalog import ModelSpec, load_config_json, resolve_gpu, resolve_model
from advisor.errors import AdvisorError
from advisor.index.geometry import CacheGeometry


def model_for(model: str | None, model_dir: Path | None) -> ModelSpec | None:
    """``model`` (a catalog name or a config.json path) or the config.json of ``model_dir``.

    A named model that cannot be read is an error; a model folder's config.json only gives the
    layout when it can be read (a tokenizer folder need not hold a full config), and says so."""
    if model is not None:
        return resolve_model(model)
    try:
        if model_dir is None or not (model_dir / "config.json").is_file():
            return None
        return load_config_json(model_dir)
    except OSError:  # a folder name the file system refuses: the folder's own reader says so
        return None
    except AdvisorError as exc:
        log(f"advisor: {exc}; the cache is taken to be full attention on every layer")
        return None


def geometry_for(spec: ModelSpec | None, engine: str, *, page_size: int = 1, gpu: str | None = None,
                 block_size: int | None = None, tp: int = 1, kv_dtype: str = "bf16") -> CacheGeometry | None:
    """The engine's cache geometry on the model, or None where every layer is full attention
    (the commands then keep their plain definition of a hit). ``tp`` and ``kv_dtype`` size
    vLLM's hybrid block (one attention page holds one state page, per GPU)."""
    gpu_spec = resolve_gpu(gpu) if gpu else None  # an unknown --gpu is an error either way
    if spec is None:
        return None
    from advisor.cost.layout import cache_geometry  # only runs that name a model need it

    geo = cache_geometry(spec, engine, gpu=gpu_spec, page_size=page_size, block_size=block_size, tp=tp,
                         kv_dtype=kv_dtype)
    return None if geo.is_dense else geo
