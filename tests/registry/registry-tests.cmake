# SPDX-License-Identifier: GPL-2.0-only
#
# Included by ctest when it reads this directory (TEST_INCLUDE_FILES, set
# up by CMakeLists.txt here, which defines the HVB_REG_* paths first):
# the tests driven by the registry, from `hvbench list --json` of the
# build ctest is about to test.  See CMakeLists.txt for the list.
#
# Worked example: the registry says slot domlookup has knownalive (flags
# ["no_churn"]), rcu-noref ([]) and urcu-ref (["tsan_blind"]):
# that makes torture-rcu-noref, torture-urcu-ref, asan-torture-rcu-noref,
# asan-torture-urcu-ref and tsan-torture-rcu-noref, and nothing for
# knownalive.
cmake_policy(VERSION 3.18) # ctest reads this with no policies set

# A test that fails with @msg: the reason ctest cannot make the others.
function(_hvb_reg_fail name msg)
  add_test(${name} sh -c "echo 'FAIL: ${msg}'; exit 1")
  set_tests_properties(${name} PROPERTIES LABELS "smoke;stress;quick")
endfunction()

if(NOT EXISTS "${HVB_REG_HVBENCH}")
  _hvb_reg_fail(registry-list
    "${HVB_REG_HVBENCH} is not built: build first (make build), then ctest")
  return()
endif()
execute_process(COMMAND "${HVB_REG_HVBENCH}" list --json
  OUTPUT_VARIABLE _json ERROR_VARIABLE _err RESULT_VARIABLE _rc)
if(NOT _rc EQUAL 0)
  string(REPLACE "'" "" _err "${_err}")
  _hvb_reg_fail(registry-list "hvbench list --json: exit ${_rc}: ${_err}")
  return()
endif()

# ---- smoke-WORKLOAD: every registered workload and every workload file.

set(_files "")
file(GLOB _srcs "${HVB_REG_SOURCE_DIR}/workloads/micro/*.c"
  "${HVB_REG_SOURCE_DIR}/workloads/macro/*.c")
foreach(f IN LISTS _srcs)
  get_filename_component(_n "${f}" NAME_WE)
  list(APPEND _files ${_n})
endforeach()

set(_registered "")
string(JSON _nw LENGTH "${_json}" workloads)
math(EXPR _last "${_nw} - 1")
foreach(i RANGE ${_last})
  string(JSON _w GET "${_json}" workloads ${i} name)
  list(APPEND _registered ${_w})
  if(NOT _w IN_LIST _files)
    _hvb_reg_fail(smoke-${_w} "workload ${_w} is registered but there is no workloads/micro/${_w}.c or workloads/macro/${_w}.c (one workload per file, named as its file)")
    continue()
  endif()
  add_test(smoke-${_w} "${HVB_REG_PYTHON}" "${HVB_REG_SMOKE}"
    "${HVB_REG_HVBENCH}" ${_w})
  set_tests_properties(smoke-${_w} PROPERTIES LABELS "smoke;quick" PROCESSORS 2
    TIMEOUT 150)
endforeach()
foreach(_n IN LISTS _files)
  if(NOT _n IN_LIST _registered)
    _hvb_reg_fail(smoke-${_n} "workloads/*/${_n}.c registers no workload named ${_n} (HVB_REGISTER_WORKLOAD with .name = \"${_n}\")")
  endif()
endforeach()

# ---- torture-PLUGIN, torture-virt-SECLOCK-NAMESEARCH: what flags allow.

# _flags_SLOT_NAME: each plugin's flags, as a list.
string(JSON _np LENGTH "${_json}" plugins)
math(EXPR _last "${_np} - 1")
set(_dl "")
set(_sl "")
set(_ns "")
foreach(i RANGE ${_last})
  string(JSON _slot GET "${_json}" plugins ${i} slot)
  string(JSON _p GET "${_json}" plugins ${i} name)
  set(_flags_${_slot}_${_p} "")
  string(JSON _nf LENGTH "${_json}" plugins ${i} flags)
  if(_nf GREATER 0)
    math(EXPR _lf "${_nf} - 1")
    foreach(j RANGE ${_lf})
      string(JSON _f GET "${_json}" plugins ${i} flags ${j})
      list(APPEND _flags_${_slot}_${_p} ${_f})
    endforeach()
  endif()
  if(_slot STREQUAL "domlookup")
    list(APPEND _dl ${_p})
  elseif(_slot STREQUAL "seclock")
    list(APPEND _sl ${_p})
  elseif(_slot STREQUAL "namesearch")
    list(APPEND _ns ${_p})
  endif()
endforeach()

# _hvb_reg_torture(NAME "FLAGS" BIN ARGS...): BIN ARGS SECONDS as test
# NAME, and KIND-NAME under every sanitizer kind whose skip flag is not in
# FLAGS; nothing at all for a no_churn plugin.
function(_hvb_reg_torture name flags bin)
  if("no_churn" IN_LIST flags)
    return()
  endif()
  add_test(${name} "${HVB_REG_TEST_BIN}/${bin}" ${ARGN}
    ${HVB_REG_TORTURE_SECONDS})
  set_tests_properties(${name} PROPERTIES LABELS stress PROCESSORS 2
    TIMEOUT ${HVB_REG_TORTURE_TIMEOUT})
  foreach(kind IN LISTS HVB_REG_SAN_KINDS)
    set(_skip "${HVB_REG_SAN_${kind}_SKIP_FLAG}")
    if(_skip AND _skip IN_LIST flags)
      continue()
    endif()
    add_test(${kind}-${name} ${HVB_REG_SAN_${kind}_RUN}
      "${HVB_REG_SAN_${kind}_BIN}/${bin}" ${HVB_REG_SAN_${kind}_TORTURE_OPTS}
      ${ARGN} ${HVB_REG_TORTURE_SECONDS})
    set_tests_properties(${kind}-${name} PROPERTIES LABELS ${kind}
      FIXTURES_REQUIRED ${kind} PROCESSORS 2
      TIMEOUT ${HVB_REG_TORTURE_TIMEOUT})
  endforeach()
endfunction()

foreach(p IN LISTS _dl)
  _hvb_reg_torture(torture-${p} "${_flags_domlookup_${p}}" torture-domlookup
    ${p})
endforeach()
foreach(sl IN LISTS _sl)
  foreach(ns IN LISTS _ns)
    _hvb_reg_torture(torture-virt-${sl}-${ns}
      "${_flags_seclock_${sl}};${_flags_namesearch_${ns}}" torture-libvirt
      ${sl} ${ns})
  endforeach()
endforeach()
