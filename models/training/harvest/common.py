#!/usr/bin/python3
"""Shared helpers for the harvest_*.py scripts.

* package list parsing (packages.txt) and the exclusion rule,
* the scratch layout under /tmp/harvest (override with HARVEST_DIR),
* template escaping (synthlog syntax with ``{{``/``}}`` for literal braces),
* slot-type inference for a placeholder from its conversion, an optional name
  hint (``%(user)s``, ``{host}``, f-string expression, key of a key-value
  pair) and the literal text around it,
* message-shape filters shared by all languages.

Every inference returns ``(slot_type, rule)`` so the rule that fired can be
recorded and counted.
"""

from __future__ import annotations

import json
import os
import re
from typing import Iterable

HERE = os.path.dirname(os.path.abspath(__file__))
SCRATCH = os.environ.get("HARVEST_DIR", "/tmp/harvest")
PKG_ROOT = os.path.join(SCRATCH, "pkgs")      # one extracted tree per package
DEB_DIR = os.path.join(SCRATCH, "debs")
OUT_DIR = os.path.join(SCRATCH, "out")        # per-source-kind raw jsonl

# ---------------------------------------------------------------------------
# Exclusions: software reserved for the validation set.  Applied to package
# names, source-package names, file paths and (product names only) to the
# message text itself.
# ---------------------------------------------------------------------------

EXCLUDED_PKG_RE = re.compile(
    r"^(nginx|libnginx|postgresql|libpq|pgbouncer|pgpool|redis|memcached|mariadb|libmariadb|mysql|"
    r"libmysql|haproxy|prometheus|alertmanager|etcd|golang-etcd|caddy|tomcat|libtomcat|mosquitto|"
    r"libmosquitto|squid|dnsmasq|dpkg|libdpkg|apt|libapt|apt-utils|cron|anacron|systemd-cron|incron|bcron|"
    r"golang-github-prometheus|golang-github-caddyserver|golang-go\.etcd|golang-github-coreos-etcd|"
    r"golang-github-jackc|golang-github-lib-pq|golang-github-go-sql-driver-mysql|golang-github-nginxinc|"
    r"golang-github-go-redis|golang-github-gomodule-redigo|libmqtt-client-java|libjedis|liblettuce|"
    r"python3-(redis|hiredis|aioredis|django-redis|psycopg2|asyncpg|pymysql|mysqldb|aiomysql|etcd3|"
    r"pymemcache|memcache|paho-mqtt|hbmqtt|gmqtt))($|[-_.0-9])")

# Path components that betray excluded software vendored or plugged into an
# allowed package (collectd's redis.so, a Go tree under go.etcd.io, ...).
EXCLUDED_PATH_RE = re.compile(
    r"(?i)(^|[/_.-])(nginx|postgres(ql)?|pgsql|libpq|redis|memcache[d]?|mariadb|mysql|haproxy|prometheus|"
    r"alertmanager|etcd|go\.etcd\.io|caddy|tomcat|mosquitto|squid|dnsmasq|dpkg|libapt|apt-pkg|"
    r"cron|crond|crontab)([/_.-]|\.so|$)")

EXCLUDED_TEXT_RE = re.compile(
    r"(?i)\b(nginx|postgres(ql)?|pgsql|libpq|redis|memcached?|mariadb|mysqld?|haproxy|prometheus|"
    r"alertmanager|etcd|caddy|tomcat|catalina|mosquitto|squid|dnsmasq|dpkg|apt-get|crontab|crond)\b")


def is_excluded_pkg(name: str) -> bool:
    return bool(EXCLUDED_PKG_RE.match(name))


def is_excluded_path(path: str) -> bool:
    return bool(EXCLUDED_PATH_RE.search(path))


def read_packages(section: str) -> list[str]:
    """Package names of one [section] of packages.txt, exclusions removed."""
    out, cur = [], None
    with open(os.path.join(HERE, "packages.txt"), encoding="utf-8") as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            if line.startswith("[") and line.endswith("]"):
                cur = line[1:-1]
                continue
            if cur == section and not is_excluded_pkg(line):
                out.append(line)
    return out


def pkg_dirs(section: str) -> list[tuple[str, str]]:
    """(package, extracted root) for every fetched package of a section (incl. same-source deps)."""
    manifest = os.path.join(SCRATCH, "manifest.json")
    with open(manifest, encoding="utf-8") as f:
        man = json.load(f)
    out = []
    for pkg in sorted(man.get(section, [])):
        if is_excluded_pkg(pkg):
            continue
        d = os.path.join(PKG_ROOT, pkg)
        if os.path.isdir(d):
            out.append((pkg, d))
    return out


def walk_files(root: str, exts: tuple[str, ...] | None = None) -> Iterable[str]:
    """Files under root in sorted (deterministic) order, skipping symlinks."""
    for d, dirs, files in os.walk(root):
        dirs.sort()
        for fn in sorted(files):
            p = os.path.join(d, fn)
            if os.path.islink(p):
                continue
            if exts is None or fn.endswith(exts):
                yield p


