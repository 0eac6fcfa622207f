# SPDX-License-Identifier: GPL-2.0-only
"""
lib-xl-profile.py RESULTS.json [KEY=VALUE ...]: every cell of a
boot-storm run at vms=4 clients=1 churn=0 with xs_profile=libxl counted
docs/xenstored.md's table per VM: VM i (from 0) finds i + 1 domains in
getinfolist and i + 1 vbd backends, so the means are i = 1.5's
(toolstack 221 + d, hotplug 16 + 4 b, backends 169, xenconsoled 11,
guest 104 requests; 14 + 2 b connections; 97 events); no boot failed,
nothing leaked; and each KEY=VALUE given (a counter's exact value).
Prints the cells' names; exit 1 with the first mismatch.
"""
import json
import sys

runs = [b for b in json.load(open(sys.argv[1]))["benchmarks"]
        if b.get("run_type") != "aggregate"]
assert runs, "no cells"
i = 1.5
want = {"xs_requests_toolstack_per_vm": 221 + (i + 1),
        "xs_requests_hotplug_per_vm": 16 + 4 * (i + 1),
        "xs_requests_backend_per_vm": 169,
        "xs_requests_xenconsoled_per_vm": 11,
        "xs_requests_guest_per_vm": 104,
        "xs_connections_per_vm": 14 + 2 * (i + 1),
        "xs_watch_events_per_vm": 97,
        "boots_failed": 0, "vms_enumerated": 4,
        "teardown_leaked_pages": 0, "teardown_leaked_xs_nodes": 0,
        "teardown_leaked_domains": 0}
want["xs_requests_per_vm"] = sum(v for k, v in want.items()
                                 if k.startswith("xs_requests_") and
                                 k.endswith("_per_vm"))
for kv in sys.argv[2:]:
    k, v = kv.split("=", 1)
    want[k] = float(v)
for b in runs:
    for k, v in want.items():
        assert b.get(k) == v, (b["name"], k, b.get(k), v)
    print(b["name"])
