/*
 * Tulip Indicators' kernels (the amalgamation shipped in the npm package tulind, fetched by
 * bench/indicators.bench.ts at bench time and compiled with gcc -O2 next to this file).
 * Periods match the JavaScript side: SMA 20, EMA 20, RSI 14, ATR 14, Bollinger 20 x 2, ROC 10.
 * Tulip writes only the bars after the warm-up, from the start of the output buffer.
 */
#include "harness.h"
#include "tiamalgamation.c"

static double option[2];
static const double *one_input[1];
static const double *three_inputs[3];
static double *one_output[1];
static double *three_outputs[3];

static void run(int (*indicator)(int, TI_REAL const *const *, TI_REAL const *, TI_REAL *const *),
                const double *const *inputs, double *const *outputs) {
  if (indicator(bars, inputs, option, outputs) != TI_OKAY) {
    fprintf(stderr, "Tulip kernel failed\n");
    exit(3);
  }
}

static void sma20(void) { option[0] = 20; run(ti_sma, one_input, one_output); }
static void ema20(void) { option[0] = 20; run(ti_ema, one_input, one_output); }
static void rsi14(void) { option[0] = 14; run(ti_rsi, one_input, one_output); }
static void atr14(void) { option[0] = 14; run(ti_atr, three_inputs, one_output); }
static void bbands20(void) { option[0] = 20; option[1] = 2; run(ti_bbands, one_input, three_outputs); }
static void roc10(void) { option[0] = 10; run(ti_roc, one_input, one_output); }

/* The last output of a kernel that skips `start` bars (ti_*_start). */
static double last_after_0(void) { return out0[bars - 1]; }
static double last_after_10(void) { return out0[bars - 1 - 10]; }
static double last_after_13(void) { return out0[bars - 1 - 13]; }
static double last_after_14(void) { return out0[bars - 1 - 14]; }
static double last_after_19(void) { return out0[bars - 1 - 19]; }

static void run_kernels(void) {
  one_input[0] = close_;
  three_inputs[0] = high_;
  three_inputs[1] = low_;
  three_inputs[2] = close_;
  one_output[0] = out0;
  /* ti_bbands writes lower, middle, upper: upper lands in out0 like the others' output. */
  three_outputs[0] = out2;
  three_outputs[1] = out1;
  three_outputs[2] = out0;
  time_kernel("SMA", sma20, last_after_19);
  time_kernel("EMA", ema20, last_after_0);
  time_kernel("RSI", rsi14, last_after_14);
  time_kernel("ATR", atr14, last_after_13);
  time_kernel("Bollinger", bbands20, last_after_19);
  time_kernel("ROC", roc10, last_after_10);
}