def write_jsonl(path: str, records: Iterable[dict]) -> int:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    n = 0
    with open(path, "w", encoding="utf-8") as f:
        for r in records:
            f.write(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n")
            n += 1
    return n


# ---------------------------------------------------------------------------
# Template syntax.
# ---------------------------------------------------------------------------

def esc(text: str) -> str:
    """Escape a literal piece of message for the template syntax."""
    return text.replace("{", "{{").replace("}", "}}")


def assemble(pieces: list[tuple[str, str]]) -> str | None:
    """Build a template from ``[("lit", text) | ("slot", type)]``.

    Adjacent slots (``%s%s``, ``%d%s``) are merged into one slot, since two
    slots that touch make spans ambiguous: number followed by a string becomes
    ``num_unit``, anything else keeps the first informative type.
    Returns None when the result has no literal text at all.
    """
    merged: list[list[str]] = []
    for kind, val in pieces:
        if kind == "lit":
            if not val:
                continue
            if merged and merged[-1][0] == "lit":
                merged[-1][1] += val
            else:
                merged.append(["lit", val])
        else:
            if merged and merged[-1][0] == "slot":
                prev = merged[-1][1]
                if prev in ("int", "float") and val in ("word", "name", "char", "text", "value"):
                    merged[-1][1] = "num_unit"
                elif prev in ("const_ident",):
                    merged[-1][1] = val if val != "const_ident" else prev
                elif prev in ("char", "word", "text", "value") and val not in ("const_ident",):
                    merged[-1][1] = "word" if val in ("int", "char", "hex") else val
                # else keep prev
            else:
                merged.append(["slot", val])
    out = []
    for kind, val in merged:
        out.append(esc(val) if kind == "lit" else "{%s}" % val)
    fmt = "".join(out)
    if not any(k == "lit" and val.strip() for k, val in merged):
        return None
    return fmt


# Parse our own template syntax: {{ }} escapes, {slot} or {slot:N}.
TEMPLATE_TOKEN_RE = re.compile(r"\{\{|\}\}|\{([A-Za-z_][A-Za-z0-9_]*)(?::(\d+))?\}|[{}]")


def template_literals(fmt: str) -> tuple[list[str], list[tuple[str, str | None]]]:
    """Split a template into unescaped literals and (slot, arg) pairs; len(literals) == len(slots)+1."""
    lits, slots, buf, pos = [], [], [], 0
    for m in TEMPLATE_TOKEN_RE.finditer(fmt):
        buf.append(fmt[pos:m.start()])
        tok = m.group(0)
        if tok == "{{":
            buf.append("{")
        elif tok == "}}":
            buf.append("}")
        elif m.group(1):
            lits.append("".join(buf))
            buf = []
            slots.append((m.group(1), m.group(2)))
        else:
            raise ValueError("unescaped brace in template %r" % fmt)
        pos = m.end()
    buf.append(fmt[pos:])
    lits.append("".join(buf))
    return lits, slots


def constant_text(fmt: str) -> str:
    return "".join(template_literals(fmt)[0])


# ---------------------------------------------------------------------------
# Word list used to recognise real words (wamerican).  Falls back to a small
# built-in list so the scripts still run without it.
# ---------------------------------------------------------------------------

_WORDS: set[str] | None = None
_FALLBACK_WORDS = (
    "error failed failure cannot unable invalid missing found connection connect connected closed close "
    "open opened read write file directory user address host server client request response timeout "
    "start started stop stopped starting stopping received sending send sent using new old value key "
    "device interface link up down set get got no not for from with to in on of and the is are was "
    "has have bad unknown allocate allocation memory buffer socket port process child exit exited signal "
    "load loaded loading config configuration option parse parsing warning ignoring skipping retry "
    "retrying reset limit size length bytes packet message queue thread lock wait waiting done complete "
    "session authentication password permission denied access network route table entry record name "
    "version support supported enable enabled disable disabled mode state status update updated remove "
    "removed add added create created delete deleted register registered initialize initialized"
).split()


def words() -> set[str]:
    global _WORDS
    if _WORDS is None:
        s = set(_FALLBACK_WORDS)
        for p in ("/usr/share/dict/american-english", "/usr/share/dict/words"):
            if os.path.exists(p):
                with open(p, encoding="utf-8", errors="replace") as f:
                    for w in f:
                        w = w.strip()
                        if w.isascii() and w.isalpha() and "'" not in w:
                            s.add(w.lower())
                break
        # words that are in the dictionary but are almost always noise in strings(1) output
        _WORDS = s
    return _WORDS


WORD_RE = re.compile(r"[A-Za-z][a-z]+|[A-Z]{2,}(?![a-z])")


def word_stats(text: str) -> tuple[int, int]:
    """(number of alphabetic tokens, number that are dictionary words of 3+ letters)."""
    ws = words()
    toks = WORD_RE.findall(text)
    good = sum(1 for t in toks if len(t) >= 3 and t.lower() in ws)
    return len(toks), good


# ---------------------------------------------------------------------------
# Slot-type inference.
# ---------------------------------------------------------------------------

# Identifier (name hint / kv key / preceding word) -> slot type.  Matched on
# the lower-cased last component of the hint, split on _ . - and camelCase.
NAME_RULES: list[tuple[str, str]] = [
    (r"^(user(name)?|login|account|owner|uid_?name|usr|principal|username|runas|as_user|luser|ruser)$", "user"),
    (r"^(e?mail|email_?addr(ess)?|sender|recipient|rcpt|mail_?from|mail_?to|from_?addr|to_?addr)$", "email"),
    (r"^(ip|ipaddr|ip_?addr(ess)?|addr|address|remote_?ip|client_?ip|peer_?ip|src_?ip|dst_?ip|saddr|daddr|"
     r"source_?ip|dest_?ip|gateway|gw|nexthop|next_?hop|router|nameserver|ipv4)$", "ipaddr"),
    (r"^(ipv6|ip6|addr6)$", "ipv6"),
    (r"^(mac|hwaddr|mac_?addr(ess)?|lladdr|bssid|ether)$", "mac"),
    (r"^(port|sport|dport|src_?port|dst_?port|lport|rport|listen_?port|local_?port|remote_?port)$", "port"),
    (r"^(host|hostname|server|srv|peer|remote|remote_?host|target_?host|node_?name|node|backend|upstream|"
     r"replica|master|leader|member|machine|server_?name|dst|src|origin|bind_?host)$", "host"),
    (r"^(hostport|host_?port|endpoint|listen|listen_?addr(ess)?|bind_?addr(ess)?|remote_?addr(ess)?|"
     r"local_?addr(ess)?|peer_?addr(ess)?|server_?addr(ess)?|advertise_?addr|raddr|laddr|dial_?addr)$", "hostport"),
    (r"^(domain|zone|fqdn|qname|dns_?name|realm|sni|cn|common_?name|vhost|virtual_?host|authority)$", "fqdn"),
    (r"^(url|uri|href|link|location|redirect|callback|webhook|base_?url|endpoint_?url|registry_?url|repo_?url|"
     r"proxy_?url|feed|download_?url|src_?url)$", "url"),
    (r"^(path|file|filename|fname|file_?name|dir|directory|dirname|folder|filepath|file_?path|pidfile|"
     r"socket|sock|sockpath|mountpoint|mount_?point|mnt|root|rootfs|cwd|workdir|keyfile|certfile|cafile|"
     r"conf|config_?file|cfg_?file|logfile|dest|destination|target_?path|source_?path|src_?path|dst_?path|"
     r"output|input|tmpfile|lockfile|bin|binary|executable|exe|script|manifest|archive|tarball|location_?path)$",
     "path"),
    (r"^(iface|ifname|interface|if_?name|netdev|nic|link_?name|bridge|bond|vlan|tap|tun|veth|dev_?name|"
     r"ifindex_?name|wlan|phy)$", "iface"),
    (r"^(device|dev|disk|drive|blockdev|block_?device|partition|volume|vol|lun|bdev|devnode|devpath)$", "device"),
    (r"^(uuid|guid|instance_?uuid|vm_?uuid|volume_?id|server_?id|image_?id|port_?id|network_?id|tenant_?id|"
     r"project_?id|domain_?id|instance_?id|boot_?id|machine_?id|request_?uuid)$", "uuid"),
    (r"^(request_?id|req_?id|correlation_?id|x_?request_?id|reqid)$", "request_id"),
    (r"^(trace_?id|traceid|span_?id|spanid|parent_?id)$", "trace_id"),
    (r"^(session|session_?id|sid|sess|ssid_?key|cookie)$", "session"),
    (r"^(container|container_?id|cid|containerid|sandbox|sandbox_?id|pod_?sandbox_?id|exec_?id|task_?id)$",
     "container_id"),
    (r"^(container_?name|ctr_?name)$", "container"),
    (r"^(pod|pod_?name|pods)$", "pod"),
    (r"^(image|image_?name|image_?ref|ref|reference|digest_?ref)$", "image"),
    (r"^(digest|checksum|sha|sha256|hash|fingerprint|fp|etag|commit|revision|rev|sha1|md5|blob)$", "hexdigest"),
    (r"^(version|ver|vers|release|tag|api_?version|kernel_?version|protocol_?version|tls_?version)$", "version"),
    (r"^(pid|ppid|process_?id|child_?pid|tid|lwp)$", "pid"),
    (r"^(uid|gid|euid|egid|ruid|rgid|suid|userid|user_?id|groupid|group_?id)$", "int"),
    (r"^(thread|thread_?name|goroutine|worker_?name)$", "thread"),
    (r"^(err|error|errors|exc|exception|e|ex|cause|reason|err_?msg|error_?message|errstr|errmsg|failure|"
     r"error_?string|msg_?err|last_?error|why|problem|details|detail|stderr)$", "err_text"),
    (r"^(errno|errnum|error_?code|err_?code|rc|ret|retval|ret_?val|result|res|exit_?code|exitcode|"
     r"return_?code|status_?code|code|exit_?status|r|rv|status_?num|rcode)$", "int"),
    (r"^(status|http_?status|resp_?status|response_?code|http_?code)$", "status"),
    (r"^(state|phase|condition|health|mode|new_?state|old_?state|from_?state|to_?state|current_?state|"
     r"link_?state|op_?state|role|kind|level|severity|policy|strategy|action|op|operation|verb|event|"
     r"event_?type|type|typ|category|direction|stage|step|priority|class_?of_?service)$", "state"),
    (r"^(method|http_?method|verb_?http|req_?method)$", "http_method"),
    (r"^(proto|protocol|transport|scheme|network|net|family|af|l4proto|ip_?proto|ipproto)$", "proto"),
    (r"^(signal|sig|signum|signame|sig_?name)$", "signal"),
    (r"^(duration|elapsed|took|latency|timeout|interval|delay|backoff|wait|ttl|age|period|after|time_?taken|"
     r"time_?elapsed|runtime|uptime_?dur|lease_?duration|grace_?period|deadline|time_?left|remaining|"
     r"expiry|expires_?in|retry_?after|retry_?in|sleep|cooldown|lag|rtt|dur|since)$", "duration"),
    (r"^(size|bytes|length|len|nbytes|bytes_?read|bytes_?written|total_?bytes|capacity|free|used|mem|memory|"
     r"limit|quota|bufsize|buf_?size|buffer_?size|max_?size|block_?size|blocksize|chunk_?size|filesize|"
     r"file_?size|disk_?size|heap|rss|vsz|avail|available|size_?bytes|content_?length)$", "size"),
    (r"^(percent|pct|percentage|ratio|usage|utilization|load|cpu|progress)$", "percent"),
    (r"^(count|num|number|n|cnt|total|attempt|attempts|retries|retry|tries|try|max|min|idx|index|i|j|k|"
     r"seq|sequence|offset|pos|position|line|lineno|line_?no|col|column|generation|epoch_?num|term|round|"
     r"depth|level_?num|id_?num|batch|batch_?size|workers|threads|nodes|items|entries|records|rows|events|"
     r"messages|msgs|requests|conns|connections|clients|peers|pending|queued|inflight|in_?flight|"
     r"replicas|ready|available_?replicas|desired|current|expected|actual|got|want|received|sent|dropped|"
     r"failed|success|succeeded|skipped|errors_?count|hits|misses|evicted|partitions|shards|blocks|pages|"
     r"slot|slots|vcpu|vcpus|cpus|cores|rank|weight|prio|score|fd|sock_?fd|handle|unit|lun_?id|"
     r"vlan_?id|vid|vni|ifindex|table_?id|metric|mtu|ttl_?hops|hops|window|win|seqno|ack|vf|queue_?id|"
     r"irq|vector|channel_?num|bus|slot_?num|func|domain_?num|node_?id|numa|socket_?id|core_?id|cpu_?id|"
     r"page|page_?size|limit_?n|top|chunk|chunks|part|parts|step_?num|iteration|iter|epoch|steps|len_?n)$",
     "int"),
    (r"^(id|ident|identifier|key_?id|job_?id|jobid|run_?id|build_?id|order_?id|msg_?id|message_?id|"
     r"event_?id|object_?id|obj_?id|entity_?id|record_?id|txn_?id|tx_?id|txid|xid|lease_?id|watch_?id|"
     r"stream_?id|conn_?id|connection_?id|client_?id|consumer_?id|producer_?id|worker_?id|agent_?id|"
     r"account_?id|subscription_?id|resource_?id|alloc_?id|eval_?id|deployment_?id|queue_?name_?id|"
     r"ticket|token_?id|key|apikey|api_?key|access_?key|handle_?id|serial|serial_?number|sn)$", "id"),
    (r"^(namespace|ns|namespaced_?name|object|obj|resource|k8s_?object|pvc|pv|secret|configmap|service_?ref|"
     r"deployment|daemonset|statefulset|replicaset|job_?ref|ingress|node_?ref|crd|owner_?ref|selector)$", "k8s_ref"),
    (r"^(service|svc|service_?name|unit|unit_?name|daemon|app|app_?name|application|component|subsystem|"
     r"program|prog|job_?name|task_?name|plugin|plugin_?name|module|module_?name|driver|provider|backend_?name|"
     r"handler|controller|scheduler|operator|agent|cluster|cluster_?name|datacenter|dc|region|az|"
     r"availability_?zone|env|environment|tenant|project|org|organization|team|stack|release_?name|chart)$",
     "service"),
    (r"^(table|db|database|dbname|schema|collection|bucket|queue|queue_?name|topic|topic_?name|exchange|"
     r"routing_?key|channel|stream|index_?name|idx_?name|keyspace|pool|pool_?name|group|groupname|"
     r"group_?name|consumer_?group|role_?name|vg|lv|vgname|lvname|share|export|repo|repository|branch|"
     r"mount|dataset|snapshot|volume_?name|vol_?name|network_?name|vrf|bridge_?name|zone_?name|rule|"
     r"rule_?name|chain|set|list|map|label|labels_?name|name|named|title|alias|nickname|nick|target|"
     r"profile|context|ctx_?name|flavor|template|layer|partition_?name|tenant_?name|user_?group)$", "name"),
    (r"^(class|class_?name|clazz|cls|type_?name|exception_?class|bean|bean_?name|impl|implementation|"
     r"interface_?name|struct|kind_?name|go_?type|obj_?type|object_?type|msg_?type|message_?type)$",
     "class_name"),
    (r"^(func|function|fn|method_?name|callback_?name|symbol|sym|caller|call|rpc|op_?name|procedure|"
     r"full_?method|grpc_?method|handler_?name|endpoint_?name|route|route_?name)$", "func_name"),
    (r"^(cmd|command|cmdline|command_?line|args|argv|exec|execute|shell|invocation|query_?string)$", "cmdline"),
    (r"^(query|sql|statement|stmt)$", "quoted"),
    (r"^(msg|message|text|body|line|output|stdout|payload|content|comment|note|description|desc|summary|"
     r"data|value|val|v|str|s|string|buf|buffer|raw|input_?text|reply|answer|response|resp|request|req|"
     r"header|headers|subject|filter|pattern|regex|expr|expression|format|fmt|spec|arg|param|params|"
     r"option|opt|opts|options|flag|flags|setting|field|attr|attribute|property|prop|var|variable|"
     r"env_?var|word|token|char|c|ch|sep|delim|prefix|suffix)$", "word"),
    (r"^(time|timestamp|ts|date|datetime|when|at|start_?time|end_?time|started_?at|created_?at|updated_?at|"
     r"expires_?at|not_?after|not_?before|last_?seen|mtime|ctime|atime|modified|deadline_?at|until|"
     r"finished_?at|scheduled_?at|next_?run|last_?run)$", "ts_iso"),
    (r"^(useragent|user_?agent|ua|agent_?string|client_?version)$", "useragent"),
    (r"^(enabled|disabled|ok|success_?flag|valid|active|ready_?flag|is_?\w+|has_?\w+|should_?\w+|force|"
     r"dry_?run|debug|verbose|secure|insecure|tls|ssl|cached|found|exists|allowed|blocking|recursive|"
     r"readonly|read_?only|running|leader_?flag|healthy|alive|changed|dirty|locked|paused|stopped|"
     r"started|retryable|done|skip|ignore)$", "bool"),
    (r"^(rate|speed|bandwidth|throughput|freq|frequency|temp|temperature|voltage|score_?f|avg|mean|p99|p95|"
     r"p50|stddev|factor|threshold|scale|offset_?f|drift|skew|jitter|loss)$", "float"),
    (r"^(cidr|subnet|prefix_?cidr|network_?cidr|net_?cidr|range|ip_?range|pod_?cidr|service_?cidr|allowed_?ips)$",
     "cidr"),
    (r"^(locale|lang|language|charset|encoding|codec|cipher|algorithm|algo|alg|curve|kex|mac_?algo|"
     r"hash_?algo|compression|format_?name|mime|mime_?type|content_?type|media_?type|filetype|ext|extension)$",
     "word"),
]
_NAME_RULES_C = [(re.compile(p), t) for p, t in NAME_RULES]


def split_ident(name: str) -> list[str]:
    name = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name)
    return [p for p in re.split(r"[^A-Za-z0-9]+", name.lower()) if p]


