#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# dpdk-ibvcap-array's liveness rule against etcd's answers, without an
# etcd: a host's alive/HOST key counts only while its lease is live. A
# loaded etcd can leave the key of a lapsed lease for long (its leader's
# revoke timed out and is retried later, etcd-io/etcd#10686); the
# tool asks the lease's remaining TTL and calls that host DOWN. A client
# standing in for etcd3's answers: keys with a live lease (TTL 2), one
# with under a second left (TTL 0: etcd cuts towards 0, still live), a
# lapsed one (TTL -3), a revoked one (-1), no lease, and a lease etcd does
# not answer for (taken as live: the key is there).
. "$(dirname "$0")/../lib.sh"
set -e
/usr/bin/python3 - "$BUILD/app/dpdk-ibvcap-array" > "$T/out" 2>&1 <<'PY' || { cat "$T/out"; fail "the liveness rule"; }
import importlib.machinery, importlib.util, json, sys, types
loader = importlib.machinery.SourceFileLoader("ibvarray", sys.argv[1])
spec = importlib.util.spec_from_loader("ibvarray", loader)
m = importlib.util.module_from_spec(spec)
loader.exec_module(m)

class Timeout(Exception):
    pass
etcd3 = types.SimpleNamespace(exceptions=types.SimpleNamespace(ConnectionTimeoutError=Timeout))
LEASES = {11: 2, 12: -3, 13: -1, 14: 0, 15: "error"}
HOSTS = {"live": 11, "lapsed": 12, "revoked": 13, "lapsing": 14, "nolease": 0,
         "unanswered": 15}

class Client:
    calls = 0
    def get_prefix(self, k):
        assert k == "/ibvcap/a1/alive/", k
        for h, lid in HOSTS.items():
            yield (json.dumps({"host": h}).encode(),
                   types.SimpleNamespace(key=(k + h).encode(), lease_id=lid))
    def get_lease_info(self, lid):
        Client.calls += 1
        if Client.calls == 1:  # the first answer late: asked again
            raise Timeout()
        if LEASES[lid] == "error":
            raise RuntimeError("lease %d: no answer" % lid)
        return types.SimpleNamespace(TTL=LEASES[lid])

arr = object.__new__(m.Array)
arr.a, arr.etcd3, arr.pre, arr.client = None, etcd3, "/ibvcap/a1/", Client()
got = sorted(arr.alive())
want = ["lapsing", "live", "nolease", "unanswered"]
assert got == want, "alive: %s, expected %s" % (got, want)
print("alive:", " ".join(got), "(lapsed, revoked: DOWN)")
PY
ok "$(cat "$T/out")"
echo "$CHECKS checks passed"
