# SPDX-License-Identifier: GPL-2.0-only
#
# make install (cmake --install: DESTDIR and the prefix as CMake takes
# them) and make package (CPack's DEB generator); docs/install.md.  What
# goes where, under the prefix (GNUInstallDirs):
#
#   bin/hvbench                      the binary; the built-in plugins and
#                                    workloads are inside it
#   share/hvbench/render/*.py        report.py, flamegraph.py: what
#                                    hvbench report and profile run
#                                    (found as ../share/hvbench from
#                                    bin/, harness/profile/render.c)
#   LIBDIR/hvbench/plugins/skeleton.so  the external plugin template,
#                                    built (--plugin domlookup=PATH)
#   share/doc/hvbench/examples/skeleton.c  its source, and
#   include/hvbench/hv/*.h           the model's headers to build one
#                                    (cc -I PREFIX/include/hvbench)
#   share/man/man1/*.1               the man pages, and
#   share/bash-completion/completions/hvbench  the completion, when the
#                                    build writes them (build/man/man1/,
#                                    build/completion/hvbench)
#
# The test-only objects (broken-*.so, v1-*.so, slowdown.so, fakexen.so,
# the layering checks' libhvb_layer_*.so) and the side tools (xs-load,
# irq-cost) are not installed.  tests/package/ builds the package,
# installs it and runs it from the installed files alone.

install(TARGETS hvbench RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
file(GLOB HVB_RENDER_SCRIPTS ${PROJECT_SOURCE_DIR}/harness/profile/render/*.py)
install(FILES ${HVB_RENDER_SCRIPTS}
  DESTINATION ${CMAKE_INSTALL_DATADIR}/hvbench/render)

# skeleton is a target of tests/ (the template is also the CLI tests'
# external plugin): with -DHVB_ENABLE_TESTING=OFF there is none to install.
if(TARGET skeleton)
  install(TARGETS skeleton
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/hvbench/plugins)
endif()
install(FILES ${PROJECT_SOURCE_DIR}/tests/external/skeleton.c
  DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/hv/include/hv
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/hvbench FILES_MATCHING
  PATTERN "*.h")

# Written by the build (the man pages and completion come from the
# option rows); until the build writes them there is nothing to install.
install(DIRECTORY ${CMAKE_BINARY_DIR}/man/man1
  DESTINATION ${CMAKE_INSTALL_MANDIR} OPTIONAL)
install(DIRECTORY ${CMAKE_BINARY_DIR}/completion/
  DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions OPTIONAL
  FILES_MATCHING PATTERN hvbench)

# The Debian package: hvbench_VERSION_ARCH.deb, installed under /usr.
# dpkg-shlibdeps names the libraries the binary links (libbenchmark,
# liburcu, libdw, libpfm4, jemalloc, jansson, libnuma, libstdc++);
# python3 runs the render scripts, matplotlib draws the report's charts.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME hvbench)
set(CPACK_PACKAGE_CONTACT "hvbench maintainers <maintainers@users.noreply.a-seed-c386dcba.example>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
  "A/B benchmarks, CI gates and flame graphs around a hypervisor model")
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
  "hvbench runs workloads of a compact Xen-like hypervisor model under
switchable strategy plugins (domain lookup, xenstore quota, NUMA page
allocation, toolstack locking), paired and interleaved, and says with a
confidence interval whether a difference is real; gates a change on
cycles per operation; and draws flame graphs and lock tables.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "python3")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "python3-matplotlib, man-db")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "bash-completion, valgrind, linux-perf, git")
include(CPack)
