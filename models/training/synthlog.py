#!/usr/bin/python3
"""synthlog: a deterministic synthetic log generator with typed variable slots.

logsift needs labelled log lines that no public corpus gives us in the right
shape: the character-level denoiser learns, token by token, which characters
are variables, and the sentence encoder learns to embed templates (including
"hard negatives" that are one meaningful word apart).  The benchmark needs a
reproducible corpus of realistic lines.  This module serves all three.

Model
-----
* A *template* is a format string with ``{slot_type}`` placeholders, e.g.
  ``Failed password for invalid user {user} from {ipv4} port {port} ssh2``.
  ``{slot:N}`` passes an integer argument (``{hex:16}`` = 16 hex digits,
  ``{int:3}`` = exactly 3 digits, ``{epoch:3}`` = epoch seconds with 3
  decimals).  Any other brace text (JSON bodies, ``connectionId{local...``) is
  literal.  Two slots are never adjacent, so spans are unambiguous.
* A *slot type* names a generator function ``fn(rng) -> str``; the span type
  reported for ``{hex:16}`` is ``hex``.
* Constants (class names, loggers, table names, job names...) are chosen when
  the template set is built, from identifier grammars (CamelCase, snake_case,
  dotted packages) and English words, so a model learns what a constant word
  *looks like* rather than memorising a list.  Class-name-like things are
  always constants, never slots.

The template set is built once from a fixed internal seed, so template ids are
stable across runs and across ``Generator`` seeds; the ``Generator`` seed only
drives which templates are sampled and the slot values.

Determinism: only ``random.Random`` instances are used (no global ``random``,
no wall clock, no ``hash()`` of strings, no iteration over sets), so the same
(n, seed) gives byte-identical output on any machine and any PYTHONHASHSEED.

Spans are ``(start, end, slot_type)`` in Python string indices (code points,
not UTF-8 bytes); ``line[start:end]`` is the variable's text.

CLI::

    /usr/bin/python3 models/training/synthlog.py --n 1000 --seed 7
    /usr/bin/python3 models/training/synthlog.py --n 1000 --seed 7 --format jsonl
    /usr/bin/python3 models/training/synthlog.py --list-templates
"""

from __future__ import annotations

import argparse
import base64
import bisect
import json
import random
import re
import sys
import time
from dataclasses import dataclass, field
from typing import Callable, Iterator, Sequence

__all__ = [
    "Generator",
    "Template",
    "SLOT_TYPES",
    "TEMPLATE_SEED",
    "build_templates",
    "render",
    "template_text",
    "main",
]

# The template set is a fixed artefact: building it from a constant seed keeps
# template ids stable for datasets, checkpoints and benchmark baselines.
TEMPLATE_SEED = 0x5EED_106

SlotFn = Callable[[random.Random], str]


# ---------------------------------------------------------------------------
# Small random helpers.  rng.random() is several times faster than
# rng.randint()/rng.choice(), and 1M lines/minute needs that headroom.
# ---------------------------------------------------------------------------

def _pick(rng: random.Random, seq: Sequence):
    return seq[int(rng.random() * len(seq))]


def _between(rng: random.Random, lo: int, hi: int) -> int:
    """Uniform integer in [lo, hi]."""
    return lo + int(rng.random() * (hi - lo + 1))


def _hexstr(rng: random.Random, n: int) -> str:
    return "%0*x" % (n, rng.getrandbits(4 * n))


def _alnum(rng: random.Random, n: int, alphabet: str) -> str:
    k = len(alphabet)
    return "".join([alphabet[int(rng.random() * k)] for _ in range(n)])


_B62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_LOWER_NUM = "abcdefghijklmnopqrstuvwxyz0123456789"
# Kubernetes generated names avoid vowels and look-alike characters.
_K8S_SAFE = "bcdfghjklmnpqrstvwxz2456789"


# ---------------------------------------------------------------------------
# Vocabulary.  These pools feed both constant identifiers (at template build
# time) and some variable values (user names, quoted text).
# ---------------------------------------------------------------------------

ENGLISH = (
    "account action active address agent alert allocation archive attempt "
    "backend balance batch binary block body bucket buffer build bundle cache "
    "call capacity channel check child chunk claim client cluster code commit "
    "config connection consumer content context contract counter credential "
    "cursor customer daemon data database deadline delivery device digest "
    "directory disk document domain driver entry environment error event "
    "export feature field file filter flag frame gateway group handler header "
    "health host image index input instance interval invoice item job journal "
    "key label layer lease ledger limit link listener load lock log manifest "
    "member memory message metric mode module monitor mount name namespace "
    "network node notice object offset order owner package page partition "
    "payload payment peer permission pipeline plan plugin policy pool port "
    "price process profile project provider proxy queue quota range rate "
    "reader record region registry release replica report request resource "
    "response result role route rule sample schedule schema scope secret "
    "segment sender server service session shard shipment signal snapshot "
    "socket source stage state status step storage store stream subject "
    "subscription summary table tag target task tenant thread ticket timer "
    "token topic trace transaction transfer trigger upload user value vault "
    "version volume watcher window worker workspace zone"
).split()

ADJECTIVES = (
    "active async automatic background blocking brief broken cached clean "
    "cold concurrent current daily default delayed dirty empty expired "
    "external fast final global hidden idle incoming internal invalid large "
    "late legacy local long manual missing nightly offline online orphaned "
    "outgoing partial pending primary private public quiet raw remote "
    "scheduled secondary secure shared silent slow small stale standby "
    "strict temporary unknown upstream weekly"
).split()

CAMEL_NOUNS = (
    "Request Response Handler Manager Service Client Connection Pool Session "
    "Cache Token Config Scheduler Worker Executor Dispatcher Registry Resolver "
    "Provider Factory Controller Repository Adapter Listener Broker Consumer "
    "Producer Channel Stream Buffer Reader Writer Parser Encoder Decoder "
    "Validator Router Gateway Proxy Balancer Monitor Tracker Indexer Loader "
    "Store Queue Batch Job Task Shard Replica Partition Segment Snapshot "
    "Checkpoint Ledger Account Order Payment Invoice Cart Inventory Shipment "
    "Profile Event Message Record Block Node Cluster Lease Lock Watcher "
    "Reconciler Allocator Compactor Flusher Uploader Notifier Mailer Renderer "
    "Exporter Importer Migrator Planner Aggregator Collector Sampler Limiter "
    "Pipeline Stage Filter Mapper Reducer Serializer Codec Signer Verifier "
    "Tenant Quota Catalog Query Cursor Transaction Journal Bucket Volume "
    "Endpoint Route"
).split()

CAMEL_ADJ = (
    "Default Async Remote Local Cached Streaming Secure Distributed Pooled "
    "Simple Abstract Composite Lazy Retrying Buffered Concurrent Scheduled "
    "Reactive Blocking Internal Primary Incremental Delta Partial Fast"
).split()

VERBS = (
    "process handle load save fetch send receive submit commit flush close "
    "open start stop run execute dispatch resolve validate parse encode "
    "decode register schedule poll acquire release refresh sync apply "
    "reconcile compact upload download render export import migrate build "
    "read write connect publish subscribe authenticate authorize sign verify "
    "allocate evict invalidate merge split create update delete"
).split()

# Past participles for VERBS-like actions in messages ("Failed to X" vs "Xed").
ORGS = ("acme globex initech umbrella hooli contoso piedpiper wayne stark "
        "tyrell soylent vandelay wonka nakatomi cyberdyne aperture").split()
DOMAINS = ("billing orders payments inventory shipping catalog search auth "
           "identity users notifications analytics reporting ingest storage "
           "gateway scheduler ledger pricing checkout fraud recommendations "
           "metrics audit").split()
JAVA_SUBPKGS = ("service api core internal client impl repository config "
                "handler job util model web rpc persistence domain").split()
REAL_JAVA_PKGS = (
    "org.apache.hadoop.mapred org.apache.hadoop.hdfs.server.datanode "
    "org.apache.hadoop.yarn.server.nodemanager org.apache.kafka.clients.consumer.internals "
    "org.apache.kafka.clients.producer.internals org.springframework.web.servlet "
    "org.springframework.scheduling.support io.netty.channel com.zaxxer.hikari.pool "
    "org.hibernate.engine.jdbc.spi org.elasticsearch.transport org.apache.spark.scheduler "
    "org.apache.spark.executor io.grpc.netty org.eclipse.jetty.server "
    "org.apache.zookeeper org.apache.catalina.core com.datastax.driver.core "
    "org.apache.flink.runtime.taskmanager com.amazonaws.services.s3"
).split()
PY_MODULES = ("app worker api tasks ingest billing core service jobs "
              "handlers sync scheduler pipeline etl").split()
SERVICES = ("checkout-api payments-svc orders inventory-worker auth-gateway "
            "search-indexer notification-sender billing-cron user-profile "
            "cart-service shipping-api ledger-writer fraud-scorer "
            "recommendation-engine report-builder image-resizer "
            "session-store metrics-collector").split()
NAMESPACES = ("default production staging kube-system monitoring ingress-nginx "
              "data payments platform").split()
TABLES = ("users orders payments invoices sessions events audit_log products "
          "line_items shipments accounts customers api_keys refunds "
          "subscriptions inventory_items webhooks job_runs").split()
COLUMNS = ("id user_id order_id status email created_at updated_at amount "
           "currency tenant_id external_id state attempts last_seen_at "
           "total_cents sku quantity").split()
JOB_NAMES = ("nightly_etl hourly_rollup invoice_export user_cleanup "
             "search_reindex backup_full backup_incremental report_daily "
             "cache_warmup ledger_reconcile thumbnail_batch gdpr_erasure "
             "billing_run sitemap_build").split()

# Variable values: a few names are non-ASCII on purpose (valid UTF-8 coverage).
USER_NAMES = (
    "alice bob carol dave erin frank grace heidi ivan judy mallory oscar "
    "peggy trent victor walter jdoe asmith mjones klee rpatel nguyen "
    "svc_backup svc_deploy jenkins deploy ubuntu admin postgres git oracle "
    "test guest support ftpuser hadoop spark www-data ansible "
    "pi ubnt nagios mysql ftp oracle user default operator monitor backup "
    "ec2-user centos vagrant demo info webmaster tomcat zabbix minecraft "
    "josé müller zoë françois søren łukasz 李伟 たなか Ольга"
).split()
SURNAMES = ("hopper turing lovelace knuth ritchie thompson torvalds hamilton "
            "curie noether babbage dijkstra liskov wozniak shannon").split()
DOCKER_ADJ = ("admiring brave clever dreamy eager festive gifted happy jolly "
              "keen loving nifty quirky serene trusting vibrant").split()
HOST_ROLES = ("web api db cache worker node kafka es ingest edge lb app batch "
              "gpu redis mq etl auth proxy").split()
DOMAIN_SUFFIXES = ("example.com corp.internal ec2.internal acme.io "
                   "us-east-1.compute.internal prod.example.net lan").split()
TLDS_PUBLIC = ("example.com example.org example.net acme.io globex.dev "
               "amazonaws.com googleapis.com").split()
FILE_DIRS = ("var log lib tmp data opt srv app releases cache run spool "
             "home etc conf shared uploads exports backups current").split()
FILE_EXTS = ("log json yaml yml conf txt csv parquet gz tar sock pid db "
             "jar py so lock tmp").split()
NON_ASCII_WORDS = ("café naïve Größe señor façade résumé Ærø 東京 über "
                   "déjà niño").split()
PROC_NAMES = ("java python3 nginx postgres node containerd-shim dockerd "
              "kubelet redis-server mysqld sshd chrome envoy ruby "
              "gunicorn celery beam.smp").split()


# ---------------------------------------------------------------------------
# Slot generators.  Each returns a non-empty, newline-free string.
# ---------------------------------------------------------------------------

def slot_uuid(rng: random.Random) -> str:
    h = "%032x" % rng.getrandbits(128)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{'89ab'[int(rng.random() * 4)]}{h[17:20]}-{h[20:]}"


_HEX_LENGTHS = (6, 8, 8, 10, 12, 16, 16, 24, 32, 40)


def slot_hex(rng: random.Random, n: int | None = None) -> str:
    return _hexstr(rng, n if n else _pick(rng, _HEX_LENGTHS))


def slot_hex0x(rng: random.Random) -> str:
    r = rng.random()
    if r < 0.45:  # 64-bit pointer, zero padded (gdb/ASan style)
        return "0x" + "0000" + "7f" + _hexstr(rng, 10)
    if r < 0.75:  # heap/text address without padding
        return "0x" + _pick(rng, ("55", "56", "7f", "c0")) + _hexstr(rng, 10)
    if r < 0.9:  # small register/flag value
        return "0x%x" % int(rng.random() * 0x10000)
    return "0x%08X" % rng.getrandbits(32)


def slot_md5(rng: random.Random) -> str:
    return _hexstr(rng, 32)


def slot_sha1(rng: random.Random) -> str:
    return _hexstr(rng, 40)


def slot_sha256(rng: random.Random) -> str:
    return _hexstr(rng, 64)


def slot_ipv4(rng: random.Random) -> str:
    r = rng.random()
    if r < 0.35:
        return "10.%d.%d.%d" % (_between(rng, 0, 255), _between(rng, 0, 255), _between(rng, 1, 254))
    if r < 0.55:
        return "192.168.%d.%d" % (_between(rng, 0, 255), _between(rng, 1, 254))
    if r < 0.65:
        return "172.%d.%d.%d" % (_between(rng, 16, 31), _between(rng, 0, 255), _between(rng, 1, 254))
    return "%d.%d.%d.%d" % (_between(rng, 1, 223), _between(rng, 0, 255),
                            _between(rng, 0, 255), _between(rng, 1, 254))


_WELL_KNOWN_PORTS = (22, 25, 53, 80, 443, 2181, 3306, 5432, 5672, 6379, 8080,
                     8443, 9092, 9200, 9300, 11211, 27017, 50010)


def slot_port(rng: random.Random) -> str:
    if rng.random() < 0.4:
        return str(_pick(rng, _WELL_KNOWN_PORTS))
    return str(_between(rng, 1024, 65535))


def slot_ipv4_port(rng: random.Random) -> str:
    return slot_ipv4(rng) + ":" + slot_port(rng)


def slot_ipv6(rng: random.Random) -> str:
    r = rng.random()
    if r < 0.25:  # full, zero-padded form
        return ":".join(["%04x" % rng.getrandbits(16) for _ in range(8)])
    if r < 0.35:
        return "::1"
    if r < 0.55:  # link-local
        return "fe80::" + ":".join(["%x" % rng.getrandbits(16) for _ in range(4)])
    # Compressed: head::tail with a zero run in the middle.
    head = _between(rng, 1, 4)
    tail = _between(rng, 1, 6 - head)
    prefix = _pick(rng, ("2001:db8", "2600:1f18", "2a02:6b8", "fd00"))
    parts_h = [prefix] + ["%x" % rng.getrandbits(16) for _ in range(head - 1)]
    parts_t = ["%x" % rng.getrandbits(16) for _ in range(tail)]
    return ":".join(parts_h) + "::" + ":".join(parts_t)


def slot_ipv6_port(rng: random.Random) -> str:
    return "[" + slot_ipv6(rng) + "]:" + slot_port(rng)


def slot_mac(rng: random.Random) -> str:
    b = rng.getrandbits(48)
    octets = ["%02x" % ((b >> (8 * i)) & 0xFF) for i in range(6)]
    r = rng.random()
    if r < 0.7:
        return ":".join(octets)
    if r < 0.85:
        return ":".join(octets).upper()
    return "-".join(octets).upper()  # Windows style


