/*
 * The C peers' timing harness for bench/indicators.bench.ts: reads the bench's bars (close,
 * high and low as three runs of little-endian doubles) from the file named by argv[1], runs
 * each kernel argv[2] times over all of them and prints, per kernel, one line:
 *
 *   NAME BEST_NS_PER_BAR LAST_VALUE
 *
 * Only the kernel call is timed (CLOCK_MONOTONIC around it), after WARM_UP untimed calls (the
 * same count ours.ts gives the JavaScript kernels, which need them to be compiled). LAST_VALUE (the kernel's last output) lets the bench check that the
 * peer computed the same thing as ours. A peer file (tulip.c, talib.c) defines run_kernels()
 * and calls time_kernel() for each indicator.
 */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static int bars;
static int repeats;
static double *close_;
static double *high_;
static double *low_;
/* Outputs: three buffers (Bollinger writes three bands), each as long as the input. */
static double *out0;
static double *out1;
static double *out2;

#define WARM_UP 3

static double now_ns(void) {
  struct timespec at;
  clock_gettime(CLOCK_MONOTONIC, &at);
  return (double)at.tv_sec * 1e9 + (double)at.tv_nsec;
}

/* Runs `kernel` `repeats` times; prints the best time per bar and the last output value. */
static void time_kernel(const char *name, void (*kernel)(void), double (*last)(void)) {
  double best = 1e300;
  for (int attempt = 0; attempt < WARM_UP; attempt += 1) kernel();
  for (int attempt = 0; attempt < repeats; attempt += 1) {
    double started = now_ns();
    kernel();
    double elapsed = now_ns() - started;
    if (elapsed < best) best = elapsed;
  }
  printf("%s %.6f %.17g\n", name, best / bars, last());
  fflush(stdout);
}

static void run_kernels(void);

static double *buffer(void) {
  double *values = calloc((size_t)bars, sizeof(double));
  if (!values) {
    fprintf(stderr, "out of memory\n");
    exit(2);
  }
  return values;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s BARS_FILE REPEATS\n", argv[0]);
    return 2;
  }
  FILE *file = fopen(argv[1], "rb");
  if (!file) {
    perror(argv[1]);
    return 2;
  }
  fseek(file, 0, SEEK_END);
  long size = ftell(file);
  fseek(file, 0, SEEK_SET);
  bars = (int)(size / (3 * (long)sizeof(double)));
  repeats = atoi(argv[2]);
  if (bars <= 0 || repeats <= 0) {
    fprintf(stderr, "no bars or no repeats\n");
    return 2;
  }
  close_ = buffer();
  high_ = buffer();
  low_ = buffer();
  if (fread(close_, sizeof(double), (size_t)bars, file) != (size_t)bars ||
      fread(high_, sizeof(double), (size_t)bars, file) != (size_t)bars ||
      fread(low_, sizeof(double), (size_t)bars, file) != (size_t)bars) {
    fprintf(stderr, "short read\n");
    return 2;
  }
  fclose(file);
  out0 = buffer();
  out1 = buffer();
  out2 = buffer();
  run_kernels();
  return 0;
}
