#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
#
# Seed 000's create.py (xen-devel, E. Torok, 2024-01-31: "oxenstored: make
# Quota.t pure"), for python3-pyxs instead of xen.lowlevel.xs: the same
# requests on the wire (per i: TRANSACTION_START, 261 x (WRITE
# .../x "val", SET_PERMS .../x "n<i>"), TRANSACTION_END T).  Changes:
# the import, bytes for paths and values, perms as the "n<i>" string that
# xen.lowlevel.xs makes of [{"dom": i}], the domain count as an optional
# argument (the seed's range(1,1000)).  The socket: $XENSTORED_PATH.
import sys

from pyxs import xs  # was: from xen.lowlevel.xs import xs

N = int(sys.argv[1]) if len(sys.argv) > 1 else 1000

xenstore = xs()

for i in range(1, N):
  txn = xenstore.transaction_start()
  for j in range(1,10):
    for k in range(1,30):
        path=f"/quotatest/{i}/{j}/{k}/x".encode()
        xenstore.write(txn, path, b"val")
        # assign quota to domid i
        xenstore.set_permissions(txn, path, [f"n{i}".encode()])
  xenstore.transaction_end(txn)
xenstore.close()