def slot_host(rng: random.Random) -> str:
    r = rng.random()
    role = _pick(rng, HOST_ROLES)
    if r < 0.35:
        return "%s-%02d" % (role, _between(rng, 1, 48))
    if r < 0.55:
        return "ip-10-%d-%d-%d" % (_between(rng, 0, 255), _between(rng, 0, 255), _between(rng, 1, 254))
    if r < 0.7:
        return "%s%d" % (role, _between(rng, 1, 200))
    if r < 0.85:
        return "%s-%s-%d" % (role, _pick(rng, ("use1", "euw1", "apse2", "dc1", "fra")), _between(rng, 1, 9))
    return "%s-%s" % (role, _hexstr(rng, 5))


def slot_fqdn(rng: random.Random) -> str:
    r = rng.random()
    if r < 0.45:
        return slot_host(rng) + "." + _pick(rng, DOMAIN_SUFFIXES)
    if r < 0.7:
        return "%s.%s.svc.cluster.local" % (_pick(rng, SERVICES), _pick(rng, NAMESPACES))
    if r < 0.85:
        return "%s.%s" % (_pick(rng, ("api", "www", "auth", "cdn", "s3", "login", "static", "grpc")),
                          _pick(rng, TLDS_PUBLIC))
    return "%s-%d.%s-headless.%s.svc.cluster.local" % (
        _pick(rng, ("kafka", "zk", "redis", "es-data", "cassandra")), _between(rng, 0, 5),
        _pick(rng, ("kafka", "zk", "redis", "es")), _pick(rng, NAMESPACES))


def slot_pod(rng: random.Random) -> str:
    svc = _pick(rng, SERVICES)
    if rng.random() < 0.15:  # StatefulSet pods are name-ordinal
        return "%s-%d" % (svc, _between(rng, 0, 11))
    return "%s-%s-%s" % (svc, _alnum(rng, _between(rng, 9, 10), _K8S_SAFE), _alnum(rng, 5, _K8S_SAFE))


def slot_container(rng: random.Random) -> str:
    r = rng.random()
    if r < 0.5:
        return "%s_%s" % (_pick(rng, DOCKER_ADJ), _pick(rng, SURNAMES))
    if r < 0.8:
        return "%s-%s-%d" % (_pick(rng, ("shop", "infra", "dev", "stack")),
                             _pick(rng, ("web", "db", "redis", "worker", "nginx")), _between(rng, 1, 4))
    return "k8s_%s_%s_%s_%s_%d" % (_pick(rng, ("app", "sidecar", "init")), slot_pod(rng),
                                  _pick(rng, NAMESPACES), _hexstr(rng, 8), _between(rng, 0, 3))


def slot_container_id(rng: random.Random) -> str:
    return _hexstr(rng, 12 if rng.random() < 0.65 else 64)


def slot_path(rng: random.Random) -> str:
    r = rng.random()
    if r < 0.2:
        return "/var/log/%s/%s.log" % (_pick(rng, SERVICES), _pick(rng, ("app", "error", "access", "gc", "audit")))
    if r < 0.3:
        return "/proc/%d/%s" % (_between(rng, 1, 99999), _pick(rng, ("status", "fd", "cgroup", "maps")))
    if r < 0.4:
        return "/tmp/tmp%s" % _alnum(rng, 8, _LOWER_NUM)
    if r < 0.5:
        return "/home/%s/%s" % (_pick(rng, USER_NAMES[:30]), _pick(rng, (".ssh/authorized_keys", ".bashrc", "work", "Downloads")))
    depth = _between(rng, 1, 4)
    dirs = "/".join([_pick(rng, FILE_DIRS) for _ in range(depth)])
    name = _pick(rng, ENGLISH) + (("_%d" % _between(rng, 0, 999)) if rng.random() < 0.5 else "")
    return "/%s/%s.%s" % (dirs, name, _pick(rng, FILE_EXTS))


def slot_winpath(rng: random.Random) -> str:
    r = rng.random()
    name = "%s.%s" % (_pick(rng, ENGLISH), _pick(rng, ("dll", "exe", "log", "tmp", "dat", "txt")))
    if r < 0.4:
        return "C:\\Users\\%s\\AppData\\Local\\Temp\\%s" % (_pick(rng, USER_NAMES[:25]), name)
    if r < 0.7:
        return "C:\\Program Files\\%s\\%s" % (_pick(rng, CAMEL_NOUNS), name)
    if r < 0.85:
        return "D:\\data\\%s\\%s" % (_pick(rng, DOMAINS), name)
    return "\\\\%s\\%s\\%s" % (slot_host(rng), _pick(rng, ("share", "backup", "public")), name)


def _url_path(rng: random.Random) -> str:
    segs = []
    if rng.random() < 0.6:
        segs.append(_pick(rng, ("api/v1", "api/v2", "v1", "internal", "admin", "static")))
    for _ in range(_between(rng, 1, 3)):
        r = rng.random()
        if r < 0.55:
            segs.append(_pick(rng, ENGLISH) + ("s" if rng.random() < 0.4 else ""))
        elif r < 0.8:
            segs.append(str(_between(rng, 1, 999999)))
        else:
            segs.append(slot_uuid(rng))
    return "/" + "/".join(segs)


def _query(rng: random.Random) -> str:
    keys = ("page", "limit", "sort", "q", "id", "offset", "token", "lang", "utm_source", "ref")
    parts = []
    for _ in range(_between(rng, 1, 3)):
        k = _pick(rng, keys)
        v = str(_between(rng, 0, 500)) if rng.random() < 0.5 else _pick(rng, ENGLISH)
        parts.append(k + "=" + v)
    return "?" + "&".join(parts)


def slot_uri(rng: random.Random) -> str:
    return _url_path(rng) + (_query(rng) if rng.random() < 0.35 else "")


def slot_url(rng: random.Random) -> str:
    scheme = "https" if rng.random() < 0.7 else "http"
    host = slot_fqdn(rng) if rng.random() < 0.75 else slot_ipv4_port(rng)
    return "%s://%s%s" % (scheme, host, slot_uri(rng))


def slot_email(rng: random.Random) -> str:
    local = _pick(rng, USER_NAMES[:30])
    r = rng.random()
    if r < 0.3:
        local += "." + _pick(rng, SURNAMES)
    elif r < 0.4:
        local += "+" + _pick(rng, ("test", "alerts", "billing"))
    elif r < 0.5:
        local += str(_between(rng, 1, 99))
    return local + "@" + _pick(rng, ("example.com", "gmail.com", "corp.example.org", "acme.io", "mail.example.net"))


_CONSONANTS = "bcdfghjklmnprstvwz"
_VOWELS = "aeiou"


def _pronounceable(rng: random.Random) -> str:
    """A made-up short name (ted, utsa, kimor): user names are open-ended."""
    out = ""
    for _ in range(_between(rng, 1, 3)):
        out += _pick(rng, _CONSONANTS) + _pick(rng, _VOWELS)
        if rng.random() < 0.4:
            out += _pick(rng, _CONSONANTS)
    return out


# The system accounts of a Debian /etc/passwd: they show up in auth logs too.
SYSTEM_ACCOUNTS = ("daemon bin sys sync games man lp mail news uucp proxy list irc gnats nobody "
                   "sshd messagebus systemd-network _apt postfix").split()


def _user_base(rng: random.Random) -> str:
    r = rng.random()
    if r < 0.2:
        return "root"  # by far the most frequent user in auth logs
    if r < 0.55:
        return _pick(rng, USER_NAMES)
    if r < 0.65:
        return _pick(rng, SYSTEM_ACCOUNTS)
    if r < 0.8:
        return _pronounceable(rng)
    if r < 0.9:
        return "user%d" % _between(rng, 1, 9999)
    return _pick(rng, SURNAMES) + str(_between(rng, 1, 99))


def slot_user(rng: random.Random) -> str:
    """A user name; scanners try any spelling (ADMIN, Admin, PlcmSpIp), so case varies too."""
    name = _user_base(rng)
    r = rng.random()
    if r < 0.08:
        return name.upper()
    if r < 0.14:
        return name.capitalize()
    if r < 0.18:
        return "".join(_pronounceable(rng).capitalize() for _ in range(_between(rng, 2, 3)))
    return name


def slot_bool(rng: random.Random) -> str:
    """A boolean value (``enabled=true``, ``mScreenOn = false``): the value varies, the key does not."""
    return _pick(rng, ("true", "false", "true", "false", "True", "False", "yes", "no", "on", "off"))


def slot_int(rng: random.Random, digits: int | None = None) -> str:
    if digits:
        return "%0*d" % (digits, int(rng.random() * 10 ** digits))
    r = rng.random()  # skewed toward small counts, as real logs are
    if r < 0.45:
        return str(int(rng.random() * 100))
    if r < 0.75:
        return str(int(rng.random() * 10000))
    if r < 0.92:
        return str(int(rng.random() * 1000000))
    return str(int(rng.random() * 10000000000))


def slot_float(rng: random.Random) -> str:
    mag = _pick(rng, (1, 10, 100, 1000, 100000))
    return "%.*f" % (_between(rng, 1, 4), rng.random() * mag)


def slot_neg(rng: random.Random) -> str:
    if rng.random() < 0.6:
        return "-%d" % _between(rng, 1, 99999)
    return "-%.*f" % (_between(rng, 1, 3), 0.01 + rng.random() * 500)


def slot_duration(rng: random.Random) -> str:
    r = rng.random()
    if r < 0.25:
        return "%dms" % _between(rng, 1, 9999)
    if r < 0.42:
        return "%.*fs" % (_between(rng, 1, 3), rng.random() * 60)
    if r < 0.6:  # Go time.Duration
        h, m, s = _between(rng, 0, 3), _between(rng, 0, 59), rng.random() * 60
        if h:
            return "%dh%dm%ds" % (h, m, int(s))
        return "%dm%.*fs" % (m + 1, _between(rng, 0, 3), s) if rng.random() < 0.5 else "%dm%ds" % (m + 1, int(s))
    if r < 0.75:
        return "%02d:%02d:%02d" % (_between(rng, 0, 23), _between(rng, 0, 59), _between(rng, 0, 59))
    if r < 0.83:
        return "%d%s" % (_between(rng, 1, 999), _pick(rng, ("µs", "us", "ns")))
    if r < 0.92:
        return "%dd%dh%dm" % (_between(rng, 1, 30), _between(rng, 0, 23), _between(rng, 0, 59))
    return "PT%dM%dS" % (_between(rng, 0, 59), _between(rng, 0, 59))  # ISO 8601


_SIZE_UNITS = ("B", "KB", "MB", "GB", "KiB", "MiB", "GiB", "TiB", "K", "M", "G")


def slot_size(rng: random.Random) -> str:
    unit = _pick(rng, _SIZE_UNITS)
    if rng.random() < 0.5:
        return "%d%s" % (_between(rng, 1, 4096), unit)
    return "%.*f%s" % (_between(rng, 1, 2), rng.random() * 1000, unit)


def slot_percent(rng: random.Random) -> str:
    if rng.random() < 0.5:
        return "%d%%" % _between(rng, 0, 100)
    return "%.*f%%" % (_between(rng, 1, 2), rng.random() * 100)


def slot_num_unit(rng: random.Random) -> str:
    r = rng.random()
    if r < 0.25:
        return slot_duration(rng)
    if r < 0.5:
        return slot_size(rng)
    if r < 0.65:
        return slot_percent(rng)
    v = "%.1f" % (rng.random() * 1000) if rng.random() < 0.5 else str(_between(rng, 1, 20000))
    return v + _pick(rng, ("rps", "req/s", "MB/s", "ops/s", "msg/s", "°C", "GHz", "rpm", "kbps", "Mbit/s"))


# Timestamps: a random second in [2019-01-01, 2026-01-01) rendered in many
# formats.  time.gmtime(t) is a pure function of t (no wall clock involved).
_EPOCH_LO = 1546300800
_EPOCH_SPAN = 1767225600 - _EPOCH_LO
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
_WDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")


def _tm(rng: random.Random) -> time.struct_time:
    return time.gmtime(_EPOCH_LO + int(rng.random() * _EPOCH_SPAN))


def _tz(rng: random.Random, colon: bool) -> str:
    h = _pick(rng, (0, 0, 1, 2, 5, 8, 9, -3, -4, -5, -7, -8))
    m = 30 if rng.random() < 0.05 else 0
    sign = "-" if h < 0 else "+"
    return ("%s%02d:%02d" if colon else "%s%02d%02d") % (sign, abs(h), m)


def slot_ts_iso(rng: random.Random) -> str:
    t = _tm(rng)
    base = "%04d-%02d-%02dT%02d:%02d:%02d" % (t[0], t[1], t[2], t[3], t[4], t[5])
    r = rng.random()
    if r < 0.3:
        return base + "Z"
    if r < 0.55:
        return base + ".%03dZ" % int(rng.random() * 1000)
    if r < 0.7:
        return base + ".%06d" % int(rng.random() * 1000000) + _tz(rng, True)
    if r < 0.85:
        return base  # no zone
    if r < 0.93:
        return base + _tz(rng, True)
    return base + ".%09dZ" % int(rng.random() * 1e9)


def slot_ts_rfc2822(rng: random.Random) -> str:
    t = _tm(rng)
    zone = "GMT" if rng.random() < 0.4 else _tz(rng, False)
    return "%s, %02d %s %04d %02d:%02d:%02d %s" % (_WDAYS[t[6]], t[2], _MONTHS[t[1] - 1], t[0], t[3], t[4], t[5], zone)


def slot_ts_syslog(rng: random.Random) -> str:
    t = _tm(rng)
    return "%s %2d %02d:%02d:%02d" % (_MONTHS[t[1] - 1], t[2], t[3], t[4], t[5])


def slot_ts_apache(rng: random.Random) -> str:
    t = _tm(rng)
    return "%02d/%s/%04d:%02d:%02d:%02d %s" % (t[2], _MONTHS[t[1] - 1], t[0], t[3], t[4], t[5], _tz(rng, False))


def slot_ts_log4j(rng: random.Random) -> str:
    t = _tm(rng)
    sep = "," if rng.random() < 0.6 else "."
    return "%04d-%02d-%02d %02d:%02d:%02d%s%03d" % (t[0], t[1], t[2], t[3], t[4], t[5], sep, int(rng.random() * 1000))


def slot_ts_ctime(rng: random.Random) -> str:
    t = _tm(rng)
    frac = (".%06d" % int(rng.random() * 1000000)) if rng.random() < 0.5 else ""
    return "%s %s %2d %02d:%02d:%02d%s %04d" % (_WDAYS[t[6]], _MONTHS[t[1] - 1], t[2], t[3], t[4], t[5], frac, t[0])


def slot_ts_glog(rng: random.Random) -> str:
    t = _tm(rng)
    return "%02d%02d %02d:%02d:%02d.%06d" % (t[1], t[2], t[3], t[4], t[5], int(rng.random() * 1000000))


def slot_ts_slash(rng: random.Random) -> str:
    t = _tm(rng)
    return "%04d/%02d/%02d %02d:%02d:%02d" % (t[0], t[1], t[2], t[3], t[4], t[5])


def slot_ts_redis(rng: random.Random) -> str:
    t = _tm(rng)
    return "%02d %s %04d %02d:%02d:%02d.%03d" % (t[2], _MONTHS[t[1] - 1], t[0], t[3], t[4], t[5], int(rng.random() * 1000))


def slot_ts_time(rng: random.Random) -> str:
    return "%02d:%02d:%02d.%03d" % (_between(rng, 0, 23), _between(rng, 0, 59), _between(rng, 0, 59), _between(rng, 0, 999))


def slot_epoch(rng: random.Random, decimals: int | None = None) -> str:
    s = str(_EPOCH_LO + int(rng.random() * _EPOCH_SPAN))
    if decimals:
        return s + "." + "%0*d" % (decimals, int(rng.random() * 10 ** decimals))
    return s


