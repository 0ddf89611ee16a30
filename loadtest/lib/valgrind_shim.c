/* Preloaded into Tiffany under valgrind 3.19 (loadtest/instructions.sh), which
 * knows neither epoll_pwait2 (kernel 5.11) nor openat2 (5.6): epoll_pwait2 is
 * answered by epoll_pwait with the timeout rounded up to a millisecond, which
 * changes when a wait ends, not what a request costs. (The static handler's
 * openat2 goes through syscall(); the plaintext route the script measures
 * opens no file.) */
#define _GNU_SOURCE
#include <signal.h>
#include <sys/epoll.h>
#include <time.h>

int epoll_pwait2(int epfd, struct epoll_event *events, int maxevents, const struct timespec *timeout,
                 const sigset_t *sigmask) {
  int ms = -1;
  if (timeout != NULL) {
    const long long rounded = (long long)timeout->tv_sec * 1000 + (timeout->tv_nsec + 999999) / 1000000;
    ms = rounded > 0x7fffffff ? 0x7fffffff : (int)rounded;
  }
  return epoll_pwait(epfd, events, maxevents, ms, sigmask);
}
