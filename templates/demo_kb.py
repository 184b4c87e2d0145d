"""Knowledge-base corpus for the RAG demo traffic (Corvina Data Cloud, a fictional product).

Each entry is (title, text). The order is the popularity rank used by the generator: earlier
entries are retrieved more often (Zipf-like), as the handful of getting-started and billing
pages are in a real help centre.
"""

DOCUMENTS = [
    (
        "Warehouse auto-suspend and auto-resume",
        "Every Corvina warehouse has an idle timer. When no query has run for the number of seconds "
        "set in `auto_suspend_seconds`, the warehouse suspends and stops consuming credits. The default "
        "is 600 seconds for warehouses created in the console and 300 seconds for warehouses created "
        "with the CLI or Terraform provider version 2.4 and later. The minimum accepted value is 60; a "
        "value of 0 disables suspension, which is rarely what you want outside of latency-critical "
        "dashboards.\n\nAuto-resume is on by default: the first query sent to a suspended warehouse "
        "starts it again, and the query waits until at least one compute node is ready. Resume usually "
        "takes 2 to 8 seconds for X-Small through Large sizes and up to 40 seconds for 2X-Large and "
        "above. The local disk cache is lost on suspend, so the first queries after a resume read from "
        "object storage and run slower.\n\nTo change the timer, open Warehouses > (warehouse) > Settings "
        "or run `ALTER WAREHOUSE reporting_wh SET auto_suspend_seconds = 300;`. Billing is per second "
        "with a 60-second minimum each time a warehouse starts.\n\nLast reviewed: 2026-08-14.",
    ),
    (
        "Credits, plans and how usage is billed",
        "Corvina bills compute in credits. A warehouse consumes credits for every second it is running, "
        "at a rate set by its size: X-Small 1 credit per hour, Small 2, Medium 4, Large 8, X-Large 16, "
        "2X-Large 32 and 3X-Large 64. Streaming pipelines consume 0.5 credits per hour per active "
        "partition group. Storage is billed separately per average terabyte per month.\n\nThree plans are "
        "available. Standard includes a single region, 1 day of Time Travel and business-hours support. "
        "Business adds up to 30 days of Time Travel, customer-managed keys, private connectivity and "
        "24x7 support for sev1 and sev2 tickets. Enterprise adds multi-region replication, a named "
        "technical account manager and a 99.95% availability commitment.\n\nThe list price of a credit "
        "on the Standard plan is 2.40 USD in us-east-1 and 2.70 USD in eu-central-1. Prepaid capacity "
        "contracts receive a discount negotiated with the account team; those prices are not shown in "
        "the console. Unused prepaid credits expire at the end of the contract term unless the renewal "
        "includes a rollover clause.\n\nLast reviewed: 2026-07-02.",
    ),
    (
        "Getting started: create your first warehouse",
        "A warehouse is the compute that runs your queries. Data is stored independently of "
        "warehouses, so you can create, resize and drop them without moving data.\n\n1. In the console, "
        "open Warehouses and choose Create warehouse.\n2. Pick a name. Names are case-insensitive, "
        "unique within the organisation, and limited to 64 characters of letters, digits and "
        "underscores.\n3. Choose a size. Start with X-Small or Small for development work; you can "
        "resize at any time and the new size applies to the next query.\n4. Leave auto-suspend at the "
        "default unless you know the access pattern.\n5. Grant USAGE on the warehouse to the roles that "
        "should run queries on it.\n\nFrom the CLI the same warehouse is created with "
        "`corvina warehouse create dev_wh --size xsmall --auto-suspend 300`. New organisations can "
        "create up to 10 warehouses; the limit can be raised through a support ticket.",
    ),
    (
        "Roles and privileges reference",
        "Access in Corvina follows role-based access control. Privileges are granted to roles, roles "
        "are granted to users or to other roles, and a session acts with the privileges of its primary "
        "role plus any secondary roles enabled with `USE SECONDARY ROLES ALL`.\n\nSystem roles: "
        "ORG_ADMIN manages billing, users and organisation settings; SECURITY_ADMIN manages grants and "
        "network policies; SYS_ADMIN creates warehouses, databases and pipelines; PUBLIC is granted to "
        "everyone. Custom roles should be created by SECURITY_ADMIN and granted to SYS_ADMIN so that "
        "objects they own stay manageable.\n\nCommon privileges: USAGE on a warehouse lets a role run "
        "queries on it; OPERATE lets it suspend, resume and resize; MONITOR lets it see query history. "
        "SELECT, INSERT, UPDATE and DELETE apply to tables and views. OWNERSHIP can be transferred with "
        "`GRANT OWNERSHIP ... COPY CURRENT GRANTS`.\n\nGrants on future objects are set per schema with "
        "`GRANT SELECT ON FUTURE TABLES IN SCHEMA sales.public TO ROLE analyst;`.",
    ),
    (
        "Time Travel and undropping tables",
        "Time Travel keeps the previous versions of a table for a retention period so that you can "
        "query data as it was, restore a dropped object, or clone a table at a point in the past. The "
        "retention period is 1 day on the Standard plan and can be set from 0 to 30 days on Business "
        "and Enterprise with the `data_retention_days` parameter at the account, database, schema or "
        "table level.\n\nTo read a past version, add `AT (TIMESTAMP => '2026-09-01 08:00:00')` or "
        "`BEFORE (STATEMENT => '<query id>')` after the table name. To restore a dropped table, run "
        "`UNDROP TABLE sales.public.orders;` within the retention period. If a table with the same "
        "name exists, rename it first.\n\nAfter retention ends, data moves to Fail-safe for 7 days. "
        "Fail-safe cannot be queried by customers; recovery from it is a best-effort operation run by "
        "Corvina Support and may take several hours. Time Travel storage is billed like regular "
        "storage.",
    ),
    (
        "Support plans and response times",
        "Corvina Support accepts tickets through the console (Help > Contact support), through the "
        "create-ticket API, and by email for Business and Enterprise customers. Each ticket has a "
        "severity chosen by the customer and reviewed by the support engineer.\n\nSev1: production "
        "outage with no workaround. First response within 1 hour, 24x7, on Business and Enterprise; "
        "within 4 business hours on Standard. Sev2: major degradation or a workaround that cannot be "
        "sustained. First response within 4 hours (Business, Enterprise) or 1 business day (Standard). "
        "Sev3: a problem with a reasonable workaround, first response within 1 business day. Sev4: "
        "questions and feature requests, first response within 2 business days.\n\nBusiness hours are "
        "08:00 to 18:00 in the customer's support region, Monday to Friday, excluding public holidays. "
        "A support engineer may lower a severity that does not match its definition and will say why "
        "in the ticket. Enterprise customers can also page their technical account manager for sev1 "
        "incidents.\n\nLast reviewed: 2026-05-20.",
    ),
    (
        "Connecting with the JDBC and ODBC drivers",
        "Corvina publishes JDBC and ODBC drivers for Linux, macOS and Windows. The JDBC URL has the "
        "form `jdbc:corvina://<org>.<region>.corvina.cloud:443/?warehouse=<name>&db=<database>`. TLS "
        "is always on; the drivers reject plaintext connections.\n\nAuthentication options are "
        "key-pair, OAuth through your identity provider, and username with password. Password "
        "authentication is disabled by default for organisations created after 2026-03-01 and can be "
        "enabled only by ORG_ADMIN.\n\nDriver 3.x requires Java 11 or later. Connection timeouts "
        "usually mean that a network policy blocks the client IP address; check Security > Network "
        "policies, or ask your administrator to add the address range. Errors with code "
        "CRV-08001 indicate a DNS or proxy problem on the client side. When connecting through a "
        "corporate proxy, set `proxyHost` and `proxyPort` in the JDBC properties, not in the URL.",
    ),
    (
        "Query failed: warehouse queue timeout",
        "Error CRV-57014 (statement timed out while queued) means the query waited in the warehouse "
        "queue longer than `statement_queued_timeout_seconds`, which defaults to 0 (no limit) but is "
        "often set by administrators to between 60 and 600 seconds.\n\nA query queues when every "
        "cluster of the warehouse is already running its maximum number of concurrent statements. "
        "Options, from cheapest to most expensive:\n\n1. Spread scheduled jobs so that they do not all "
        "start on the hour.\n2. Move heavy batch work to a separate warehouse so that dashboards are "
        "not stuck behind it.\n3. Enable multi-cluster scaling with `min_cluster_count = 1` and "
        "`max_cluster_count` of 2 to 4; extra clusters start only while the queue is non-empty.\n4. "
        "Increase the warehouse size, which makes each query faster but does not add concurrency "
        "slots.\n\nMulti-cluster scaling requires the Business plan or above.",
    ),
    (
        "Single sign-on with SAML 2.0",
        "Corvina supports SAML 2.0 single sign-on with any standards-compliant identity provider, "
        "including Okta, Microsoft Entra ID, Google Workspace, OneLogin and Ping. Configuration is done "
        "by ORG_ADMIN under Security > Single sign-on.\n\nThe identity provider must send the user's "
        "email address as the NameID, in the emailAddress format. Users are matched by email; a user "
        "must exist in Corvina before the first SSO login unless just-in-time provisioning is enabled, "
        "in which case new users receive the PUBLIC role only.\n\nThe most common error, \"SAML "
        "response signature invalid\", means the certificate uploaded to Corvina does not match the one "
        "the identity provider currently signs with, typically after a certificate rotation. Download "
        "the new certificate from the identity provider and upload it in the console; both "
        "certificates may be active during a 30-day overlap.\n\nKeep at least one ORG_ADMIN user with "
        "password and MFA login as a break-glass account.",
    ),
    (
        "Streaming pipelines overview",
        "A pipeline moves data continuously from a source into a Corvina table. Supported sources are "
        "Kafka (including Confluent Cloud and Amazon MSK), Amazon Kinesis, Google Pub/Sub and change "
        "data capture from PostgreSQL and MySQL.\n\nEach pipeline is made of partition groups. A "
        "partition group reads a fixed set of source partitions, batches records for at most "
        "`flush_interval_ms` (default 1000) and commits them to the target table. End-to-end latency "
        "is typically between 2 and 10 seconds. Records are written at least once; use the "
        "`dedupe_key` option to drop duplicates within a 24-hour window.\n\nSchema changes in the "
        "source are handled according to `schema_evolution`: `add_columns` (default) adds new nullable "
        "columns, `strict` stops the pipeline on any change, and `ignore` drops unknown fields.\n\n"
        "Pipelines are billed per partition group hour; an idle pipeline that is not paused still "
        "consumes credits.",
    ),
    (
        "Invoices, payment methods and billing contacts",
        "Invoices are issued on the first business day of each month for the previous month's usage, "
        "or annually in advance for prepaid capacity. They are available under Billing > Invoices as "
        "PDF and CSV and are emailed to the billing contacts.\n\nAccepted payment methods are credit "
        "card (Visa, Mastercard, American Express), ACH and SEPA direct debit, and wire transfer for "
        "invoices above 10,000 USD. Payment terms are due on receipt for card payments and net 30 for "
        "invoiced customers.\n\nOnly ORG_ADMIN can change the payment method or billing address. Tax "
        "identifiers such as a VAT number must be added before an invoice is issued; Corvina cannot "
        "reissue past invoices to add a tax ID except when the law of the billing country requires "
        "it.\n\nIf a payment fails, Corvina retries after 3 and 7 days and emails the billing contacts "
        "each time. Accounts more than 30 days overdue may be restricted to read-only access.",
    ),
    (
        "Resizing warehouses and choosing a size",
        "A larger warehouse has more compute nodes, so each query gets more CPU, memory and local "
        "cache. Doubling the size doubles the credit rate and, for scan-heavy queries, roughly halves "
        "the run time, so the cost of a single query stays about the same while it finishes sooner. "
        "Queries that spill to remote storage (visible as \"bytes spilled to remote\" in the query "
        "profile) often run more than twice as fast one size up.\n\nResizing is online: running queries "
        "finish on the old size and new queries start on the new one. A resize to a larger size "
        "provisions the extra nodes in a few seconds; if capacity is short in the region, the "
        "warehouse keeps its old size and the console shows a warning.\n\nRules of thumb: dashboards "
        "with many small queries want multi-cluster scaling more than a larger size; nightly ELT jobs "
        "with large joins benefit from a larger size for the duration of the job, followed by a resize "
        "back down in the same script.",
    ),
    (
        "Network policies and private connectivity",
        "A network policy restricts which IP addresses can reach your Corvina organisation. Policies "
        "contain allowed and blocked CIDR ranges and can be applied to the whole organisation or to "
        "individual users, for example service accounts used by an ETL tool.\n\nCreate a policy with "
        "`CREATE NETWORK POLICY office_only ALLOWED_IP_LIST = ('203.0.113.0/24');` and apply it with "
        "`ALTER ORGANIZATION SET network_policy = office_only;`. Make sure your own address is in the "
        "list before applying an organisation-wide policy, or you will lock yourself out; recovery "
        "then requires a support ticket from a verified ORG_ADMIN.\n\nOn the Business plan and above, "
        "private connectivity is available through AWS PrivateLink, Azure Private Link and Google "
        "Private Service Connect. Private endpoints are requested in the console under Security > "
        "Private connectivity and are usually provisioned within two business days.",
    ),
    (
        "Runbook: pipeline lag is growing",
        "Symptom: the pipeline's `lag_seconds` metric keeps increasing, or the console shows a yellow "
        "\"behind source\" badge.\n\n1. Check the service status page for the pipeline's region. "
        "Incidents affecting ingestion are posted there first.\n2. Open the pipeline's Metrics tab and "
        "compare records in per second with records committed per second. If records in has jumped, "
        "the source is producing more than the partition groups can commit.\n3. Increase "
        "`partition_groups` in steps of 2, up to the number of source partitions. The change takes "
        "effect within a minute and does not lose data.\n4. If commit latency is high rather than "
        "throughput, look for a target table with many small micro-partitions and run "
        "`ALTER TABLE ... RECLUSTER` or enable automatic clustering.\n5. If the pipeline restarts "
        "repeatedly, the error log usually shows a schema change under `strict` evolution or an "
        "expired source credential.\n\nOpen a sev2 ticket if lag exceeds one hour and none of the steps "
        "help.",
    ),
    (
        "Data retention and deletion policy",
        "Customer data stored in Corvina remains the customer's property. When a table, schema or "
        "database is dropped, its data stays recoverable for the Time Travel retention period and then "
        "for 7 days of Fail-safe, after which it is permanently deleted from primary storage.\n\nWhen a "
        "subscription ends, the organisation enters a 30-day grace period in read-only mode, during "
        "which data can be exported. After the grace period, all data is deleted within 30 days, "
        "including backups, and Corvina issues a deletion certificate on request.\n\nQuery history, "
        "including query text, is retained for 365 days and is visible to roles with MONITOR on the "
        "warehouse. Login history is retained for 1 year. Support tickets and their attachments are "
        "retained for 3 years.\n\nRequests to delete personal data about an individual user of the "
        "console are handled by privacy@corvina.cloud. This document describes Corvina's practices and "
        "is not legal advice about your own obligations.\n\nLast reviewed: 2026-06-11.",
    ),
    (
        "Scheduler: defining jobs and dependencies",
        "The Corvina scheduler runs SQL and Python tasks on a cron schedule or after other tasks "
        "finish. A job is a directed acyclic graph of tasks; each task names the warehouse it runs "
        "on.\n\nA schedule uses standard five-field cron syntax plus a time zone, for example "
        "`schedule: \"15 2 * * *\"` with `timezone: Europe/Berlin`. Daylight-saving transitions are "
        "handled by running skipped times once and not repeating duplicated times.\n\nDependencies are "
        "declared with `after: [task_a, task_b]`. A task starts when all its predecessors succeeded; if "
        "one fails, downstream tasks are marked upstream_failed and not run. Retries are configured per "
        "task with `retries` (default 0) and `retry_delay_seconds` (default 60).\n\nA job can run at "
        "most one instance at a time by default. Set `max_concurrent_runs` above 1 only if tasks are "
        "idempotent.",
    ),
    (
        "Cost controls: resource monitors and budgets",
        "Resource monitors cap credit consumption. A monitor has a credit quota for a period (daily, "
        "weekly, monthly or yearly) and a list of triggers. Each trigger fires at a percentage of the "
        "quota and performs an action: NOTIFY emails the administrators, SUSPEND lets running queries "
        "finish and then suspends the assigned warehouses, and SUSPEND_IMMEDIATE cancels running "
        "queries as well.\n\nExample: `CREATE RESOURCE MONITOR analytics_month WITH CREDIT_QUOTA = 5000 "
        "FREQUENCY = MONTHLY TRIGGERS ON 80 PERCENT DO NOTIFY ON 100 PERCENT DO SUSPEND;` then assign it "
        "with `ALTER WAREHOUSE analytics_wh SET resource_monitor = analytics_month;`.\n\nMonitors do not "
        "cover storage or pipeline credits. For those, use budgets under Billing > Budgets, which send "
        "alerts but never suspend anything. Only ORG_ADMIN can create monitors at the organisation "
        "level.",
    ),
    (
        "Catalog: tags, lineage and data classification",
        "The metadata catalog indexes every database, schema, table, view and column in the "
        "organisation. It updates within five minutes of a DDL change.\n\nTags are key-value labels "
        "that can be attached to any object, for example `cost_center = 'marketing'` or "
        "`pii = 'email'`. Tags propagate from a table to the views built on it when "
        "`tag_propagation` is enabled on the schema.\n\nColumn-level lineage is captured automatically "
        "for statements that run on Corvina warehouses, including CREATE TABLE AS SELECT, INSERT ... "
        "SELECT and MERGE. Lineage from external tools is imported through the OpenLineage "
        "endpoint.\n\nAutomatic classification samples up to 10,000 rows per column and suggests tags "
        "for emails, phone numbers, payment card numbers, national identifiers and IP addresses. "
        "Suggestions are never applied without review by a role with APPLY TAG privilege.",
    ),
    (
        "Loading files from object storage",
        "Files in Amazon S3, Azure Blob Storage or Google Cloud Storage are loaded with `COPY INTO`. "
        "First create a storage integration that holds the cloud role Corvina assumes, then a stage "
        "that points at the bucket path, then run the copy.\n\nSupported formats are CSV, JSON, "
        "Parquet, Avro and ORC, optionally compressed with gzip, zstd or snappy. Corvina tracks which "
        "files each table has loaded for 64 days, so running the same COPY twice does not load files "
        "twice unless `FORCE = TRUE` is set.\n\nFor large loads, aim for files between 100 and 250 MB "
        "compressed; thousands of tiny files load slowly because each file has a fixed overhead. The "
        "`ON_ERROR` option controls what happens with bad rows: ABORT_STATEMENT (default), CONTINUE, or "
        "SKIP_FILE. Rejected rows can be inspected with the `VALIDATE` table function.",
    ),
    (
        "Runbook: users cannot log in after an SSO change",
        "Symptom: after a change in the identity provider, users see \"Login failed\" or are sent back "
        "to the identity provider in a loop.\n\n1. Ask one affected user for the exact time of the "
        "attempt. In the console, open Security > Login history, filter by that user, and read the "
        "error code.\n2. CRV-SAML-011 (signature invalid): the signing certificate changed; upload the "
        "new one.\n3. CRV-SAML-014 (audience mismatch): the Entity ID configured in the identity "
        "provider does not match the one shown on the Corvina SSO page, often after copying "
        "settings from a test tenant.\n4. CRV-SAML-020 (user not found): the email sent as NameID does "
        "not match the Corvina user; check for aliases and uppercase letters.\n5. If nobody can log in, "
        "use the break-glass ORG_ADMIN account to disable SSO enforcement temporarily.\n\nDo not "
        "delete and recreate the SSO configuration; that resets the Entity ID.",
    ),
    (
        "Multi-region replication and failover",
        "Enterprise organisations can replicate databases to another region. Replication is "
        "asynchronous: a refresh copies the changes since the last refresh, and refreshes can be "
        "scheduled as often as every minute. The replication lag is shown per database.\n\nFailover "
        "promotes the secondary region to primary. Clients that connect through the organisation's "
        "connection URL (`<org>.global.corvina.cloud`) are redirected automatically within about two "
        "minutes; clients that use a regional URL must be reconfigured.\n\nWarehouses, users, roles "
        "and network policies are replicated along with databases if the replication group includes "
        "account objects. Pipelines and scheduler jobs are not replicated and must be recreated in the "
        "secondary region, ideally through infrastructure as code.\n\nCross-region replication is "
        "billed as data transfer per terabyte plus the compute credits the refreshes use.",
    ),
    (
        "Query profile: reading the execution plan",
        "The query profile shows each operator of an executed query with its share of the run time. "
        "Open it from Query history by selecting a query and choosing Profile.\n\nWhat to look for: "
        "a TableScan with a high \"partitions scanned\" to \"partitions total\" ratio means the filter "
        "does not prune; consider a clustering key on the filtered column. A Join with an output far "
        "larger than both inputs usually means a missing join condition. Bytes spilled to local or "
        "remote storage mean the warehouse ran out of memory for that operator; a larger size or a "
        "more selective query helps.\n\nThe profile is available for 14 days after a query runs and "
        "only to roles with MONITOR on the warehouse or to the user who ran the query.",
    ),
    (
        "Secure data sharing between organisations",
        "Data sharing lets one Corvina organisation give another read access to selected tables and "
        "views without copying data. The provider creates a share, grants objects to it, and adds "
        "consumer organisations by their organisation identifier. The consumer creates a read-only "
        "database from the share.\n\nConsumers pay for the compute they use to query shared data; the "
        "provider pays for storage. Shares work only within the same region; for other regions, "
        "replicate the database first.\n\nOnly secure views can be shared, so that the view definition "
        "stays hidden from consumers. Row access policies on shared tables are evaluated with the "
        "consumer's context, which allows per-consumer filtering with the `CURRENT_ORGANIZATION()` "
        "function.\n\nSharing with organisations outside Corvina is possible through reader accounts, "
        "which the provider creates and pays for.",
    ),
    (
        "Python tasks and packages",
        "Scheduler tasks can run Python 3.11 in a sandboxed container next to the warehouse. A task "
        "receives a Corvina session object and can run SQL through it, read staged files, and write "
        "DataFrames back to tables.\n\nPackages are installed from the curated Corvina channel, which "
        "mirrors common packages such as pandas, numpy, scikit-learn, requests and pyarrow. Declare "
        "them in the task definition under `packages:` with pinned versions. Packages outside the "
        "channel can be uploaded as wheels to a stage if they are pure Python.\n\nOutbound network "
        "access is disabled by default. To call an external API, an administrator creates an external "
        "access integration listing the allowed hostnames and the secret that holds the credentials. "
        "Each Python task has a memory limit of 16 GB on Medium warehouses and larger, and 4 GB "
        "otherwise.",
    ),
    (
        "Service limits and quotas",
        "Default limits per organisation: 10 warehouses (raisable), 10,000 databases, 200 concurrent "
        "pipelines, 500 scheduler jobs, and 2,000 users. Per warehouse: 8 concurrent statements per "
        "cluster by default, adjustable from 1 to 32 with `max_concurrency_level`, and up to 10 clusters "
        "with multi-cluster scaling.\n\nPer statement: 1 MB of SQL text, 24 hours of run time "
        "(`statement_timeout_seconds` defaults to 172800 at the account level but is capped at 86400 "
        "for each statement), and 16 MB for a single VARIANT value.\n\nAPI limits: the SQL API accepts "
        "50 requests per second per user and the management API 20. Responses over the limit return "
        "HTTP 429 with a Retry-After header.\n\nTo raise a raisable limit, open a sev4 ticket with the "
        "limit name, the new value and the reason. Most requests are handled within two business "
        "days.",
    ),
    (
        "Customer-managed encryption keys",
        "All data in Corvina is encrypted at rest with AES-256 and in transit with TLS 1.2 or later. "
        "On the Business plan and above, customers can add their own key held in AWS KMS, Azure Key "
        "Vault or Google Cloud KMS. Corvina combines it with its own key, so data can only be read "
        "while both keys are available.\n\nTo set it up, ORG_ADMIN opens Security > Encryption, "
        "registers the key's ARN or resource identifier, and grants Corvina's service principal the "
        "encrypt and decrypt permissions on it. Rotation of the customer key is supported without "
        "downtime.\n\nIf the customer key is disabled or its permissions are revoked, queries fail "
        "within about 10 minutes with error CRV-KEY-403 and pipelines pause. Access returns within "
        "minutes of restoring the key. Revoking the key permanently makes the data unrecoverable, "
        "including by Corvina Support.",
    ),
    (
        "Runbook: a dashboard became slow overnight",
        "Symptom: a BI dashboard that usually loads in seconds now takes minutes, with no change to "
        "its queries.\n\n1. Check whether the warehouse was resized down or its cluster count "
        "reduced. Warehouses > (warehouse) > History lists every configuration change with the user "
        "who made it.\n2. Look at queue time in Query history. High queue time with normal execution "
        "time means concurrency, not query cost: see the queue timeout article.\n3. Compare the query "
        "profile with an older run. A jump in partitions scanned usually follows a large backfill that "
        "disturbed clustering.\n4. Check whether a new job now shares the warehouse at the same hour.\n5. "
        "If the result cache was being used before, confirm the underlying tables are not now being "
        "modified every few minutes by a pipeline, which invalidates cached results.",
    ),
    (
        "Terraform provider",
        "The `corvina/corvina` Terraform provider manages warehouses, databases, schemas, roles, "
        "grants, network policies, pipelines and scheduler jobs. Version 2.x requires Terraform 1.5 or "
        "later.\n\nAuthenticate the provider with key-pair authentication for a dedicated service user "
        "that has the SYS_ADMIN and SECURITY_ADMIN roles, or narrower custom roles if you manage only "
        "some object types. Do not use a personal account.\n\nExisting objects can be brought under "
        "management with `terraform import`, using the fully qualified name as the identifier. Grants "
        "are authoritative per resource: a `corvina_grant` resource revokes privileges that were added "
        "outside Terraform on the same object and privilege, so migrate manual grants before "
        "applying.\n\nSince 2.4 the provider sets `auto_suspend_seconds = 300` on new warehouses unless "
        "a value is given.",
    ),
    (
        "Result cache and metadata cache",
        "Corvina keeps the results of every query for 24 hours. When the same query text runs again, "
        "with the same role and the same session parameters that affect results, and none of the "
        "underlying tables changed, the stored result is returned without starting a warehouse and "
        "without consuming credits. Each reuse extends the retention by another 24 hours, up to 31 "
        "days.\n\nQueries that call non-deterministic functions such as `CURRENT_TIMESTAMP()` or "
        "`RANDOM()` never use the result cache, so dashboards should filter on dates computed by the "
        "BI tool rather than on the current timestamp inside the SQL.\n\nSimple aggregates such as "
        "`COUNT(*)` and `MIN`/`MAX` on unfiltered tables are answered from partition metadata and also "
        "run without a warehouse. Disable the result cache for benchmarking with "
        "`ALTER SESSION SET use_cached_result = FALSE;`.",
    ),
    (
        "Audit logs and access history",
        "The ACCOUNT_USAGE schema in the shared CORVINA database exposes audit data as views: "
        "LOGIN_HISTORY, QUERY_HISTORY, ACCESS_HISTORY, GRANTS_TO_ROLES and WAREHOUSE_METERING_HISTORY, "
        "among others. Views have a latency of up to 45 minutes and retain 365 days of data.\n\n"
        "ACCESS_HISTORY records, for each query, the columns read and written, including columns reached "
        "through views. It is the basis for answering questions such as who read a sensitive column "
        "last month.\n\nTo export audit data to a SIEM, schedule a task that copies new rows to a stage "
        "and let the SIEM read from the bucket, or use the Splunk and Datadog integrations under "
        "Security > Log export, which push login and query events within five minutes. Access to "
        "ACCOUNT_USAGE requires the IMPORTED PRIVILEGES grant on the CORVINA database, held by "
        "ORG_ADMIN by default.",
    ),
    (
        "Change data capture from PostgreSQL",
        "The PostgreSQL CDC source reads the write-ahead log through logical replication. "
        "Requirements: PostgreSQL 12 or later, `wal_level = logical`, a replication slot created by "
        "the pipeline, and a user with the REPLICATION attribute and SELECT on the replicated "
        "tables.\n\nThe pipeline first takes a consistent snapshot of each table and then streams "
        "changes. Inserts, updates and deletes are applied to the target with a MERGE on the primary "
        "key; tables without a primary key are loaded append-only with an operation column.\n\nWatch "
        "the replication slot on the source. If the pipeline is paused for a long time, PostgreSQL "
        "keeps WAL segments for the slot and the disk can fill up. Set "
        "`max_slot_wal_keep_size` on the source as a safety net and drop the slot when a pipeline is "
        "deleted for good.",
    ),
    (
        "Refunds, credits and billing disputes",
        "Usage-based charges are final once the invoice is issued, with three exceptions: a billing "
        "error on Corvina's side, credits consumed because of a Corvina incident listed on the status "
        "page, and service credits owed under an availability commitment.\n\nDisputes must be raised "
        "within 60 days of the invoice date through a billing ticket that names the invoice number and "
        "the affected line items. Corvina replies within 5 business days. Approved amounts are issued "
        "as credit against the next invoice; refunds to the original payment method are made only "
        "when the subscription has ended.\n\nRunaway queries or warehouses left running by mistake "
        "are not refundable, but the account team may grant a one-time goodwill credit for a first "
        "occurrence. Resource monitors prevent most such cases.\n\nLast reviewed: 2026-04-09.",
    ),
    (
        "Materialized views and automatic clustering",
        "A materialized view stores the result of a query on a single table and keeps it up to date "
        "in the background as the table changes. Queries on the base table can use the view "
        "automatically when the optimizer finds it cheaper. Materialized views cannot contain joins, "
        "window functions or non-deterministic functions.\n\nAutomatic clustering reorganises a "
        "table's micro-partitions around a clustering key so that filters on that key prune well. "
        "Define it with `ALTER TABLE events CLUSTER BY (event_date, customer_id);`. Clustering runs as "
        "a serverless service billed in credits and is worth it for large tables that are filtered "
        "far more often than they are written.\n\nBoth features are available on the Business plan and "
        "above. Their credit use appears as separate line items on the invoice.",
    ),
    (
        "Release notes policy and maintenance windows",
        "Corvina ships releases weekly. Each release rolls out region by region over about five days "
        "and is announced in the release notes with a behaviour-change flag when existing queries "
        "could return different results.\n\nBehaviour changes are first released disabled, then "
        "enabled by default a month later, then made permanent a month after that. During the first "
        "two phases an administrator can opt in or out per organisation under Admin > Behaviour "
        "changes.\n\nPlanned maintenance that causes downtime is rare and announced at least 7 days in "
        "advance on the status page; the window is Sunday 02:00 to 06:00 in the region's local time. "
        "Most maintenance is rolling and does not interrupt running queries.",
    ),
    (
        "Kafka source configuration",
        "A Kafka pipeline needs the bootstrap servers, the topic names or a topic regex, and the "
        "authentication method: SASL/SCRAM, SASL/PLAIN over TLS, mTLS, or IAM for Amazon MSK. "
        "Credentials are stored as Corvina secrets and referenced by name.\n\nMessages can be JSON, "
        "Avro or Protobuf. For Avro and Protobuf, provide the schema registry URL; Corvina caches "
        "schemas by ID. Each message becomes a row with the decoded payload plus metadata columns for "
        "topic, partition, offset, key and broker timestamp.\n\nThe pipeline starts from the earliest "
        "offset by default; set `start_from: latest` to skip history. Offsets are committed to Corvina, "
        "not to the Kafka consumer group, so resetting a consumer group in Kafka has no effect on the "
        "pipeline. To replay, use `ALTER PIPELINE ... RESET OFFSETS TO TIMESTAMP`.",
    ),
    (
        "User provisioning with SCIM",
        "SCIM 2.0 keeps Corvina users and roles in sync with your identity provider. Enable it under "
        "Security > Provisioning, which creates a SCIM token valid for 6 months; paste the token and "
        "the SCIM base URL into the identity provider.\n\nUsers created through SCIM are owned by the "
        "SCIM_PROVISIONER role and cannot be edited in the console except for their default warehouse "
        "and default role. Deactivating a user in the identity provider disables login in Corvina "
        "within minutes and aborts the user's running queries.\n\nGroups pushed from the identity "
        "provider become Corvina roles with the same name. Grant privileges to these roles in Corvina; "
        "group membership changes then take effect at the user's next login.\n\nRenew the SCIM token "
        "before it expires; an expired token stops provisioning silently except for an email to "
        "ORG_ADMIN users.",
    ),
    (
        "Semi-structured data: JSON and the VARIANT type",
        "Columns of type VARIANT hold JSON documents, arrays and nested objects up to 16 MB each. "
        "Fields are read with path syntax, `payload:customer.id`, and cast with `::`, for example "
        "`payload:amount::NUMBER(12,2)`.\n\nArrays are turned into rows with the `FLATTEN` table "
        "function: `SELECT f.value:sku::STRING FROM orders, LATERAL FLATTEN(input => "
        "orders.payload:items) f;`.\n\nCorvina stores common VARIANT fields in columnar form "
        "internally, so filtering on them prunes partitions like regular columns. Fields that appear "
        "in fewer than 10% of documents are not extracted and are slower to query. For hot fields, "
        "add a regular column populated at load time.\n\nNull handling differs between a JSON null, "
        "which is a VARIANT null, and a missing field, which is SQL NULL; use `IS_NULL_VALUE` to "
        "tell them apart.",
    ),
    (
        "Onboarding checklist for administrators",
        "Recommended first week for a new Corvina organisation:\n\n1. Configure SSO and SCIM, and keep "
        "one break-glass ORG_ADMIN with MFA.\n2. Create custom roles for each team and grant them to "
        "SYS_ADMIN.\n3. Create separate warehouses for loading, transformation and BI, each with "
        "auto-suspend set and a resource monitor.\n4. Apply a network policy for the office and VPN "
        "ranges, plus per-user policies for service accounts.\n5. Set `data_retention_days` on "
        "production databases according to your recovery needs.\n6. Add billing contacts and a tax "
        "identifier before the first invoice.\n7. Subscribe the on-call channel to the status page for "
        "your region.\n8. Manage objects through Terraform from the start to avoid drift.\n\nThe "
        "onboarding team offers a 60-minute review call for Business and Enterprise customers during "
        "the first month.",
    ),
    (
        "Runbook: unexpected credit spike",
        "Symptom: a budget alert fires, or daily credit consumption is well above its usual level.\n\n"
        "1. Query WAREHOUSE_METERING_HISTORY grouped by warehouse and hour for the last three days to "
        "find where the spike comes from.\n2. For a warehouse that never suspended, check "
        "`auto_suspend_seconds` and look for a client that sends a keep-alive query every few "
        "minutes, a frequent cause with BI tools.\n3. For a spike in serverless features, check "
        "automatic clustering on recently backfilled tables and materialized views on tables with "
        "heavy updates.\n4. For pipelines, look for paused sources whose pipelines were not paused.\n5. "
        "Add or tighten a resource monitor before the investigation is finished.\n\nIf the cause is a "
        "Corvina incident, the refunds policy explains how to request credits.",
    ),
    (
        "Data masking and row access policies",
        "Masking policies hide column values from roles that should not see them. A policy is a SQL "
        "expression evaluated at query time, for example returning the email unchanged for the "
        "SUPPORT_LEAD role and `'***'` for everyone else. Attach it with `ALTER TABLE customers MODIFY "
        "COLUMN email SET MASKING POLICY mask_email;`.\n\nRow access policies filter rows based on the "
        "querying role or user, typically by joining to a mapping table of regions or business units. "
        "They apply to every query, including queries through views and shares.\n\nPolicies can be "
        "attached through tags, so that every column tagged `pii = 'email'` receives the same masking "
        "policy automatically. Only roles with APPLY MASKING POLICY can attach or change policies, and "
        "every change is recorded in ACCESS_HISTORY.",
    ),
]

