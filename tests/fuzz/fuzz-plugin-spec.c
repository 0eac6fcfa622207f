/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fuzz-plugin-spec: libFuzzer over plugin specs as --plugin SLOT=SPEC
 * passes them to hv_plugin_resolve() ("name[:k=v[:k=v...]]", hv/plugin.c),
 * built by clang with ASan and UBSan (tests/CMakeLists.txt, label fuzz).
 * Byte 0 picks the slot (one past the last: a slot that does not exist),
 * byte 1 bit 0 allows test-only plugins; the rest is the spec.  A '/' or
 * a ".so" ending would dlopen a file: they are turned into '_' (external
 * plugins are the loader's tests).  A resolved instance is copied and
 * both are freed; an error must come with a message.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hv/plugin.h>
#include <hv/plugin_registry.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static bool registered;
    struct hv_plugin_inst inst, copy;
    const struct hv_slot *slot;
    char spec[512], err[512];
    size_t n, i;

    if ( !registered )
    {
        if ( hv_plugin_registry_init(err, sizeof(err)) )
            abort();
        registered = true;
    }
    if ( size < 2 )
        return 0;
    slot = hv_slot_at(data[0] % (HV_SLOT_NR + 1));
    n = size - 2 < sizeof(spec) - 1 ? size - 2 : sizeof(spec) - 1;
    memcpy(spec, data + 2, n);
    spec[n] = '\0';
    for ( i = 0; i < n; i++ )
        if ( spec[i] == '/' )
            spec[i] = '_';
    n = strlen(spec);
    if ( n >= 3 && strcmp(spec + n - 3, ".so") == 0 )
        spec[n - 1] = '_';
    memset(&inst, 0, sizeof(inst));
    err[0] = '\0';
    if ( hv_plugin_resolve(slot ? slot->name : "no-such-slot", spec,
                           data[1] & 1, &inst, err, sizeof(err)) )
    {
        if ( err[0] == '\0' )
            abort(); /* an error says why */
        return 0;
    }
    memset(&copy, 0, sizeof(copy));
    if ( hv_plugin_inst_copy(&copy, &inst) == 0 )
        hv_plugin_inst_free(&copy);
    hv_plugin_inst_free(&inst);
    return 0;
}