def slot_epoch_ms(rng: random.Random) -> str:
    return str((_EPOCH_LO + int(rng.random() * _EPOCH_SPAN)) * 1000 + int(rng.random() * 1000))


def slot_uptime(rng: random.Random) -> str:
    """Kernel dmesg uptime, e.g. 12345.678901 (printed inside [...])."""
    return "%d.%06d" % (int(10 ** (rng.random() * 7)), int(rng.random() * 1000000))


def _b64(rng: random.Random, nbytes: int, urlsafe: bool = False) -> bytes:
    raw = rng.getrandbits(8 * nbytes).to_bytes(nbytes, "little")
    return base64.urlsafe_b64encode(raw) if urlsafe else base64.b64encode(raw)


def slot_base64(rng: random.Random) -> str:
    return _b64(rng, _between(rng, 9, 48)).decode("ascii")


_JWT_HEADERS = tuple(
    base64.urlsafe_b64encode(h.encode()).rstrip(b"=").decode()
    for h in ('{"alg":"HS256","typ":"JWT"}', '{"alg":"RS256","typ":"JWT"}',
              '{"alg":"RS256","kid":"k1","typ":"JWT"}', '{"alg":"ES256","typ":"JWT"}')
)


def slot_jwt(rng: random.Random) -> str:
    iat = _EPOCH_LO + int(rng.random() * _EPOCH_SPAN)
    payload = '{"sub":"%d","iat":%d,"exp":%d}' % (_between(rng, 1, 999999), iat, iat + 3600)
    p = base64.urlsafe_b64encode(payload.encode()).rstrip(b"=").decode()
    sig = _b64(rng, 32, urlsafe=True).rstrip(b"=").decode()
    return "%s.%s.%s" % (_pick(rng, _JWT_HEADERS), p, sig)


def slot_blk(rng: random.Random) -> str:
    r = rng.random()
    if r < 0.45:
        return "blk_-%d" % _between(rng, 10 ** 17, 9 * 10 ** 18)
    if r < 0.8:
        return "blk_%d" % _between(rng, 10 ** 17, 9 * 10 ** 18)
    return "blk_%d_%d" % (_between(rng, 1073741825, 1083741825), _between(rng, 1001, 99999))


def slot_session(rng: random.Random) -> str:
    r = rng.random()
    if r < 0.3:
        return _hexstr(rng, 32)
    if r < 0.55:
        return "sess_" + _alnum(rng, 24, _B62)
    if r < 0.75:
        return _hexstr(rng, 32).upper()  # JSESSIONID
    return _alnum(rng, 26, _LOWER_NUM)


def slot_request_id(rng: random.Random) -> str:
    r = rng.random()
    if r < 0.35:
        return slot_uuid(rng)
    if r < 0.6:
        return "req-" + _hexstr(rng, 12)
    if r < 0.8:
        return _alnum(rng, 20, _B62)
    return "%s-%s" % (_hexstr(rng, 8), _alnum(rng, 6, _LOWER_NUM))


def slot_trace_id(rng: random.Random) -> str:
    r = rng.random()
    if r < 0.6:
        return _hexstr(rng, 32)  # W3C trace-context
    if r < 0.85:
        return _hexstr(rng, 16)  # Jaeger/Zipkin 64-bit
    return "1-%s-%s" % (_hexstr(rng, 8), _hexstr(rng, 24))  # AWS X-Ray


def slot_quoted(rng: random.Random) -> str:
    """A double-quoted free-text value; the quotes are part of the span."""
    words = [_pick(rng, ENGLISH) for _ in range(_between(rng, 1, 4))]
    r = rng.random()
    if r < 0.08:
        words.append(_pick(rng, NON_ASCII_WORDS))
    elif r < 0.2:
        words.append(str(_between(rng, 1, 9999)))
    if rng.random() < 0.2:
        words[0] = words[0].capitalize()
    return '"' + " ".join(words) + '"'


def slot_name(rng: random.Random) -> str:
    """A resource name (role, database, table, topic, queue, bucket): often a plain word, still a value."""
    base = _pick(rng, (TABLES, DOMAINS, ENGLISH)[_between(rng, 0, 2)])
    r = rng.random()
    if r < 0.5:
        return base
    if r < 0.65:
        return base + _pick(rng, ("-v2", "-v3", "_events", ".dlq", "-prod", "_archive", "-retry"))
    if r < 0.8:
        return "%s_%s" % (base, _pick(rng, DOMAINS))
    return "%s-%d" % (base, _between(rng, 1, 99))


def slot_word(rng: random.Random) -> str:
    """A variable identifier-like value (key name, flag, index name)."""
    r = rng.random()
    if r < 0.4:
        return "%s_%s" % (_pick(rng, ADJECTIVES), _pick(rng, ENGLISH))
    if r < 0.7:
        return "%s-%d" % (_pick(rng, ENGLISH), _between(rng, 1, 999))
    if r < 0.9:
        return _pick(rng, ENGLISH) + _pick(rng, ENGLISH).capitalize()
    return _pick(rng, ENGLISH)


def slot_version(rng: random.Random) -> str:
    core = "%d.%d.%d" % (_between(rng, 0, 12), _between(rng, 0, 30), _between(rng, 0, 40))
    r = rng.random()
    if r < 0.35:
        return core
    if r < 0.6:
        return "v" + core
    if r < 0.72:
        return core + "-SNAPSHOT"
    if r < 0.84:
        return core + "-rc.%d" % _between(rng, 1, 5)
    if r < 0.92:
        return core + "+build.%d" % _between(rng, 1, 999)
    return "%s-gke.%d" % (core, _between(rng, 100, 2000))


def slot_pid(rng: random.Random) -> str:
    return str(int(10 ** (1 + rng.random() * 5.6)))


def slot_thread(rng: random.Random) -> str:
    r = rng.random()
    if r < 0.3:
        return "pool-%d-thread-%d" % (_between(rng, 1, 12), _between(rng, 1, 64))
    if r < 0.5:
        return "http-nio-%d-exec-%d" % (_pick(rng, (8080, 8443, 9090)), _between(rng, 1, 200))
    if r < 0.6:
        return "ForkJoinPool.commonPool-worker-%d" % _between(rng, 1, 31)
    if r < 0.7:
        return "Thread-%d" % _between(rng, 0, 500)
    if r < 0.8:
        return "grpc-default-executor-%d" % _between(rng, 0, 40)
    if r < 0.9:
        return "kafka-producer-network-thread | producer-%d" % _between(rng, 1, 9)
    return "worker-%d" % _between(rng, 0, 63)


_STATUS = (200,) * 12 + (201, 204, 301, 302, 304, 304, 400, 401, 403, 404, 404, 409, 429, 500, 502, 503, 504)


def slot_status(rng: random.Random) -> str:
    return str(_pick(rng, _STATUS))


def slot_useragent(rng: random.Random) -> str:
    r = rng.random()
    if r < 0.3:
        return ("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
                "Chrome/%d.0.%d.%d Safari/537.36" % (_between(rng, 90, 130), _between(rng, 4000, 6999), _between(rng, 1, 250)))
    if r < 0.45:
        return ("Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) "
                "Version/%d.%d Safari/605.1.15" % (_between(rng, 13, 18), _between(rng, 0, 6)))
    if r < 0.55:
        return "Mozilla/5.0 (X11; Linux x86_64; rv:%d.0) Gecko/20100101 Firefox/%d.0" % ((_between(rng, 90, 130),) * 2)
    if r < 0.7:
        return "curl/7.%d.%d" % (_between(rng, 50, 88), _between(rng, 0, 3))
    if r < 0.8:
        return "python-requests/2.%d.%d" % (_between(rng, 18, 32), _between(rng, 0, 3))
    if r < 0.87:
        return "kube-probe/1.%d" % _between(rng, 18, 31)
    if r < 0.93:
        return "Go-http-client/1.1"
    return "Prometheus/2.%d.%d" % (_between(rng, 20, 54), _between(rng, 0, 3))


_REGISTRIES = ("docker.io", "ghcr.io", "quay.io", "gcr.io/acme-prod", "registry.internal:5000",
               "123456789012.dkr.ecr.us-east-1.amazonaws.com")


def slot_image(rng: random.Random) -> str:
    repo = "%s/%s/%s" % (_pick(rng, _REGISTRIES), _pick(rng, ORGS), _pick(rng, SERVICES))
    r = rng.random()
    if r < 0.5:
        return repo + ":" + slot_version(rng)
    if r < 0.8:
        return repo + ":" + _hexstr(rng, 7)
    return repo + "@sha256:" + _hexstr(rng, 64)


def slot_device(rng: random.Random) -> str:
    r = rng.random()
    if r < 0.3:
        return "sd%s%d" % ("abcdef"[int(rng.random() * 6)], _between(rng, 1, 4))
    if r < 0.6:
        return "nvme%dn1p%d" % (_between(rng, 0, 3), _between(rng, 1, 4))
    if r < 0.75:
        return "dm-%d" % _between(rng, 0, 12)
    if r < 0.9:
        return "xvd%s" % "abcdfgh"[int(rng.random() * 7)]
    return "loop%d" % _between(rng, 0, 15)


def slot_proc(rng: random.Random) -> str:
    if rng.random() < 0.1:
        return "kworker/u%d:%d" % (_pick(rng, (8, 16, 32)), _between(rng, 0, 9))
    return _pick(rng, PROC_NAMES)


# Registry: slot type -> generator.  Generators taking an optional int argument
# accept the ``{slot:N}`` form; the others reject it at compile time.
SLOTS: dict[str, Callable[..., str]] = {
    "uuid": slot_uuid, "hex": slot_hex, "hex0x": slot_hex0x,
    "md5": slot_md5, "sha1": slot_sha1, "sha256": slot_sha256,
    "ipv4": slot_ipv4, "ipv4_port": slot_ipv4_port, "ipv6": slot_ipv6,
    "ipv6_port": slot_ipv6_port, "mac": slot_mac, "port": slot_port,
    "host": slot_host, "fqdn": slot_fqdn, "pod": slot_pod,
    "container": slot_container, "container_id": slot_container_id,
    "image": slot_image, "path": slot_path, "winpath": slot_winpath,
    "url": slot_url, "uri": slot_uri, "email": slot_email, "user": slot_user,
    "int": slot_int, "float": slot_float, "neg": slot_neg,
    "num_unit": slot_num_unit, "duration": slot_duration, "size": slot_size,
    "percent": slot_percent,
    "ts_iso": slot_ts_iso, "ts_rfc2822": slot_ts_rfc2822,
    "ts_syslog": slot_ts_syslog, "ts_apache": slot_ts_apache,
    "ts_log4j": slot_ts_log4j, "ts_ctime": slot_ts_ctime,
    "ts_glog": slot_ts_glog, "ts_slash": slot_ts_slash,
    "ts_redis": slot_ts_redis, "ts_time": slot_ts_time,
    "epoch": slot_epoch, "epoch_ms": slot_epoch_ms, "uptime": slot_uptime,
    "base64": slot_base64, "jwt": slot_jwt, "blk": slot_blk,
    "session": slot_session, "request_id": slot_request_id,
    "trace_id": slot_trace_id, "quoted": slot_quoted, "word": slot_word,
    "version": slot_version, "pid": slot_pid, "thread": slot_thread,
    "status": slot_status, "useragent": slot_useragent,
    "device": slot_device, "proc": slot_proc, "bool": slot_bool, "name": slot_name,
}
_SLOTS_WITH_ARG = ("hex", "int", "epoch")
SLOT_TYPES: tuple[str, ...] = tuple(SLOTS)


# ---------------------------------------------------------------------------
# Templates.
# ---------------------------------------------------------------------------

# A placeholder is {name} or {name:N}.  Brace text that merely *looks* like a
# placeholder but names no slot is rejected, to catch typos such as {ipv4port}.
_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)(?::(\d+))?\}")


@dataclass(frozen=True)
class Template:
    """One log template.  ``fmt`` uses ``{slot_type}`` placeholders."""

    id: int
    category: str
    fmt: str
    family: str = ""  # templates sharing a family differ by one word (hard negatives)
    literals: tuple[str, ...] = field(default=(), repr=False, compare=False)
    slots: tuple[tuple[str, SlotFn], ...] = field(default=(), repr=False, compare=False)

    @property
    def slot_types(self) -> tuple[str, ...]:
        return tuple(s for s, _ in self.slots)

    @property
    def text(self) -> str:
        return template_text(self)


def _bind(name: str, arg: str | None) -> SlotFn:
    fn = SLOTS[name]
    if arg is None:
        return fn
    if name not in _SLOTS_WITH_ARG:
        raise ValueError(f"slot {{{name}}} takes no argument")
    n = int(arg)
    return lambda rng: fn(rng, n)


def compile_template(tid: int, category: str, fmt: str, family: str = "") -> Template:
    """Split ``fmt`` into literals and bound slot generators, validating it."""
    if "\n" in fmt or "\r" in fmt:
        raise ValueError(f"template must be single-line: {fmt!r}")
    literals: list[str] = []
    slots: list[tuple[str, SlotFn]] = []
    pos = 0
    for m in _PLACEHOLDER.finditer(fmt):
        name, arg = m.group(1), m.group(2)
        if name not in SLOTS:
            raise ValueError(f"unknown slot {{{name}}} in template {fmt!r}")
        lit = fmt[pos:m.start()]
        if slots and not lit:
            raise ValueError(f"adjacent slots make spans ambiguous: {fmt!r}")
        literals.append(lit)
        slots.append((name, _bind(name, arg)))
        pos = m.end()
    literals.append(fmt[pos:])
    return Template(tid, category, fmt, family, tuple(literals), tuple(slots))


def template_text(template: Template) -> str:
    """The template with every slot replaced by ``<*>``."""
    return "<*>".join(template.literals)


def render(template: Template, rng: random.Random) -> tuple[str, list[tuple[int, int, str]]]:
    """Fill the template's slots; return the line and the variable spans."""
    lits = template.literals
    out = [lits[0]]
    pos = len(lits[0])
    spans = []
    i = 1
    for name, fn in template.slots:
        value = fn(rng)
        end = pos + len(value)
        spans.append((pos, end, name))
        lit = lits[i]
        out.append(value)
        out.append(lit)
        pos = end + len(lit)
        i += 1
    return "".join(out), spans


# --- Constant-identifier grammars (used only while building templates) -----

def _camel(rng: random.Random, parts: int = 2) -> str:
    """CamelCase identifier of ``parts`` nouns, sometimes led by an adjective (AsyncOrderHandler)."""
    words = [_pick(rng, CAMEL_NOUNS) for _ in range(parts)]
    if rng.random() < 0.35:
        words.insert(0, _pick(rng, CAMEL_ADJ))
    return "".join(words)


def _snake(rng: random.Random, parts: int = 2) -> str:
    return "_".join([_pick(rng, ADJECTIVES if i == 0 and parts > 1 and rng.random() < 0.3 else ENGLISH)
                     for i in range(parts)])


def _java_package(rng: random.Random) -> str:
    if rng.random() < 0.35:
        return _pick(rng, REAL_JAVA_PKGS)
    parts = [_pick(rng, ("com", "com", "org", "io", "net")), _pick(rng, ORGS), _pick(rng, DOMAINS)]
    if rng.random() < 0.6:
        parts.append(_pick(rng, JAVA_SUBPKGS))
    return ".".join(parts)


def _java_class(rng: random.Random) -> str:
    return _java_package(rng) + "." + _camel(rng, _between(rng, 1, 3))


def _abbrev_logger(cls: str) -> str:
    """Logback-style abbreviation: org.acme.billing.InvoiceService -> o.a.b.InvoiceService."""
    parts = cls.split(".")
    return ".".join([p[0] for p in parts[:-1]] + [parts[-1]])