# Second paragraphs, written as the "Notes" or "FAQ" part that most help-centre articles grow
# over time. Appended in order to the documents above.
_NOTES = [
    "FAQ: Does a suspended warehouse keep its size and grants? Yes; suspension only releases the "
    "compute nodes. Can a query be cancelled while the warehouse resumes? Yes, and no credits are "
    "charged if it is cancelled before any node is ready.",
    "FAQ: Are credits consumed while a query waits in the queue? Only if the warehouse is already "
    "running for other queries. Does Time Travel storage count toward storage billing? Yes, at the "
    "same rate per terabyte as active data.",
    "Notes: warehouses created from a worksheet inherit the organisation's default size, which "
    "ORG_ADMIN can set under Admin > Defaults. If the Create warehouse button is greyed out, your "
    "role lacks the CREATE WAREHOUSE privilege on the organisation; ask an administrator to grant "
    "it to one of your roles rather than to you directly.",
    "FAQ: Why can a user see a table but not query it? Querying needs USAGE on the database and "
    "schema, SELECT on the table, and USAGE on a warehouse. Why did a grant disappear? Terraform "
    "grants are authoritative and may have revoked it on the next apply.",
    "Notes: cloning a table at a past point, `CREATE TABLE orders_restore CLONE orders AT (OFFSET => "
    "-3600);`, is usually safer than restoring in place, because it lets you compare the two "
    "versions before swapping them with `ALTER TABLE ... SWAP WITH`. Clones share storage with the "
    "source until either side changes.",
    "FAQ: Can a Standard customer buy 24x7 support separately? No; round-the-clock coverage comes "
    "with the Business plan. Can a ticket be reopened? Yes, within 14 days of being resolved, by "
    "replying to the last message; after that, open a new ticket that references the old number.",
    "Notes: when a connection works from a laptop but not from a server, compare the outbound IP "
    "addresses of both; cloud NAT gateways often use an address that is missing from the network "
    "policy. The drivers log at the level set by `tracing`, from OFF to ALL, in the temporary "
    "directory of the client.",
    "FAQ: Does a larger queue timeout fix the problem? It only hides it; queries still wait, they "
    "just fail later. Does multi-cluster scaling cost more? Extra clusters are billed while they "
    "run, but they shut down as soon as the queue has been empty for the scaling policy's idle "
    "period.",
    "Notes: SSO enforcement can be turned on per role, so service users with key-pair "
    "authentication keep working while people must use SSO. Test a new SAML configuration with a "
    "single non-admin user first; the console offers a test login that does not change the active "
    "configuration.",
    "FAQ: Can one pipeline write to several tables? Yes, with a routing rule per topic or per value "
    "of a field. Can a pipeline be paused? Yes; paused pipelines do not consume credits and resume "
    "from the last committed position, provided the source still retains the data.",
    "FAQ: Why does an invoice show a credit line? Service credits and approved disputes appear as "
    "negative lines on the next invoice. Can invoices be sent to a procurement portal? Yes for "
    "Enterprise customers; the billing team sets up the portal integration on request.",
    "FAQ: Is resizing cheaper than adding clusters? For one slow query, resizing helps and "
    "clusters do not. For many concurrent small queries, clusters help and resizing mostly wastes "
    "credits. Can a resize be scheduled? Yes, with a scheduler task that runs ALTER WAREHOUSE.",
    "FAQ: Do network policies apply to the console as well as to drivers? Yes, both are checked "
    "against the client IP address. Does private connectivity replace network policies? No; "
    "combine them, and block public access once all clients use the private endpoint.",
    "Notes: during a regional incident, increasing partition groups will not help and may slow "
    "recovery; wait for the status page to report recovery, and the pipeline will catch up on its "
    "own. Record the maximum lag reached in the ticket so that service credits can be assessed.",
    "FAQ: Can deleted data be restored after the grace period? No. Does Corvina use customer data "
    "to train models? No; customer data is processed only to provide the service, as described in "
    "the data processing agreement.",
    "FAQ: Can a job be triggered by a file landing in a bucket? Yes, with an event trigger on a "
    "stage instead of a cron schedule. Where do task logs go? To the job's Runs tab, kept for 30 "
    "days, and to the TASK_HISTORY view in ACCOUNT_USAGE.",
    "FAQ: Does SUSPEND stop a query that is already running? No; it waits for running statements "
    "and blocks new ones. Can a monitor cover several warehouses? Yes, but each warehouse can be "
    "assigned to only one monitor at a time.",
    "FAQ: Who can see tags? Anyone with access to the tagged object can read its tags; only roles "
    "with APPLY TAG can add or change them. Is lineage kept for dropped tables? Yes, for the same "
    "365 days as query history.",
    "FAQ: Why did COPY load zero rows? Most often the files were already loaded and are skipped; "
    "run with `VALIDATION_MODE = RETURN_ERRORS` or check LOAD_HISTORY. Can COPY read from a bucket "
    "in another cloud? Yes, but cross-cloud transfer is slower and billed as egress by the source "
    "provider.",
    "Notes: keep a record of the identity provider settings in your own documentation, including "
    "the Entity ID, ACS URL and attribute mappings, so that a mistaken change can be compared "
    "against a known good state. Login history keeps failed attempts for one year.",
    "FAQ: Can both regions accept writes at the same time? No; replication is one-way from the "
    "primary. How long does failback take? The same as failover once the original region has "
    "caught up, which depends on the changes made while it was secondary.",
    "FAQ: Why is a profile missing for my query? Profiles are not kept for queries answered from "
    "the result cache or metadata, since no operators ran. Can I download a profile? Yes, as JSON "
    "from the profile page, to attach to a support ticket.",
    "FAQ: Can a consumer reshare data? No; shared databases cannot be added to another share. Does "
    "revoking a share delete the consumer's database? The database remains but every query on it "
    "fails until the consumer drops it.",
    "FAQ: Can a Python task use a GPU? Not currently. Can it read secrets? Yes, through the "
    "external access integration, and only the secrets the integration lists. Do tasks share "
    "memory with SQL queries? No; the sandbox has its own memory limit.",
    "Notes: limits on concurrent statements apply per cluster, so a multi-cluster warehouse "
    "multiplies them. Hitting the API rate limit is common with naive polling loops; use the "
    "asynchronous query endpoint and poll no more often than once a second.",
    "FAQ: Does rotating the customer key re-encrypt existing data? No; Corvina rewraps its data "
    "keys with the new version, which takes minutes and needs no downtime. Can the key live in a "
    "different region from the data? Only within the same cloud provider.",
    "Notes: BI tools sometimes add a session parameter, such as a time zone, that disables result "
    "cache reuse across users. Check the session parameters of slow and fast runs in Query history "
    "before concluding that the warehouse is at fault.",
    "FAQ: How do I avoid drift? Run `terraform plan` on a schedule and alert on changes. Can the "
    "provider manage resource monitors? Yes, since version 2.2, but assigning a monitor to a "
    "warehouse requires ORG_ADMIN credentials.",
    "FAQ: Does the result cache work across warehouses? Yes; results are stored at the "
    "organisation level, so a cached result can be returned even if the query names another "
    "warehouse. Does it work for shared data? Yes, within the consumer organisation.",
    "FAQ: How do I find who dropped a table? Filter QUERY_HISTORY on `query_type = 'DROP_TABLE'` "
    "and the table name. Why are recent queries missing? The views lag by up to 45 minutes; the "
    "console's Query history page is real time.",
    "FAQ: Are DDL changes in PostgreSQL replicated? Added columns are, under the default schema "
    "evolution; renames and type changes stop the pipeline so that nothing is silently lost. Can I "
    "replicate only some columns? Yes, with a column list per table.",
    "FAQ: Is a warehouse left running over a weekend refundable? Not as a right; see goodwill "
    "credits above. How are service credits calculated? As a percentage of the monthly compute "
    "charge for the affected region, set out in the availability commitment.",
    "FAQ: Why is my materialized view not used? The optimizer picks it only when it is cheaper and "
    "fully up to date for the queried data; check the profile for the operator name. Can I pause "
    "clustering? Yes, with `ALTER TABLE ... SUSPEND RECLUSTER`.",
    "FAQ: How do I test a behaviour change before it is enabled? Opt in a development "
    "organisation first. Where are release notes published? In the console under Help > What's "
    "new, and as an RSS feed for each region. Can a release be rolled back for one customer? "
    "Not the release itself, but a behaviour change can be disabled for an organisation during its "
    "first two phases, which covers almost every regression reported so far.",
    "FAQ: How are tombstones handled? A Kafka message with a null value deletes the matching row "
    "when the pipeline uses upsert mode. Can a pipeline read from several clusters? No; create one "
    "pipeline per cluster and write to the same table if needed.",
    "FAQ: Can SCIM assign default warehouses? Yes, through a custom attribute mapped to "
    "`default_warehouse`. What happens to objects owned by a deprovisioned user? Ownership stays "
    "with the user's roles, not the user, so objects are unaffected.",
    "FAQ: Is there a size limit on FLATTEN? No, but flattening very large arrays in a single row "
    "can spill; split the array at load time when possible. Can I load XML? Yes, into VARIANT "
    "with the XML file format, with the same 16 MB limit per value.",
    "FAQ: Which items are blocking? SSO and the break-glass account, because later steps depend on "
    "roles. Can the onboarding call be scheduled later? Yes, within the first 90 days; after that "
    "it is offered as a paid health check.",
    "Notes: keep a daily query of WAREHOUSE_METERING_HISTORY in a dashboard; spikes found within a "
    "day cost far less than spikes found on the invoice. Label warehouses with a `cost_center` tag "
    "so the query can group by team.",
    "FAQ: Do masking policies slow queries down? Slightly, since the expression runs for every "
    "row; keep it simple and avoid subqueries. Can the owner of a table bypass a masking policy? "
    "No, unless the policy itself allows the owner's role.",
]

