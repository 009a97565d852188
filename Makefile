# Drover's entry points. `make` builds, `make check` runs every test.
BUILD ?= build
PREFIX ?= /usr/local

.PHONY: all deps check demo lint install clean

all: deps $(BUILD)/build.ninja
	ninja -C $(BUILD)

deps:
	@scripts/install-deps

$(BUILD)/build.ninja:
	meson setup $(BUILD) --werror

clean:
	rm -rf build build-asan