def _method(rng: random.Random) -> str:
    return _pick(rng, VERBS) + _pick(rng, CAMEL_NOUNS)


def _py_module(rng: random.Random) -> str:
    return "%s.%s.%s" % (_pick(rng, PY_MODULES), _pick(rng, DOMAINS), _pick(rng, ENGLISH))


def _go_pkg(rng: random.Random) -> str:
    return "github.com/%s/%s/internal/%s" % (_pick(rng, ORGS), _pick(rng, SERVICES), _pick(rng, DOMAINS))


# Verbs whose final consonant doubles before -ed/-ing (stop -> stopped, stopping).
_DOUBLING = ("stop", "commit", "run", "split", "plan", "ship", "drop", "map")


def _past(verb: str) -> str:
    """Past participle good enough for log prose (commit -> committed, send -> sent)."""
    irregular = {"send": "sent", "build": "built", "read": "read", "write": "written", "run": "run",
                 "split": "split", "sync": "synced"}
    if verb in irregular:
        return irregular[verb]
    if verb in _DOUBLING:
        return verb + verb[-1] + "ed"
    if verb.endswith("e"):
        return verb + "d"
    return verb + "ed"


def _gerund(verb: str) -> str:
    """Present participle (process -> processing, stop -> stopping, encode -> encoding)."""
    if verb in _DOUBLING:
        return verb + verb[-1] + "ing"
    if verb.endswith("e") and not verb.endswith("ee"):
        return verb[:-1] + "ing"
    return verb + "ing"


# --- Header wrappers ----------------------------------------------------------
# Real lines carry a timestamp/level/logger prefix.  Each templated message is
# given exactly one header at build time (so the header is part of the
# template), with the logger/level filled as constants.

_ERRORISH = re.compile(r"(?i)error|fail|exception|refused|denied|timed out|timeout|panic|fatal|invalid|"
                       r"unable|cannot|could not|killed|lost|corrupt|mismatch|expired|abort|rejected")
_WARNISH = re.compile(r"(?i)retry|retrying|slow|deprecated|back-off|backoff|exceeded|throttl|evict|"
                      r"degraded|high|closing|miss")

_HEADERS: dict[str, tuple[str, ...]] = {
    "java": (
        "{ts_log4j} %(LEVEL)s [{thread}] %(logger)s: @MSG@",
        "{ts_iso} %(LEVEL5)s {pid} --- [{thread}] %(short_logger)s : @MSG@",
        "[{ts_iso}] [%(LEVEL)s] [%(simple_logger)s] @MSG@",
        "@MSG@",
    ),
    "python": (
        "{ts_log4j} - %(module)s - %(PYLEVEL)s - @MSG@",
        "%(PYLEVEL)s:%(module)s:@MSG@",
        "[{ts_log4j}] %(PYLEVEL)s in %(leaf)s: @MSG@",
        "@MSG@",
    ),
    "go": (
        'time="{ts_iso}" level=%(level)s msg="@MSG@"',
        "%(L)s{ts_glog} {pid} %(gofile)s:%(line)d] @MSG@",
        "{ts_slash} @MSG@",
        "@MSG@",
    ),
    "cpp": (
        "%(L)s{ts_glog} {pid} %(ccfile)s:%(line)d] @MSG@",
        "[{ts_log4j}] [%(lname)s] [%(level)s] @MSG@",
        "@MSG@",
    ),
    "app": (
        "{ts_log4j} %(LEVEL)s [{thread}] %(logger)s: @MSG@",
        "{ts_iso} %(LEVEL5)s {pid} --- [{thread}] %(short_logger)s : @MSG@",
        "{ts_log4j} - %(module)s - %(PYLEVEL)s - @MSG@",
        'time="{ts_iso}" level=%(level)s msg="@MSG@"',
        "{ts_syslog} {host} %(prog)s[{pid}]: @MSG@",
        "[{ts_iso}] %(LEVEL)s: @MSG@",
        "@MSG@",
    ),
    "kernel": (
        "{ts_syslog} {host} kernel: [{uptime}] @MSG@",
        "[{uptime}] @MSG@",
        "kernel: @MSG@",
    ),
}


def _level(rng: random.Random, body: str) -> str:
    if _ERRORISH.search(body):
        return "ERROR" if rng.random() < 0.7 else "WARN"
    if _WARNISH.search(body):
        return "WARN"
    return "INFO" if rng.random() < 0.85 else "DEBUG"


def _header(rng: random.Random, kind: str, body: str) -> str:
    """A header skeleton of family ``kind`` with constants filled and ``@MSG@`` where the body goes.

    ``body`` only influences the level (errors look like errors) and whether
    a quoting header (logfmt ``msg="..."``) is usable.
    """
    options = _HEADERS[kind]
    hdr = _pick(rng, options)
    if '"' in body and 'msg="@MSG@"' in hdr:  # logfmt would need escaping; pick another
        hdr = options[-1]
    lvl = _level(rng, body)
    logger = _java_class(rng)
    module = _py_module(rng)
    values = {
        "LEVEL": lvl, "LEVEL5": "%5s" % lvl, "PYLEVEL": "WARNING" if lvl == "WARN" else lvl, "level": lvl.lower(), "L": lvl[0],
        "logger": logger, "short_logger": _abbrev_logger(logger),
        "simple_logger": logger.rsplit(".", 1)[1], "module": module,
        "leaf": module.rsplit(".", 1)[1],
        "gofile": _pick(rng, ENGLISH) + ".go", "ccfile": _pick(rng, ENGLISH) + "_" + _pick(rng, ENGLISH) + ".cc",
        "line": _between(rng, 20, 2400), "lname": _pick(rng, DOMAINS),
        "prog": _pick(rng, SERVICES),
    }
    return hdr % values


# --- Hand-written templates, grouped by category and header kind ------------
# Entries are a format string, or (format, family) for explicit hard-negative
# pairs.  Header kind None means the line is emitted exactly as written.