def infer_from_name(name: str | None) -> str | None:
    """Slot type from an identifier: ``client_ip`` -> ipaddr, ``self.req.url`` -> url."""
    if not name:
        return None
    name = name.strip().strip("'\"")
    # only the last attribute / subscript of an expression counts
    name = re.sub(r"\(.*\)$", "", name)
    name = re.split(r"[.\[\]]", name.rstrip("]").rstrip(")"))[-1] or name
    parts = split_ident(name)
    if not parts:
        return None
    cands = ["_".join(parts), "".join(parts)]
    if len(parts) >= 2:
        cands.append("_".join(parts[-2:]))
    cands.append(parts[-1])
    if len(parts) >= 2:
        cands.append(parts[0])
    for c in cands:
        for rx, t in _NAME_RULES_C:
            if rx.match(c):
                return t
    return None


# Context rules: regex over the literal text *before* the placeholder (right-
# trimmed, lower-cased), checked in order.  The first group of patterns only
# looks at the last word(s).
BEFORE_RULES: list[tuple[str, str, str]] = [
    (r"(invalid |illegal |unknown |for |by |to |from )?(user|username|login|account|luser|ruser)[ =:]*['\"\[(<]?$", "user", "before:user"),
    (r"(uid|gid|euid|egid)[ =:]*$", "int", "before:uid"),
    (r"(e-?mail|sender|recipient|rcpt( to)?|mail from|from=|to=|orig_to=|envelope[- ]from)[ =:]*<?$", "email", "before:email"),
    (r"\b(ipv6|inet6|ip6)( address| addr)?[ =:]*['\"\[(]?$", "ipv6", "before:ipv6"),
    (r"\b(ip|ipv4|inet|address|addr|gateway|gw|nexthop|next-hop|router|nameserver|dns server|netmask|"
     r"broadcast|saddr|daddr|source ip|destination ip|src ip|dst ip|peer address|remote address|"
     r"client address|local address|vip|virtual ip)[ =:]*['\"\[(]?$", "ipaddr", "before:ip"),
    (r"\b(mac|hwaddr|lladdr|ether|bssid|hw address|hardware address|chaddr|station)[ =:]*['\"\[(]?$", "mac", "before:mac"),
    (r"\b(port|sport|dport|lport|rport|tcp port|udp port)[ =:#]*$", "port", "before:port"),
    (r"\b(pid|ppid|process|child|tid|lwp|process id|pgid|sid)[ =:#]*[\[(]?$", "pid", "before:pid"),
    (r"\b(interface|iface|ifname|netdev|nic|bridge|bond|vlan|link|wlan|tap|tun|veth|phy|on dev|dev)[ =:]*['\"\[(]?$", "iface", "before:iface"),
    (r"\b(device|disk|drive|partition|volume|lun|block device|blockdev|mapper|array|md device|member)[ =:]*['\"\[(]?$", "device", "before:device"),
    (r"\b(domain|zone|hostname|fqdn|qname|realm|cname|ptr|mx|ns|name server|query|resolving|lookup|looking up|"
     r"resolve|sni|server name|common name|cn|subject|issuer|vhost|virtual host)[ =:]*['\"\[(]?$", "fqdn", "before:fqdn"),
    (r"\b(url|uri|location|redirect(ing)? to|redirect|href|link|endpoint|feed|webhook|fetching|downloading|"
     r"get|post|put|delete|head|request(ing)?|uploading to)[ =:]*['\"\[(<]?$", "url", "before:url"),
    (r"\b(file|files|filename|path|pathname|directory|dir|folder|socket|pidfile|pid file|lockfile|lock file|"
     r"config file|configuration file|conf file|keyfile|key file|cert(ificate)?( file)?|ca file|log file|"
     r"logfile|mount ?point|mounted on|script|executable|binary|symlink|link target|open|opening|opened|"
     r"openat|fopen|load|loading|loaded|read|reading|write|writing|unlink|unlinking|remove|removing|mkdir|"
     r"rmdir|stat|lstat|fstat|chdir|chroot|chmod|chown|rename|renaming|access|create|creating|created|"
     r"include|including|parse|parsing|saving|save|saved|copying|copy|delete|deleting|truncate|mmap|"
     r"exec|execv|execve|execute|executing|sourcing|scanning|watching|monitoring|inotify|in directory|"
     r"into|under|below|within|output|input|database file|db file|archive|image file|dump|spool|queue file)"
     r"[ =:]*['\"\[(`]?$", "path", "before:path"),
    (r"\b(host|server|peer|remote|node|master|slave|replica|primary|backend|upstream|relay|smarthost|"
     r"proxy|mirror|target|neighbor|neighbour|client|connect(ing|ed)? to|connection (to|from)|from host|"
     r"to host|on host|contacting|reach|reaching|ping|pinging|dial(ing)?|accepted connection from|"
     r"connection from|connect from|disconnect from|lost connection (to|from)|bound to|listening on|"
     r"listen on|binding to|bind to|via|from|to|at)[ =:]*['\"\[(<]?$", "host", "before:host"),
    (r"\b(version|ver|release|v)[ =:]*['\"\[(]?$", "version", "before:version"),
    (r"\b(uuid|guid)[ =:]*['\"\[(]?$", "uuid", "before:uuid"),
    (r"\b(signal|sig)[ =:]*$", "signal", "before:signal"),
    (r"\b(state|status|mode|phase|role|level|policy|action|event|type|result|condition|health)[ =:]*['\"\[(]?$", "state", "before:state"),
    (r"\b(protocol|proto|transport|scheme|family)[ =:]*['\"\[(]?$", "proto", "before:proto"),
    (r"\b(http method|request method|http verb)[ =:]*['\"\[(]?$", "http_method", "before:method"),
    (r"\b(service|unit|daemon|job|plugin|module|driver|provider|component|subsystem|application|app|"
     r"program|helper|agent|handler|backend type|extension|filter|hook)[ =:]*['\"\[(]?$", "service", "before:service"),
    (r"\b(class|type|exception|struct|bean|kind)[ =:]*['\"\[(]?$", "class_name", "before:class"),
    (r"\b(function|func|method|routine|callback|symbol|procedure|rpc|call(ing)?)[ =:]*['\"\[(]?$", "func_name", "before:func"),
    (r"\b(command|cmd|cmdline|command line|running|run|spawn(ing)?|launch(ing)?|invoking|exec(uting)? command)[ =:]*['\"\[(`]?$", "cmdline", "before:cmd"),
    (r"\b(table|database|db|schema|collection|bucket|queue|topic|exchange|channel|stream|index|keyspace|"
     r"pool|group|role|vg|lv|volume group|logical volume|share|export|repo|repository|branch|dataset|"
     r"snapshot|network|vrf|chain|set|list|map|rule|profile|context|template|realm|tenant|project|"
     r"namespace|section|category|tag|label|alias|mailbox|folder name|key ring|keyring|zone name)[ =:]*['\"\[(]?$",
     "name", "before:name"),
    (r"\b(id|identifier|serial|ticket|token|key|session|txid|xid|handle|cookie)[ =:#]*['\"\[(]?$", "id", "before:id"),
    (r"\b(option|parameter|param|variable|var|setting|directive|field|attribute|attr|property|header|"
     r"keyword|flag|argument|arg|token type|element|tag name|entry|item|name|value|named|called)[ =:]*['\"\[(]?$",
     "word", "before:word"),
    (r"\b(container)[ =:]*['\"\[(]?$", "container_id", "before:container"),
    (r"\b(pod)[ =:]*['\"\[(]?$", "pod", "before:pod"),
    (r"\b(image)[ =:]*['\"\[(]?$", "image", "before:image"),
    (r"\b(thread)[ =:]*['\"\[(]?$", "thread", "before:thread"),
    (r"\b(digest|checksum|hash|fingerprint|commit|revision|sha1|sha256|md5)[ =:]*['\"\[(]?$", "hexdigest", "before:digest"),
    (r"\b(took|after|in|for|elapsed|timeout|timed out after|within|every|interval|delay|backoff|wait(ing)?|"
     r"sleep(ing)?|retry(ing)? in|ttl|period|duration|since)[ =:]*$", "duration", "before:duration"),
]
_BEFORE_C = [(re.compile(p), t, r) for p, t, r in BEFORE_RULES]

