#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
#
# hvbench xenstored driven by Debian's python3-pyxs: reads and writes,
# permissions, transactions (isolation, commit, rollback, EAGAIN on a
# conflicting commit), watches (the initial event, changes, a commit's
# events, rm), domain introduction, errors by errno.
# Usage: it-xsd-pyxs.py HVBENCH QUOTA_PLUGIN   (exit 77: pyxs missing)
import errno
import os
import queue
import signal
import subprocess
import sys
import tempfile
import threading
import time

try:
    import pyxs
    from pyxs._internal import Op
    from pyxs.exceptions import PyXSError
except ImportError:
    print("python3-pyxs missing")
    sys.exit(77)

hvbench, plugin = sys.argv[1], sys.argv[2]
failures = []


def check(name, got, want):
    if got != want:
        failures.append(f"{name}: got {got!r}, want {want!r}")


def raises(name, err, fn, *args):
    try:
        fn(*args)
    except PyXSError as e:
        check(name, e.args[0], err)
        return
    failures.append(f"{name}: no error, want {errno.errorcode[err]}")


def next_event(events, timeout=5.0):
    try:
        return events.get(timeout=timeout)
    except queue.Empty:
        return None


def watch_thread(path, mon, events):
    for ev in mon.wait():
        events.put((ev.path, ev.token))


with tempfile.TemporaryDirectory(prefix="hvb-xsd-pyxs.") as tmp:
    sock = os.path.join(tmp, "sock")
    pidf = os.path.join(tmp, "pid")
    subprocess.run([hvbench, "xenstored", "--socket", sock,
                    "--plugin", "quota=" + plugin, "--pid-file", pidf,
                    "--log", os.path.join(tmp, "log")], check=True)
    pid = int(open(pidf).read())
    try:
        with pyxs.Client(unix_socket_path=sock) as c, \
                pyxs.Client(unix_socket_path=sock) as d:
            c.write(b"/p/a", b"1")
            check("read", c.read(b"/p/a"), b"1")
            check("read empty", (c.write(b"/p/e", b""), c.read(b"/p/e"))[1],
                  b"")
            check("list", sorted(c.list(b"/p")), [b"a", b"e"])
            check("exists", c.exists(b"/p/a"), True)
            check("exists missing", c.exists(b"/p/zz"), False)
            raises("read missing", errno.ENOENT, c.read, b"/p/zz")
            c.mkdir(b"/p/dir")
            check("mkdir", c.read(b"/p/dir"), b"")

            # permissions: owner first, its letter the default
            check("perms default", c.get_perms(b"/p/a"), [b"n0"])
            c.set_perms(b"/p/a", [b"n5", b"r7"])
            check("set perms", c.get_perms(b"/p/a"), [b"n5", b"r7"])
            c.write(b"/p/a/child", b"x")
            check("perms inherited", c.get_perms(b"/p/a/child"),
                  [b"n5", b"r7"])
            raises("value too big", errno.E2BIG, c.write, b"/p/big",
                   b"v" * 2049)

            # transactions: isolation, commit, rollback
            c.transaction()
            c.write(b"/p/t", b"in")
            raises("isolated", errno.ENOENT, d.read, b"/p/t")
            check("own write", c.read(b"/p/t"), b"in")
            check("commit", c.commit(), True)
            check("committed", d.read(b"/p/t"), b"in")
            c.transaction()
            c.write(b"/p/t", b"rolled back")
            c.rollback()
            check("rollback", d.read(b"/p/t"), b"in")

            # EAGAIN: the transaction read what another client changed
            c.transaction()
            check("txn read", c.read(b"/p/t"), b"in")
            d.write(b"/p/t", b"other")
            c.write(b"/p/t", b"mine")
            check("conflict", c.commit(), False)
            check("conflict lost", d.read(b"/p/t"), b"other")
            # ... and without a conflict a concurrent write coalesces
            c.transaction()
            c.write(b"/p/u/x", b"1")
            d.write(b"/q", b"unrelated")
            check("no conflict", c.commit(), True)
            check("both", (d.read(b"/p/u/x"), d.read(b"/q")),
                  (b"1", b"unrelated"))

            # watches: initial event, a change, a commit's, rm below
            mon = d.monitor()
            events = queue.Queue()
            mon.watch(b"/w", b"tok")
            th = threading.Thread(target=watch_thread,
                                  args=(b"/w", mon, events), daemon=True)
            th.start()
            check("initial event", next_event(events), (b"/w", b"tok"))
            c.write(b"/w/x", b"1")
            check("write event", next_event(events), (b"/w/x", b"tok"))
            c.transaction()
            c.write(b"/w/y", b"2")
            c.write(b"/unwatched", b"3")
            check("no event before commit", next_event(events, 0.3), None)
            c.commit()
            check("commit event", next_event(events), (b"/w/y", b"tok"))
            c.delete(b"/w")
            check("rm event", next_event(events), (b"/w", b"tok"))
            raises("duplicate watch", errno.EEXIST, mon.watch, b"/w", b"tok")
            mon.unwatch(b"/w", b"tok")
            raises("unwatch again", errno.ENOENT, mon.unwatch, b"/w", b"tok")
            c.write(b"/w/z", b"4")
            check("unwatched", next_event(events, 0.3), None)

            # domains
            check("domain path", c.get_domain_path(3), b"/local/domain/3")
            check("not introduced", c.is_domain_introduced(3), False)
            c.introduce_domain(3, 1234, 5)
            check("introduced", c.is_domain_introduced(3), True)
            check("dom0", c.is_domain_introduced(0), True)

            # bad input answered, the connection goes on
            # (pyxs checks paths itself: the raw command gets past it)
            raises("bad path", errno.EINVAL, c.execute_command, Op.READ,
                   b"/a//b\x00")
            raises("bad perm", errno.EINVAL, c.execute_command, Op.SET_PERMS,
                   b"/p/a\x00", b"x5\x00")
            raises("no NUL", errno.EINVAL, c.execute_command, Op.READ,
                   b"/p/a")
            check("still served", c.read(b"/p/t"), b"other")
    finally:
        os.kill(pid, signal.SIGTERM)
        for _ in range(50):
            if not os.path.exists(pidf):
                break
            time.sleep(0.1)
        if os.path.exists(pidf):
            os.kill(pid, signal.SIGKILL)
            failures.append("daemon did not stop on SIGTERM")

for f in failures:
    print("FAIL:", f)
print(f"xsd-pyxs ({plugin}): {len(failures)} failed")
sys.exit(1 if failures else 0)
