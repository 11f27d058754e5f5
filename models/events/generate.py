#!/usr/bin/python3
"""Build a labelled multi-line events set by running real programs (see README.md in this directory).

    /usr/bin/python3 models/events/generate.py --seed 1 --errors 1200 --out models/events/dev --faults dev
    /usr/bin/python3 models/events/generate.py --seed 2 --errors 600 --out models/events/test --faults test
    /usr/bin/python3 models/events/generate.py --seed 3 --errors 600 --out /tmp/events-holdout --faults holdout
    /usr/bin/python3 models/events/generate.py --seed 4 --errors 600 --out /tmp/events-final --faults final

Five small services (programs/<runtime>/) run under their real runtimes (Java 17, CPython 3.11, Node 20,
Go 1.19, Ruby 3.1) and log the way such services do. Each is driven by a seeded plan: a list of action
codes, one per log statement or fault, run in order. Before each action the program appends the log
file's current size and the action code to a marks file (LOGSIFT_MARKS); that is the only label channel.
The log itself is whatever the runtime wrote: logging headers, printStackTrace, tracebacks, err.stack,
util.inspect, debug.Stack(), Go's crash reports and `go run`'s "exit status 2", Ruby's Logger and its
uncaught-exception report. An event is the bytes from one mark to the next; its label is the action
code (System:F3, System:T2, System:H4, System:K1, System:L1) and its template the registry's below. F codes are
the dev faults, T codes the test faults, H codes the held-out faults (--faults holdout), K codes the final
faults (--faults final): four disjoint sets.

Each system runs as several process lifetimes (restarts; a crash ends one), alternately from two
deployment directories, /srv/app-1.4.2/<app> and /opt/releases/20261128/<app>. As root, with
unshare(1), these are real paths in a private mount namespace (tmpfs over /srv and /opt, seen by this
process tree only); otherwise they are created under the work directory (--work) and the paths in
traces carry that prefix instead.

Output (--out DIR): datasets.json and <System>/<System>.log + <System>.log_structured.csv with columns
LineId,Content,EventId,EventTemplate,Event (Content = the whole physical line; Event = 1-based event
index, shared by all lines of one multi-line event), one System per runtime plus Mixed (all five
interleaved with real single lines of models/tuning). --readme updates the README's count and fault
tables (between the BEGIN/END markers of this set).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
PROGRAMS = HERE / "programs"
TUNING = ROOT / "models" / "tuning"
DEPLOYMENTS = ("/srv/app-1.4.2", "/opt/releases/20261128")

csv.field_size_limit(1 << 30)


# ---------------------------------------------------------------- registry


@dataclass
class Fault:
    template: str
    what: str
    weight: float = 1.0
    crash: bool = False       # ends the process (the action is the last of its lifetime)
    tline: str = "first"      # which line the template describes: "first", or "any" (a bare report head)


@dataclass
class System:
    name: str
    runtime: str
    app: str                  # directory name of the program in a deployment
    singles: dict
    dev: dict
    test: dict
    holdout: dict = field(default_factory=dict)  # held-out faults (H codes), in no dev or test plan
    final: dict = field(default_factory=dict)    # final faults (K codes), in no dev, test or holdout plan
    crash_rc: tuple = (1,)
    format: str = ""
    extra: dict = field(default_factory=dict)


SYSTEMS = [
    System(
        "JavaOrders", "java", "orders",
        singles={
            "L1": "Order <*> created for customer <*> total <*> EUR",
            "L2": "Order <*> closed in <*> ms",
            "L3": "Payment gateway slow: <*> ms for order <*>",
            "L4": "Cache refresh: <*> entries, <*> evicted",
            "L5": "Dispatching <*> to <*>",
            "L6": "Retrying order <*> (attempt <*> of <*>)",
        },
        dev={
            "F1": Fault("Failed to close order <*>",
                        "OrderCloseException <- UncheckedIOException <- NoSuchFileException (Files.readString in a "
                        "stream lambda, lambda$close$0; JDK nio frames; 3-deep Caused by, ... N more)"),
            "F2": Fault("Payment request failed for order <*> (gateway <*>)",
                        "PaymentException <- java.net.ConnectException: Connection refused (a real connect to a "
                        "closed loopback port; sun.nio.ch frames incl. Native Method)"),
            "F3": Fault("Unhandled error in RPC call <*> from <*>",
                        "RpcException <- InvocationTargetException <- IllegalArgumentException (Method.invoke: "
                        "NativeMethodAccessorImpl before inflation, jdk.internal.reflect.GeneratedMethodAccessorNN "
                        "after 15 calls; NN differs between starts)"),
            "F4": Fault("Failed to load setting <*> for tenant <*>",
                        "ConfigException <- NumberFormatException (Integer.parseInt under a recursive resolver, "
                        "2-13 ConfigTree.resolve frames)"),
            "F5": Fault("Export of batch <*> failed",
                        "IOException with 1 or 2 Suppressed: IllegalStateException (try-with-resources close()), "
                        "anonymous class ExportJob$1, inner class ExportJob$BatchWriter"),
            "F6": Fault("Cycle while expanding template <*>", "StackOverflowError (1,024 frames, JVM's cap)",
                        weight=0.08),
            "F7": Fault('Exception in thread <*> java.lang.NullPointerException: Cannot invoke "String.trim()" '
                        'because "region" is null',
                        "uncaught in a pool worker (execute()): the default handler's 'Exception in thread \"pool-N-"
                        "thread-M\"' report, helpful NPE message, anonymous class InventoryCache$1", weight=0.7),
        },
        test={
            "T1": Fault('Exception in thread "main" java.lang.IllegalStateException: Schema version <*> of <*> is '
                        'not supported',
                        "uncaught in main at schema migration (ends the JVM, exit 1) <- NumberFormatException",
                        weight=0.5, crash=True),
            "T2": Fault("Failed to parse order payload from <*>",
                        "PayloadException <- DateTimeParseException <- DateTimeException (LocalDate.parse; deep "
                        "java.time frames)"),
            "T3": Fault("Inventory sync failed for warehouse <*> (<*> items)",
                        "ConcurrentModificationException (no message) from ArrayList.forEach, inner class "
                        "InventoryCache$Shard"),
            "T4": Fault("Settlement for merchant <*> failed",
                        "CompletionException <- ArithmeticException: integer overflow (CompletableFuture.supplyAsync; "
                        "logged from exceptionally() on the async thread, Thread-N)"),
            "T5": Fault("Bad attribute priority on order <*>",
                        "RpcException <- InvocationTargetException <- ClassCastException (reflection, as F3, another "
                        "handler and cause)"),
        },
        holdout={
            "H1": Fault("Failed to persist order <*>",
                        "DataAccessException <- java.sql.BatchUpdateException <- "
                        "SQLIntegrityConstraintViolationException: Duplicate entry (a JDBC-style batch insert; two "
                        "Caused by with '... N more')"),
            "H2": Fault("Cannot reprice line <*> of order <*>",
                        "ArithmeticException: Non-terminating decimal expansion (BigDecimal.divide) logged inside the "
                        "lambda of a parallel stream: java.util.stream and ForkJoin frames, on the pool worker or on "
                        "ForkJoinPool.commonPool-worker-N"),
            "H3": Fault("Polling carrier <*> interrupted, giving up",
                        "WARN with java.lang.InterruptedException (no message) from LinkedBlockingQueue.poll / AQS "
                        "awaitNanos, on a named thread carrier-poller-N"),
            "H4": Fault('Exception in thread "main" java.lang.ExceptionInInitializerError',
                        "uncaught in main (ends the JVM, exit 1): a static initializer fails (TaxTable.<clinit>), "
                        "Caused by: IllegalArgumentException: No enum constant ... (Enum.valueOf), '... 2 more'",
                        weight=0.5, crash=True),
        },
        final={
            "K1": Fault("Rejected order <*> from <*>",
                        "OrderValidationException whose message has a line per problem: the exception line, then "
                        "1-4 lines '  - lines[N].field: ...' (2-space indented, not frames) before the 'at' lines"),
            "K2": Fault("Shipping quote for <*> (<*> g) failed",
                        "java.util.concurrent.ExecutionException from Future.get (FutureTask.report / get frames) of a "
                        "Callable run on a named pool thread (quote-worker-N), 'Caused by: IllegalStateException: No "
                        "rate card for zone ...' with the lambda$quote$1 frame and '... 4 more'"),
            "K3": Fault("Statement <*> for merchant <*> not sent",
                        "ReportException with four 'Caused by' levels (TemplateException, ResourceException, "
                        "UncheckedIOException, java.nio.charset.MalformedInputException from Files.readString of an "
                        "ISO-8859-1 file: java.lang.String decoder frames), each with '... N more'"),
            "K4": Fault('Exception in thread "audit-flusher-<*>" java.io.UncheckedIOException: audit segment <*> of '
                        'flusher <*> not written (<*> records)',
                        "uncaught in a named thread of its own (not a pool): the JVM default handler's report; nested "
                        "inner classes AuditTrail$Flusher$Segment, lambda$start$0 / lambda$start$1 around "
                        "ArrayList.forEach; 'Caused by: java.nio.file.FileSystemException: ...: Is a directory' "
                        "(sun.nio.fs frames); the process goes on"),
        },
        crash_rc=(1,),
        format="Java 17 (OpenJDK): logback-shaped head \"yyyy-MM-dd HH:mm:ss,SSS LEVEL [thread] logger - msg\" "
               "on stderr, then the Throwable's own printStackTrace on the same stream; the JVM's default "
               "uncaught-exception reports (\"Exception in thread ...\") unchanged.",
    ),
    System(
        "PythonBilling", "python", "billing",
        singles={
            "L1": "Charged <*> EUR to card ending <*> for user <*>",
            "L2": "Invoice <*> rendered in <*> ms",
            "L3": "Rate limit close for merchant <*>: <*> requests",
            "L4": "Loaded <*> currency rates from <*>",
            "L5": "Retrying webhook <*> in <*> s",
        },
        dev={
            "F1": Fault("Failed to charge card for user <*>",
                        "ChargeError raised from KeyError ('The above exception was the direct cause ...'), "
                        "3.11 caret line ~~~~^^^^"),
            "F2": Fault("Could not parse config <*>",
                        "json.JSONDecodeError in json/decoder.py, then ConfigError raised in the except block "
                        "('During handling of the above exception, another exception occurred:')"),
            "F3": Fault("Invoice rendering failed for invoice <*>",
                        "ZeroDivisionError under 2-9 recursive _render frames, caret line ~~~~^~~~~"),
            "F4": Fault("Batch settlement failed for <*> merchants",
                        "ExceptionGroup from asyncio.TaskGroup with 1-3 sub-exceptions (ValueError, "
                        "ConnectionResetError): the '+-+---- 1 ----' / '| ' framed report, via except*"),
            "F5": Fault("FileNotFoundError: [Errno 2] No such file or directory: <*>",
                        "uncaught (ends the process, exit 1): the interpreter's bare 'Traceback (most recent call "
                        "last):' with no logging header", weight=0.6, crash=True, tline="any"),
            "F6": Fault("Failed to flatten discount rules for plan <*>",
                        "RecursionError: maximum recursion depth exceeded, with '[Previous line repeated N more "
                        "times]'", weight=0.4),
        },
        test={
            "T1": Fault("Webhook delivery to <*> failed",
                        "urllib.error.URLError <- ConnectionRefusedError (a real urlopen to a closed loopback "
                        "port; http.client and socket frames; 'During handling ...')"),
            "T2": Fault("Refund <*> rejected",
                        "RefundError raised from AttributeError: 'NoneType' object has no attribute 'amount'"),
            "T3": Fault("Worker <*> crashed in task <*>",
                        "ValueError: invalid literal for int() re-raised by Future.result() "
                        "(concurrent/futures frames)"),
            "T4": Fault("TypeError: unsupported operand type(s) for +: 'int' and 'str'",
                        "uncaught (ends the process): bare 'Traceback (most recent call last):'", weight=0.6,
                        crash=True, tline="any"),
        },
        holdout={
            "H1": Fault("Failed to build tax report <*> for region <*>",
                        "KeyError in a dict comprehension ('<dictcomp>' frame, caret ~~~^^^^) under a method chain, "
                        "logger.exception"),
            "H2": Fault("Ledger import of <*> stopped at row <*>",
                        "decimal.InvalidOperation: [<class 'decimal.ConversionSyntax'>] raised in a generator "
                        "consumed by a for loop, logger.error(..., exc_info=True)"),
            "H3": Fault("IndexError: pop from an empty deque",
                        "uncaught in a threading.Thread: threading.excepthook's 'Exception in thread reconciler-N:' "
                        "report (no logging header, threading.py frames); the process goes on", tline="any"),
            "H4": Fault("settings.SettingsError: unknown currency <*> in <*>",
                        "uncaught (ends the process, exit 1): 'raise ... from None' (no chained block), "
                        "module-qualified exception name", weight=0.6, crash=True, tline="any"),
        },
        final={
            "K1": Fault("Upload <*> of partner <*> rejected",
                        "logger.error(..., exc_info=True) of feeds.FeedError whose message spans 2-5 lines: the "
                        "exception line, then '  row N: ...' lines (2-space indented, like frame lines) ending the "
                        "traceback"),
            "K2": Fault("Settlement batch <*> not closed: invariant failed",
                        "a bare 'assert settled == total': the last line is just 'AssertionError' (no message), "
                        "3.11 caret line ^^^^ under the asserted expression, logger.exception"),
            "K3": Fault("payouts.errors.PayoutRejected: payout <*> to <*> rejected by <*>",
                        "uncaught (ends the process, exit 1): 'raise ... from e' across the modules of a package "
                        "(payouts/bank.py, payouts/iban.py): two bare 'Traceback (most recent call last):' blocks "
                        "around 'The above exception was the direct cause ...', package-qualified names "
                        "payouts.iban.InvalidIban and payouts.errors.PayoutRejected", weight=0.6, crash=True,
                        tline="any"),
            "K4": Fault("<*>: StaleRateWarning: <*> rate is <*> h old (max 24 h); converting with it anyway",
                        "warnings.warn(..., stacklevel=2) printed by the warnings module on stderr: "
                        "'/path/fx.py:LINE: StaleRateWarning: ...' (no logging header), then the caller's source line "
                        "indented by 2"),
        },
        crash_rc=(1,),
        format="CPython 3.11 logging to stderr, \"%(asctime)s %(levelname)s %(name)s: %(message)s\"; "
               "logger.exception() appends the traceback; uncaught exceptions are the interpreter's report.",
    ),
    System(
        "NodeGateway", "node", "gateway",
        singles={
            "L1": "<*> <*> <*> <*>ms",
            "L2": "Upstream <*> healthy (<*> ms)",
            "L3": "Slow upstream response from <*>: <*> ms",
            "L4": "Session <*> expired for user <*>",
        },
        dev={
            "F1": Fault("Upstream request failed for <*>: TypeError: fetch failed",
                        "console.error(msg, err) of fetch()'s TypeError: undici frames, async frames, a "
                        "'[cause]: Error: connect ECONNREFUSED ...' block with errno/code/syscall/address/port"),
            "F2": Fault("Failed to parse body of request <*>",
                        "head line, then console.error(err.stack) of JSON.parse's SyntaxError "
                        "('at JSON.parse (<anonymous>)')"),
            "F3": Fault("Batch lookup failed for <*> ids",
                        "head line, then err.stack of an async rejection under Promise.all "
                        "('at async Promise.all (index N)')"),
            "F4": Fault("TypeError: Cannot read properties of undefined (reading 'user')",
                        "uncaught in a timer callback (ends the process): 'file.js:LINE', the source line, a caret "
                        "line, a blank line, the stack, a blank line, 'Node.js v20...'", weight=0.6, crash=True,
                        tline="any"),
            "F5": Fault("Route table rebuild failed for <*> Error: Route <*> could not be loaded",
                        "console.error(msg, err) of an Error with {cause} (fs.readFileSync ENOENT) under 1-7 "
                        "recursive frames: '... N lines matching cause stack trace ...', nested [cause] with "
                        "errno/code/syscall/path"),
        },
        test={
            "T1": Fault("Error: Reindex of shard <*> aborted: <*> documents without id",
                        "unhandled promise rejection (ends the process): source excerpt report, 'Node.js v20...'",
                        weight=0.6, crash=True, tline="any"),
            "T2": Fault("Token verification failed for client <*> RangeError: Invalid key length",
                        "console.error(msg, err) of crypto.createDecipheriv's RangeError: node:internal frames, "
                        "a { code: 'ERR_CRYPTO_INVALID_KEYLEN' } block"),
            "T3": Fault("Cache write failed for key <*> Error: ENOENT: no such file or directory, open <*>",
                        "console.error(msg, err) of fs.promises.writeFile's error: async internal frames, an "
                        "errno/code/syscall/path block"),
            "T4": Fault("Error: Queue <*> rejected message <*>: payload too large",
                        "unhandled 'error' event of an EventEmitter (ends the process): 'node:events:NNN', "
                        "'throw er; // Unhandled 'error' event', 'Emitted 'error' event on ... at:' block",
                        weight=0.6, crash=True, tline="any"),
        },
        holdout={
            "H1": Fault("Asset <*> unavailable on all mirrors [AggregateError: All promises were rejected] {",
                        "console.error(msg, err) of Promise.any's AggregateError (no frames of its own): an "
                        "'[errors]: [' block of 2-4 fs.promises ENOENT errors, each with async frames and its own "
                        "errno/code/syscall/path block"),
            "H2": Fault("Request <*> rejected QuotaError: Tenant <*> exceeded its quota",
                        "console.error(msg, err) of an old-style error constructor (util.inherits, "
                        "Error.captureStackTrace(this, QuotaError)): own properties block {tenant, limit, used, window}"),
            "H3": Fault("Export worker <*>: uncaughtException, exiting TypeError: report.rows.map is not a function",
                        "TypeError thrown in a setImmediate callback, caught by a process.once('uncaughtException') "
                        "handler that logs it with console.error(msg, err) and exits 1 ('at Immediate.<anonymous>')",
                        weight=0.5, crash=True),
            "H4": Fault("UnhandledPromiseRejection: This error originated either by throwing inside of an async "
                        "function without a catch block, or by rejecting a promise which was not handled with "
                        ".catch(). The promise rejected with the reason <*>.",
                        "unhandled rejection with a string reason, not an Error (ends the process): "
                        "'node:internal/process/promises:NNN' report, { code: 'ERR_UNHANDLED_REJECTION' }, "
                        "'Node.js v20...'", weight=0.5, crash=True, tline="any"),
        },
        final={
            "K1": Fault("Trace: Slow handler <*>: <*> ms (budget <*> ms)",
                        "console.trace(): 'Trace: ...' on stderr with no logging header, then the V8 stack (a class "
                        "method, an anonymous closure, the plan loop, processTicksAndRejections or not)"),
            "K2": Fault("Manifest <*> rejected ManifestError: <*>: invalid routes (<*>):",
                        "console.error(msg, err) of an error thrown in a class getter ('at get routes [as routes]') "
                        "whose message has a line per problem ('  routes[N]...', 2-space indented) before the "
                        "'    at' lines"),
            "K3": Fault("Contract check of <*> failed AssertionError [ERR_ASSERTION]: Expected values to be strictly "
                        "deep-equal:",
                        "console.error(msg, err) of node:assert's deepStrictEqual AssertionError: the '+ actual - "
                        "expected' diff ('+' / '-' lines, '...' skips, an empty line), the stack, then a "
                        "{ generatedMessage, code: 'ERR_ASSERTION', actual, expected, operator } block"),
            "K4": Fault("MaxListenersExceededWarning emitted MaxListenersExceededWarning: Possible EventEmitter memory "
                        "leak detected. 11 price listeners added to [PriceFeed]. MaxListeners is 10. Use "
                        "emitter.setMaxListeners() to increase limit",
                        "a real runtime warning logged by a process.on('warning') handler (Node's own printer "
                        "removed) with console.error(msg, warning): node:events / node:internal/errors frames, then "
                        "an { emitter: PriceFeed { _events: ... }, type, count } block with a nested object"),
        },
        crash_rc=(1,),
        format="Node.js 20: \"<ISO-8601 time> LEVEL [component] msg\" via console.log (INFO, stdout) and "
               "console.error (WARN/ERROR, stderr) into one file; errors are printed by console.error "
               "(util.inspect) or as err.stack; uncaught errors are Node's own report.",
    ),
    System(
        "GoCache", "go", "gocache",
        singles={
            "L1": "cache: shard <*> compacted, <*> keys, <*> bytes freed",
            "L2": "cache: GET <*> hit=<*> <*>",
            "L3": "replication: peer <*> lag <*>",
            "L4": "cache: evicted <*> keys from shard <*>",
        },
        dev={
            "F1": Fault("panic: runtime error: invalid memory address or nil pointer dereference",
                        "recovered nil-pointer panic in a worker goroutine, log.Printf(\"panic: %v\\n%s\", r, "
                        "debug.Stack()): 'goroutine N [running]:', runtime/debug.Stack, panic({...}) frames"),
            "F2": Fault("worker <*>: recovered: shard <*>: corrupt entry <*> at offset <*>",
                        "recovered panic(fmt.Errorf(...)) under 1-8 recursive store.Decode frames, with "
                        "debug.Stack()"),
            "F3": Fault("panic: runtime error: index out of range [<*>] with length <*>",
                        "crash (exit 2) in a goroutine: inlined frame 'store.(*Ring).Owner(...)', 'created by' "
                        "(under `go run`, a trailing 'exit status 2')", crash=True),
            "F4": Fault("panic: assignment to entry in nil map",
                        "crash with debug.SetTraceback(\"all\"): every goroutine's stack, blank-line separated "
                        "(and 'exit status 2' under `go run`)", weight=0.7, crash=True),
            "F5": Fault("fatal error: all goroutines are asleep - deadlock!",
                        "runtime deadlock report: all goroutines ([semacquire], [chan receive], [chan send])",
                        weight=0.5, crash=True),
        },
        test={
            "T1": Fault("runtime: goroutine stack exceeds <*>-byte limit",
                        "fatal error: stack overflow (debug.SetMaxStack): 'runtime: sp=... stack=[...]', "
                        "'runtime stack:', ~100 frames with fp= sp= pc=, '...additional frames elided...'",
                        weight=0.15, crash=True),
            "T2": Fault("request <*>: panic: interface conversion: interface {} is string, not int",
                        "recovered type-assertion panic in a fresh goroutine, with debug.Stack()"),
            "T3": Fault("panic: shard <*>: checksum mismatch in block <*> [recovered]",
                        "re-panic in a deferred recover: 'panic: X [recovered]' then a tab-indented "
                        "'\\tpanic: Y' line", crash=True),
            "T4": Fault("panic: runtime error: slice bounds out of range [:<*>] with capacity <*>",
                        "crash in a goroutine, inlined frame store.Checksum(...)", crash=True),
        },
        holdout={
            "H1": Fault("watchdog: compaction of shard <*> stuck for <*>, goroutines:",
                        "not a panic: a watchdog logs runtime.Stack(buf, true) of a goroutine stuck on a mutex: every "
                        "goroutine's stack ([running], [chan receive], [semacquire]), blank-line separated, in one "
                        "log.Printf; the process goes on"),
            "H2": Fault("snapshot: restore shard <*> from <*>: read manifest: open <*>: no such file or directory",
                        "a custom error wrapping fmt.Errorf(\"%w\") of os.ReadFile's *PathError, re-panicked in a "
                        "deferred recover (two panic({...}) frames, inlined store.must(...)), recovered in a "
                        "goroutine and logged with debug.Stack()"),
            "H3": Fault("panic: close of closed channel",
                        "crash in the main goroutine: 'goroutine 1 [running]:', inlined frame "
                        "main.(*subscription).Close(...) (and 'exit status 2' under `go run`)", weight=0.6,
                        crash=True),
            "H4": Fault("fatal error: concurrent map writes",
                        "runtime throw from unsynchronised map writes in 2-4 goroutines: the writer's stack, then "
                        "every other goroutine ([semacquire], [chan receive], [runnable]) (and 'exit status 2' "
                        "under `go run`)", weight=0.5, crash=True),
        },
        final={
            "K1": Fault("config: reload of <*> failed: <*> errors occurred:",
                        "log.Fatalf (ends the process, exit 1; no stack) of a go-multierror-style error: "
                        "'\\t* setting: ...' lines from real strconv / time / os / net/netip errors, then an empty line "
                        "(and 'exit status 1' under `go run`)", weight=0.6, crash=True),
            "K2": Fault("panic: (main.quotaBreach) <*>",
                        "panic with a plain struct value (neither error nor Stringer): the runtime prints its type "
                        "and address; crash in a goroutine, inlined frame main.(*limiter).charge(...) (and 'exit "
                        "status 2' under `go run`)", weight=0.6, crash=True),
            "K3": Fault("snapshot: cleanup of shard <*> incomplete: <*>",
                        "log.Printf of an errors.Join-style error (Go 1.20's format, written out for 1.19): the first "
                        "error on the head line, 1-4 more on lines of their own, no header, no indentation (real "
                        "os.Remove / os.Rename errors: 'remove ...: directory not empty', 'rename ... ...: no such "
                        "file or directory'); the process goes on"),
            "K4": Fault("unexpected fault address <*>",
                        "runtime throw from a write to a read-only syscall.Mmap mapping in a goroutine: 'fatal error: "
                        "fault', '[signal SIGSEGV: segmentation violation code=0x2 addr=... pc=...]', every "
                        "goroutine with fp= sp= pc= on its frames; goroutine 1 is the K runner started from init "
                        "('[chan receive, locked to thread]', main.runFinalPlan, main.init.0, runtime.doInit) (and "
                        "'exit status 2' under `go run`)", weight=0.5, crash=True),
        },
        crash_rc=(1, 2),
        format="Go 1.19: the standard log package on stderr (\"2006/01/02 15:04:05.000000 msg\"); recovered "
               "panics logged with debug.Stack(); crashes are the runtime's report (plus `go run`'s "
               "\"exit status 2\" where the lifetime ran under go run).",
    ),
    System(
        "RubyJobs", "ruby", "jobs",
        singles={
            "L1": "Job <*> (<*>) finished in <*>",
            "L2": "Enqueued <*> jobs on queue <*>",
            "L3": "Job <*> retry <*> scheduled",
            "L4": "Heartbeat: <*> workers busy, <*> idle",
        },
        dev={
            "F1": Fault("key not found: :currency (KeyError)",
                        "logger.error(exception): Logger's 'message (Class)' then the backtrace lines NOT "
                        "indented ('/path/x.rb:22:in `block in price_order''), no header on them"),
            "F2": Fault("Invoice <*> split failed: divided by 0 (ZeroDivisionError)",
                        "ZeroDivisionError under 1-7 recursive frames, every backtrace line logged on its own "
                        "(each with its own 'E, [...] ERROR -- :   ' header)"),
            "F3": Fault("<*>:in `rescue in parse': feed <*> unreadable (<*> bytes, batch <*>) "
                        "(Jobs::Importer::ImportError)",
                        "logger.error(e.full_message): '\\tfrom' lines, the cause (JSON::ParserError) as a second "
                        "un-indented block, then an empty line"),
            "F4": Fault("<*>:in `deliver_digest': undefined method `fetch' for nil:NilClass (NoMethodError)",
                        "uncaught (ends the process, exit 1): error_highlight snippet and caret after a blank "
                        "line, then '\\tfrom' lines", weight=0.6, crash=True),
            "F5": Fault("Template <*> failed for <*>: undefined local variable or method `recipent' for <*>",
                        "logger.error of a NameError's message: the receiver's inspect (long, with 0x addresses), "
                        "error_highlight snippet + caret, 'Did you mean?  recipient'", weight=0.7),
        },
        test={
            "T1": Fault("<*>:in `walk': stack level too deep (SystemStackError)",
                        "uncaught SystemStackError: '\\t ... N levels...' elision line", weight=0.5, crash=True),
            "T2": Fault("No such file or directory @ rb_sysopen - <*> (Errno::ENOENT)",
                        "logger.error(exception) of Errno::ENOENT (un-indented backtrace)"),
            "T3": Fault("<*>:in `rescue in parse_batch_size': bad BATCH_SIZE <*> in <*> "
                        "(Jobs::Importer::ImportError)",
                        "uncaught with a cause: the ArgumentError's own block after the '\\tfrom' lines",
                        weight=0.6, crash=True),
        },
        holdout={
            "H1": Fault("Webhook <*> failed: ArgumentError: wrong number of arguments (given 3, expected 2)",
                        "logger.error(\"#{e.class}: #{e.message}\\n#{e.backtrace.join(\"\\n\")}\"): un-indented "
                        "backtrace lines without a header, the callee's own line first"),
            "H2": Fault("<*>:in `options_for': can't modify frozen Hash: {:queue=>\"default\", :retries=>3, "
                        ":backoff=>\"exponential\"} (FrozenError)",
                        "logger.warn(e.full_message(order: :bottom)): 'Traceback (most recent call last):' on the "
                        "header line, numbered '\\tN: from' lines, the error last, then an empty line", tline="any"),
            "H3": Fault("<*>:in `check_balance': ledger <*> out of balance by <*> EUR (RuntimeError)",
                        "uncaught in a Thread: the interpreter's '#<Thread:0x...@reconcile-N ... run> terminated "
                        "with exception (report_on_exception is true):' report; the join is rescued, the process "
                        "goes on", tline="any"),
            "H4": Fault("<*>:in `pop': execution expired (Timeout::Error)",
                        "uncaught Timeout::Error (ends the process, exit 1) raised into Queue#pop by "
                        "Timeout.timeout: '\\tfrom' lines incl. the runtime's timeout.rb", weight=0.6, crash=True),
        },
        final={
            "K1": Fault("[DEPRECATION] Jobs::Scheduler#enqueue_at is deprecated, use #enqueue(job, at:) (<*> at <*>)",
                        "Kernel#warn(msg, *caller) on $stderr: no Logger header, then the caller's frames one a line, "
                        "not indented ('/path/lib/finals.rb:64:in `schedule_reminder'')"),
            "K2": Fault("batch <*> for <*>: rejected rows (<*>):",
                        "logger.error(exception) of an error whose message has a line per row ('  row N: ...', "
                        "indented): ' (Jobs::Exports::RowsRejected)' closes the message's last line, then the "
                        "un-indented backtrace"),
            "K3": Fault("lease of <*> expired before release (held <*> s, ttl <*> s) (Jobs::Leases::LeaseLost)",
                        "logger.error(exception) of an error raised in an ensure clause (\"in `ensure in "
                        "with_lease'\"), masking the job's own IOError (its cause; Logger does not print causes)"),
            "K4": Fault("<*>:in `rescue in drain': drain of queue <*> aborted with <*> jobs in flight "
                        "(Jobs::Drain::Aborted)",
                        "uncaught (ends the process, exit 1) with a cause two levels deep: three blocks of a head "
                        "and '\\tfrom' lines: Jobs::Drain::Aborted, Jobs::Drain::Broker::ConnectionLost, "
                        "Errno::ECONNREFUSED (a real connect to a closed loopback port)", weight=0.6, crash=True),
        },
        crash_rc=(1,),
        format="Ruby 3.1 Logger on $stderr (default formatter: \"E, [2026-11-28T16:03:58.123456 #4242] ERROR -- : "
               "msg\"); exceptions logged by Logger (message, class, backtrace) or as full_message; uncaught "
               "exceptions are the interpreter's report.",
    ),
]
BY_NAME = {s.name: s for s in SYSTEMS}


def faults_of(system: System, which: str) -> dict:
    return {"dev": system.dev, "test": system.test, "holdout": system.holdout, "final": system.final}[which]


def template_regex(template: str) -> re.Pattern:
    """A template as a regex searched in a line: its literal parts in order, <*> any non-empty text."""
    return re.compile(".+?".join(re.escape(p) for p in template.split("<*>")) + r"\s*$")


# ---------------------------------------------------------------- deployments


class Deploy:
    """The two deployment roots and the built programs in them."""

    def __init__(self, work: Path, use_ns: bool):
        self.work = work
        self.env_base = {
            "PATH": "/usr/local/bin:/usr/bin:/bin",
            "HOME": str(work / "home"),
            "LANG": "C.UTF-8",
            "TZ": "UTC",
            "PYTHONDONTWRITEBYTECODE": "1",
            "GOCACHE": str(work / "gobuild"),
            "GOPATH": str(work / "gopath"),
            "GOFLAGS": "-mod=mod",
            "GO111MODULE": "on",
            "GOTOOLCHAIN": "local",
        }
        (work / "home").mkdir(parents=True, exist_ok=True)
        if use_ns:
            self.roots = [Path(d) for d in DEPLOYMENTS]
        else:
            self.roots = [work / d.lstrip("/") for d in DEPLOYMENTS]

    def run_checked(self, cmd, cwd):
        r = subprocess.run(cmd, cwd=cwd, env=self.env_base, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        if r.returncode:
            sys.exit("generate: %s failed in %s:\n%s" % (" ".join(map(str, cmd)), cwd, r.stdout.decode(errors="replace")))

    def build(self):
        for root in self.roots:
            for s in SYSTEMS:
                dst = root / s.app
                if dst.exists():
                    shutil.rmtree(dst)
                shutil.copytree(PROGRAMS / s.runtime / self.src_dir(s), dst,
                                ignore=shutil.ignore_patterns("__pycache__", "*.class", "classes"))
                if s.runtime == "java":
                    srcs = sorted(str(p.relative_to(dst)) for p in (dst / "src").rglob("*.java"))
                    self.run_checked(["javac", "-g", "-encoding", "UTF-8", "-d", "classes"] + srcs, dst)
                elif s.runtime == "go":
                    self.run_checked(["go", "build", "-o", "gocache", "."], dst)

    @staticmethod
    def src_dir(s: System) -> str:
        return {"java": ".", "python": "billing", "node": "gateway", "go": "cache", "ruby": "jobs"}[s.runtime]

    def command(self, s: System, root: Path, seed: int, plan: Path, go_run: bool):
        d = root / s.app
        if s.runtime == "java":
            return ["java", "-cp", str(d / "classes"), "com.example.app.Main", str(seed), str(plan), str(d)], d
        if s.runtime == "python":
            return ["/usr/bin/python3", str(d / "app.py"), str(seed), str(plan)], d
        if s.runtime == "node":
            return ["node", str(d / "server.js"), str(seed), str(plan)], d
        if s.runtime == "go":
            return (["go", "run", ".", str(seed), str(plan)] if go_run else [str(d / "gocache"), str(seed), str(plan)]), d
        if s.runtime == "ruby":
            return ["ruby", str(d / "worker.rb"), str(seed), str(plan)], d
        raise ValueError(s.runtime)


def versions() -> dict:
    def first(cmd):
        try:
            r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=30)
            return r.stdout.decode(errors="replace").strip().splitlines()[0]
        except (OSError, IndexError, subprocess.TimeoutExpired):
            return "missing"
    return {"java": first(["java", "-version"]), "python": first(["/usr/bin/python3", "--version"]),
            "node": first(["node", "--version"]), "go": first(["go", "version"]), "ruby": first(["ruby", "--version"])}


# ---------------------------------------------------------------- plans


@dataclass
class Lifetime:
    root: int        # deployment index
    seed: int
    actions: list
    go_run: bool


def make_plan(rnd: random.Random, s: System, which: str, n_errors: int, singles_mean: float) -> list:
    faults = faults_of(s, which)
    codes = sorted(faults)
    weights = [faults[c].weight for c in codes]
    singles = sorted(s.singles)
    lifetimes = []
    cur: list = []
    budget = rnd.randrange(8, 40)  # errors before a planned restart

    def close():
        nonlocal cur, budget
        lifetimes.append(Lifetime(rnd.randrange(len(DEPLOYMENTS)), rnd.randrange(1, 2 ** 31 - 1), cur,
                                  rnd.random() < 0.5))
        cur = []
        budget = rnd.randrange(8, 40)

    for _ in range(n_errors):
        # the single lines before this error: 0..2*mean, mean singles_mean
        for _ in range(int(rnd.random() * (2 * singles_mean + 1))):
            cur.append(rnd.choice(singles))
        code = rnd.choices(codes, weights)[0]
        cur.append(code)
        budget -= 1
        if faults[code].crash or budget <= 0:
            close()
    for _ in range(int(rnd.random() * (2 * singles_mean + 1))):
        cur.append(rnd.choice(singles))
    if cur:
        close()
    return lifetimes


# ---------------------------------------------------------------- running


@dataclass
class Event:
    code: str
    lines: list
    lifetime: int


def run_system(dep: Deploy, s: System, which: str, lifetimes: list, work: Path, log=print) -> list:
    sdir = work / "runs" / which / s.name
    if sdir.exists():
        shutil.rmtree(sdir)
    sdir.mkdir(parents=True)
    logp, marksp = sdir / "out.log", sdir / "marks.tsv"
    logp.touch()
    marksp.touch()
    faults = faults_of(s, which)
    starts = []
    t0 = time.time()
    for i, lt in enumerate(lifetimes):
        plan = sdir / ("plan-%03d.txt" % i)
        plan.write_text("".join(a + "\n" for a in lt.actions))
        cmd, cwd = dep.command(s, dep.roots[lt.root], lt.seed, plan, lt.go_run)
        env = dict(dep.env_base, LOGSIFT_LOG=str(logp), LOGSIFT_MARKS=str(marksp))
        size0 = logp.stat().st_size
        n_marks0 = len(marksp.read_text().splitlines())
        with open(logp, "ab") as out:
            r = subprocess.run(cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=out, timeout=300)
        crashed = bool(lt.actions) and lt.actions[-1] in faults and faults[lt.actions[-1]].crash
        ok = (r.returncode in s.crash_rc) if crashed else (r.returncode == 0)
        if not ok:
            tail = logp.read_bytes()[size0:][-3000:].decode(errors="replace")
            sys.exit("generate: %s lifetime %d (%s) exited %d:\n%s" % (s.name, i, " ".join(cmd), r.returncode, tail))
        marks = marksp.read_text().splitlines()[n_marks0:]
        if len(marks) != len(lt.actions):
            sys.exit("generate: %s lifetime %d: %d marks for %d actions" % (s.name, i, len(marks), len(lt.actions)))
        if marks and int(marks[0].split("\t")[0]) != size0:
            sys.exit("generate: %s lifetime %d: output before the first mark" % (s.name, i))
        starts.extend((int(m.split("\t")[0]), m.split("\t")[1], i) for m in marks)
    log("  %s: %d lifetimes, %d actions, %.1f s" % (s.name, len(lifetimes), len(starts), time.time() - t0))
    data = logp.read_bytes()
    events = []
    for k, (off, code, lt) in enumerate(starts):
        end = starts[k + 1][0] if k + 1 < len(starts) else len(data)
        chunk = data[off:end]
        if not chunk.endswith(b"\n"):
            sys.exit("generate: %s event %d (%s) does not end with a newline: %r" % (s.name, k, code, chunk[-200:]))
        if b"\r" in chunk:
            sys.exit("generate: %s event %d (%s) has a carriage return" % (s.name, k, code))
        lines = chunk.decode("utf-8").split("\n")[:-1]
        events.append(Event(code, lines, lt))
    check_events(s, which, events)
    return events


def check_events(s: System, which: str, events: list):
    faults = faults_of(s, which)
    for k, ev in enumerate(events):
        where = "%s event %d (%s)" % (s.name, k + 1, ev.code)
        if not ev.lines:
            sys.exit("generate: %s is empty" % where)
        head = ev.lines[0]
        if not head or head[0].isspace() or head.startswith("at "):
            sys.exit("generate: %s starts with a continuation-looking line: %r" % (where, head))
        if ev.code in s.singles:
            if len(ev.lines) != 1:
                sys.exit("generate: %s: a single-line statement wrote %d lines:\n%s" % (where, len(ev.lines), "\n".join(ev.lines[:20])))
            if not template_regex(s.singles[ev.code]).search(head):
                sys.exit("generate: %s: %r does not match its template %r" % (where, head, s.singles[ev.code]))
        elif ev.code in faults:
            f = faults[ev.code]
            if len(ev.lines) < 2:
                sys.exit("generate: %s: a fault wrote one line: %r" % (where, head))
            rx = template_regex(f.template)
            cands = ev.lines[:1] if f.tline == "first" else ev.lines
            if not any(rx.search(line) for line in cands):
                sys.exit("generate: %s: no line matches the template %r:\n%s" % (where, f.template, "\n".join(ev.lines[:30])))
        else:
            sys.exit("generate: %s: unknown action" % where)


def template_of(s: System, which: str, code: str) -> str:
    return s.singles[code] if code in s.singles else faults_of(s, which)[code].template


# ---------------------------------------------------------------- writing


def write_system(out: Path, name: str, rows: list, fmt: str) -> dict:
    """rows: [(content, event_id, template, event_index)] in line order."""
    d = out / name
    d.mkdir(parents=True, exist_ok=True)
    with open(d / (name + ".log"), "w", encoding="utf-8", newline="\n") as f:
        f.write("".join(r[0] + "\n" for r in rows))
    with open(d / (name + ".log_structured.csv"), "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f)
        w.writerow(["LineId", "Content", "EventId", "EventTemplate", "Event"])
        for i, (c, eid, t, ev) in enumerate(rows, 1):
            w.writerow([i, c, eid, t, ev])
    return {"log": "%s/%s.log" % (name, name), "truth": "%s/%s.log_structured.csv" % (name, name), "format": fmt}


def system_rows(s: System, which: str, events: list) -> list:
    rows = []
    for k, ev in enumerate(events, 1):
        eid = "%s:%s" % (s.name, ev.code)
        t = template_of(s, which, ev.code)
        rows.extend((line, eid, t, k) for line in ev.lines)
    return rows


def tuning_streams(rnd: random.Random, per_system: int) -> list:
    """[(name, [(line, eid, template)])]: a contiguous slice of each tuning system's real lines."""
    with open(TUNING / "datasets.json", encoding="utf-8") as f:
        index = json.load(f)
    out = []
    for name in sorted(index):
        spec = index[name]
        with open(TUNING / spec["truth"], newline="", encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
        with open(TUNING / spec["log"], encoding="utf-8", errors="surrogateescape", newline="") as f:
            raw = f.read().split("\n")
        if raw and raw[-1] == "":
            raw.pop()
        if len(raw) != len(rows):
            sys.exit("generate: %s: %d raw lines, %d rows" % (name, len(raw), len(rows)))
        start = rnd.randrange(0, max(1, len(rows) - per_system))
        sl = []
        for i in range(start, min(len(rows), start + per_system)):
            line = raw[i]
            if "\r" in line or not line or line[0].isspace():
                continue
            sl.append((line, "%s:%s" % (name, rows[i]["EventId"]), rows[i]["EventTemplate"]))
        out.append((name, sl))
    return out


def mixed_rows(rnd: random.Random, per_system: dict, which: str, tuning_per_system: int) -> list:
    streams = []  # each: list of events, an event = [(line, eid, template)]
    for s in SYSTEMS:
        evs = []
        for ev in per_system[s.name]:
            eid = "%s:%s" % (s.name, ev.code)
            t = template_of(s, which, ev.code)
            evs.append([(line, eid, t) for line in ev.lines])
        streams.append(evs)
    for _, sl in tuning_streams(rnd, tuning_per_system):
        streams.append([[x] for x in sl])
    pos = [0] * len(streams)
    left = [len(x) for x in streams]
    rows = []
    k = 0
    while sum(left):
        i = rnd.choices(range(len(streams)), left)[0]
        ev = streams[i][pos[i]]
        pos[i] += 1
        left[i] -= 1
        k += 1
        rows.extend((line, eid, t, k) for line, eid, t in ev)
    return rows


# ---------------------------------------------------------------- counts


def counts_of(rows: list) -> dict:
    ev_lines: dict = {}
    for _, eid, _, ev in rows:
        ev_lines.setdefault(ev, [eid, 0])[1] += 1
    multi = [n for _, n in ev_lines.values() if n > 1]
    return {
        "events": len(ev_lines),
        "lines": len(rows),
        "multiline_events": len(multi),
        "trace_lines": sum(multi),
        "continuation_lines": sum(multi) - len(multi),
        "single_lines": sum(1 for _, n in ev_lines.values() if n == 1),
        "labels": len({eid for eid, _ in ev_lines.values()}),
    }


def counts_table(counts: dict) -> str:
    out = ["| System | events | lines | multi-line events | trace lines | continuation lines | single lines | labels |",
           "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for name, c in counts.items():
        out.append("| %s | %d | %d | %d | %d | %d | %d | %d |" % (
            name, c["events"], c["lines"], c["multiline_events"], c["trace_lines"], c["continuation_lines"],
            c["single_lines"], c["labels"]))
    return "\n".join(out)


def faults_table(which: str, per_system: dict) -> str:
    out = ["| label | runtime | template | what raises it | ends the process | occurrences | lines (min-max) |",
           "|---|---|---|---|---|---:|---|"]
    for s in SYSTEMS:
        for code, f in sorted(faults_of(s, which).items()):
            evs = [e for e in per_system[s.name] if e.code == code]
            lens = [len(e.lines) for e in evs] or [0]
            out.append("| `%s:%s` | %s | ``%s`` | %s | %s | %d | %d-%d |" % (
                s.name, code, s.runtime, f.template.replace("|", "\\|"), f.what.replace("|", "\\|"),
                "yes" if f.crash else "", len(evs), min(lens), max(lens)))
    return "\n".join(out)


def update_readme(path: Path, which: str, counts: dict, per_system: dict, info: str):
    text = path.read_text(encoding="utf-8")
    for key, body in (("counts " + which, info + "\n\n" + counts_table(counts)), ("faults " + which, faults_table(which, per_system))):
        b, e = "<!-- BEGIN %s -->" % key, "<!-- END %s -->" % key
        if b not in text or e not in text:
            print("generate: %s has no %s markers; not updated" % (path, key), file=sys.stderr)
            continue
        pre, rest = text.split(b, 1)
        _, post = rest.split(e, 1)
        text = pre + b + "\n" + body + "\n" + e + post
    path.write_text(text, encoding="utf-8")


# ---------------------------------------------------------------- main


def in_namespace(argv: list) -> bool:
    """Re-run inside a private mount namespace with tmpfs over /srv and /opt; True if this is that run."""
    if os.environ.get("LOGSIFT_EVENTS_NS") == "1":
        for d in ("/srv", "/opt"):
            r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1g,mode=0755", "tmpfs", d])
            if r.returncode:
                return False
        return True
    if os.geteuid() == 0 and shutil.which("unshare"):
        env = dict(os.environ, LOGSIFT_EVENTS_NS="1")
        r = subprocess.run(["unshare", "--mount", "--propagation", "private", "--", sys.executable,
                            str(Path(__file__).resolve())] + argv, env=env)
        sys.exit(r.returncode)
    return False


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], epilog=__doc__.split("\n", 1)[1],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--errors", type=int, required=True, help="fault events in all (split over the five runtimes)")
    ap.add_argument("--out", required=True, help="output directory (replaced)")
    ap.add_argument("--faults", choices=("dev", "test", "holdout", "final"), default="dev")
    ap.add_argument("--singles", type=float, default=1.5, help="mean single lines before each fault (default 1.5)")
    ap.add_argument("--tuning-lines", type=int, default=300,
                    help="real single lines taken from each models/tuning system for Mixed (default 300)")
    ap.add_argument("--systems", default=",".join(s.name for s in SYSTEMS), help="comma-separated subset")
    ap.add_argument("--work", default="", help="work directory (default: a new temp dir, removed afterwards)")
    ap.add_argument("--no-namespace", action="store_true", help="deployment dirs under --work, not /srv and /opt")
    ap.add_argument("--readme", default="", help="README.md whose BEGIN/END '<counts|faults> <set>' sections to update")
    args = ap.parse_args(argv)

    use_ns = False if args.no_namespace else in_namespace(argv)
    work = Path(args.work) if args.work else Path(tempfile.mkdtemp(prefix="logsift-events-"))
    work.mkdir(parents=True, exist_ok=True)
    out = Path(args.out)
    names = [n for n in args.systems.split(",") if n]
    for n in names:
        if n not in BY_NAME:
            ap.error("unknown system %s" % n)
    try:
        vers = versions()
        print("generate: %s; deployments %s" % (", ".join("%s" % v for v in vers.values()),
                                                 "in a private mount namespace" if use_ns else "under " + str(work)),
              file=sys.stderr)
        dep = Deploy(work, use_ns)
        dep.build()
        per_system = {}
        share = args.errors / len(names)
        for i, n in enumerate(names):
            s = BY_NAME[n]
            rnd = random.Random("%d:%s:%s" % (args.seed, n, args.faults))
            n_err = int(round(share * (i + 1))) - int(round(share * i))
            lifetimes = make_plan(rnd, s, args.faults, n_err, args.singles)
            per_system[n] = run_system(dep, s, args.faults, lifetimes, work, log=lambda m: print(m, file=sys.stderr))
        if out.exists():
            shutil.rmtree(out)
        out.mkdir(parents=True)
        meta = {}
        counts = {}
        for n in names:
            s = BY_NAME[n]
            rows = system_rows(s, args.faults, per_system[n])
            meta[n] = write_system(out, n, rows, s.format + " Content is the whole physical line; all lines of one "
                                   "event share its EventId, EventTemplate and Event.")
            counts[n] = counts_of(rows)
        if len(names) == len(SYSTEMS):
            rnd = random.Random("%d:Mixed:%s" % (args.seed, args.faults))
            rows = mixed_rows(rnd, per_system, args.faults, args.tuning_lines)
            meta["Mixed"] = write_system(out, "Mixed", rows,
                                         "All five runtimes' events (whole, in their order) interleaved at random "
                                         "with contiguous slices of the real lines of the ten models/tuning systems "
                                         "(raw .log lines, their EventIds prefixed by system, their EventTemplate). "
                                         "Content is the whole physical line.")
            counts["Mixed"] = counts_of(rows)
        with open(out / "datasets.json", "w", encoding="utf-8") as f:
            json.dump(meta, f, indent=2)
            f.write("\n")
        info = ("`generate.py --seed %d --errors %d --faults %s`; %s; deployments %s." % (
            args.seed, args.errors, args.faults, ", ".join(vers.values()),
            " and ".join(DEPLOYMENTS) if use_ns else "under a work dir"))
        if args.readme:
            update_readme(Path(args.readme), args.faults, counts, per_system, info)
        print(counts_table(counts), file=sys.stderr)
    finally:
        if not args.work:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