# Rules on the literal text right *after* the placeholder.
AFTER_RULES: list[tuple[str, str, str]] = [
    (r"^\s*(ms|msec|milliseconds?|us|usec|µs|microseconds?|ns|nsec|sec|secs|seconds?|s|min|mins|minutes?|hours?|h|days?)\b",
     "UNIT_TIME", "after:time_unit"),
    (r"^\s*(bytes?|b|kb|kib|mb|mib|gb|gib|tb|tib|k|m|g|sectors?|blocks?|pages?|octets?)\b", "UNIT_SIZE", "after:size_unit"),
    (r"^%", "UNIT_PCT", "after:percent"),
    (r"^\s*(times|attempts?|retries|tries|entries|items|records|rows|files|objects|connections|clients|"
     r"requests|messages|packets|events|errors|workers|threads|processes|nodes|peers|members|keys|users|"
     r"lines|chunks|segments|elements|devices|interfaces|routes|jobs|tasks)\b", "UNIT_COUNT", "after:count_noun"),
    (r"^\s*(port\b)", "HOST_BEFORE_PORT", "after:port_follows"),
    (r"^:(\{|%)", "HOST_COLON", "after:colon_slot"),
    (r"^\(\)", "FUNC", "after:parens"),
    (r"^\s*(failed|failure|error)\b", "NAME_SUBJ", "after:failed"),
]
_AFTER_C = [(re.compile(p, re.I), t, r) for p, t, r in AFTER_RULES]

