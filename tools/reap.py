#!/usr/bin/env python3
"""Run a command as the subreaper of every process it starts, so that their CPU time is counted.

    tools/reap.py COMMAND [ARGS...]

A process whose parent ended before it (MSBuild's worker nodes, which end after the build that
started them; a nested build's processes) is given to the nearest subreaper instead of init.
This process is that subreaper: it waits for COMMAND, then for the orphans it was given, so
their user and system time joins its children's, and so the time of whoever waits for it
(build.sh's step table reads `times`). Exits with COMMAND's status. Linux only (prctl); elsewhere
it runs COMMAND alone. A process still running
GRACE seconds after COMMAND ended (a server meant to outlive the build) is left running, named
on stderr, and its time is not counted."""
import ctypes
import os
import signal
import sys
import time

PR_SET_CHILD_SUBREAPER = 36
GRACE = 30.0


def main(argv):
    if len(argv) < 2:
        print("usage: tools/reap.py COMMAND [ARGS...]", file=sys.stderr)
        return 64
    if not sys.platform.startswith("linux"):
        # No subreaper elsewhere (macOS): the command alone, its orphans uncounted as before.
        os.execvp(argv[1], argv[1:])
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        print(f"reap.py: prctl(PR_SET_CHILD_SUBREAPER): {os.strerror(ctypes.get_errno())}", file=sys.stderr)
        return 70
    pid = os.fork()
    if pid == 0:
        try:
            os.execvp(argv[1], argv[1:])
        except OSError as error:
            print(f"reap.py: {argv[1]}: {error.strerror}", file=sys.stderr)
            os._exit(127)
    # A signal meant for the run (Ctrl-C reaches the whole process group) stops the command,
    # not this process before it has reaped it.
    for number in (signal.SIGINT, signal.SIGTERM):
        signal.signal(number, lambda n, _frame: os.kill(pid, n))
    _, status = os.waitpid(pid, 0)
    deadline = time.monotonic() + GRACE
    while True:
        try:
            reaped, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            break  # no process left
        if reaped == 0:
            if time.monotonic() > deadline:
                print(f"reap.py: processes still running {GRACE:.0f} s after {argv[1]} ended "
                      f"(their CPU time is not counted): {left_over()}", file=sys.stderr)
                break
            time.sleep(0.05)
    return os.waitstatus_to_exitcode(status)


def left_over():
    """The pids and commands of this process's remaining children (from /proc)."""
    me, rows = os.getpid(), []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="utf-8", errors="replace") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
            if int(fields[1]) != me:
                continue
            with open(f"/proc/{entry}/cmdline", "rb") as cmdline:
                command = cmdline.read().replace(b"\0", b" ").decode(errors="replace")
            rows.append(f"{entry} {command[:120]}")
        except (OSError, IndexError, ValueError):
            continue
    return "; ".join(rows) or "none found"


if __name__ == "__main__":
    sys.exit(main(sys.argv))