_HANDWRITTEN: list[tuple[str, str | None, list]] = [
    ("java", None, [
        "com.amazonaws.SdkClientException: Unable to execute HTTP request: {fqdn}",
        "com.amazonaws.SdkClientException: Unable to execute HTTP request: Connect to {fqdn}:{port} failed: connect timed out",
        "com.amazonaws.services.s3.model.AmazonS3Exception: Access Denied (Service: Amazon S3; Status Code: 403; "
        "Error Code: AccessDenied; Request ID: {hex:16}; S3 Extended Request ID: {base64})",
        "Caused by: java.net.UnknownHostException: {fqdn}",
        "Caused by: java.net.ConnectException: Connection refused (Connection refused)",
        "Caused by: java.net.SocketTimeoutException: Read timed out",
        "java.net.SocketTimeoutException: connect timed out after {int} ms to {ipv4_port}",
        "java.lang.OutOfMemoryError: Java heap space",
        "java.lang.OutOfMemoryError: GC overhead limit exceeded",
        'java.lang.NullPointerException: Cannot invoke "com.acme.orders.model.Order.getId()" because "order" is null',
        "java.lang.IllegalStateException: Session {session} already closed",
        "java.lang.IllegalArgumentException: Invalid tenant id: {neg}",
        "java.lang.NumberFormatException: For input string: {quoted}",
        "java.lang.ArrayIndexOutOfBoundsException: Index {int} out of bounds for length {int}",
        "java.util.concurrent.TimeoutException: Timeout waiting for task after {duration}",
        "java.util.ConcurrentModificationException: null",
        "java.io.FileNotFoundException: {path} (No such file or directory)",
        "java.io.IOException: No space left on device",
        "java.io.IOException: Broken pipe",
        'Exception in thread "{thread}" java.lang.StackOverflowError',
        "org.postgresql.util.PSQLException: ERROR: duplicate key value violates unique constraint \"users_email_key\"",
        "  Detail: Key (email)=({email}) already exists.",
        "com.zaxxer.hikari.pool.HikariPool$PoolInitializationException: Failed to initialize pool: "
        "Connection to {host}:{port} refused.",
        "org.apache.kafka.common.errors.TimeoutException: Expiring {int} record(s) for orders-{int}:{int} ms "
        "has passed since batch creation",
        "org.springframework.dao.DataIntegrityViolationException: could not execute statement; SQL [n/a]; "
        "constraint [fk_order_customer]",
        "javax.net.ssl.SSLHandshakeException: PKIX path building failed: unable to find valid certification "
        "path to requested target",
        "\tat java.base/java.lang.Thread.run(Thread.java:833)",
        "\tat java.base/java.util.concurrent.ThreadPoolExecutor.runWorker(ThreadPoolExecutor.java:1136)",
        "\t... {int} more",
    ]),
    ("java", "java", [
        "Receiving block {blk} src: /{ipv4_port} dest: /{ipv4_port}",
        "PacketResponder {int} for block {blk} terminating",
        "Received block {blk} of size {int} from /{ipv4}",
        "BLOCK* NameSystem.addStoredBlock: blockMap updated: {ipv4_port} is added to {blk} size {int}",
        "BLOCK* NameSystem.allocateBlock: {path}. {blk}",
        "Deleting block {blk} file {path}",
        "Verification succeeded for {blk}",
        "Lost task {float} in stage {float} (TID {int}) ({host} executor {int}): "
        "java.io.FileNotFoundException: {path} (No such file or directory)",
        "Finished task {float} in stage {float} (TID {int}) in {int} ms on {host} (executor {int}) ({int}/{int})",
        "Starting task {float} in stage {float} (TID {int}, {host}, executor {int}, partition {int}, PROCESS_LOCAL, {int} bytes)",
        "Tomcat started on port(s): {port} (http) with context path ''",
        "Started OrderServiceApplication in {float} seconds (JVM running for {float})",
        "Completed initialization in {int} ms",
        "HikariPool-1 - Connection is not available, request timed out after {int}ms.",
        "HikariPool-1 - Connection {hex0x} marked as broken because of SQLSTATE(08006), ErrorCode(0)",
        "HikariPool-1 - Thread starvation or clock leap detected (housekeeper delta={duration}).",
        "[Consumer clientId=consumer-orders-{int}, groupId=orders-service] Member consumer-orders-{int}-{uuid} "
        "sending LeaveGroup request to coordinator {fqdn}:{port} (id: {int} rack: null)",
        "[Producer clientId=producer-{int}] Connection to node {int} ({fqdn}/{ipv4}:{port}) could not be "
        "established. Broker may not be available.",
        "[Consumer clientId=consumer-{int}, groupId=billing] Seeking to offset {int} for partition invoices-{int}",
        "Opened connection [connectionId{localValue:{int}, serverValue:{int}}] to {fqdn}:{port}",
        "Closed connection [connectionId{localValue:{int}, serverValue:{int}}] to {fqdn}:{port} because the pool has been closed.",
        "GC pause (G1 Evacuation Pause) (young) {size}->{size}({size}) {duration}",
        "[{host}] [gc][{int}] overhead, spent [{duration}] collecting in the last [{duration}]",
        "Servlet.service() for servlet [dispatcherServlet] threw exception",
        "Resolved [org.springframework.web.HttpRequestMethodNotSupportedException: Request method 'PATCH' not supported]",
        "Task attempt_{int}_{int}_m_{int}_{int} is done.",
        "Container container_{epoch_ms}_{int}_01_{int:6} transitioned from RUNNING to KILLING",
        "Executor lost: {int} (epoch {int})",
        "Registered executor NettyRpcEndpointRef(spark-client://Executor) ({ipv4_port}) with ID {int}",
    ]),
    ("go", None, [
        "panic: runtime error: invalid memory address or nil pointer dereference",
        "[signal SIGSEGV: segmentation violation code=0x1 addr={hex0x} pc={hex0x}]",
        "panic: runtime error: index out of range [{int}] with length {int}",
        "panic: assignment to entry in nil map",
        "fatal error: concurrent map writes",
        "goroutine {int} [running]:",
        "goroutine {int} [chan receive, {int} minutes]:",
        "panic: send on closed channel",
        "level=error ts={ts_iso} caller=scrape.go:1292 component=\"scrape manager\" scrape_pool=node "
        "target={url} msg=\"Scrape failed\" err=\"context deadline exceeded\"",
        "level=warn ts={ts_iso} caller=klog.go:108 component=k8s_client_runtime func=Warningf "
        "msg=\"watch of *v1.Endpoints ended with: very short watch\"",
        "http: TLS handshake error from {ipv4_port}: EOF",
        "http: TLS handshake error from {ipv4_port}: remote error: tls: bad certificate",
        "http: Accept error: accept tcp [::]:{port}: accept4: too many open files; retrying in {duration}",
        "http: panic serving {ipv4_port}: runtime error: slice bounds out of range [:{int}] with capacity {int}",
    ]),
    ("go", "go", [
        "error=\"dial tcp {ipv4_port}: connect: connection refused\"",
        "failed to list *v1.Pod: Get \"{url}\": dial tcp {ipv4_port}: i/o timeout",
        "rpc error: code = Unavailable desc = connection error: desc = \"transport: Error while dialing dial tcp "
        "{ipv4_port}: connect: connection refused\"",
        "rpc error: code = DeadlineExceeded desc = context deadline exceeded",
        "Get \"{url}\": net/http: request canceled (Client.Timeout exceeded while awaiting headers)",
        "grpc: addrConn.createTransport failed to connect to {ipv4_port}. Err: connection error",
        "Listening on {ipv6_port}",
        "Listening on :{port}",
        "Serving metrics on {ipv4_port}",
        "Reloading configuration file {path}",
        "Completed loading of configuration file {path} totalDuration={duration}",
        "WAL segment loaded segment={int} maxSegment={int}",
        "Head GC completed duration={duration}",
        "Compaction completed: blocks={int} duration={duration} source_dir={path}",
        "etcdserver: request timed out, possibly due to previous leader failure",
        "raft: {hex:16} became leader at term {int}",
        "raft: {hex:16} received MsgVoteResp from {hex:16} at term {int}",
        "certificate for {fqdn} expires at {ts_iso}; renewing",
    ]),
    ("python", None, [
        "Traceback (most recent call last): File \"/app/worker/tasks.py\", line 88, in run KeyError: '{word}'",
        "ValueError: invalid literal for int() with base 10: {quoted}",
        "FileNotFoundError: [Errno 2] No such file or directory: '{path}'",
        "PermissionError: [Errno 13] Permission denied: '{path}'",
        "json.decoder.JSONDecodeError: Expecting value: line 1 column {int} (char {int})",
        "requests.exceptions.ConnectionError: HTTPSConnectionPool(host='{fqdn}', port={port}): Max retries "
        "exceeded with url: {uri} (Caused by NewConnectionError('Failed to establish a new connection: "
        "[Errno 111] Connection refused'))",
        "requests.exceptions.ReadTimeout: HTTPConnectionPool(host='{ipv4}', port={port}): Read timed out. "
        "(read timeout={float})",
        "sqlalchemy.exc.OperationalError: (psycopg2.OperationalError) could not connect to server: Connection "
        "refused Is the server running on host \"{fqdn}\" ({ipv4}) and accepting TCP/IP connections on port {port}?",
        "botocore.exceptions.ClientError: An error occurred (ThrottlingException) when calling the PutRecords "
        "operation (reached max retries: 4): Rate exceeded",
        "ModuleNotFoundError: No module named 'numpy'",
        "MemoryError",
        "RecursionError: maximum recursion depth exceeded while calling a Python object",
        "asyncio.exceptions.TimeoutError",
        "During handling of the above exception, another exception occurred:",
        "[{ts_log4j}] [{pid}] [INFO] Booting worker with pid: {pid}",
        "[{ts_log4j}] [{pid}] [CRITICAL] WORKER TIMEOUT (pid:{pid})",
        "[{ts_log4j}] [{pid}] [INFO] Listening at: http://{ipv4_port} ({pid})",
    ]),
    ("python", "python", [
        "Received task: tasks.send_email[{uuid}]",
        ("Task tasks.send_email[{uuid}] succeeded in {float}s: None", "hn:celery-task-result"),
        ("Task tasks.send_email[{uuid}] failed in {float}s: None", "hn:celery-task-result"),
        "Task tasks.generate_report[{uuid}] raised unexpected: TimeoutError()",
        "Task tasks.sync_inventory[{uuid}] retry: Retry in {int}s: ConnectionError()",
        "Internal Server Error: {uri}",
        "Not Found: {uri}",
        "Invalid HTTP_HOST header: '{fqdn}'. You may need to add '{fqdn}' to ALLOWED_HOSTS.",
        "Watching for file changes with StatReloader",
        "Loaded {int} rows from {path} in {float}s",
        "Epoch {int}/{int} - loss: {float} - accuracy: {float} - val_loss: {float}",
        "Saved checkpoint to {path} (step {int})",
        "Connection pool is full, discarding connection: {fqdn}. Connection pool size: {int}",
        "Starting new HTTPS connection ({int}): {fqdn}:{port}",
        "{fqdn}:{port} \"POST {uri} HTTP/1.1\" {status} {int}",
    ]),
    ("cpp", None, [
        "terminate called after throwing an instance of 'std::bad_alloc'",
        "  what():  std::bad_alloc",
        "terminate called after throwing an instance of 'std::system_error'",
        "Segmentation fault (core dumped)",
        "*** Error in `{path}': double free or corruption (fasttop): {hex0x} ***",
        "==ERROR: AddressSanitizer: heap-use-after-free on address {hex0x} at pc {hex0x} bp {hex0x} sp {hex0x}",
        "READ of size {int} at {hex0x} thread T{int}",
        "SUMMARY: AddressSanitizer: heap-buffer-overflow {path}:{int} in memcpy",
        "*** Check failure stack trace: ***",
        "*** SIGSEGV (@{hex0x}) received by PID {pid} (TID {hex0x}) from PID {int}; stack trace: ***",
        # RocksDB LOG files carry their own prefix: time, thread id, source location.
        "{ts_slash} {hex:12} [db/compaction_job.cc:1650] [default] [JOB {int}] Compacting {int}@0 + {int}@1 "
        "files to L1, score {float}",
        "{ts_slash} {hex:12} [db/db_impl_write.cc:1700] [default] New memtable created with log file: #{int}. "
        "Immutable memtables: {int}.",
        "{ts_slash} {hex:12} [db/flush_job.cc:350] [default] [JOB {int}] Level-0 flush table #{int}: {int} bytes OK",
        "{ts_slash} {hex:12} [db/column_family.cc:1006] [default] Stalling writes because we have {int} level-0 "
        "files rate {int}",
    ]),
    ("cpp", "cpp", [
        "Failed to open tablet {hex:32}: IO error: {path}: No space left on device",
        "Check failed: term >= current_term ({int} vs. {int})",
        "RPC to {ipv4_port} timed out after {duration}",
        "Loaded model {quoted} version {int} in {duration}",
        "Thread pool saturated: {int} queued tasks, {int} workers",
        "Leader election won for tablet {hex:32} in term {int}",
    ]),
    ("http_error", None, [
        "{ts_slash} [error] {pid}#{pid}: *{int} connect() failed (111: Connection refused) while connecting to "
        "upstream, client: {ipv4}, server: {fqdn}, request: \"GET {uri} HTTP/1.1\", upstream: "
        "\"http://{ipv4_port}/api/v1/orders\", host: \"{fqdn}\"",
        "{ts_slash} [error] {pid}#{pid}: *{int} upstream timed out (110: Connection timed out) while reading "
        "response header from upstream, client: {ipv4}, server: {fqdn}, request: \"POST {uri} HTTP/1.1\"",
        "{ts_slash} [warn] {pid}#{pid}: *{int} an upstream response is buffered to a temporary file "
        "{path} while reading upstream",
        "{ts_slash} [error] {pid}#{pid}: *{int} open() \"{path}\" failed (2: No such file or directory), "
        "client: {ipv4}, server: {fqdn}, request: \"GET {uri} HTTP/1.1\"",
        "{ts_slash} [crit] {pid}#{pid}: *{int} SSL_do_handshake() failed (SSL: error:14201044:SSL "
        "routines:tls_choose_sig_algs:internal error) while SSL handshaking, client: {ipv4}",
        "{ts_slash} [notice] {pid}#{pid}: signal process started",
        "[{ts_ctime}] [core:error] [pid {pid}:tid {int}] [client {ipv4_port}] AH00126: Invalid URI in request "
        "GET {uri} HTTP/1.1",
        "[{ts_ctime}] [proxy:error] [pid {pid}:tid {int}] (111)Connection refused: AH00957: HTTP: attempt to "
        "connect to {ipv4_port} (localhost) failed",
        "[{ts_ctime}] [mpm_event:notice] [pid {pid}:tid {int}] AH00489: Apache/2.4.57 (Debian) configured -- "
        "resuming normal operations",
        "[{ts_ctime}] [authz_core:error] [pid {pid}] [client {ipv4}] AH01630: client denied by server "
        "configuration: {path}",
    ]),
    ("kernel", "kernel", [
        "Out of memory: Killed process {pid} ({proc}) total-vm:{int}kB, anon-rss:{int}kB, file-rss:{int}kB, shmem-rss:{int}kB",
        "{proc} invoked oom-killer: gfp_mask={hex0x}, order=0, oom_score_adj={int}",
        "EXT4-fs error (device {device}): ext4_find_entry:1455: inode #{int}: comm {proc}: reading directory lblock 0",
        "EXT4-fs ({device}): mounted filesystem with ordered data mode. Quota mode: none.",
        "{proc}[{pid}]: segfault at {hex:12} ip {hex:16} sp {hex:16} error 4 in libc.so.6[{hex:12}+{hex:6}]",
        "TCP: request_sock_TCP: Possible SYN flooding on port {port}. Sending cookies.  Check SNMP counters.",
        "nf_conntrack: nf_conntrack: table full, dropping packet",
        "eth0: Link is Up - 1000Mbps/Full - flow control rx/tx",
        "eth0: Link is Down",
        "IPv6: ADDRCONF(NETDEV_CHANGE): eth0: link becomes ready",
        "[UFW BLOCK] IN=eth0 OUT= MAC={mac} SRC={ipv4} DST={ipv4} LEN={int} TOS=0x00 PREC=0x00 TTL={int} "
        "ID={int} DF PROTO=TCP SPT={port} DPT={port} WINDOW={int} RES=0x00 SYN URGP=0",
        "INFO: task {proc}:{pid} blocked for more than 120 seconds.",
        "usb 1-1: new high-speed USB device number {int} using xhci_hcd",
        "md/raid1:md0: Disk failure on {device}, disabling device.",
        "blk_update_request: I/O error, dev {device}, sector {int} op 0x0:(READ) flags 0x0 phys_seg {int} prio class 0",
        "audit: type=1400 audit({epoch:3}:{int}): apparmor=\"DENIED\" operation=\"open\" profile=\"{path}\" "
        "name=\"{path}\" pid={pid} comm=\"{proc}\" requested_mask=\"r\" denied_mask=\"r\" fsuid={int} ouid=0",
        "Memory cgroup out of memory: Killed process {pid} ({proc}) total-vm:{int}kB, anon-rss:{int}kB",
        "CPU{int}: Core temperature above threshold, cpu clock throttled (total events = {int})",
        "perf: interrupt took too long ({int} > {int}), lowering kernel.perf_event_max_sample_rate to {int}",
        "veth{hex:7}: renamed from eth0",
        "docker0: port {int}(veth{hex:7}) entered blocking state",
        ("docker0: port {int}(veth{hex:7}) entered forwarding state", "hn:bridge-port-state"),
        ("docker0: port {int}(veth{hex:7}) entered disabled state", "hn:bridge-port-state"),
    ]),
    ("syslog", None, [
        "{ts_syslog} {host} systemd[1]: Started Session {int} of user {user}.",
        ("{ts_syslog} {host} systemd[1]: Starting nginx.service - A high performance web server...", "hn:systemd-unit"),
        ("{ts_syslog} {host} systemd[1]: Stopping nginx.service - A high performance web server...", "hn:systemd-unit"),
        "{ts_syslog} {host} systemd[1]: {word}.service: Main process exited, code=exited, status={int}/FAILURE",
        "{ts_syslog} {host} systemd[1]: {word}.service: Failed with result 'exit-code'.",
        "{ts_syslog} {host} systemd[1]: {word}.service: Scheduled restart job, restart counter is at {int}.",
        "{ts_syslog} {host} systemd-logind[{pid}]: New session {int} of user {user}.",
        "{ts_syslog} {host} systemd-logind[{pid}]: Removed session {int}.",
        "{ts_syslog} {host} CRON[{pid}]: ({user}) CMD ({path} > /dev/null 2>&1)",
        "{ts_syslog} {host} dhclient[{pid}]: DHCPREQUEST for {ipv4} on eth0 to {ipv4} port 67",
        "{ts_syslog} {host} dhclient[{pid}]: DHCPACK of {ipv4} from {ipv4}",
        "{ts_syslog} {host} dhclient[{pid}]: bound to {ipv4} -- renewal in {int} seconds.",
        "{ts_syslog} {host} ntpd[{pid}]: adjusting local clock by {float}s",
        "{ts_syslog} {host} chronyd[{pid}]: Selected source {ipv4} ({fqdn})",
        "{ts_syslog} {host} chronyd[{pid}]: System clock wrong by {neg} seconds",
        ("{ts_syslog} {host} postfix/smtp[{pid}]: {hex:10}: to=<{email}>, relay={fqdn}[{ipv4}]:25, delay={float}, "
         "dsn=2.0.0, status=sent (250 2.0.0 Ok: queued as {hex:10})"),
        ("{ts_syslog} {host} postfix/smtp[{pid}]: {hex:10}: to=<{email}>, relay={fqdn}[{ipv4}]:25, delay={float}, "
         "dsn=4.4.1, status=deferred (connect to {fqdn}[{ipv4}]:25: Connection timed out)"),
        "{ts_syslog} {host} postfix/qmgr[{pid}]: {hex:10}: from=<{email}>, size={int}, nrcpt=1 (queue active)",
        "{ts_syslog} {host} rsyslogd: [origin software=\"rsyslogd\" swVersion=\"8.2302.0\" x-pid=\"{pid}\"] rsyslogd was HUPed",
        "{ts_syslog} {host} anacron[{pid}]: Job `cron.daily' terminated",
        "{ts_syslog} {host} named[{pid}]: client @{hex0x} {ipv4}#{port} ({fqdn}): query (cache) '{fqdn}/A/IN' denied",
        "{ts_syslog} {host} smartd[{pid}]: Device: /dev/{device}, SMART Usage Attribute: 194 Temperature_Celsius changed from {int} to {int}",
        "<{int}>1 {ts_iso} {host} {proc} {pid} - - {quoted}",
        "{ts_rfc2822} {host} mail delivery to {email} delayed: {quoted}",
    ]),
    ("auth", None, [
        ("{ts_syslog} {host} sshd[{pid}]: Accepted password for {user} from {ipv4} port {port} ssh2", "hn:sshd-password"),
        ("{ts_syslog} {host} sshd[{pid}]: Failed password for {user} from {ipv4} port {port} ssh2", "hn:sshd-password"),
        ("{ts_syslog} {host} sshd[{pid}]: Failed password for invalid user {user} from {ipv4} port {port} ssh2", "hn:sshd-password"),
        ("{ts_syslog} {host} sshd[{pid}]: Accepted publickey for {user} from {ipv4} port {port} ssh2: RSA SHA256:{base64}", "hn:sshd-publickey"),
        ("{ts_syslog} {host} sshd[{pid}]: Failed publickey for {user} from {ipv4} port {port} ssh2: RSA SHA256:{base64}", "hn:sshd-publickey"),
        "{ts_syslog} {host} sshd[{pid}]: Invalid user {user} from {ipv4} port {port}",
        "{ts_syslog} {host} sshd[{pid}]: Connection closed by authenticating user {user} {ipv4} port {port} [preauth]",
        "{ts_syslog} {host} sshd[{pid}]: Received disconnect from {ipv4} port {port}:11: Bye Bye [preauth]",
        "{ts_syslog} {host} sshd[{pid}]: Disconnected from user {user} {ipv4} port {port}",
        "{ts_syslog} {host} sshd[{pid}]: Did not receive identification string from {ipv4} port {port}",
        "{ts_syslog} {host} sshd[{pid}]: error: maximum authentication attempts exceeded for {user} from {ipv4} port {port} ssh2 [preauth]",
        "{ts_syslog} {host} sshd[{pid}]: reverse mapping checking getaddrinfo for {fqdn} [{ipv4}] failed - POSSIBLE BREAK-IN ATTEMPT!",
        "{ts_syslog} {host} sshd[{pid}]: Server listening on {ipv6} port {port}.",
        "{ts_syslog} {host} sshd[{pid}]: pam_unix(sshd:session): session opened for user {user}(uid={int}) by (uid=0)",
        "{ts_syslog} {host} sshd[{pid}]: pam_unix(sshd:session): session closed for user {user}",
        "{ts_syslog} {host} sudo[{pid}]: pam_unix(sudo:auth): authentication failure; logname={user} uid={int} "
        "euid=0 tty=/dev/pts/{int} ruser={user} rhost=  user={user}",
        "{ts_syslog} {host} sudo[{pid}]:   {user} : TTY=pts/{int} ; PWD={path} ; USER=root ; COMMAND={path}",
        "{ts_syslog} {host} sudo[{pid}]:   {user} : user NOT in sudoers ; TTY=pts/{int} ; PWD={path} ; USER=root ; COMMAND={path}",
        "{ts_syslog} {host} su[{pid}]: FAILED SU (to root) {user} on pts/{int}",
        "{ts_syslog} {host} passwd[{pid}]: pam_unix(passwd:chauthtok): password changed for {user}",
        "{ts_syslog} {host} useradd[{pid}]: new user: name={user}, UID={int}, GID={int}, home=/home/{user}, shell=/bin/bash",
        ("User {email} logged in from {ipv4} using {useragent}", "hn:app-login"),
        ("User {email} logged out from {ipv4} using {useragent}", "hn:app-login"),
        "Login failed for user {user}: invalid credentials (attempt {int} of {int})",
        "Account {email} locked after {int} failed login attempts",
        "Issued access token {jwt} for client {uuid} (expires in {int}s)",
        "JWT verification failed: token expired at {ts_iso}",
        "Authorization: Bearer {jwt}",
        "API key {hex:32} revoked by {email}",
        "Password reset requested for {email} from {ipv6}",
        ("用户 {user} 登录成功，IP {ipv4}", "hn:cjk-login"),
        ("用户 {user} 登录失败，IP {ipv4}", "hn:cjk-login"),
        "Utilisateur {user} connecté depuis {ipv4} — session {session}",
        "Anmeldung für Benutzer {user} fehlgeschlagen: ungültiges Passwort",
    ]),
    ("security", "app", [
        ("[sshd] Ban {ipv4}", "hn:fail2ban"),
        ("[sshd] Unban {ipv4}", "hn:fail2ban"),
        "[sshd] Found {ipv4} - {ts_log4j}",
        "Blocked request from {ipv4}: rate limit exceeded ({int} req/min)",
        "WAF rule 942100 matched: SQL injection attempt in parameter 'q' from {ipv4} uri={uri}",
        "Certificate for {fqdn} expires in {int} days",
        "TLS handshake failed with {ipv4_port}: x509: certificate signed by unknown authority",
        "CSRF token mismatch for session {session}",
        "Suspicious login for {email} from new device {mac} at {ipv4}",
        "File integrity check failed: {path} sha256 {sha256} != {sha256}",
        "Quarantined {winpath} (md5 {md5}): Trojan.GenericKD.{int}",
        "Audit: user {user} changed role of {email} to admin",
        "Token {base64} replay detected from {ipv6}",
        "Signature verification failed for webhook {uuid} (sha1={sha1})",
    ]),
    ("k8s", None, [
        "Successfully assigned production/{pod} to {host}",
        "Pulling image \"{image}\"",
        "Successfully pulled image \"{image}\" in {duration} (Image size: {int} bytes)",
        "Failed to pull image \"{image}\": rpc error: code = NotFound desc = failed to pull and unpack image: not found",
        "Back-off pulling image \"{image}\"",
        ("Created container {container}", "hn:k8s-container"),
        ("Started container {container}", "hn:k8s-container"),
        ("Stopping container {container}", "hn:k8s-container"),
        "Back-off restarting failed container {container} in pod {pod}_production({uuid})",
        "Liveness probe failed: HTTP probe failed with statuscode: {status}",
        "Readiness probe failed: Get \"http://{ipv4_port}/healthz\": dial tcp {ipv4_port}: connect: connection refused",
        "Readiness probe failed: Get \"http://{ipv4_port}/ready\": context deadline exceeded (Client.Timeout exceeded while awaiting headers)",
        "Container {container} failed liveness probe, will be restarted",
        "0/{int} nodes are available: {int} Insufficient cpu, {int} node(s) had untolerated taint "
        "{node-role.kubernetes.io/control-plane: }. preemption: 0/{int} nodes are available.",
        ("Scaled up replica set checkout-api-{hex:10} to {int}", "hn:k8s-scale"),
        ("Scaled down replica set checkout-api-{hex:10} to {int}", "hn:k8s-scale"),
        "Created pod: {pod}",
        "Deleted pod: {pod}",
        "The node was low on resource: memory. Threshold quantity: {size}, available: {size}. Container "
        "{container} was using {size}, request is {size}.",
        "Node {host} status is now: NodeNotReady",
        "Node {host} status is now: NodeReady",
        "MountVolume.SetUp failed for volume \"pvc-{uuid}\" : rpc error: code = Internal desc = mount failed: exit status 32",
        "Multi-Attach error for volume \"pvc-{uuid}\" Volume is already exclusively attached to one node and can't be attached to another",
        "I{ts_glog}    {pid} kubelet.go:2421] \"SyncLoop (PLEG): event for pod\" pod=\"production/{pod}\" "
        "event={type:ContainerStarted}",
        "E{ts_glog}    {pid} pod_workers.go:1294] \"Error syncing pod, skipping\" err=\"failed to \\\"StartContainer\\\" "
        "with CrashLoopBackOff\" pod=\"production/{pod}\" podUID={uuid}",
        "I{ts_glog}    {pid} leaderelection.go:258] successfully acquired lease kube-system/kube-controller-manager",
        "W{ts_glog}    {pid} reflector.go:424] failed to list *v1.ConfigMap: configmaps is forbidden: User "
        "\"system:serviceaccount:default:{user}\" cannot list resource \"configmaps\"",
        "HorizontalPodAutoscaler orders: New size: {int}; reason: cpu resource utilization (percentage of request) above target",
        "Job billing-cron-{int} has reached the specified backoff limit",
        "Pod {pod} evicted: The node had condition: [DiskPressure].",
        "OOMKilled: container {container} in pod production/{pod} exceeded memory limit {size}",
    ]),
    ("docker", None, [
        "time=\"{ts_iso}\" level=info msg=\"ignoring event\" container={container_id} module=libcontainerd "
        "namespace=moby topic=/tasks/delete type=\"*events.TaskDelete\"",
        "time=\"{ts_iso}\" level=error msg=\"Handler for POST /v1.41/containers/{container_id}/start returned error: "
        "driver failed programming external connectivity on endpoint {container}\"",
        "time=\"{ts_iso}\" level=warning msg=\"cleaning up after shim disconnected\" id={container_id} namespace=moby",
        "time=\"{ts_iso}\" level=info msg=\"Container {container_id} failed to exit within 10 seconds of signal 15 - using the force\"",
        "Error response from daemon: Conflict. The container name \"/{container}\" is already in use by container "
        "\"{container_id}\". You have to remove (or rename) that container to be able to reuse that name.",
        "docker: Error response from daemon: pull access denied for {image}, repository does not exist or may require 'docker login'.",
        "Error response from daemon: No such container: {container_id}",
        ("Container {container} Started", "hn:compose-state"),
        ("Container {container} Stopped", "hn:compose-state"),
        ("Container {container} Created", "hn:compose-state"),
        "{container_id}: Pull complete",
        "{container_id}: Already exists",
        "Digest: sha256:{sha256}",
        "Status: Downloaded newer image for {image}",
        "Step {int}/{int} : RUN apt-get update && apt-get install -y curl",
        " ---> Running in {container_id}",
        "Removing intermediate container {container_id}",
        "Successfully built {container_id}",
        "Successfully tagged {image}",
        "{ts_iso} stderr F {quoted}",
    ]),
    ("sql", None, [
        "LOG:  duration: {float} ms  statement: SELECT * FROM orders WHERE customer_id = {int} ORDER BY created_at DESC LIMIT {int}",
        "LOG:  duration: {float} ms  execute <unnamed>: UPDATE accounts SET balance = balance - {int} WHERE id = {int}",
        "ERROR:  deadlock detected",
        "DETAIL:  Process {pid} waits for ShareLock on transaction {int}; blocked by process {pid}.",
        "FATAL:  password authentication failed for user \"{user}\"",
        "FATAL:  remaining connection slots are reserved for non-replication superuser connections",
        "FATAL:  terminating connection due to administrator command",
        "LOG:  checkpoint complete: wrote {int} buffers ({float}%); {int} WAL file(s) added, {int} removed, "
        "{int} recycled; write={float} s, sync={float} s, total={float} s",
        "LOG:  automatic vacuum of table \"shop.public.orders\": index scans: {int}",
        "ERROR:  relation \"{word}\" does not exist at character {int}",
        "ERROR:  canceling statement due to statement timeout",
        "ERROR:  could not serialize access due to concurrent update",
        "# Query_time: {float}  Lock_time: {float}  Rows_sent: {int}  Rows_examined: {int}",
        "# User@Host: {user}[{user}] @ {fqdn} [{ipv4}]  Id: {int}",
        "SET timestamp={epoch};",
        "{ts_iso} {int} [Warning] Aborted connection {int} to db: 'shop' user: '{user}' host: '{ipv4}' (Got an error reading communication packets)",
        "{ts_iso} {int} [Note] Access denied for user '{user}'@'{ipv4}' (using password: YES)",
        "{ts_iso} {int} [ERROR] InnoDB: Unable to lock ./ibdata1 error: 11",
        "{pid}:M {ts_redis} * Background saving started by pid {pid}",
        "{pid}:C {ts_redis} * DB saved on disk",
        "{pid}:M {ts_redis} # WARNING: {int} keys evicted due to maxmemory policy",
        "{pid}:S {ts_redis} * MASTER <-> REPLICA sync: receiving {int} bytes from master to disk",
        "{pid}:M {ts_redis} * {int} changes in {int} seconds. Saving...",
        "{ts_iso} I NETWORK  [conn{int}] received client metadata from {ipv4_port} conn{int}: "
        "{\"driver\":{\"name\":\"nodejs\",\"version\":\"4.1.0\"}}",
        "{ts_iso} I COMMAND  [conn{int}] command shop.orders command: find { find: \"orders\" } planSummary: COLLSCAN "
        "keysExamined:0 docsExamined:{int} numYields:{int} nreturned:{int} {int}ms",
    ]),
    ("db", "app", [
        "Connection pool exhausted: {int} active, {int} idle, {int} waiting",
        "Retrying query (attempt {int}/{int}) after error: deadline exceeded",
        "pq: too many connections for role \"{user}\"",
        "Slow query ({duration}) on replica {fqdn}: SELECT id FROM sessions WHERE expires_at < $1",
        "Compacted {int} sstables to [{path},]. {int} bytes to {int} (~{int}% of original) in {int}ms",
        "Replication lag on {host} is {duration} (threshold {duration})",
        "Migration {int}_add_index_to_orders applied in {duration}",
        "Migration {int}_add_index_to_orders failed: lock timeout",
        "Switched primary from {host} to {host} after failover",
        "Snapshot {uuid} of volume {hex:17} is {percent} complete",
    ]),
    ("cache", "app", [
        "Redis connection to {ipv4_port} failed - connect ECONNREFUSED {ipv4_port}",
        ("Cache hit for key user:{int}:profile", "hn:cache-hit-miss"),
        ("Cache miss for key user:{int}:profile", "hn:cache-hit-miss"),
        "Evicted {int} items from slab class {int}",
        "Cache warmup finished: {int} keys in {duration}",
        "memcached {ipv4_port} marked dead, retry in {int}s",
        "Hit ratio {percent} over last {int} requests (size {size})",
        "Invalidating {int} keys matching prefix catalog:{int}:*",
        "LRU crawler reclaimed {size}",
        "CDN purge request {request_id} for {url} accepted",
    ]),
    ("queue", "app", [
        "accepting AMQP connection <0.{int}.0> ({ipv4_port} -> {ipv4_port})",
        "closing AMQP connection <0.{int}.0> ({ipv4_port} -> {ipv4_port}, vhost: '/', user: '{user}')",
        "Message {uuid} published to exchange 'orders' with routing key 'order.created'",
        ("Message {uuid} acked by consumer ctag-{hex:8}", "hn:amqp-ack"),
        ("Message {uuid} nacked by consumer ctag-{hex:8}", "hn:amqp-ack"),
        "Received {int} messages from queue {url}",
        "Deleted message {request_id} from queue orders-dlq",
        "Partition orders-{int} leader changed to broker {int} (epoch {int})",
        "Consumer lag for group billing on invoices-{int} is {int} messages",
        "Committed offset {int} for partition events-{int}",
        "Moved message {uuid} to dead-letter queue after {int} attempts",
        "NATS: slow consumer detected on subject 'telemetry.{int}' (pending {int} msgs, {size})",
    ]),
    ("cloud", "app", [
        "Uploaded s3://acme-backups/{path} ({size}) in {duration}",
        "Instance i-{hex:17} changed state from pending to running",
        "Instance i-{hex:17} changed state from running to stopping",
        "AssumeRole arn:aws:iam::{int:12}:role/deploy-role by {email} from {ipv4}",
        "Lambda function invoke-orders RequestId: {uuid} Duration: {float} ms Billed Duration: {int} ms "
        "Memory Size: {int} MB Max Memory Used: {int} MB",
        "REPORT RequestId: {uuid} Init Duration: {float} ms",
        "Autoscaling group web-asg launching instance i-{hex:17} in subnet subnet-{hex:17}",
        "GCS upload gs://acme-logs/{path} finished, md5={base64}",
        "Throttled by DynamoDB table sessions: ProvisionedThroughputExceededException (retry {int})",
        "Blob {uuid} written to container logs-{int} (etag {hex0x})",
    ]),
    ("batch", "app", [
        "Job nightly_etl (run {uuid}) started at {ts_iso}",
        "Step {int}/{int} 'load_warehouse' completed in {duration}, {int} rows written",
        "Marking task as SUCCESS. dag_id=etl_daily, task_id=extract_orders, execution_date={ts_iso}, "
        "start_date={ts_iso}, end_date={ts_iso}",
        "Marking task as FAILED. dag_id=etl_daily, task_id=extract_orders, execution_date={ts_iso}, "
        "start_date={ts_iso}, end_date={ts_iso}",
        "Processed {int}/{int} records ({percent}) at {num_unit}",
        "Exported {int} rows to {path} ({size}) in {duration}",
        "Checkpoint {int} written to {url}",
        "Rerunning batch {int} with {int} workers after {duration} backoff",
        "Skipping {int} malformed rows in {winpath}",
        "Temperature delta {neg} exceeded tolerance; recalibrating sensor {mac}",
        "Batch {hex:8} progress: {int} ok, {int} failed, {int} pending",
        "Scheduled next run for {ts_rfc2822}",
        "Worker {thread} idle for {duration}",
    ]),
    ("app", "app", [
        "Request {request_id} completed in {duration} with status {status}",
        "trace_id={trace_id} span_id={hex:16} outgoing call to {url} took {duration}",
        "Feature flag {word} evaluated to true for user {int}",
        "Config reloaded from {path} (checksum {md5})",
        "Loaded {int} plugins from {path}",
        "Sent email to {email} (message-id <{hex:16}@{fqdn}>)",
        "Webhook delivery to {url} returned {status} after {duration}",
        "Rate limiter: {int} tokens remaining for client {ipv6}",
        "Service checkout-api version {version} starting on {ipv4_port}",
        "Heap usage {percent} ({size} of {size})",
        "Memory pressure: RSS {size}, GC ran {int} times in {duration}",
        "Download of {url} finished: {size} at {num_unit}",
        "Session {session} expired after {duration} of inactivity",
        "Shutting down gracefully, draining {int} in-flight requests",
        "Clock skew of {neg}ms detected against {fqdn}",
        "Resolved {fqdn} to {ipv6} in {duration}",
        "Received SIGTERM, exiting at {epoch}",
        "Generated thumbnail {path} ({int}x{int}) from {md5}",
        "Cannot parse date {quoted}: expected format yyyy-MM-dd",
        "Configuration value for max_connections out of range: {neg}",
        "Request {request_id} from {ipv6_port} rejected: payload too large ({size})",
        "Device {mac} reported battery at {percent}",
        "Sync window opened at {ts_time} for tenant {int}",
        "Next token {base64} issued for cursor {int}",
        "Upstream {url} is healthy again after {int} failed checks",
        "Timer fired at {epoch_ms} with drift {neg}ms",
        "Tarea {int} completada en {duration} — estado: éxito",
        "処理が完了しました: {int} 件 ({duration})",
    ]),
    # Auth lines as collectors store them: the syslog header already split off.
    # Words after "user"/"for" are user names (variables); the protocol and PAM
    # words around them (ssh2, tty=ssh, preauth, unknown) are constants.
    ("auth", None, [
        ("Failed password for {user} from {ipv4} port {port} ssh2", "hn:auth-password"),
        ("Failed password for invalid user {user} from {ipv4} port {port} ssh2", "hn:auth-password"),
        ("Accepted password for {user} from {ipv4} port {port} ssh2", "hn:auth-password"),
        "Failed none for invalid user {user} from {ipv4} port {port} ssh2",
        "Accepted publickey for {user} from {ipv4} port {port} ssh2",
        "Invalid user {user} from {ipv4}",
        "input_userauth_request: invalid user {user} [preauth]",
        "Connection closed by {ipv4} [preauth]",
        "Received disconnect from {ipv4}: 11: Bye Bye [preauth]",
        "Disconnecting: Too many authentication failures for {user} [preauth]",
        "error: maximum authentication attempts exceeded for {user} from {ipv4} port {port} ssh2 [preauth]",
        "pam_unix(sshd:auth): authentication failure; logname= uid=0 euid=0 tty=ssh ruser= rhost={ipv4}  user={user}",
        "pam_unix(sshd:auth): authentication failure; logname= uid=0 euid=0 tty=ssh ruser= rhost={fqdn}",
        "pam_unix(sshd:auth): check pass; user unknown",
        "PAM {int} more authentication failures; logname= uid=0 euid=0 tty=ssh ruser= rhost={ipv4}  user={user}",
        "PAM service(sshd) ignoring max retries; {int} > 3",
        ("pam_unix(sshd:session): session opened for user {user} by (uid=0)", "hn:pam-session"),
        ("pam_unix(sshd:session): session closed for user {user}", "hn:pam-session"),
        "pam_unix(cron:session): session opened for user {user} by (uid={int})",
        "session opened for user {user} by {user}(uid={int})",
        "authentication failure; logname= uid=0 euid=0 tty=NODEVssh ruser= rhost={fqdn}  user={user}",
        "ALERT exited abnormally with [{int}]",
        "connection from {ipv4} ({fqdn}) at {ts_ctime}",
        "Did not receive identification string from {ipv4}",
        "fatal: Read from socket failed: Connection reset by peer [preauth]",
        "Accepted keyboard-interactive/pam for {user} from {ipv4} port {port} ssh2",
        "user {user} not allowed because account is locked",
        "User {user} from {ipv4} not allowed because not listed in AllowUsers",
        "Postponed publickey for {user} from {ipv4} port {port} ssh2 [preauth]",
    ]),
    # Named resources: the name is the value even when it is a plain word.
    ("db", None, [
        'FATAL:  role "{name}" does not exist',
        'FATAL:  database "{name}" does not exist',
        'ERROR:  relation "{name}" does not exist at character {int}',
        "ERROR:  permission denied for table {name}",
        'ERROR:  could not obtain lock on relation "{name}"',
        'ERROR:  index "{name}" contains unexpected zero page at block {int}',
        "Dropping table {name} ({int} rows)",
        "Topic {name} not present in metadata after {int} ms.",
        "Consumer group '{name}' is rebalancing",
        "Created queue '{name}' on vhost '/'",
        "NoSuchBucket: The specified bucket does not exist: {name}",
        "Subscribed to topic(s): {name}",
    ]),
]


