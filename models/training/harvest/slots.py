#!/usr/bin/python3
"""Slot types needed by harvested templates beyond synthlog's.

Every generator is ``fn(rng: random.Random) -> str``: non-empty, single-line,
deterministic for a seeded ``random.Random`` (no global random, no clock, no
``hash()``).  ``ALL_SLOTS`` merges these with synthlog.SLOTS.

``const_ident`` is special: it marks a placeholder that is constant per call
site in practice (a ``%s: `` prefix fed by ``__func__``, a program or driver
name).  ``const_ident_value(key)`` gives the one identifier a template uses;
renderers emit it as literal text, never as a variable span.
"""

from __future__ import annotations

import os
import random
import sys
import zlib

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import synthlog  # noqa: E402
from synthlog import (ADJECTIVES, DOMAINS, ENGLISH, NAMESPACES, ORGS, SERVICES, TABLES,  # noqa: E402
                      USER_NAMES, _between, _hexstr, _pick)

_K8S_SAFE = "bcdfghjklmnpqrstvwxz2456789"

STRERRORS = (
    "No such file or directory", "Permission denied", "Connection refused", "Connection reset by peer",
    "Connection timed out", "No route to host", "Network is unreachable", "Broken pipe", "Resource temporarily unavailable",
    "Input/output error", "No space left on device", "Too many open files", "Operation not permitted", "Invalid argument",
    "Address already in use", "Cannot assign requested address", "Device or resource busy", "File exists",
    "Not a directory", "Is a directory", "Read-only file system", "Operation timed out", "Host is unreachable",
    "Bad file descriptor", "Cannot allocate memory", "Interrupted system call", "Protocol error",
    "Operation not supported", "Transport endpoint is not connected", "Disk quota exceeded", "Stale file handle",
    "Success", "Unknown error 524", "Name or service not known", "Temporary failure in name resolution",
    "Function not implemented", "Numerical result out of range", "Directory not empty", "Exec format error",
    "Key has expired", "Required key not available", "No data available", "Software caused connection abort",
)
_GO_ERRS = (
    "context deadline exceeded", "context canceled", "EOF", "unexpected EOF", "i/o timeout",
    "connection reset by peer", "broken pipe", "use of closed network connection", "permission denied",
    "file already closed", "no such file or directory", "x509: certificate signed by unknown authority",
    "tls: handshake failure", "invalid character 'x' looking for beginning of value",
    "json: cannot unmarshal string into Go value of type int", "rpc error: code = Unavailable desc = connection error",
    "rpc error: code = DeadlineExceeded desc = context deadline exceeded", "not found", "already exists",
    "resource version conflict", "the object has been modified; please apply your changes to the latest version and try again",
    "net/http: request canceled while waiting for connection (Client.Timeout exceeded while awaiting headers)",
    "server misbehaving", "too many open files", "device or resource busy", "operation not permitted",
    "exit status 1", "signal: killed", "invalid argument", "unauthorized", "forbidden", "quota exceeded",
    "read-only file system", "no space left on device", "database is locked", "timeout waiting for lease",
)
_ERR_WRAP = ("dial tcp %s: connect: connection refused", "dial tcp %s: i/o timeout", "read tcp %s: read: connection reset by peer",
             "write tcp %s: write: broken pipe", "lookup %s: no such host", "Get \"https://%s/healthz\": context deadline exceeded",
             "open %s: no such file or directory", "stat %s: permission denied", "mkdir %s: file exists",
             "failed to connect to %s: connection refused", "unable to read %s: EOF")

ERRNO_NAMES = ("-ENOMEM", "-EINVAL", "-EIO", "-ENODEV", "-EBUSY", "-ETIMEDOUT", "-EAGAIN", "-ENOENT", "-EPERM",
               "-EOPNOTSUPP", "-ENOSPC", "-EPROBE_DEFER", "-ENXIO", "-EFAULT", "-EEXIST", "-EPROTO", "-ECONNRESET")
IFACES = ("eth0", "eth1", "ens3", "ens5", "ens192", "enp0s3", "enp3s0f1", "eno1", "wlan0", "wlp2s0", "lo", "br0",
          "docker0", "cni0", "flannel.1", "vxlan.calico", "bond0", "vlan100", "tun0", "tap3", "wg0", "virbr0",
          "enp0s31f6", "ib0", "veth1a2b3c4")
