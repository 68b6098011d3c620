/*
 * TA-Lib's kernels (the C library shipped in the npm package talib, fetched by
 * bench/indicators.bench.ts at bench time; the needed ta_func files are compiled with gcc -O2
 * next to this file). Periods match the JavaScript side: SMA 20, EMA 20, RSI 14, ATR 14,
 * Bollinger 20 x 2 (simple moving average), ROC 10. TA-Lib writes only the bars after the
 * warm-up, from the start of the output buffer.
 */
#include "harness.h"
#include "ta_libc.h"

static int begin;
static int written;

static void check(TA_RetCode code) {
  if (code != TA_SUCCESS) {
    fprintf(stderr, "TA-Lib kernel failed: %d\n", (int)code);
    exit(3);
  }
}

static void sma20(void) { check(TA_SMA(0, bars - 1, close_, 20, &begin, &written, out0)); }
static void ema20(void) { check(TA_EMA(0, bars - 1, close_, 20, &begin, &written, out0)); }
static void rsi14(void) { check(TA_RSI(0, bars - 1, close_, 14, &begin, &written, out0)); }
static void atr14(void) { check(TA_ATR(0, bars - 1, high_, low_, close_, 14, &begin, &written, out0)); }
static void bbands20(void) {
  check(TA_BBANDS(0, bars - 1, close_, 20, 2, 2, TA_MAType_SMA, &begin, &written, out0, out1, out2));
}
static void roc10(void) { check(TA_ROC(0, bars - 1, close_, 10, &begin, &written, out0)); }

/* The last output of the last call (TA-Lib reports how many it wrote; upper band first). */
static double last_written(void) { return out0[written - 1]; }

static void run_kernels(void) {
  check(TA_Initialize());
  time_kernel("SMA", sma20, last_written);
  time_kernel("EMA", ema20, last_written);
  time_kernel("RSI", rsi14, last_written);
  time_kernel("ATR", atr14, last_written);
  time_kernel("Bollinger", bbands20, last_written);
  time_kernel("ROC", roc10, last_written);
}