# --- Combinatorial generators -------------------------------------------------

_JAVA_EXC_REAL = ("java.lang.IllegalStateException", "java.lang.IllegalArgumentException",
                  "java.io.IOException", "java.util.concurrent.TimeoutException",
                  "java.lang.UnsupportedOperationException", "java.util.NoSuchElementException",
                  "java.sql.SQLTransientConnectionException", "java.io.UncheckedIOException",
                  "java.util.concurrent.ExecutionException", "java.lang.SecurityException")

_EXC_MESSAGES = (
    "Failed to %(verb)s %(noun)s {uuid}",
    "Unable to acquire lock on {path} within {duration}",
    "%(Noun)s {int} not found",
    "Timed out after {int} ms waiting for %(noun)s from {ipv4_port}",
    "Invalid %(snake)s value: {quoted}",
    "Could not connect to {fqdn}:{port}",
    "Rejected %(noun)s {request_id}: quota exceeded for tenant {int}",
    "Checksum mismatch for {blk}: expected {md5} but was {md5}",
    "Unexpected state %(STATE)s for %(noun)s {hex:16}",
    "Retry limit reached ({int}) for %(noun)s {uuid}",
    "Expected {int} rows but got {int}",
    "%(Noun)s is closed",
    "%(Noun)s %(snake)s must not be null",
    "Cannot %(verb)s %(noun)s while in state %(STATE)s",
    "No handler registered for %(noun)s type %(Camel)s",
)