STATES = ("RUNNING", "STOPPED", "active", "inactive", "failed", "pending", "ready", "NotReady", "UP", "DOWN",
          "ESTABLISHED", "CLOSE_WAIT", "TIME_WAIT", "LISTEN", "SYN_SENT", "idle", "busy", "degraded", "healthy",
          "unhealthy", "leader", "follower", "candidate", "master", "backup", "FAULT", "syncing", "Bound",
          "Terminating", "Succeeded", "CrashLoopBackOff", "OPEN", "CLOSED", "HALF_OPEN", "enabled", "disabled",
          "online", "offline", "starting", "stopping", "MASTER", "BACKUP", "reading", "writing", "warning",
          "critical", "info", "error", "debug", "add", "remove", "change", "create", "delete", "update")
PROTOS = ("tcp", "udp", "TCP", "UDP", "icmp", "sctp", "http", "https", "h2", "grpc", "tls", "TLSv1.2", "TLSv1.3",
          "IPv4", "IPv6", "inet", "inet6", "unix", "quic", "smtp", "imap", "ldap", "ldaps", "ssh", "nfs", "iscsi")
SIGNALS = ("SIGTERM", "SIGKILL", "SIGHUP", "SIGINT", "SIGQUIT", "SIGSEGV", "SIGABRT", "SIGPIPE", "SIGUSR1",
           "SIGUSR2", "SIGCHLD", "SIGBUS", "SIGALRM", "terminated", "killed", "hangup", "interrupt")
