# SPDX-License-Identifier: GPL-2.0-only
#
# A thin wrapper over CMake.  The README's two commands:
#   make demo   install what is missing, build, run the demo A/B suite
#   make test   install what is missing, build, run ctest
# And, like the tools beside it (docs/install.md):
#   make install [DESTDIR=D] [PREFIX=P]   cmake --install (default /usr/local)
#   make package                          build/hvbench_VERSION_ARCH.deb
BUILD    ?= build
JOBS     ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE    ?= cmake
CTEST    ?= ctest
HVBENCH  := $(BUILD)/hvbench

.PHONY: all deps configure build demo test install package format format-check clean

all: build

deps:
	@./scripts/install-deps.sh

$(BUILD)/CMakeCache.txt: | deps
	$(CMAKE) -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release

configure: $(BUILD)/CMakeCache.txt

build: deps configure
	$(CMAKE) --build $(BUILD) -j $(JOBS)

demo: build
	./scripts/demo.sh $(HVBENCH) results/latest

test: build
	cd $(BUILD) && $(CTEST) --output-on-failure -j $(JOBS) $(CTEST_ARGS)

install: build
	$(CMAKE) --install $(BUILD) $(if $(PREFIX),--prefix $(PREFIX))

package: build
	$(CMAKE) --build $(BUILD) --target package

format:
	clang-format -i $$(git ls-files '*.c' '*.h' '*.cc')

format-check:
	clang-format --dry-run --Werror $$(git ls-files '*.c' '*.h' '*.cc')

clean:
	rm -rf $(BUILD)