_AREAS = [
    "warehouses", "billing", "warehouses", "security", "warehouses", "support", "connectors",
    "warehouses", "security", "pipelines", "billing", "warehouses", "security", "pipelines",
    "policies", "scheduler", "billing", "catalog", "connectors", "security", "warehouses",
    "warehouses", "catalog", "scheduler", "support", "security", "warehouses", "connectors",
    "warehouses", "security", "pipelines", "billing", "warehouses", "support", "pipelines",
    "security", "warehouses", "support", "billing", "security",
]

DOCUMENTS = [
    (title, f"{text}\n\n{note}\n\nProduct area: {area}.")
    for (title, text), note, area in zip(DOCUMENTS, _NOTES, _AREAS)
]
assert len(_NOTES) == len(_AREAS) == len(DOCUMENTS) == 40

# Questions users ask, keyed by the index of the document that answers them. Slots in braces are
# filled per request from the pools below; preambles and context sentences add further variety.
QUESTIONS = [
    (0, "Why does `{wh}` keep suspending after ten minutes when I set it to five?"),
    (0, "How long does a {size} warehouse take to resume after it has suspended?"),
    (0, "Should I set auto_suspend_seconds to 0 for `{wh}` so dashboards stay fast?"),
    (1, "How many credits per hour does a {size} warehouse use?"),
    (1, "What does a credit cost on the Standard plan in {region}?"),
    (1, "Do prepaid credits roll over to the next contract year?"),
    (2, "What's the quickest way to create a warehouse for the {team} team from the CLI?"),
    (2, "We hit a limit creating our eleventh warehouse. Is that a hard cap?"),
    (3, "What privileges does the {role} role need to run queries on `{wh}`?"),
    (3, "How do I make sure new tables in `{schema}` are readable by {role} automatically?"),
    (4, "Someone dropped `{table}` yesterday. Can we get it back?"),
    (4, "How far back can I query `{table}` on the Business plan?"),
    (5, "What is the first response time for a sev2 ticket on the {plan} plan?"),
    (5, "Is weekend support included for sev1 incidents?"),
    (6, "Our JDBC connection from the {tool} server times out. What should I check?"),
    (6, "Which Java version does the 3.x JDBC driver need?"),
    (7, "Queries on `{wh}` fail with CRV-57014 every morning at 9. How do we fix it?"),
    (7, "Does making the warehouse bigger help with queued queries?"),
    (8, "SSO broke after our Okta certificate rotation. What do we do?"),
    (8, "Can new users be created automatically on their first SAML login?"),
    (9, "What latency should we expect from a Kafka pipeline into `{table}`?"),
    (9, "How do pipelines handle a new column appearing in the source?"),
    (10, "Can we pay invoices by SEPA direct debit?"),
    (10, "We forgot to add our VAT number before the last invoice. Can it be reissued?"),
    (11, "Will resizing `{wh}` to {size} interrupt running queries?"),
    (11, "Our nightly {tool} job spills to remote storage. Is a bigger warehouse worth it?"),
    (12, "How do I restrict access to our office IP range without locking myself out?"),
    (12, "Is AWS PrivateLink available on the {plan} plan?"),
    (13, "Pipeline lag on `{table}` has been growing for an hour. What should I do?"),
    (14, "How long do you keep our data after we cancel?"),
    (14, "How long is query history retained?"),
    (15, "How do I make a scheduler task run only after two other tasks succeed?"),
    (15, "How are daylight saving time changes handled for a job scheduled at 02:30 in {tz}?"),
    (16, "How do I stop `{wh}` from burning more than {n} credits a month?"),
    (16, "Do resource monitors cover pipeline credits?"),
    (17, "Can tags on `{table}` flow to the views built on top of it?"),
    (18, "What file size should we use when loading Parquet from S3 into `{table}`?"),
    (18, "Why did COPY INTO skip files we already loaded once?"),
    (19, "Users get error CRV-SAML-014 after we changed our identity provider. What does it mean?"),
    (20, "If {region} goes down, how quickly do clients fail over to the secondary region?"),
    (20, "Are scheduler jobs replicated to the secondary region?"),
    (21, "How do I tell from the query profile whether a filter on `{table}` is pruning?"),
    (22, "Can we share `{table}` with a partner organisation in another region?"),
    (23, "Can a Python task call an external API from inside Corvina?"),
    (24, "What is the maximum number of concurrent queries per cluster?"),
    (24, "We're getting HTTP 429 from the SQL API. What is the limit?"),
    (25, "What happens to running queries if we revoke our KMS key?"),
    (26, "Our {tool} dashboard on `{wh}` got slow overnight. Where do I start?"),
    (27, "Can Terraform take over warehouses we created by hand?"),
    (28, "Why isn't the result cache used for our dashboard queries on `{table}`?"),
    (29, "How can I find out who read the email column of `{table}` last month?"),
    (30, "What PostgreSQL settings do we need for CDC into `{table}`?"),
    (31, "A warehouse ran all weekend by mistake. Can we get a refund for the credits?"),
    (31, "How do I dispute a line on last month's invoice?"),
    (32, "When is automatic clustering worth it for `{table}`?"),
    (33, "When is the maintenance window in {region}?"),
    (34, "How do I replay a Kafka topic into `{table}` from yesterday morning?"),
    (35, "Our SCIM token expired and new hires can't log in. How do we renew it?"),
    (36, "How do I extract the `customer.id` field from a VARIANT column in `{table}`?"),
    (37, "What should we set up first as new Corvina administrators?"),
    (38, "Our credit usage doubled yesterday. How do we find out why?"),
    (39, "How do I mask email addresses in `{table}` for everyone except the {role} role?"),
]

