// An LD_PRELOAD shim that offsets a process's wall clock (gettimeofday, clock_gettime of
// CLOCK_REALTIME) by the signed 64-bit microseconds held in the file named by
// WALL_CLOCK_OFFSET_FILE, read on every call through a shared mapping: a test steps the clock of
// a running server by rewriting those 8 bytes. Monotonic clocks are left alone. (libfaketime
// does the same, but recurses in clock_gettime under Debian's redis-server and gives up.)
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static volatile int64_t *offset_us;

__attribute__((constructor)) static void map_offset(void) {
  const char *path = getenv("WALL_CLOCK_OFFSET_FILE");
  if (!path) return;
  int fd = open(path, O_RDONLY);
  if (fd < 0) return;
  void *mapped = mmap(NULL, sizeof(int64_t), PROT_READ, MAP_SHARED, fd, 0);
  close(fd);
  if (mapped != MAP_FAILED) offset_us = mapped;
}

static int64_t current_offset(void) { return offset_us ? *offset_us : 0; }

int clock_gettime(clockid_t clock, struct timespec *ts) {
  static int (*real)(clockid_t, struct timespec *);
  if (!real) real = (int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
  int result = real(clock, ts);
  if (result == 0 && (clock == CLOCK_REALTIME || clock == CLOCK_REALTIME_COARSE)) {
    int64_t ns = (int64_t)ts->tv_sec * 1000000000 + ts->tv_nsec + current_offset() * 1000;
    ts->tv_sec = ns / 1000000000;
    ts->tv_nsec = ns % 1000000000;
  }
  return result;
}

int gettimeofday(struct timeval *restrict tv, void *restrict tz) {
  struct timespec ts;
  int result = clock_gettime(CLOCK_REALTIME, &ts);
  if (result == 0 && tv) {
    tv->tv_sec = ts.tv_sec;
    tv->tv_usec = ts.tv_nsec / 1000;
  }
  (void)tz;
  return result;
}
