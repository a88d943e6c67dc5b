/*
 * portico-pty: runs one program on a new pseudo-terminal for the browser terminal (/rtty) and
 * relays it over plain pipes, because Node has no PTY of its own and node-pty is not shipped.
 *
 *   stdin   bytes typed in the browser, written to the terminal as they come
 *   stdout  everything the program writes to the terminal
 *   fd 3    window size changes: 4-byte frames, rows then columns (each 16 bits, big-endian)
 *
 * The program runs as a session leader on the terminal (forkpty), so it and everything it
 * starts form one session, signalled as a whole when this helper ends: on SIGTERM,
 * SIGHUP or SIGINT, and when the daemon closes stdin. The exit status is the program's (128 +
 * the signal's number when a signal ended it), so the daemon can journal how a session ended.
 *
 * Usage: portico-pty <rows> <columns> <program> [argument...]   (the program's path, no shell)
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#define CONTROL_FD 3
#define CHUNK 16384

static volatile sig_atomic_t stop_requested;

static void on_stop(int sig) {
  (void)sig;
  stop_requested = 1;
}

static int dimension(const char *text) {
  char *end = NULL;
  long value = strtol(text, &end, 10);
  if (end == text || *end != '\0' || value < 1 || value > 1000) return -1;
  return (int)value;
}

static int write_all(int fd, const char *data, size_t length) {
  while (length > 0) {
    ssize_t n = write(fd, data, length);
    if (n < 0) {
      /* A program that stops reading must not keep the helper from ending when asked. */
      if (stop_requested) return -1;
      if (errno == EINTR) continue;
      if (errno == EAGAIN) {
        struct pollfd wait_out = {.fd = fd, .events = POLLOUT};
        poll(&wait_out, 1, 1000);
        continue;
      }
      return -1;
    }
    data += n;
    length -= (size_t)n;
  }
  return 0;
}

static int exit_code(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

/*
 * Signals every process of the terminal's session, not only the program's process group: an
 * interactive shell puts background jobs in groups of their own, and they must not outlive the
 * terminal. (A process that made a session of its own has left the terminal on purpose.)
 */
static void signal_session(pid_t session, int sig) {
  kill(-session, sig);
  DIR *proc = opendir("/proc");
  if (!proc) return;
  struct dirent *entry;
  while ((entry = readdir(proc)) != NULL) {
    char *end = NULL;
    long pid = strtol(entry->d_name, &end, 10);
    if (end == entry->d_name || *end != '\0' || pid <= 0) continue;
    char path[64], stat[512];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;
    ssize_t n = read(fd, stat, sizeof stat - 1);
    close(fd);
    if (n <= 0) continue;
    stat[n] = '\0';
    /* After the command name (which may hold spaces and parentheses): state ppid pgrp session. */
    char *close_paren = strrchr(stat, ')');
    char state;
    int ppid, pgrp, sid;
    if (close_paren && sscanf(close_paren + 1, " %c %d %d %d", &state, &ppid, &pgrp, &sid) == 4 && sid == session) kill((pid_t)pid, sig);
  }
  closedir(proc);
}

/* Hangs up the program's process group, then kills it if it is still there a moment later. */
static int end_program(pid_t child, int reaped, int status) {
  if (reaped) {
    signal_session(child, SIGKILL);
    return exit_code(status);
  }
  signal_session(child, SIGHUP);
  signal_session(child, SIGTERM);
  for (int i = 0; i < 40; i++) {
    if (waitpid(child, &status, WNOHANG) == child) {
      signal_session(child, SIGKILL);
      return exit_code(status);
    }
    struct timespec pause = {.tv_sec = 0, .tv_nsec = 50 * 1000 * 1000};
    nanosleep(&pause, NULL);
  }
  signal_session(child, SIGKILL);
  waitpid(child, &status, 0);
  return exit_code(status);
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: portico-pty <rows> <columns> <program> [argument...]\n");
    return 2;
  }
  int rows = dimension(argv[1]);
  int cols = dimension(argv[2]);
  if (rows < 0 || cols < 0) {
    fprintf(stderr, "portico-pty: rows and columns must be 1..1000\n");
    return 2;
  }
  struct winsize size = {.ws_row = (unsigned short)rows, .ws_col = (unsigned short)cols};
  int control_open = fcntl(CONTROL_FD, F_GETFD) != -1;

  int master = -1;
  pid_t child = forkpty(&master, NULL, NULL, &size);
  if (child < 0) {
    perror("portico-pty: forkpty");
    return 1;
  }
  if (child == 0) {
    if (control_open) close(CONTROL_FD);
    setenv("TERM", "xterm-256color", 1);
    execv(argv[3], &argv[3]);
    fprintf(stderr, "portico-pty: %s: %s\r\n", argv[3], strerror(errno));
    _exit(127);
  }

  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = on_stop;
  sigaction(SIGTERM, &action, NULL);
  sigaction(SIGHUP, &action, NULL);
  sigaction(SIGINT, &action, NULL);
  signal(SIGPIPE, SIG_IGN);
  fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK);

  char buffer[CHUNK];
  unsigned char frame[4];
  size_t framed = 0;
  int input_open = 1;
  int status = 0;
  int reaped = 0;
  for (;;) {
    if (!reaped && waitpid(child, &status, WNOHANG) == child) reaped = 1;
    if (stop_requested || !input_open) return end_program(child, reaped, status);
    struct pollfd fds[3] = {
        {.fd = master, .events = POLLIN},
        {.fd = input_open ? STDIN_FILENO : -1, .events = POLLIN},
        {.fd = control_open ? CONTROL_FD : -1, .events = POLLIN},
    };
    /* After the program ended, only what it left on the terminal is read. */
    int ready = poll(fds, reaped ? 1 : 3, reaped ? 0 : 1000);
    if (ready < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
      ssize_t n = read(master, buffer, sizeof buffer);
      if (n > 0) {
        if (write_all(STDOUT_FILENO, buffer, (size_t)n) < 0) return end_program(child, reaped, status);
        continue;
      }
      if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      /* EIO: no process holds the terminal any more. */
      if (!reaped) waitpid(child, &status, 0);
      signal_session(child, SIGKILL);
      return exit_code(status);
    }
    if (reaped) {
      /* Ended with nothing left to read; background processes still on its terminal go too. */
      signal_session(child, SIGKILL);
      return exit_code(status);
    }
    if (ready == 0) continue;
    if (fds[1].revents & (POLLIN | POLLHUP | POLLERR)) {
      ssize_t n = read(STDIN_FILENO, buffer, sizeof buffer);
      if (n > 0) {
        if (write_all(master, buffer, (size_t)n) < 0) return end_program(child, reaped, status);
      } else if (n == 0 || errno != EINTR) {
        input_open = 0;
      }
    }
    if (fds[2].revents & (POLLIN | POLLHUP | POLLERR)) {
      ssize_t n = read(CONTROL_FD, frame + framed, sizeof frame - framed);
      if (n > 0) {
        framed += (size_t)n;
        if (framed == sizeof frame) {
          framed = 0;
          struct winsize next = {.ws_row = (unsigned short)((frame[0] << 8) | frame[1]), .ws_col = (unsigned short)((frame[2] << 8) | frame[3])};
          /* TIOCSWINSZ makes the kernel send SIGWINCH to the terminal's foreground group. */
          if (next.ws_row >= 1 && next.ws_row <= 1000 && next.ws_col >= 1 && next.ws_col <= 1000) ioctl(master, TIOCSWINSZ, &next);
        }
      } else if (n == 0 || errno != EINTR) {
        control_open = 0;
      }
    }
  }
  return end_program(child, reaped, status);
}
