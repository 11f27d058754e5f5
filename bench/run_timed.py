#!/usr/bin/python3
"""Run a command, print its wall time, CPU time and peak RSS as one line.

Usage: bench/run_timed.py LABEL LINES CMD... (stdout of CMD goes to /dev/null)
Prints: LABEL lines=N wall_s=S lines_per_s=R cpu_s=C cores=U max_rss_mb=M
"""
import os
import subprocess
import sys
import time


def main() -> int:
    label, lines, cmd = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    rc = os.waitstatus_to_exitcode(status)
    if rc != 0:
        print(f"{label} FAILED exit={rc}", flush=True)
        return 1
    cpu = ru.ru_utime + ru.ru_stime
    print(f"{label} lines={lines} wall_s={wall:.3f} lines_per_s={lines / wall:.0f} cpu_s={cpu:.2f} "
          f"cores={cpu / wall:.2f} max_rss_mb={ru.ru_maxrss / 1024:.0f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
