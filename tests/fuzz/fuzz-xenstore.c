/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fuzz-xenstore: libFuzzer over a request encoding, built by clang with
 * ASan and UBSan (tests/CMakeLists.txt, label fuzz).  The input is a
 * sequence of records:
 *
 *   byte 0      op (mod HV_XS_OP_NR + 1; the extra one releases a domain)
 *   byte 1      caller domid (mod 8)
 *   byte 2      transaction slot (0: none, else one of 4 per caller)
 *   byte 3      path length L, then L path bytes (anything: the store
 *               must reject bad ones)
 *   byte 3+L+1  value length V (x 16 when bit 7), then V value bytes;
 *               for setperms the value bytes are (domid, perm) pairs
 *
 * Every input runs on a fresh machine, alternating the quota plugin on
 * the first byte; after it the quota must equal the recount (else abort:
 * a crash for libFuzzer).  Guest input must never crash the store.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hv/hv.h>
#include <hv/plugin.h>
#include <hv/xenstore.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct hv *machine(const char *quota)
{
    struct hv_config cfg;
    struct hv *hv = NULL;
    char err[256];

    hv_config_init(&cfg);
    cfg.nr_cpus = 1;
    cfg.xs.maxent = 20;
    cfg.xs.maxops = 16;
    cfg.xs.maxtxn = 3;
    if ( hv_plugin_resolve("quota", quota, false, &cfg.plugins[HV_SLOT_QUOTA],
                           err, sizeof(err)) ||
         hv_create(&cfg, &hv, err, sizeof(err)) )
    {
        fprintf(stderr, "fuzz-xenstore: %s\n", err);
        abort();
    }
    hv_plugin_inst_free(&cfg.plugins[HV_SLOT_QUOTA]);
    return hv;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static bool registered;
    char path[300], err[256], buf[HV_XS_PAYLOAD_MAX];
    uint8_t value[2048 + 256];
    struct hv_xs_perm perms[HV_XS_MAX_PERMS];
    uint32_t tids[8][4] = {{0}};
    struct hv *hv;
    struct hv_xs *xs;
    size_t i = 0;

    if ( !registered )
    {
        if ( hv_plugin_registry_init(err, sizeof(err)) )
            abort();
        registered = true;
    }
    hv = machine(size && (data[0] & 1) ? "hashtbl-copy" : "persistent");
    xs = hv_xs(hv);
    while ( i + 4 <= size )
    {
        struct hv_xs_req q = {0};
        struct hv_xs_rsp r = {.buf = buf, .cap = sizeof(buf)};
        unsigned int op = data[i] % (HV_XS_OP_NR + 1), slot = data[i + 2] % 5;
        size_t pl = data[i + 3], vl, k;

        q.caller = data[i + 1] % 8;
        i += 4;
        if ( pl > size - i )
            pl = size - i;
        memcpy(path, data + i, pl);
        path[pl] = '\0';
        i += pl;
        vl = i < size ? data[i++] : 0;
        if ( vl & 0x80 )
            vl = (vl & 0x7F) * 20;
        if ( vl > size - i )
            vl = size - i;
        memcpy(value, data + i, vl);
        i += vl;
        if ( op == HV_XS_OP_NR )
        {
            if ( q.caller )
                hv_xs_domain_release(xs, q.caller);
            memset(tids[q.caller], 0, sizeof(tids[q.caller]));
            continue;
        }
        q.op = op;
        q.path = path;
        q.tid = slot ? tids[q.caller][slot - 1] : 0;
        q.value = value;
        q.value_len = vl;
        q.commit = vl & 1;
        for ( k = 0; k < HV_XS_MAX_PERMS && 2 * k + 1 < vl; k++ )
            perms[k] =
                (struct hv_xs_perm){value[2 * k] % 10, value[2 * k + 1] % 5};
        q.perms = perms;
        q.nr_perms = k;
        if ( op == HV_XS_TXN_START )
        {
            q.tid = 0;
            if ( hv_xs_request(xs, &q, &r) == 0 && slot )
                tids[q.caller][slot - 1] = r.tid;
        }
        else
            hv_xs_request(xs, &q, &r);
    }
    if ( hv_xs_check(xs, err, sizeof(err)) )
    {
        fprintf(stderr, "fuzz-xenstore: %s\n", err);
        abort();
    }
    hv_destroy(hv);
    return 0;
}
