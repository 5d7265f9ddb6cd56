// An LD_PRELOAD shim that runs a process's monotonic clocks (clock_gettime of CLOCK_MONOTONIC, its
// raw and coarse variants, and CLOCK_BOOTTIME) at MONOTONIC_CLOCK_RATE times the real rate from
// the moment it is loaded: at 0.97, 970 ms pass for every real second. Durations read short and
// timers fire late by that factor (libuv sleeps the real timeout, finds the timer not yet due by
// the slowed clock, and sleeps again), as on a host whose clock runs slow. The wall clock is left
// alone (wall-clock-offset/ steps that one).
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

/** Clock ids below this are the ones Linux numbers 0–7: the monotonic ones among them are scaled. */
#define CLOCK_IDS 8

static double rate = 1.0;
static int64_t origin_ns[CLOCK_IDS];
static int (*real_clock_gettime)(clockid_t, struct timespec *);

static int scaled(clockid_t clock) {
  return clock == CLOCK_MONOTONIC || clock == CLOCK_MONOTONIC_RAW || clock == CLOCK_MONOTONIC_COARSE || clock == CLOCK_BOOTTIME;
}

static int64_t nanoseconds(const struct timespec *ts) { return (int64_t)ts->tv_sec * 1000000000 + ts->tv_nsec; }

__attribute__((constructor)) static void start(void) {
  real_clock_gettime = (int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
  const char *text = getenv("MONOTONIC_CLOCK_RATE");
  double parsed = text ? strtod(text, NULL) : 1.0;
  if (parsed > 0) rate = parsed;
  for (clockid_t clock = 0; clock < CLOCK_IDS; clock++) {
    struct timespec ts;
    if (scaled(clock) && real_clock_gettime(clock, &ts) == 0) origin_ns[clock] = nanoseconds(&ts);
  }
}

int clock_gettime(clockid_t clock, struct timespec *ts) {
  // Called before this library's constructor (by another's): unscaled, since `rate` is still 1.
  if (!real_clock_gettime) real_clock_gettime = (int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
  int result = real_clock_gettime(clock, ts);
  if (result == 0 && rate != 1.0 && clock >= 0 && clock < CLOCK_IDS && scaled(clock)) {
    int64_t ns = origin_ns[clock] + (int64_t)((double)(nanoseconds(ts) - origin_ns[clock]) * rate);
    ts->tv_sec = ns / 1000000000;
    ts->tv_nsec = ns % 1000000000;
  }
  return result;
}