_ERR_TAIL = re.compile(r"(fail(ed|ure)?|error|err|cannot [a-z ]+|can't [a-z ]+|unable to [a-z ]+|couldn't [a-z ]+|"
                       r"could not [a-z ]+|problem|reason|because|denied|refused|aborted|rejected|lost)"
                       r"[^%{}]{0,60}?(: ?|: \(|\(|- |, )['\"]?$", re.I)
_KEYEQ = re.compile(r"([A-Za-z_][A-Za-z0-9_.-]*)\s*[=:]\s*['\"\[(<]?$")


def infer(conv_type: str, before: str, after: str, name_hint: str | None = None,
          lang: str = "c", is_first: bool = False) -> tuple[str, str]:
    """Slot type for one placeholder.

    ``conv_type`` is the coarse class decided by the conversion itself:
    'int', 'float', 'hex', 'hex0x', 'char', 'errmsg', a fixed type such as
    'ipv4' (kernel %pI4), or 'str' for %s / %v / {} whose type must come from
    context.  ``before``/``after`` are the literal texts adjacent to the
    placeholder (only up to the neighbouring placeholders).
    """
    b = before.lower()
    bt = b.rstrip()
    a = after
    # ---- numeric conversions: refine only where the number is special ----
    if conv_type in ("int", "float"):
        if conv_type == "int":
            if re.search(r"\b(port|sport|dport|lport|rport)[ =:#]*$", bt) or (re.search(r"[a-z0-9\]}]:$", b) and
                                                                              re.search(r"(host|addr|server|peer|connect|listen|bind|from|to)", b)):
                return "port", "int:port"
            if re.search(r"(pid|ppid|process|child|tid|lwp|pgid)[ =:#]*[\[(]?$", bt) or re.search(r"[a-z]\[$", b):
                return "pid", "int:pid"
            if re.search(r"\b(status|status code|http|response code)[ =:]*$", bt) and lang != "kernel":
                return "int", "int:status_like"
            if name_hint:
                t = infer_from_name(name_hint)
                if t in ("port", "pid", "duration", "size", "percent", "status"):
                    return t if t not in ("duration", "size", "percent") else "int", "int:name:" + (t or "")
        for rx, t, r in _AFTER_C:
            if t == "UNIT_PCT" and rx.search(a):
                return conv_type, "num:percent_literal"
        return conv_type, "conv:" + conv_type
    if conv_type != "str":
        return conv_type, "conv:" + conv_type

    # ---- string-like conversions ----
    # 1. leading "%s: " / "%s(): " / "%s:%d" (function / program / module prefix) in C-like code
    if is_first and not before.strip() and lang in ("c", "kernel") and re.match(r"^(\(\))?: ", a):
        return "const_ident", "first:prefix"
    if is_first and not before.strip() and lang in ("c", "kernel") and re.match(r"^\(\)", a):
        return "const_ident", "first:func"
    if re.match(r"^\(\)", a):
        return "func_name", "after:parens"
    # 2. explicit names; an ALL_CAPS constant or a __name__ is constant per call site
    if name_hint and re.search(r"(^|[.\s])[A-Z][A-Z0-9_]{2,}$", name_hint.strip()) and \
            not re.search(r"(^|\.)(URL|URI|ID|UUID|IP|PID|UID|GID|HOST|PORT|PATH|DIR|USER|ERR|ERROR)$", name_hint.strip()):
        return "const_ident", "name:CONST"
    if name_hint and name_hint.strip().endswith("__name__"):
        return "class_name", "name:__name__"
    if name_hint:
        t = infer_from_name(name_hint)
        if t:
            if t == "err_text" and lang == "c":
                t = "errmsg"
            return t, "name"
    # 3. error tails: "open %s failed: %s" -> error text
    if _ERR_TAIL.search(before) and re.match(r"^\s*($|[)\].;,\x01]|\s-\s|\s\()", a):
        return ("errmsg" if lang in ("c", "kernel") else "err_text"), "errtail"
    # 4. key=value / key: value
    m = _KEYEQ.search(before)
    if m:
        t = infer_from_name(m.group(1))
        if t:
            if t == "err_text" and lang in ("c", "kernel"):
                t = "errmsg"
            return t, "keyeq"
    # 5. host:port
    if re.match(r"^:(%|\{)", a) or re.match(r"^:\d", a):
        return "host", "after:host_colon"
    if re.match(r"^\s*port\b", a, re.I) or re.match(r"^#\d", a):
        return "ipaddr", "after:port_follows"
    # 6. preceding words
    for rx, t, r in _BEFORE_C:
        if rx.search(bt):
            if t == "duration" and lang in ("c", "kernel", "java"):
                continue  # a C %s after "for"/"in" is rarely a duration
            if t == "host" and lang in ("c", "kernel") and re.search(r"\b(to|at|from|via)$", bt):
                # "to %s" in C is often a value, not a host; only accept with network words nearby
                if not re.search(r"(connect|connection|host|server|peer|send|sent|relay|forward|listen|bind|"
                                 r"resolv|address|socket|client|remote)", b):
                    continue
            return t, r
    # 7. following text
    for rx, t, r in _AFTER_C:
        if rx.search(a):
            if t == "UNIT_TIME":
                return "float", r
            if t == "UNIT_SIZE":
                return "int", r
            if t == "UNIT_COUNT":
                return "int", r
            if t == "NAME_SUBJ":
                return "name", r
            break
    # 8. brackets and quotes
    if re.search(r"\[$", before) and re.match(r"^\]", a):
        return "value", "brackets"
    if re.search(r"['\"`]$", before) and re.match(r"^['\"`]", a):
        return "word", "quoted_literal"
    if re.search(r"<$", before) and re.match(r"^>", a):
        return "email", "angle"
    if lang == "go" and re.search(r"\b(took|after|in|elapsed|timeout|every|duration|since)[ =:]*$", bt):
        return "duration", "go:duration_word"
    # 9. trailing ": %s" at end of message in any language: a reason
    if re.search(r": ?$", before) and not a.strip() and before.strip():
        if re.search(r"(?i)(error|fail|cannot|can't|unable|invalid|could not|couldn't|denied|refused|bad |abort|"
                     r"problem|exception|warning)", before):
            return ("errmsg" if lang in ("c", "kernel") else "err_text"), "tail_colon_err"
        return "value", "tail_colon"
    return "value", "default"


