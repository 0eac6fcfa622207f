#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The harness's rooms are layered by the build (harness/CMakeLists.txt):
# a room sees only its own and lower rooms' headers, and its library links
# (hvb_layer_ROOM, -Wl,--no-undefined) with only the rooms below it.  This
# proves that a back-edge fails the build, in a scratch copy of the tree:
#
#   1. the copy as it is builds hvb_layer_measure (the control);
#   2. measure/counters.c including <hvb/matrix.h> (room run, above it)
#      fails to compile: "hvb/matrix.h: No such file";
#   3. measure/counters.c calling hvb_matrix_free() through a prototype of
#      its own fails to link: "undefined reference to `hvb_matrix_free'";
#   4. the command rooms likewise: session/shard.c including <hvb/gate.h>
#      (room gate, above it) fails to compile, and calling hvb_cmd_find()
#      (the commands table, room cli) fails to link hvb_layer_session;
#   5. so does the xenstored command's room (hvb_xenstored_cmd, above the
#      daemon and cmdline, below cli): xenstored/cmd.c including
#      <hvb/cli.h> or calling hvb_cmd_find() (hvb_layer_xenstored_cmd);
#   6. no harness file reaches around the include paths ("../room/...").
#
# Usage: test-layering.sh SOURCE_DIR CMAKE C_COMPILER CXX_COMPILER
set -u
src=$1 cmake=$2 cc=$3 cxx=$4
tmp=$(mktemp -d /tmp/hvb-layering.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
fail() { echo "FAIL: $*"; exit 1; }

for d in CMakeLists.txt hv plugins workloads harness xenstored scripts \
    packaging cmake; do
    cp -r "$src/$d" "$tmp/" || fail "cannot copy $d"
done
"$cmake" -S "$tmp" -B "$tmp/build" -DHVB_ENABLE_TESTING=OFF \
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER="$cc" \
    -DCMAKE_CXX_COMPILER="$cxx" >"$tmp/cfg.log" 2>&1 ||
    { cat "$tmp/cfg.log"; fail "the scratch copy does not configure"; }
build() { "$cmake" --build "$tmp/build" --target "${1:-hvb_layer_measure}" \
    >"$tmp/build.log" 2>&1; }

build || { tail -20 "$tmp/build.log"; fail "control: the copy does not build"; }
echo "ok: the scratch copy builds hvb_layer_measure"

f=$tmp/harness/measure/counters.c
cp "$f" "$tmp/counters.c.orig"
printf '#include <hvb/matrix.h>\n' >>"$f"
if build; then
    fail "measure including <hvb/matrix.h> (room run) compiled"
fi
grep -q "hvb/matrix.h: No such file" "$tmp/build.log" ||
    { tail -20 "$tmp/build.log"; fail "include back-edge: not the expected error"; }
echo "ok: an include of a higher room's header fails to compile"

cp "$tmp/counters.c.orig" "$f"
cat >>"$f" <<'EOC'
struct hvb_matrix;
void hvb_matrix_free(struct hvb_matrix *m);
void hvb_layering_back_edge(void);
void hvb_layering_back_edge(void)
{
    hvb_matrix_free(NULL);
}
EOC
if build; then
    fail "measure calling hvb_matrix_free() (room run) linked"
fi
grep -q "undefined reference to .hvb_matrix_free" "$tmp/build.log" ||
    { tail -20 "$tmp/build.log"; fail "symbol back-edge: not the expected error"; }
echo "ok: a call into a higher room fails to link"

# command_room FILE TARGET HEADER: in the copy, the command room's FILE
# including HEADER (of a room above it) fails to compile, and calling
# hvb_cmd_find() (the commands table, room cli) fails to link TARGET, the
# room's hvb_layer_*; as it is, TARGET builds (the control).
command_room() {
    f=$tmp/$1
    cp "$f" "$tmp/room.c.orig"
    printf '#include <%s>\n' "$3" >>"$f"
    if build "$2"; then
        fail "$1 including <$3> (a room above it) compiled"
    fi
    grep -q "$3: No such file" "$tmp/build.log" ||
        { tail -20 "$tmp/build.log"; fail "$1: include back-edge: not the expected error"; }
    cp "$tmp/room.c.orig" "$f"
    cat >>"$f" <<'EOC'
struct hvb_cmd;
const struct hvb_cmd *hvb_cmd_find(const char *name);
void hvb_layering_back_edge(void);
void hvb_layering_back_edge(void)
{
    (void)hvb_cmd_find("run");
}
EOC
    if build "$2"; then
        fail "$1 calling hvb_cmd_find() (room cli) linked"
    fi
    grep -q "undefined reference to .hvb_cmd_find" "$tmp/build.log" ||
        { tail -20 "$tmp/build.log"; fail "$1: symbol back-edge: not the expected error"; }
    cp "$tmp/room.c.orig" "$f"
    build "$2" ||
        { tail -20 "$tmp/build.log"; fail "control: $2 does not build"; }
}
command_room harness/session/shard.c hvb_layer_session hvb/gate.h
echo "ok: the command rooms are layered too (session -> gate, cli)"
command_room xenstored/cmd.c hvb_layer_xenstored_cmd hvb/cli.h
echo "ok: the xenstored command's room is layered (cmd.c -> cli)"

if grep -rn '#include *"\.\./' "$src/harness"; then
    fail "a harness file includes around the rooms' include paths"
fi
echo "ok: no include reaches around the include paths"
