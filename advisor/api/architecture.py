"""The model whose cache semantics a command applies: named, or read from ``--model-dir``."""

from __future__ import annotations

from pathlib import Path

from advisor.console import log
from advisor.cost.catalog import ModelSpec, load_config_json, resolve_model
from advisor.errors import AdvisorError
from advisor.index.geometry import CacheGeometry


def model_for(model: str | None, model_dir: Path | None) -> ModelSpec | None:
    """``model`` (a catalog name or a config.json path) or the config.json of ``model_dir``.

    A named model that cannot be read is an error; a model folder's config.json only gives the
    layout when it can be read (a tokenizer folder need not hold a full config), and says so."""
    if model is not None:
        return resolve_model(model)
    if model_dir is None or not (model_dir / "config.json").is_file():
        return None
    try:
        return load_config_json(model_dir)
    except AdvisorError as exc:
        log(f"advisor: {exc}; the cache is taken to be full attention on every layer")
        return None


def geometry_for(spec: ModelSpec | None, engine: str, *, page_size: int = 1, gpu: str | None = None,
                 block_size: int | None = None) -> CacheGeometry | None:
    """The engine's cache geometry on the model, or None where every layer is full attention
    (the commands then keep their plain definition of a hit)."""
    if spec is None:
        return None
    from advisor.cost.layout import cache_geometry  # only runs that name a model need it
    from advisor.cost.catalog import resolve_gpu

    geo = cache_geometry(spec, engine, gpu=resolve_gpu(gpu) if gpu else None,
                         page_size=page_size, block_size=block_size)
    return None if geo.is_dense else geo