# ---------------------------------------------------------------------------
# Message-shape filters.
# ---------------------------------------------------------------------------

LOGGY_RE = re.compile(
    r"(?i)\b(fail(ed|ure|ing)?|error|errors|cannot|can't|couldn't|could not|unable|invalid|illegal|missing|"
    r"not found|no such|start(ed|ing)?|stop(ped|ping)?|shutting|shutdown|connect(ed|ing|ion)?|disconnect(ed|ing)?|"
    r"timeout|timed out|refus(ed|ing)|denied|warning|ignor(e|ed|ing)|skipp(ed|ing)|retry(ing)?|reload(ed|ing)?|"
    r"load(ed|ing)|receiv(ed|ing)|sen(t|ding)|listen(ing)?|accept(ed|ing)|clos(ed|ing)|exit(ed|ing)?|"
    r"terminat(ed|ing)|kill(ed|ing)|unknown|unsupported|out of memory|too (many|long|large|big|small)|exceed(ed|s)|"
    r"expired?|success(ful(ly)?)?|complete(d)?|finish(ed)?|initiali[sz](ed|ing|ation)|register(ed|ing)|"
    r"unregister(ed|ing)|enabl(ed|ing)|disabl(ed|ing)|lost|reset|drop(ped|ping)|discard(ed|ing)|overflow|"
    r"corrupt(ed)?|mismatch|ready|waiting|detected|reconnect(ed|ing)?|abort(ed|ing)?|creat(ed|ing)|"
    r"delet(ed|ing)|remov(ed|ing)|add(ed|ing)|updat(ed|ing)|chang(ed|ing)|using|found|allocat(e|ed|ing|ion)|"
    r"free(d|ing)|bound|bind|mount(ed|ing)?|unmount(ed|ing)?|open(ed|ing)?|read(ing)?|writ(e|ing|ten)|"
    r"request(ed|ing)?|respon(se|ded)|authenticat(ed|ion|ing)|authoriz(ed|ation)|login|logout|logged|"
    r"session|process(ed|ing)?|handl(ed|ing)|schedul(ed|ing)|spawn(ed|ing)|fork(ed)?|signal|received|"
    r"queu(ed|ing)|deferr(ed|ing)|deliver(ed|ing|y)|bounc(ed|ing)|reject(ed|ing)|blocked|allowed|"
    r"expir(ed|ing)|renew(ed|ing)|lease|assign(ed|ing)|leader|elect(ed|ion)|join(ed|ing)|leav(e|ing)|left|"
    r"sync(ed|ing|hroniz(ed|ing))?|bad|wrong|unexpected|deprecated|obsolete|not supported|not allowed|"
    r"already|no longer|giving up|unavailable|busy|full|empty|exhausted|limit|quota|overrun|underrun|"
    r"attempt(ed|ing)?|try(ing)?|tried|setting|set to|changed to|switch(ed|ing)|migrat(ed|ing|ion))\b")

