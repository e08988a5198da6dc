/** Benchmark tools run by {@code bench/compare.sh}: link emulator, echo backend, load generators, report. */
package dev.tunnel.bench;
