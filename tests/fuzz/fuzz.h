/* fuzz.h — the one entry point every fuzz target defines.
 *
 * Each tests/fuzz/fuzz_*.c is built two ways: with clang's -fsanitize=fuzzer
 * (`make fuzz`), where libFuzzer calls this function with generated inputs,
 * and with replay_main.c (`make check`), which calls it once per file of the
 * target's seed corpus. A target returns 0 and never keeps an input; it calls
 * abort() when it sees a broken invariant, so both builds report it. */
#ifndef DRV_FUZZ_H
#define DRV_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