_USAGE_RE = re.compile(r"(?i)^(usage|options?:|syntax:|example:|examples:|see |try '|try \")|\s--?[a-z][a-z-]+[ =\[,]|"
                       r"\[-|<[a-z-]+>|^\s|^--?[a-z]")
_SQL_RE = re.compile(r"\b(SELECT .* FROM|INSERT INTO|UPDATE \w+ SET|DELETE FROM|CREATE (TABLE|INDEX|TRIGGER|VIEW)|"
                     r"DROP TABLE|ALTER TABLE|PRAGMA|BEGIN TRANSACTION)\b|\bWHERE \w+ ?=")
_MARKUP_RE = re.compile(r"</?[a-zA-Z][a-zA-Z0-9:-]*( [^>]*)?/?>|&[a-z]+;|<!--|\?>|\\[nrt\"\\]")
_STRFTIME_RE = re.compile(r"%[YHMSbBjZzyTFDRre][^a-z]|%[YHMSbBjZzyTFDR]$")
_CODEISH_RE = re.compile(r"[;{}]\s*$|^\s*[#@$]|\$\{|\$\(|==|!=|&&|\|\||->|\bfunction\b|\breturn\b|\bvoid\b|"
                         r"\bstruct\b|\bint\s+\w+\s*[;=(]|^[A-Z_]{3,}=|^\w+\(.*\)$")