_STATES = ("PENDING", "RUNNING", "CLOSED", "SUSPENDED", "DRAINING", "FAILED", "INITIALIZING", "TERMINATED")


def _exc_fill(rng: random.Random, frame: str) -> str:
    noun = _pick(rng, ENGLISH)
    return frame % {"verb": _pick(rng, VERBS), "noun": noun, "Noun": noun.capitalize(),
                    "snake": _snake(rng, 2), "STATE": _pick(rng, _STATES), "Camel": _camel(rng, 2)}


def _gen_java_exceptions(rng: random.Random, n: int) -> list[tuple[str, str | None, str, str]]:
    out = []
    for _ in range(n):
        if rng.random() < 0.4:
            cls = _pick(rng, _JAVA_EXC_REAL)
        else:
            cls = "%s.%sException" % (_java_package(rng), _camel(rng, _between(rng, 1, 2)))
        prefix = _pick(rng, ("", "", "Caused by: ", 'Exception in thread "main" '))
        out.append(("java", None, prefix + cls + ": " + _exc_fill(rng, _pick(rng, _EXC_MESSAGES)), ""))
    return out


def _gen_java_frames(rng: random.Random, n: int) -> list[tuple[str, str | None, str, str]]:
    """Stack frames are fully constant lines: class, method and line number never vary."""
    out = []
    for _ in range(n):
        pkg = _java_package(rng)
        cls = _camel(rng, _between(rng, 1, 3))
        inner = ("$" + _camel(rng, 1)) if rng.random() < 0.15 else ""
        lam = ("lambda$%s$%d" % (_method(rng), _between(rng, 0, 9))) if rng.random() < 0.15 else _method(rng)
        out.append(("java", None, "\tat %s.%s%s.%s(%s.java:%d)" % (pkg, cls, inner, lam, cls, _between(rng, 20, 1800)), ""))
    return out


_GO_CAUSES = (
    "dial tcp {ipv4_port}: connect: connection refused",
    "context deadline exceeded",
    "unexpected EOF",
    "read tcp {ipv4_port}->{ipv4_port}: read: connection reset by peer",
    "open {path}: no such file or directory",
    "x509: certificate has expired or is not yet valid: current time {ts_iso} is after {ts_iso}",
    "unexpected status code {status} from {url}",
    "write tcp {ipv4_port}->{ipv4_port}: write: broken pipe",
    "lookup {fqdn} on {ipv4}:53: no such host",
    "json: cannot unmarshal string into Go struct field %(Camel)s.%(Field)s of type int64",
    "sql: no rows in result set",
    "etcdserver: leader changed",
)


def _gen_go_errors(rng: random.Random, n: int) -> list[tuple[str, str | None, str, str]]:
    out = []
    for _ in range(n):
        cause = _pick(rng, _GO_CAUSES) % {"Camel": _camel(rng, 2), "Field": _pick(rng, CAMEL_NOUNS)}
        noun = _pick(rng, ENGLISH)
        obj = _pick(rng, ("{uuid}", "{int}", "{pod}", "{hex:12}", "%s/%s" % (_pick(rng, NAMESPACES), "{pod}")))
        r = rng.random()
        if r < 0.4:
            body = "failed to %s %s %s: %s" % (_pick(rng, VERBS), noun, obj, cause)
        elif r < 0.7:
            body = "%s: %s %s: %s" % (_go_pkg(rng).rsplit("/", 1)[1], _pick(rng, VERBS), noun, cause)
        elif r < 0.85:
            body = "error %sing %s %s: %s" % (_pick(rng, ("sync", "read", "watch", "list", "fetch", "send")), noun, obj, cause)
        else:
            body = "panic: %s" % cause
            out.append(("go", None, body, ""))
            continue
        out.append(("go", "go", body, ""))
    return out


_PY_EXC = ("KeyError", "ValueError", "TypeError", "RuntimeError", "ConnectionError", "TimeoutError",
           "OSError", "AttributeError", "redis.exceptions.ConnectionError", "psycopg2.errors.UniqueViolation",
           "httpx.ReadTimeout", "pydantic.ValidationError")
_PY_MESSAGES = (
    "Error %(ing)s %(noun)s {int}: %(exc)s",
    "Unhandled exception in %(func)s for %(noun)s {uuid}: %(exc)s",
    "%(exc)s while %(ing)s {path}",
    "Giving up on %(noun)s {request_id} after {int} attempts: %(exc)s",
    "%(func)s() took {float}s for {int} %(noun)ss",
    "%(func)s: %(noun)s {quoted} %(past)s by {user}",
)


def _gen_python(rng: random.Random, n: int) -> list[tuple[str, str | None, str, str]]:
    out = []
    for _ in range(n):
        verb = _pick(rng, VERBS)
        body = _pick(rng, _PY_MESSAGES) % {
            "ing": _gerund(verb), "past": _past(verb),
            "noun": _pick(rng, ENGLISH), "exc": _pick(rng, _PY_EXC), "func": _snake(rng, 2)}
        out.append(("python", "python", body, ""))
    return out


def _gen_cpp(rng: random.Random, n: int) -> list[tuple[str, str | None, str, str]]:
    frames = (
        "%(Camel)s::%(Method)s: failed to %(verb)s %(noun)s {int} (errno={int})",
        "%(Camel)s: %(noun)s buffer overflow, dropping {int} bytes",
        "Check failed: %(snake)s_ != nullptr %(noun)s {hex:16}",
        "%(Camel)s initialized with %(snake)s={int} in {duration}",
        "std::runtime_error: %(Camel)s: cannot %(verb)s {path}",
    )
    out = []
    for _ in range(n):
        body = _pick(rng, frames) % {"Camel": _camel(rng, 2), "Method": _pick(rng, VERBS).capitalize() + _pick(rng, CAMEL_NOUNS),
                                     "verb": _pick(rng, VERBS), "noun": _pick(rng, ENGLISH), "snake": _snake(rng, 2)}
        out.append(("cpp", "cpp", body, ""))
    return out


_HTTP_METHODS = ("GET", "GET", "GET", "POST", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS")
_HTTP_PROTOS = ("HTTP/1.1", "HTTP/1.1", "HTTP/1.0", "HTTP/2.0")


def _gen_access(rng: random.Random, n: int) -> list[tuple[str, str | None, str, str]]:
    out = []
    for _ in range(n):
        method, proto = _pick(rng, _HTTP_METHODS), _pick(rng, _HTTP_PROTOS)
        who = _pick(rng, ("- -", "- {user}", "- -"))
        client = _pick(rng, ("{ipv4}", "{ipv4}", "{ipv6}"))
        req = '"%s {uri} %s"' % (method, proto)
        r = rng.random()
        if r < 0.3:  # common log format
            line = "%s %s [{ts_apache}] %s {status} {int}" % (client, who, req)
        elif r < 0.7:  # combined
            line = '%s %s [{ts_apache}] %s {status} {int} "{url}" "{useragent}"' % (client, who, req)
        elif r < 0.85:  # nginx with timings
            line = '%s %s [{ts_apache}] %s {status} {int} "-" "{useragent}" rt={float} uct="{float}" urt="{float}"' % (client, who, req)
        else:  # AWS ALB
            line = ('%s app/web-alb/{hex:16} {ipv4_port} {ipv4_port} {float} {float} {float} {status} {status} {int} {int} '
                    '"%s {url} %s" "{useragent}" ECDHE-RSA-AES128-GCM-SHA256 TLSv1.2') % (
                        _pick(rng, ("https", "h2")), method, proto)
        out.append(("http_access", None, line, ""))
    return out


_KV_FIELDS = (
    ("request_id", "{request_id}"), ("trace_id", "{trace_id}"), ("span_id", "{hex:16}"),
    ("user", "{user}"), ("user_id", "{int}"), ("remote_addr", "{ipv4_port}"), ("client_ip", "{ipv4}"),
    ("path", "{uri}"), ("status", "{status}"), ("duration", "{duration}"), ("latency_ms", "{float}"),
    ("bytes", "{int}"), ("size", "{size}"), ("attempt", "{int}"), ("host", "{host}"), ("pod", "{pod}"),
    ("node", "{fqdn}"), ("version", "{version}"), ("session", "{session}"), ("file", "{path}"),
    ("count", "{int}"), ("offset", "{int}"), ("partition", "{int}"), ("elapsed", "{duration}"),
    ("cpu", "{percent}"), ("mem", "{size}"), ("email", "{email}"), ("container", "{container_id}"),
    ("delta", "{neg}"), ("peer", "{ipv6_port}"), ("checksum", "{sha1}"), ("ts_ms", "{epoch_ms}"),
    ("cached", "{bool}"), ("retry", "{bool}"), ("tls", "{bool}"), ("dry_run", "{bool}"),
)
_KV_MESSAGES = (
    "request completed", "request failed", "cache refreshed", "job scheduled", "connection established",
    "connection lost", "upload finished", "retrying request", "payment authorized", "payment declined",
    "rate limit applied", "leader elected", "config applied", "message consumed", "snapshot written",
    "health check failed", "token refreshed", "shard rebalanced", "query executed", "webhook dispatched",
)


def _pick_fields(rng: random.Random, k: int) -> list[tuple[str, str]]:
    idx: list[int] = []
    while len(idx) < k:
        i = int(rng.random() * len(_KV_FIELDS))
        if i not in idx:
            idx.append(i)
    return [_KV_FIELDS[i] for i in idx]


def _gen_kv(rng: random.Random, n: int) -> list[tuple[str, str | None, str, str]]:
    out = []
    for _ in range(n):
        msg = _pick(rng, _KV_MESSAGES)
        fields = " ".join("%s=%s" % kv for kv in _pick_fields(rng, _between(rng, 2, 5)))
        lvl = "error" if _ERRORISH.search(msg) else _pick(rng, ("info", "info", "debug", "warn"))
        r = rng.random()
        if r < 0.5:
            line = 'ts={ts_iso} level=%s msg="%s" %s' % (lvl, msg, fields)
        elif r < 0.75:
            line = 'level=%s ts={epoch:3} caller=%s.go:%d msg="%s" %s' % (lvl, _pick(rng, ENGLISH), _between(rng, 20, 900), msg, fields)
        else:
            line = "{ts_log4j} %s %s %s" % (lvl.upper(), msg.replace(" ", "_"), fields)
        out.append(("kv", None, line, ""))
    return out


def _gen_json(rng: random.Random, n: int) -> list[tuple[str, str | None, str, str]]:
    # JSON values must stay valid JSON, so only slots that never need escaping
    # are used, and numeric slots are unquoted.
    numeric = ("{int}", "{float}", "{neg}", "{epoch_ms}", "{status}")
    out = []
    for _ in range(n):
        msg = _pick(rng, _KV_MESSAGES)
        lvl = "error" if _ERRORISH.search(msg) else _pick(rng, ("info", "info", "debug", "warn"))
        ts_key, ts_val = _pick(rng, (("ts", '"{ts_iso}"'), ("timestamp", '"{ts_iso}"'), ("time", "{epoch_ms}"),
                                     ("@timestamp", '"{ts_iso}"'), ("ts", "{epoch:6}")))
        parts = ['"%s":%s' % (ts_key, ts_val), '"level":"%s"' % lvl]
        if rng.random() < 0.6:
            parts.append('"logger":"%s"' % _java_class(rng) if rng.random() < 0.5 else '"caller":"%s/%s.go:%d"' % (
                _pick(rng, DOMAINS), _pick(rng, ENGLISH), _between(rng, 20, 900)))
        parts.append('"msg":"%s"' % msg)
        for k, v in _pick_fields(rng, _between(rng, 2, 5)):
            parts.append('"%s":%s' % (k, v if v in numeric else '"%s"' % v))
        out.append(("json", None, "{" + ",".join(parts) + "}", ""))
    return out


def _gen_sql(rng: random.Random, n: int) -> list[tuple[str, str | None, str, str]]:
    out = []
    for _ in range(n):
        t = _pick(rng, TABLES)
        c1, c2 = _pick(rng, COLUMNS), _pick(rng, COLUMNS)
        stmt = _pick(rng, (
            "SELECT * FROM %(t)s WHERE id = {int}",
            "SELECT id, %(c1)s FROM %(t)s WHERE %(c2)s = '{word}' LIMIT {int}",
            "UPDATE %(t)s SET %(c1)s = {int}, updated_at = '{ts_iso}' WHERE id = {int}",
            "DELETE FROM %(t)s WHERE created_at < '{ts_iso}'",
            "INSERT INTO %(t)s (id, %(c1)s, created_at) VALUES ('{uuid}', {int}, '{ts_iso}')",
            "SELECT count(*) FROM %(t)s WHERE %(c1)s IN ({int}, {int}, {int})",
            "UPDATE %(t)s SET %(c1)s = %(c1)s + 1 WHERE email = '{email}'",
        )) % {"t": t, "c1": c1, "c2": c2}
        wrap = _pick(rng, ("%s", "LOG:  duration: {float} ms  statement: %s", "Slow query ({duration}): %s",
                           "Query OK: %s", "SQL Error [40001]: could not serialize access; statement: %s"))
        out.append(("sql", None, wrap % stmt, ""))
    return out


def _gen_batch_jobs(rng: random.Random, n: int) -> list[tuple[str, str | None, str, str]]:
    """Job lifecycle lines: the same job frame with started/finished/failed/paused (hard negatives)."""
    frames = (
        ("Job %(job)s #{int} %(state)s", ("started", "finished", "failed", "paused", "resumed", "cancelled")),
        ("Job %(job)s (run {uuid}) %(state)s after {duration}", ("finished", "failed", "timed out")),
        ("Batch %(job)s %(state)s: {int} items in {duration}", ("succeeded", "failed")),
        ("Task %(job)s on {host} %(state)s with exit code {int}", ("completed", "failed", "killed")),
    )
    out = []
    for _ in range(n):
        fmt, states = _pick(rng, frames)
        job = _pick(rng, JOB_NAMES)
        fam = "hn:job-%s-%d" % (job, frames.index((fmt, states)))
        for st in states:
            out.append(("batch", "app", fmt % {"job": job, "state": st}, fam))
    return out


# Hard-negative frames: one meaningful word differs between the variants.
_HARD_NEG_FRAMES: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("app", "Session {session} %s for user {user}", ("opened", "closed")),
    ("app", "Worker {thread} %s", ("started", "paused", "stopped", "resumed")),
    ("app", "Payment {uuid} %s for amount {float} EUR", ("succeeded", "failed", "refunded")),
    ("app", "Lock %s on {path} by pid {pid}", ("acquired", "released")),
    ("app", "Replica {host} is %s", ("up", "down")),
    ("app", "Feature flag {word} %s for tenant {int}", ("enabled", "disabled")),
    ("security", "Request from {ipv4} %s by policy {word}", ("allowed", "denied")),
    ("app", "Subscriber {uuid} %s from {ipv4_port}", ("connected", "disconnected")),
    ("app", "Node {host} %s the cluster", ("joined", "left")),
    ("storage", "File {path} %s by {user}", ("uploaded", "downloaded", "deleted")),
    ("db", "Transaction {hex:16} %s", ("committed", "aborted")),
    ("batch", "Backup {uuid} %s in {duration}", ("completed", "failed")),
    ("app", "Health check %s for {url}", ("passed", "failed")),
    ("app", "Deployment {version} %s on {int} hosts", ("rolled out", "rolled back")),
    ("kernel", "Disk {device} %s {path}", ("mounted at", "unmounted from")),
    ("queue", "Message {uuid} %s by consumer {int}", ("acknowledged", "rejected")),
    ("security", "User {user} %s group admins by {email}", ("added to", "removed from")),
    ("app", "Port {port} is %s on {ipv4}", ("open", "closed", "filtered")),
    ("security", "Certificate {sha1} is %s", ("valid", "invalid", "expired", "revoked")),
    ("app", "Connection from {ipv4_port} %s", ("accepted", "rejected", "failed")),
    ("db", "Index {word} %s on table orders", ("created", "dropped")),
    ("app", "Circuit breaker for {fqdn} %s", ("opened", "closed", "half-opened")),
    ("queue", "Consumer group {word} rebalance %s", ("started", "completed")),
    ("app", "Upload {request_id} of {size} %s", ("started", "finished", "aborted")),
    ("security", "Firewall rule {int} %s for {ipv4}", ("added", "removed")),
    ("cache", "Key session:{session} %s", ("set", "expired", "evicted")),
    ("app", "Tenant {int} quota %s ({percent} used)", ("ok", "exceeded")),
    ("app", "Leader lease %s by {host} until {ts_iso}", ("acquired", "renewed")),
    ("cloud", "Volume vol-{hex:17} %s instance i-{hex:17}", ("attached to", "detached from")),
    ("app", "Email to {email} %s", ("delivered", "bounced", "queued")),
)


