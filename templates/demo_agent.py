"""Agent tasks for the operations-agent demo traffic (Lumenfield Payments, a fictional company).

A scenario is a list of task phrasings plus the tool-call steps the agent takes. Step builders
receive the conversation context (service, environment, values drawn by the generator) and
return (assistant_text, tool_name, arguments, result). Every request of a multi-step episode
carries the whole history so far, so later steps extend earlier ones.
"""

SERVICES = [
    ("ledger-api", "ledger"),
    ("auth-gateway", "payments-core"),
    ("risk-scorer", "risk"),
    ("webhook-dispatcher", "edge"),
    ("identity-service", "identity"),
    ("event-router", "data-platform"),
    ("payout-scheduler", "ledger"),
    ("merchant-portal", "identity"),
    ("fx-rates", "payments-core"),
    ("refund-service", "payments-core"),
]
ENGINEERS = ["@dana.k", "@mo.haddad", "@lena.v", "@arjun", "@pieter.b", "@sam.o", "@yusuf", "@ines.r"]
REGIONS = ["eu-west", "us-east"]


def _health(ctx, rng, status):
    return {
        "service": ctx["service"],
        "environment": ctx["environment"],
        "status": status,
        "error_rate_5m": round(ctx["error_rate"] if status != "healthy" else rng.uniform(0.0, 0.05), 3),
        "p99_latency_ms": ctx["p99"] if status != "healthy" else rng.randint(40, 180),
        "slo_burn_rate_1h": round(rng.uniform(4.0, 22.0) if status != "healthy" else rng.uniform(0.1, 0.9), 2),
        "ready_replicas": ctx["replicas"],
        "desired_replicas": ctx["replicas"],
        "active_alerts": [ctx["alert"]] if status != "healthy" else [],
    }


def _deployments(ctx, rng):
    return {
        "service": ctx["service"],
        "deployments": [
            {"version": ctx["new_version"], "deployed_at": ctx["deploy_time"], "author": ctx["author"],
             "change": f"CHG-{rng.randint(10000, 99999)}", "status": "complete", "contains_migration": False},
            {"version": ctx["old_version"], "deployed_at": ctx["older_deploy_time"], "author": rng.choice(ENGINEERS),
             "change": f"CHG-{rng.randint(10000, 99999)}", "status": "complete", "contains_migration": False},
        ],
    }


def step_health(ctx, rng):
    return (
        f"Checking the current health of {ctx['service']} in {ctx['environment']}.",
        "get_service_health",
        {"service": ctx["service"], "environment": ctx["environment"]},
        _health(ctx, rng, ctx["status"]),
    )


def step_deployments(ctx, rng):
    return (
        "Error rate is above the SLO. Checking recent deployments to see whether the start of the errors lines up with a change.",
        "list_deployments",
        {"service": ctx["service"], "environment": ctx["environment"], "limit": 5},
        _deployments(ctx, rng),
    )


def step_error_metrics(ctx, rng):
    points = [round(rng.uniform(0.01, 0.08), 3) for _ in range(4)] + [
        round(ctx["error_rate"] * rng.uniform(0.8, 1.1), 3) for _ in range(4)
    ]
    return (
        "Querying the 5xx ratio over the last hour to pin down when the errors started.",
        "query_metrics",
        {
            "promql": f'sum(rate(http_requests_total{{service="{ctx["service"]}",code=~"5.."}}[5m])) / '
                      f'sum(rate(http_requests_total{{service="{ctx["service"]}"}}[5m])) * 100',
            "lookback_minutes": 60,
            "step_seconds": 450,
        },
        {"unit": "percent", "step_seconds": 450, "values": points},
    )


def step_latency_metrics(ctx, rng):
    return (
        "Looking at p99 latency from the request duration histogram.",
        "query_metrics",
        {
            "promql": f'histogram_quantile(0.99, sum by (le) (rate(http_request_duration_seconds_bucket{{service="{ctx["service"]}"}}[5m])))',
            "lookback_minutes": 60,
        },
        {"unit": "seconds", "step_seconds": 60, "summary": {
            "first": round(rng.uniform(0.08, 0.2), 3), "max": round(ctx["p99"] / 1000, 3), "last": round(ctx["p99"] / 1000 * 0.9, 3)}},
    )


def step_logs(ctx, rng):
    kinds = ["UpstreamTimeout", "PoolExhausted", "SerializationError", "ConnectionReset", "DeadlineExceeded"]
    kind = kinds[ctx["kind_index"] % len(kinds)]
    lines = []
    for i in range(3):
        lines.append({
            "ts": f"{ctx['hour']:02d}:{(ctx['minute'] + i) % 60:02d}:{rng.randint(0, 59):02d}",
            "level": "error",
            "msg": {
                "UpstreamTimeout": "upstream request timed out after 2000ms",
                "PoolExhausted": "could not acquire connection from pool within 500ms",
                "SerializationError": "failed to decode response body: unexpected field 'fee_breakdown'",
                "ConnectionReset": "connection reset by peer while reading response",
                "DeadlineExceeded": "context deadline exceeded calling risk-scorer",
            }[kind],
            "error.kind": kind,
            "trace_id": f"{rng.getrandbits(64):016x}",
        })
    return (
        "Searching error logs for the dominant error kind.",
        "search_logs",
        {"service": ctx["service"], "environment": ctx["environment"], "query": "level:error", "since_minutes": 30},
        {"total_matches": rng.randint(120, 4000), "lines": lines},
    )


