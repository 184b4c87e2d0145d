"""`advisor simulate`: a KV pool with capacity, eviction, scheduling, replicas and tenants.

Modules: ``model`` (jobs, hit rules, cost model, totals), ``cache`` (the pool interface),
``branch_lru`` (SGLang whole-leaf eviction), ``block_lru`` (vLLM block free queue),
``replay`` (one request at a time), ``serve`` (discrete-event engine), ``schedulers``,
``router``, ``workloads`` (seed workloads), ``runner`` (runs, sweeps, tenants),
``report`` (dicts, tables, findings).
"""