PREAMBLES = [
    "", "", "", "", "Quick question: ", "Hi! ", "Hello, Atlas. ", "Hey Atlas, quick one. ",
    "Our team lead asked me this: ", "Sorry if this is obvious. ", "I couldn't find this in the docs. ",
]

CONTEXTS = [
    "", "", "", "", "", " We're on the {plan} plan.", " This is in our {region} account.",
    " It's for the {team} team.", " We need an answer before our change window tonight.",
    " I'm an admin, so I can change settings if needed.", " We use {tool} for this.",
]

SLOTS = {
    "wh": ["reporting_wh", "etl_wh", "bi_wh", "finance_wh", "adhoc_wh", "loader_wh", "ds_wh", "dbt_prod_wh"],
    "size": ["X-Small", "Small", "Medium", "Large", "X-Large", "2X-Large"],
    "region": ["us-east-1", "us-west-2", "eu-central-1", "eu-west-1", "ap-southeast-2"],
    "team": ["finance", "growth analytics", "data science", "marketing ops", "platform", "supply chain"],
    "role": ["ANALYST", "DBT_RUNNER", "BI_READER", "DATA_SCIENTIST", "SUPPORT_LEAD", "FINANCE_RO"],
    "schema": ["sales.public", "marketing.staging", "finance.core", "events.raw", "product.analytics"],
    "table": ["sales.public.orders", "events.raw.page_views", "finance.core.invoices",
              "product.analytics.sessions", "crm.public.customers", "ops.public.shipments"],
    "plan": ["Standard", "Business", "Enterprise"],
    "tool": ["Airflow", "dbt", "Tableau", "Looker", "Power BI", "Fivetran", "Metabase"],
    "tz": ["Europe/Berlin", "America/New_York", "Europe/London", "Australia/Sydney"],
    "n": ["2,000", "5,000", "800", "12,000", "1,500"],
}
