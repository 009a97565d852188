# Drover's entry points. `make` builds, `make check` runs every test,
# `make lint` checks format, static analysis and size limits, `make fuzz`
# runs every fuzz target of tests/fuzz for FUZZ_SECONDS each (clang).
BUILD ?= build
ASAN_BUILD ?= build-asan
PREFIX ?= /usr/local
# Debian's interpreter, where python3-pytest and python3-pytest-xdist live,
# whatever python3 comes first on PATH.
PYTHON ?= /usr/bin/python3
PYTEST_WORKERS ?= auto
PYTEST_ARGS ?=
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 30
# one input slower than this (seconds) fails the run: a parser gone quadratic
FUZZ_UNIT_TIMEOUT ?= 10
FUZZ_TARGETS = frame conf hostlist array_spec timefmt sbatch_script cred dep_parse multi_prog \
  schema schema_text gres constraint cgroup

C_SOURCES = $(shell find src tests/unit tests/fuzz -type f \( -name '*.c' -o -name '*.h' \) 2>/dev/null)

.PHONY: all build deps run-deps check unit asan integ lint install demo clean fuzz schema-doc

all: build

# install-deps is idempotent, but only asked when something is missing.
deps:
	@pkg-config --exists libevent libevent_pthreads jansson libsodium sqlite3 cmocka lua5.4 munge 2>/dev/null \
	  && command -v meson ninja clang-format cppcheck mpirun mpicc man >/dev/null \
	  && { command -v munged || test -x /usr/sbin/munged; } >/dev/null \
	  && $(PYTHON) -c 'import pytest, xdist' 2>/dev/null \
	  || scripts/install-deps

# What building and running the programs needs, no test or lint tools.
run-deps:
	@pkg-config --exists libevent libevent_pthreads jansson libsodium sqlite3 lua5.4 munge 2>/dev/null \
	  && command -v meson ninja cc python3 >/dev/null \
	  || scripts/install-deps run

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

# libFuzzer builds of tests/fuzz (not part of check). Each target runs on its
# own copy of its seed corpus in $(FUZZ_BUILD)/corpus, which keeps what the
# fuzzer finds from one run to the next; crashes land in
# $(FUZZ_BUILD)/artifacts. Dictionaries (tests/fuzz/NAME.dict) are used
# where a target has one.
$(FUZZ_BUILD)/build.ninja:
	scripts/install-deps fuzz
	CC=clang meson setup $(FUZZ_BUILD) --werror -Dbuildtype=debugoptimized \
	  -Dfuzzing=true -Db_sanitize=address,undefined -Db_lundef=false

fuzz: deps $(FUZZ_BUILD)/build.ninja
	ninja -C $(FUZZ_BUILD) $(addprefix tests/fuzz/fuzz_,$(FUZZ_TARGETS))
	@set -e; mkdir -p $(FUZZ_BUILD)/artifacts; \
	for t in $(FUZZ_TARGETS); do \
	  mkdir -p $(FUZZ_BUILD)/corpus/$$t; \
	  cp tests/fuzz/corpus/$$t/* $(FUZZ_BUILD)/corpus/$$t/; \
	  dict=; [ -f tests/fuzz/$$t.dict ] && dict=-dict=tests/fuzz/$$t.dict; \
	  echo "fuzz: $$t for $(FUZZ_SECONDS)s"; \
	  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	    $(FUZZ_BUILD)/tests/fuzz/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -timeout=$(FUZZ_UNIT_TIMEOUT) \
	    -print_final_stats=1 $$dict -artifact_prefix=$(FUZZ_BUILD)/artifacts/$$t- \
	    $(FUZZ_BUILD)/corpus/$$t 2>$(FUZZ_BUILD)/fuzz-$$t.log \
	  || { tail -60 $(FUZZ_BUILD)/fuzz-$$t.log; exit 1; }; \
	  grep -E '^(stat::number_of_executed_units|#[0-9]+.*DONE)' $(FUZZ_BUILD)/fuzz-$$t.log || true; \
	done

# docs/schema.md from the protocol's declaration (a unit test checks it).
schema-doc:
	$(PYTHON) src/proto/gen.py --doc docs/schema.md $(wildcard src/proto/*.schema)

# Every program lands in PREFIX/bin, where they find each other; the man
# pages, bash completions and drover.conf.example under PREFIX/share, the
# systemd units under PREFIX/lib/systemd/system. DESTDIR=DIR stages it all
# under DIR.
install: build
	meson configure $(BUILD) -Dprefix=$(abspath $(PREFIX))
	meson install -C $(BUILD) --quiet $(if $(DESTDIR),--destdir $(abspath $(DESTDIR)))

# A local cluster with fake GPUs and a small AI pipeline on it (drover demo):
# only the build and run dependencies, and only the programs it runs (and
# those `drover demo --keep` suggests).
DEMO_PROGS = drover drover-ctld drover-noded drover-shepherd drover-authd \
	sbatch squeue sinfo scontrol
demo: run-deps $(BUILD)/build.ninja
	ninja -C $(BUILD) $(DEMO_PROGS)
	scripts/demo $(abspath $(BUILD))

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD)
