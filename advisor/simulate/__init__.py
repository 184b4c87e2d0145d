"""`advisor simulate`: a KV pool with capacity, eviction, scheduling, replicas and tenants.

Modules: ``model`` (jobs, hit rules, cost model, totals), ``inputs`` (sequences to jobs,
arrival times), ``cache`` (the pool interface), ``branch_lru`` (SGLang whole-leaf
eviction: branch-lru, lfu, fifo), ``block_lru`` (vLLM block free queue), ``replay`` (one
request at a time), ``serve`` (discrete-event engine), ``schedulers``, ``router``,
``workloads`` (seed workloads), ``runner`` (runs, sweeps, tenant twins, findings),
``report`` (JSON, tables, explanations).
"""