HTTP_METHODS = ("GET", "GET", "GET", "POST", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS")
K8S_KINDS = ("pod", "deployment", "service", "configmap", "secret", "node", "persistentvolumeclaim", "replicaset",
             "statefulset", "daemonset", "job", "ingress", "endpointslice", "lease", "namespace")
UNIT_SUFFIX = (".service", ".service", ".socket", ".timer", ".mount", ".target", ".scope", ".slice", ".path", ".device")
CLASS_PKGS = ("org.example", "com.acme", "io.netty.channel", "org.apache.kafka.clients", "org.springframework.beans",
              "org.eclipse.jetty.server", "org.hibernate.engine", "net.sf.ehcache", "org.quartz.core",
              "com.fasterxml.jackson.databind", "org.apache.zookeeper.server", "org.apache.activemq.broker")
CAMEL = ("Request", "Response", "Handler", "Manager", "Service", "Client", "Connection", "Pool", "Session", "Cache",
         "Token", "Config", "Scheduler", "Worker", "Executor", "Dispatcher", "Registry", "Resolver", "Provider",
         "Factory", "Controller", "Listener", "Broker", "Consumer", "Producer", "Channel", "Stream", "Buffer", "Parser")
PROGRAMS = ("sshd", "systemd", "kubelet", "containerd", "dockerd", "postfix/smtpd", "dovecot",
            "named", "chronyd", "NetworkManager", "wpa_supplicant", "bluetoothd", "udisksd", "polkitd", "rsyslogd",
            "smbd", "winbindd", "slapd", "openvpn", "charon", "keepalived", "corosync", "pacemakerd", "sssd_be",
            "krb5kdc", "radiusd", "asterisk", "kamailio", "turnserver", "unbound", "pdns_server", "knotd", "nsd",
            "bird", "zebra", "bgpd", "ospfd", "lldpd", "collectd", "snmpd", "cupsd", "avahi-daemon", "smartd",
            "multipathd", "iscsid", "mdadm", "lvm", "qemu-system-x86_64", "libvirtd", "lighttpd", "varnishd",
            "vsftpd", "proftpd", "exim", "opendkim", "clamd", "freshclam", "fail2ban-server", "suricata")
CMDS = ("/usr/bin/rsync -a /srv/data/ backup:/srv/data/", "/bin/sh -c /usr/local/bin/healthcheck.sh",
        "iptables -w -t nat -A POSTROUTING -s 10.88.0.0/16 -j MASQUERADE", "/usr/sbin/logrotate /etc/logrotate.conf",
        "git fetch --prune origin", "ip link set dev eth0 up", "mount -t nfs4 fs01:/export /mnt/export",
        "systemctl restart app-worker.service", "/usr/lib/openssh/sftp-server", "tar -czf /var/backups/etc.tgz /etc",
        "python3 manage.py migrate", "java -Xmx2g -jar app.jar", "/usr/bin/ffmpeg -i input.mp4 out.webm")


def _ident(rng: random.Random) -> str:
    return "%s_%s" % (_pick(rng, ENGLISH), _pick(rng, ENGLISH))


def slot_const_ident(rng: random.Random) -> str:
    r = rng.random()
    if r < 0.45:
        return "%s_%s" % (_pick(rng, ("nfsd4", "xs", "dm", "ext4", "smb2", "ldap", "ssl", "dev", "sock", "tcp",
                                     "conf", "auth", "ctl", "mgr", "drv", "sd", "usb", "pci", "acpi", "virtio")),
                          _ident(rng))
    if r < 0.7:
        return _pick(rng, PROGRAMS).split("/")[-1]
    if r < 0.85:
        return _pick(rng, ("e1000e", "ixgbe", "mlx5_core", "nvme", "ahci", "xhci_hcd", "i915", "amdgpu",
                           "iwlwifi", "btusb", "virtio_net", "ata1", "sd", "scsi", "EXT4-fs", "XFS", "Bluetooth",
                           "ACPI", "PM", "cgroup", "audit", "nf_conntrack", "bridge", "bond0", "vfio-pci"))
    return "%s%s" % (_pick(rng, ENGLISH).capitalize(), _pick(rng, CAMEL))


def const_ident_value(key: str, hint: str | None = None) -> str:
    """The fixed identifier a template uses for its const_ident slots (stable across runs)."""
    if hint:
        return hint
    return slot_const_ident(random.Random(zlib.crc32(key.encode("utf-8"))))


def slot_ipaddr(rng: random.Random) -> str:
    return synthlog.slot_ipv6(rng) if rng.random() < 0.12 else synthlog.slot_ipv4(rng)


def slot_hostport(rng: random.Random) -> str:
    r = rng.random()
    if r < 0.4:
        return synthlog.slot_ipv4_port(rng)
    if r < 0.5:
        return "[%s]:%d" % (synthlog.slot_ipv6(rng), _pick(rng, (443, 8443, 2379, 6443, 53, 22)))
    host = synthlog.slot_host(rng) if r < 0.75 else synthlog.slot_fqdn(rng)
    return "%s:%s" % (host, synthlog.slot_port(rng))


def slot_iface(rng: random.Random) -> str:
    if rng.random() < 0.15:
        return "veth%s" % _hexstr(rng, 7)
    return _pick(rng, IFACES)


def slot_hexdigest(rng: random.Random) -> str:
    r = rng.random()
    if r < 0.3:
        return _hexstr(rng, 40)
    if r < 0.55:
        return _hexstr(rng, 64)
    if r < 0.75:
        return "sha256:" + _hexstr(rng, 64)
    if r < 0.9:
        return _hexstr(rng, 7)
    return _hexstr(rng, 32)


def slot_errmsg(rng: random.Random) -> str:
    return _pick(rng, STRERRORS)


def slot_err_text(rng: random.Random) -> str:
    r = rng.random()
    if r < 0.35:
        return _pick(rng, _GO_ERRS)
    if r < 0.6:
        tpl = _pick(rng, _ERR_WRAP)
        arg = synthlog.slot_ipv4_port(rng) if "tcp" in tpl else (
            synthlog.slot_fqdn(rng) if "lookup" in tpl or "https" in tpl else synthlog.slot_path(rng))
        return tpl % arg
    if r < 0.75:
        return "%s: %s" % (_pick(rng, ("failed to %s %s" % (_pick(rng, synthlog.VERBS), _pick(rng, ENGLISH)),
                                       "error calling %s" % _pick(rng, CAMEL), "%s failed" % _pick(rng, ENGLISH))),
                           _pick(rng, _GO_ERRS))
    if r < 0.9:
        return _pick(rng, STRERRORS)
    return "%s %s" % (_pick(rng, ("invalid", "missing", "unknown", "unsupported", "duplicate")), _pick(rng, ENGLISH))


def slot_state(rng: random.Random) -> str:
    return _pick(rng, STATES)


def slot_http_method(rng: random.Random) -> str:
    return _pick(rng, HTTP_METHODS)


def slot_proto(rng: random.Random) -> str:
    return _pick(rng, PROTOS)


def slot_signal(rng: random.Random) -> str:
    return _pick(rng, SIGNALS)


def slot_id(rng: random.Random) -> str:
    r = rng.random()
    if r < 0.25:
        return str(_between(rng, 1, 10 ** _between(rng, 1, 9)))
    if r < 0.45:
        return "%s-%d" % (_pick(rng, ("job", "req", "task", "run", "msg", "evt", "ord", "tx", "conn", "sess")),
                          _between(rng, 1, 999999))
    if r < 0.6:
        return _hexstr(rng, _pick(rng, (8, 12, 16, 24)))
    if r < 0.75:
        return synthlog.slot_uuid(rng)
    if r < 0.9:
        return "ID:%s-%d-%d-%d:%d" % (synthlog.slot_host(rng), _between(rng, 30000, 65000), _between(rng, 1e12, 2e12),
                                      _between(rng, 0, 9), _between(rng, 1, 99))
    return "".join(_pick(rng, "ABCDEFGHJKLMNPQRSTUVWXYZ23456789") for _ in range(_pick(rng, (6, 8, 10))))


def _k8s_name(rng: random.Random) -> str:
    base = _pick(rng, SERVICES)
    r = rng.random()
    if r < 0.5:
        return "%s-%s-%s" % (base, "".join(_pick(rng, _K8S_SAFE) for _ in range(_pick(rng, (9, 10)))),
                             "".join(_pick(rng, _K8S_SAFE) for _ in range(5)))
    if r < 0.7:
        return "%s-%d" % (base, _between(rng, 0, 5))
    return base


def slot_k8s_ref(rng: random.Random) -> str:
    r = rng.random()
    ns = _pick(rng, NAMESPACES)
    if r < 0.7:
        return "%s/%s" % (ns, _k8s_name(rng))
    if r < 0.85:
        return "%s/%s/%s" % (_pick(rng, K8S_KINDS), ns, _k8s_name(rng))
    return _k8s_name(rng)


def slot_service(rng: random.Random) -> str:
    r = rng.random()
    if r < 0.35:
        return _pick(rng, SERVICES)
    if r < 0.6:
        return _pick(rng, PROGRAMS).split("/")[-1].replace("_", "-") + _pick(rng, UNIT_SUFFIX)
    if r < 0.8:
        return "%s-%s" % (_pick(rng, DOMAINS), _pick(rng, ("api", "worker", "svc", "gateway", "scheduler", "agent")))
    return _pick(rng, PROGRAMS).split("/")[-1]


def slot_class_name(rng: random.Random) -> str:
    r = rng.random()
    cls = "%s%s" % (_pick(rng, ("Default", "Async", "Remote", "Local", "Cached", "Simple", "Jdbc", "Http", "")),
                    _pick(rng, CAMEL))
    if r < 0.5:
        return "%s.%s" % (_pick(rng, CLASS_PKGS), cls)
    if r < 0.75:
        return "*%s.%s" % (_pick(rng, ("v1", "api", "types", "config", "server", "client")), cls)
    return cls


def slot_func_name(rng: random.Random) -> str:
    r = rng.random()
    if r < 0.4:
        return "%s_%s" % (_pick(rng, synthlog.VERBS), _pick(rng, ENGLISH))
    if r < 0.7:
        return "%s%s" % (_pick(rng, synthlog.VERBS), _pick(rng, CAMEL))
    if r < 0.85:
        return "/%s.%s/%s" % (_pick(rng, ("grpc.health.v1", "api.v1", "containerd.services.tasks.v1",
                                           "runtime.v1.RuntimeService", "raft.v1")),
                              _pick(rng, CAMEL) + "Service", _pick(rng, ("Check", "Get", "List", "Create", "Watch")))
    return "%s.%s" % (_pick(rng, CAMEL), _pick(rng, synthlog.VERBS))


def slot_cmdline(rng: random.Random) -> str:
    return _pick(rng, CMDS)


def slot_cidr(rng: random.Random) -> str:
    ip = synthlog.slot_ipv4(rng).rsplit(".", 1)[0] + ".0"
    return "%s/%d" % (ip, _pick(rng, (8, 12, 16, 20, 22, 24, 24, 26, 28, 32)))


def slot_char(rng: random.Random) -> str:
    return _pick(rng, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+-*/:#@")


def slot_ksym(rng: random.Random) -> str:
    fn = "%s_%s" % (_pick(rng, ("tcp", "ext4", "blk_mq", "nvme", "xhci", "__alloc", "dma", "irq", "sched",
                                "vfs", "kmem_cache", "drm", "usb", "pci", "netif")), _pick(rng, ENGLISH))
    s = "%s+0x%x/0x%x" % (fn, _between(rng, 1, 0x3ff), _between(rng, 0x400, 0x1fff))
    if rng.random() < 0.3:
        s += " [%s]" % _pick(rng, ("e1000e", "nvme_core", "xfs", "i915", "mlx5_core", "nf_conntrack"))
    return s


def slot_kres(rng: random.Random) -> str:
    a = _between(rng, 0x1000, 0xfff00000) & ~0xfff
    return "[%s %#010x-%#010x%s]" % (_pick(rng, ("mem", "mem", "io", "bus")), a, a + _between(rng, 0xff, 0xfffff),
                                     _pick(rng, ("", " 64bit pref", " pref", " window")))


def slot_errno_name(rng: random.Random) -> str:
    return _pick(rng, ERRNO_NAMES)


def slot_hexbytes(rng: random.Random) -> str:
    return " ".join(_hexstr(rng, 2) for _ in range(_pick(rng, (4, 6, 8, 16))))


def slot_text(rng: random.Random) -> str:
    words = [_pick(rng, ENGLISH) for _ in range(_between(rng, 2, 6))]
    if rng.random() < 0.3:
        words.insert(0, _pick(rng, ADJECTIVES))
    return " ".join(words)


def slot_pci_addr(rng: random.Random) -> str:
    return "0000:%02x:%02x.%d" % (_between(rng, 0, 0x3f), _between(rng, 0, 0x1f), _between(rng, 0, 7))


def slot_kv_pair(rng: random.Random) -> str:
    k = _pick(rng, ("id", "user", "status", "count", "mode", "region", "attempt", "shard"))
    v = {"id": lambda: str(_between(rng, 1, 99999)), "user": lambda: _pick(rng, USER_NAMES),
         "status": lambda: synthlog.slot_status(rng), "count": lambda: str(_between(rng, 0, 500)),
         "mode": lambda: _pick(rng, ("ro", "rw", "sync", "async")),
         "region": lambda: _pick(rng, ("us-east-1", "eu-west-1", "ap-south-1")),
         "attempt": lambda: str(_between(rng, 1, 5)), "shard": lambda: str(_between(rng, 0, 63))}[k]()
    return "%s=%s" % (k, v)


def slot_json_frag(rng: random.Random) -> str:
    return '{"%s":%d,"%s":"%s"}' % (_pick(rng, ("id", "count", "size", "code")), _between(rng, 0, 9999),
                                   _pick(rng, ("name", "state", "table", "user")), _pick(rng, TABLES + ORGS))


def slot_table(rng: random.Random) -> str:
    return _pick(rng, TABLES) if rng.random() < 0.7 else "%s.%s" % (_pick(rng, DOMAINS), _pick(rng, TABLES))


def slot_const_ident_var(rng: random.Random) -> str:  # only used for tests of the generator itself
    return slot_const_ident(rng)


def slot_value(rng: random.Random) -> str:
    """A value of unknown kind (a %s / {} whose context says nothing): any of the common shapes."""
    r = rng.random()
    if r < 0.3:
        return synthlog.slot_word(rng)
    if r < 0.45:
        return synthlog.slot_name(rng)
    if r < 0.55:
        return synthlog.slot_path(rng)
    if r < 0.63:
        return synthlog.slot_host(rng) if rng.random() < 0.6 else synthlog.slot_fqdn(rng)
    if r < 0.73:
        return slot_id(rng)
    if r < 0.78:
        return synthlog.slot_ipv4(rng)
    if r < 0.83:
        return "%s%s" % (_pick(rng, ENGLISH).capitalize(), _pick(rng, CAMEL))
    if r < 0.88:
        return str(_between(rng, 0, 100000))
    if r < 0.92:
        return synthlog.slot_version(rng)
    if r < 0.96:
        return _pick(rng, STATES)
    return synthlog.slot_uuid(rng)


NEW_SLOTS = {
    "const_ident": slot_const_ident, "ipaddr": slot_ipaddr, "hostport": slot_hostport, "iface": slot_iface,
    "hexdigest": slot_hexdigest, "errmsg": slot_errmsg, "err_text": slot_err_text, "state": slot_state,
    "http_method": slot_http_method, "proto": slot_proto, "signal": slot_signal, "id": slot_id,
    "k8s_ref": slot_k8s_ref, "service": slot_service, "class_name": slot_class_name, "func_name": slot_func_name,
    "cmdline": slot_cmdline, "cidr": slot_cidr, "char": slot_char, "ksym": slot_ksym, "kres": slot_kres,
    "errno_name": slot_errno_name, "hexbytes": slot_hexbytes, "text": slot_text, "pci_addr": slot_pci_addr,
    "kv_pair": slot_kv_pair, "value": slot_value, "json_frag": slot_json_frag, "table": slot_table,
}
ALL_SLOTS = dict(synthlog.SLOTS)
ALL_SLOTS.update(NEW_SLOTS)
SLOTS_WITH_ARG = ("hex", "int", "epoch")


def generate(slot: str, rng: random.Random, arg: int | None = None) -> str:
    fn = ALL_SLOTS[slot]
    return fn(rng, arg) if arg is not None else fn(rng)