def step_runbook(ctx, rng):
    return (
        f"Reading the runbook for {ctx['alert']} before proposing any remediation.",
        "get_runbook",
        {"alert_name": ctx["alert"], "service": ctx["service"]},
        {"markdown": (
            f"# {ctx['alert']}\n\nOwner: {ctx['team']}.\n\n1. Check recent deployments; if the alert started within "
            "15 minutes of a deploy, roll back to the previous version (production requires an approval token).\n"
            "2. If no deploy, check dependencies (PostgreSQL connections, Redis latency).\n"
            f"3. Scaling out is {'safe' if ctx['scale_safe'] else 'NOT safe (connection limits)'} for this service.\n"
            "4. Open a SEV2 if the error rate stays above 1% for 10 minutes."
        )},
    )


def step_create_incident(ctx, rng):
    return (
        "Customer impact is confirmed in production for more than five minutes, so opening an incident.",
        "create_incident",
        {
            "title": f"{ctx['service']} elevated 5xx after {ctx['new_version']} deploy",
            "severity": "SEV2",
            "services": [ctx["service"]],
            "summary": f"5xx ratio {ctx['error_rate']}% (SLO 0.1%) since {ctx['hour']:02d}:{ctx['minute']:02d} UTC, "
                       f"starting minutes after {ctx['new_version']} was deployed.",
        },
        {"incident_id": f"INC-{rng.randint(4000, 9999)}", "channel": f"#inc-{ctx['service']}", "status": "open"},
    )


def step_page(ctx, rng):
    return (
        f"Paging the {ctx['team']} on-call with the evidence so far.",
        "page_oncall",
        {"team": ctx["team"], "message": f"{ctx['service']} 5xx at {ctx['error_rate']}% in {ctx['environment']} since "
                                         f"{ctx['hour']:02d}:{ctx['minute']:02d} UTC, started after {ctx['new_version']} deploy. "
                                         "Rollback proposed, needs approval token."},
        {"paged": True, "responder": rng.choice(ENGINEERS), "acknowledged": False},
    )


def step_scale(ctx, rng):
    target = ctx["replicas"] + max(1, ctx["replicas"] // 2)
    return (
        "The runbook marks scaling out as safe and CPU saturation matches the latency increase. Scaling out by 50%.",
        "scale_deployment",
        {"service": ctx["service"], "environment": ctx["environment"], "replicas": target,
         "reason": f"p99 {ctx['p99']} ms above SLO under load; runbook allows scale-out"},
        {"service": ctx["service"], "previous_replicas": ctx["replicas"], "replicas": target, "status": "scaling"},
    )


def step_rollback_staging(ctx, rng):
    return (
        "Staging rollback was requested and does not need an approval token. Rolling back to the previous version.",
        "rollback_deployment",
        {"service": ctx["service"], "environment": "staging", "to_version": ctx["old_version"],
         "reason": f"requested by {ctx['author']}: {ctx['new_version']} breaks integration tests"},
        {"service": ctx["service"], "environment": "staging", "rolled_back_to": ctx["old_version"], "status": "progressing"},
    )


SCENARIOS = {
    "alert_after_deploy": {
        "environment": "production",
        "status": "degraded",
        "tasks": [
            "Alert {alert} fired for {service} in production {ago} minutes ago. Find out what is going on.",
            "[paging-bridge] FIRING {alert} service={service} env=production region={region} for={ago}m",
            "{engineer}: {service} is throwing 5xx in prod since about {hh}:{mm} UTC, can you take a look?",
        ],
        "steps": [step_health, step_deployments, step_error_metrics, step_logs, step_runbook, step_create_incident, step_page],
    },
    "latency_scale": {
        "environment": "production",
        "status": "degraded",
        "tasks": [
            "Alert {alert} fired for {service} in production. p99 is over budget, please investigate.",
            "{engineer}: merchants report slow responses from {service} in {region}, anything on our side?",
        ],
        "steps": [step_health, step_latency_metrics, step_runbook, step_scale],
    },
    "staging_rollback": {
        "environment": "staging",
        "status": "degraded",
        "tasks": [
            "{engineer}: please roll {service} in staging back to the previous version, the new build breaks our integration tests.",
            "{engineer}: staging {service} is broken after this morning's deploy, revert it please",
        ],
        "steps": [step_deployments, step_rollback_staging],
    },
    "health_check": {
        "environment": "production",
        "status": "healthy",
        "tasks": [
            "{engineer}: quick sanity check, is {service} healthy in prod right now?",
            "{engineer}: before I start the {service} load test in staging, is prod {service} looking normal?",
            "Is anything wrong with {service}? A merchant says their requests failed around {hh}:{mm} UTC.",
        ],
        "steps": [step_health],
    },
    "log_dive": {
        "environment": "production",
        "status": "degraded",
        "tasks": [
            "{engineer}: what errors is {service} logging in production over the last half hour?",
            "Alert {alert} for {service} (production). Summarise the errors and tell me who owns the fix.",
        ],
        "steps": [step_health, step_logs, step_runbook],
    },
}

ALERTS = {
    "alert_after_deploy": ["HighErrorRate", "SLOBurnRateFast", "5xxRatioAboveThreshold"],
    "latency_scale": ["P99LatencyHigh", "SLOBurnRateSlow"],
    "staging_rollback": ["HighErrorRate"],
    "health_check": ["HighErrorRate"],
    "log_dive": ["ErrorLogSpike", "HighErrorRate"],
}

FINAL_ANSWERS = {
    "alert_after_deploy": "Likely cause: {new_version} of {service}, deployed at {deploy_time}, started returning 5xx ({error_rate}% vs SLO 0.1%).",
    "latency_scale": "Done: scaled {service} out; watching p99 for the next 10 minutes.",
    "staging_rollback": "Done: rollback of {service} in staging to {old_version} is progressing.",
    "health_check": "No issue found: {service} is healthy in production.",
    "log_dive": "Likely cause: errors in {service} are dominated by one error kind; owner is {team}.",
}