def message_ok(raw: str, constant: str, n_slots: int, lang: str) -> str | None:
    """Return None if ``raw`` looks like a log message, else a short reason it was rejected."""
    if len(raw) < 8 or len(raw) > 300:
        return "length"
    if "\n" in raw.rstrip("\n") or "\r" in raw or "\t" in raw.strip("\t"):
        return "multiline"
    if "  " in raw.strip():
        return "double_space"
    if _USAGE_RE.search(raw):
        return "usage"
    if _SQL_RE.search(raw):
        return "sql"
    if _MARKUP_RE.search(raw):
        return "markup"
    if _STRFTIME_RE.search(raw) and lang in ("c", "kernel"):
        return "strftime"
    if _CODEISH_RE.search(constant.strip()):
        return "code"
    if EXCLUDED_TEXT_RE.search(raw):
        return "excluded_name"
    toks, good = word_stats(constant)
    if good < 1:
        return "no_word"
    alpha = sum(c.isalpha() for c in constant)
    if alpha < 0.45 * max(1, len(constant.replace(" ", ""))):
        return "symbols"
    if n_slots == 0:
        # a plain message: sentence-like and log-like
        if toks < 3 or good < 0.6 * toks or not LOGGY_RE.search(constant):
            return "plain_not_loggy"
        if not re.match(r"^[A-Za-z]", raw.strip()):
            return "plain_start"
        if len(constant.split()) > 18:
            return "plain_long"
        if raw.rstrip().endswith((":", "(", ",")):
            return "plain_fragment"
    else:
        if toks < 2 and not LOGGY_RE.search(constant):
            return "few_words"
        if good < 0.34 * toks:
            return "few_dict_words"
    return None
