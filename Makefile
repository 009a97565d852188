# Drover's entry points. `make` builds, `make check` runs every test,
# `make lint` checks format, static analysis and size limits.
BUILD ?= build
ASAN_BUILD ?= build-asan
PREFIX ?= /usr/local
# Debian's interpreter, where python3-pytest and python3-pytest-xdist live,
# whatever python3 comes first on PATH.
PYTHON ?= /usr/bin/python3
PYTEST_WORKERS ?= auto
PYTEST_ARGS ?=

C_SOURCES = $(shell find src tests/unit -type f \( -name '*.c' -o -name '*.h' \) 2>/dev/null)

.PHONY: all build deps check unit asan integ lint install demo clean

all: build

# install-deps is idempotent, but only asked when something is missing.
deps:
	@pkg-config --exists libevent libevent_pthreads jansson libsodium sqlite3 cmocka 2>/dev/null \
	  && command -v meson ninja clang-format cppcheck >/dev/null \
	  && $(PYTHON) -c 'import pytest, xdist' 2>/dev/null \
	  || scripts/install-deps

$(BUILD)/build.ninja:
	meson setup $(BUILD) --werror

$(ASAN_BUILD)/build.ninja:
	meson setup $(ASAN_BUILD) --werror -Dbuildtype=debug \
	  -Db_sanitize=address,undefined -Db_lundef=false

# Warnings are errors in every build, also in a build dir configured by hand.
build: deps $(BUILD)/build.ninja
	@meson introspect --buildoptions $(BUILD) | grep -q '"name": "werror", "value": true' \
	  || meson configure $(BUILD) -Dwerror=true
	ninja -C $(BUILD)

unit: build
	meson test -C $(BUILD) --print-errorlogs

asan: deps $(ASAN_BUILD)/build.ninja
	ninja -C $(ASAN_BUILD)
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	  meson test -C $(ASAN_BUILD) --print-errorlogs

# Scenario tests: real local clusters in temp dirs, in parallel.
integ: build
	DROVER_BIN=$(abspath $(BUILD)) $(PYTHON) -m pytest -n $(PYTEST_WORKERS) -q tests/integ $(PYTEST_ARGS)

check: unit asan integ

lint: deps $(BUILD)/build.ninja
	clang-format --dry-run --Werror $(C_SOURCES)
	cppcheck --error-exitcode=1 --enable=warning,portability --inline-suppr -q \
	  --std=c11 -D_GNU_SOURCE -I src -I . -I $(BUILD) --suppress=missingIncludeSystem src
	scripts/check-sizes

# Every program lands in PREFIX/bin, where they find each other.
install: build
	meson configure $(BUILD) -Dprefix=$(abspath $(PREFIX))
	meson install -C $(BUILD) --quiet

demo: build
	scripts/demo $(abspath $(BUILD))

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)