# C / kernel function names often carry digits (ext4_, e1000e_, jk2_, sha256_):
# they are constants all the same.
_C_PREFIXES = ("ext4", "xfs", "btrfs", "e1000e", "ixgbe", "i915", "nvme", "usb2", "xhci", "md5", "sha256",
               "ip6", "tcp4", "udp6", "x509", "bz2", "lz4", "zstd", "v4l2", "drm", "acpi", "pci", "jk2",
               "mod_ssl", "ssl3", "tls13", "h2", "http2", "s3", "ec2", "k8s", "mlx5", "bnx2x", "ath9k",
               "iwl", "snd_hda", "kvm", "virtio", "scsi", "raid5", "dm", "nfs4", "cifs", "ovl")
_C_VERBS = ("init", "probe", "alloc", "free", "open", "close", "read_super", "fill_super", "handle_irq",
            "do_write", "map_page", "setup", "attach", "detach", "reset", "poll", "xmit", "recv",
            "parse", "verify", "update", "final", "start", "stop", "flush", "sync", "mount", "lookup")
_C_FRAMES = (
    "%(f)s() failed with error {neg}",
    "%(f)s(): timeout waiting for {device}",
    "%(f)s() returned {int} for %(noun)s {int}",
    "%(f)s: %(noun)s {int} not ready, retrying in {duration}",
    "%(f)s() called with %(noun)s {hex0x}",
    "%(f)s() found %(noun)s {int} in slot {int}",
    "%(f)s: %(noun)s {int} is busy",
    "%(f)s() done in {duration}",
    "%(f)s: using %(tech)s for %(noun)s {int}",
    "%(f)s(): %(noun)s error {int} on %(tech)s",
)
# Lowercase / upper-case technical words, often with digits: constants.
_TECH_WORDS = ("ssh2", "http2", "ipv6", "ipv4", "utf8", "x86_64", "arm64", "s3", "ec2", "oauth2", "sha256",
               "base64", "tls1.3", "h2c", "ddr4", "L2", "L3", "TLB", "DMA", "ECC", "IRQ", "NMI", "MCE",
               "PCIe", "NUMA", "SMART", "RAID", "ddr", "lvm2", "gzip", "zlib", "epoll", "kqueue",
               "mmap", "fsync", "inode", "dentry", "vmalloc", "hugepage", "tty", "pty", "udev", "dbus",
               "single-bit", "multi-bit", "double-word", "write-back", "read-ahead", "copy-on-write",
               "zero-copy", "hot-plug", "out-of-band", "non-fatal", "soft-lockup", "half-duplex")
_HW_FRAMES = (
    "{int} %(tech)s errors detected and corrected on rank {int}",
    "%(tech)s error interrupt",
    "data %(tech)s error interrupt",
    "%(tech)s %(noun)s exception at {hex0x}",
    "{int} %(tech)s %(noun)s exceptions",
    "%(tech)s parity error detected. attempting to correct",
    "%(tech)s link training failed on %(noun)s {int}",
    "critical input interrupt: warning for %(tech)s %(noun)s",
)


def _gen_kernel_frames(rng: random.Random, n: int, frames: Sequence[str], kinds: Sequence[str | None],
                       with_function: bool) -> list[tuple[str, str | None, str, str]]:
    """Kernel / C lines from ``frames``: %(f)s a function name (``with_function``),
    %(noun)s an English word, %(tech)s a technical word; all constants."""
    out = []
    for _ in range(n):
        f = "%s_%s" % (_pick(rng, _C_PREFIXES), _pick(rng, _C_VERBS)) if with_function else ""
        body = _pick(rng, frames) % {"f": f, "noun": _pick(rng, ENGLISH), "tech": _pick(rng, _TECH_WORDS)}
        out.append(("kernel", _pick(rng, kinds), body, ""))
    return out


# Object state dumps (Android / Java toString style): field names are constants,
# booleans, numbers and ids are values.
_STATE_FRAMES = (
    "%(a)s = {bool}",
    "%(a)s={bool}, %(b)s={int}, %(c)s={bool}",
    "%(a)s: %(b)s={bool} %(c)s={int}",
    "%(Camel)s{%(a)s={bool}, %(b)s={bool}, %(c)s={hex0x}}",
    "%(a)s changed to {bool} by %(Camel)s",
    "set %(a)s {bool} for uid {int}",
    "%(a)s =%(b)s, %(c)s = {bool}",
)


def _gen_state(rng: random.Random, n: int) -> list[tuple[str, str | None, str, str]]:
    out = []
    for _ in range(n):
        a, b, c = (("m" if rng.random() < 0.4 else "") + _camel(rng, 2) if rng.random() < 0.5 else _snake(rng, 2)
                   for _ in range(3))
        a, b, c = (x[0].lower() + x[1:] for x in (a, b, c))
        body = _pick(rng, _STATE_FRAMES) % {"a": a, "b": b, "c": c, "Camel": _camel(rng, 2)}
        out.append(("app", _pick(rng, (None, "java", "app")), body, ""))
    return out


def _gen_hard_negatives() -> list[tuple[str, str | None, str, str]]:
    """Expand _HARD_NEG_FRAMES; variants share a family (and, in build_templates, a header)."""
    out = []
    for i, (cat, frame, words) in enumerate(_HARD_NEG_FRAMES):
        kind = "kernel" if cat == "kernel" else "app"
        for w in words:
            out.append((cat, kind, frame % w, "hn:frame-%02d" % i))
    return out


# --- Assembly --------------------------------------------------------------------

def build_templates(seed: int = TEMPLATE_SEED) -> list[Template]:
    """Build the fixed template set: hand-written + combinatorial, deduplicated by template text."""
    rng = random.Random(seed)
    raw: list[tuple[str, str | None, str, str]] = []
    for category, kind, entries in _HANDWRITTEN:
        for e in entries:
            fmt, fam = (e, "") if isinstance(e, str) else e
            raw.append((category, kind, fmt, fam))
    raw += _gen_java_exceptions(rng, 45)
    raw += _gen_java_frames(rng, 15)
    raw += _gen_go_errors(rng, 30)
    raw += _gen_python(rng, 20)
    raw += _gen_cpp(rng, 12)
    raw += _gen_access(rng, 24)
    raw += _gen_kv(rng, 30)
    raw += _gen_json(rng, 30)
    raw += _gen_sql(rng, 24)
    raw += _gen_batch_jobs(rng, 6)
    raw += _gen_hard_negatives()
    raw += _gen_kernel_frames(rng, 30, _C_FRAMES, (None, None, "kernel", "cpp"), with_function=True)
    raw += _gen_kernel_frames(rng, 16, _HW_FRAMES, (None, "kernel"), with_function=False)
    raw += _gen_state(rng, 24)

    templates: list[Template] = []
    seen: dict[str, None] = {}  # insertion-ordered; never iterate a set (salted order)
    family_header: dict[str, str] = {}
    for category, kind, body, fam in raw:
        if kind is None:
            fmt = body
        else:
            # Members of a hard-negative family share one header so they stay one word apart.
            skeleton = family_header.get(fam) if fam else None
            if skeleton is None:
                skeleton = _header(rng, kind, body)
                if fam:
                    family_header[fam] = skeleton
            fmt = skeleton.replace("@MSG@", body)
        t = compile_template(len(templates), category, fmt, fam)
        text = template_text(t)
        if text in seen:
            continue
        seen[text] = None
        templates.append(t)
    return templates


class Generator:
    """Deterministic sampler over the fixed template set.

    ``sample(n)`` starts a fresh ``random.Random(seed)`` on each call, so its
    output is a pure function of (seed, n, distribution) and shorter samples
    are prefixes of longer ones.
    """

    def __init__(self, seed: int = 0, distribution: str = "uniform", zipf_s: float = 1.0,
                 templates: list[Template] | None = None) -> None:
        if distribution not in ("uniform", "zipf"):
            raise ValueError("distribution must be 'uniform' or 'zipf'")
        self.seed = seed
        self.distribution = distribution
        self.templates: list[Template] = templates if templates is not None else _default_templates()
        self._by_id = {t.id: t for t in self.templates}
        # Zipf: rank templates by a seed-dependent permutation so that which
        # templates dominate varies by seed, like real systems.
        order = list(range(len(self.templates)))
        random.Random(seed ^ 0x2F1F).shuffle(order)
        weights = [0.0] * len(order)
        for rank, idx in enumerate(order):
            weights[idx] = 1.0 / (rank + 1) ** zipf_s
        self._cum: list[float] = []
        acc = 0.0
        for w in weights:
            acc += w
            self._cum.append(acc)

    def template(self, template_id: int) -> Template:
        return self._by_id[template_id]

    def render(self, template: Template, rng: random.Random) -> tuple[str, list[tuple[int, int, str]]]:
        return render(template, rng)

    def sample(self, n: int) -> Iterator[tuple[int, str, list[tuple[int, int, str]]]]:
        rng = random.Random(self.seed)
        templates = self.templates
        rand = rng.random
        if self.distribution == "uniform":
            k = len(templates)
            for _ in range(n):
                t = templates[int(rand() * k)]
                line, spans = render(t, rng)
                yield t.id, line, spans
        else:
            cum, total, bis = self._cum, self._cum[-1], bisect.bisect_right
            for _ in range(n):
                t = templates[bis(cum, rand() * total)]
                line, spans = render(t, rng)
                yield t.id, line, spans


_TEMPLATE_CACHE: list[Template] = []


def _default_templates() -> list[Template]:
    if not _TEMPLATE_CACHE:
        _TEMPLATE_CACHE.extend(build_templates())
    return _TEMPLATE_CACHE


# --- CLI ---------------------------------------------------------------------------

# C-accelerated JSON string escaper that keeps non-ASCII as UTF-8 (ensure_ascii=False).
_json_str: Callable[[str], str] = json.encoder.encode_basestring  # type: ignore[attr-defined]


def _write_out(out, chunk: list[str]) -> None:
    out.write(("\n".join(chunk) + "\n").encode("utf-8"))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Deterministic synthetic log generator (logsift).")
    ap.add_argument("--n", type=int, default=1000, help="number of lines (default 1000)")
    ap.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    ap.add_argument("--format", choices=("lines", "jsonl"), default="lines")
    ap.add_argument("--dist", choices=("uniform", "zipf"), default="uniform",
                    help="template frequency: uniform (training) or zipf (realistic skew)")
    ap.add_argument("--list-templates", action="store_true",
                    help="print id<TAB>category<TAB>family<TAB>template_text and exit")
    args = ap.parse_args(argv)

    gen = Generator(args.seed, distribution=args.dist)
    out = sys.stdout.buffer  # explicit UTF-8 regardless of the locale
    chunk: list[str] = []
    try:
        if args.list_templates:
            for t in gen.templates:
                chunk.append("%d\t%s\t%s\t%s" % (t.id, t.category, t.family or "-", template_text(t)))
            _write_out(out, chunk)
            return 0
        # JSONL is assembled by hand (same bytes as json.dumps with ensure_ascii=False and
        # compact separators): per-record json.dumps of a dict is ~3x slower.
        prefixes = ['{"template_id":%d,"template":%s,"line":' % (t.id, _json_str(template_text(t)))
                    for t in gen.templates]
        for tid, line, spans in gen.sample(args.n):
            if args.format == "lines":
                chunk.append(line)
            else:
                chunk.append(prefixes[tid] + _json_str(line) + ',"spans":['
                             + ",".join(['[%d,%d,"%s"]' % s for s in spans]) + "]}")
            if len(chunk) >= 8192:
                _write_out(out, chunk)
                chunk = []
        if chunk:
            _write_out(out, chunk)
        out.flush()
    except BrokenPipeError:  # e.g. `| head`; exit quietly like other Unix tools
        sys.stdout = None  # type: ignore[assignment]
        return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
