/*
** staged_file.c: a file built beside its target and put in the target's
** place only when committed (docs/FORMATS.md#file-writers).  See
** staged_file.h for the rules.
**
** Building with -DSQ_STAGED_NO_TMPFILE takes the named-file way everywhere,
** as on a file system without O_TMPFILE (the tests build it so; nothing
** else does).
*/
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "formats/source.h"
#include "formats/staged_file.h"

/* All of it is path code: left out by SQLITE_QUANT_OMIT_FS
** (docs/ARCHITECTURE.md#registration). */
#ifndef SQLITE_QUANT_OMIT_FS

#if defined(SQ_STAGED_NO_TMPFILE) && defined(O_TMPFILE)
#undef O_TMPFILE
#endif

/* "<name>" + this + 6 characters names a temporary file. */
#define STG_TAG ".sq-tmp-"
#define STG_TAG_LEN 8
#define STG_RANDOM_LEN 6
#define STG_MOVE_BUFFER ((uint64_t)1 << 20)

static int stg_fail(sq_staged *f, const char *what, int e, sq_status *st) {
  if (e == ENOMEM) return sq_nomem(st);
  return sq_fail(st, "cannot %s '%.200s': %s", what, f->path ? f->path : "",
                 sq_errno_words(e, 1));
}

static char *stg_strndup(const char *s, size_t n, sq_status *st) {
  char *p = sq_alloc(st, (uint64_t)n + 1, 1);
  if (!p) return NULL;
  memcpy(p, s, n);
  p[n] = 0;
  return p;
}

/* Zeroes f (nothing open); sq_staged_close is then harmless. */
static void sq_staged_init(sq_staged *f) {
  memset(f, 0, sizeof *f);
  f->dir = -1;
  f->fd = -1;
}

int sq_staged_resolve(sq_staged *f, const char *path, sq_status *st) {
  sq_staged_init(f);
  size_t n = strlen(path);
  if (!n) return sq_fail(st, "path is empty");
  if (!(f->path = stg_strndup(path, n, st))) return st->code;
  const char *slash = strrchr(path, '/');
  const char *base = slash ? slash + 1 : path;
  if (!*base || strcmp(base, ".") == 0 || strcmp(base, "..") == 0)
    return stg_fail(f, "replace", EISDIR, st);
  if (!(f->name = stg_strndup(base, strlen(base), st))) return st->code;
  char *dir;
  if (!slash) dir = stg_strndup(".", 1, st);
  else dir = stg_strndup(path, slash == path ? 1 : (size_t)(slash - path), st);
  if (!dir) return st->code;
  /* Read access lets the directory be listed (leftovers) and fsync'd; a
  ** directory one may write but not read is still usable without. */
  f->dir = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  f->dir_listable = f->dir >= 0;
#ifdef O_PATH
  if (f->dir < 0 && errno == EACCES)
    f->dir = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
#endif
  int e = errno;
  sqlite3_free(dir);
  if (f->dir < 0) return stg_fail(f, "create a file beside", e, st);
  struct stat sb;
  if (fstat(f->dir, &sb) != 0)
    return stg_fail(f, "create a file beside", errno, st);
  f->dir_dev = (uint64_t)sb.st_dev;
  f->dir_ino = (uint64_t)sb.st_ino;
  if (fstatat(f->dir, f->name, &sb, AT_SYMLINK_NOFOLLOW) == 0 &&
      S_ISDIR(sb.st_mode))
    return stg_fail(f, "replace", EISDIR, st);
  return SQ_OK;
}

int sq_staged_same_target(const sq_staged *a, const sq_staged *b) {
  return a->dir_dev == b->dir_dev && a->dir_ino == b->dir_ino &&
         strcmp(a->name, b->name) == 0;
}

/* ---- temporary names ---- */

/* Six letters or digits, different on every call of every process. */
static void stg_random(char *out) {
  static const char abc[] =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  static unsigned counter;
  unsigned c = __atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED);
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  uint64_t x = (uint64_t)getpid() * 0x9E3779B97F4A7C15ull ^
               (uint64_t)ts.tv_nsec * 0xBF58476D1CE4E5B9ull ^
               (uint64_t)ts.tv_sec ^ (uint64_t)(uintptr_t)out ^
               (uint64_t)c * 0xD1B54A32D192ED03ull;
  for (int i = 0; i < STG_RANDOM_LEN; i++) {
    x ^= x >> 31;
    x *= 0x94D049BB133111EBull;
    out[i] = abc[(x >> 33) % (sizeof abc - 1)];
  }
}

/* "<name>.sq-tmp-XXXXXX" for a fresh XXXXXX, in a buffer of the name's
** length + STG_TAG_LEN + STG_RANDOM_LEN + 1. */
static void stg_temp_name(const sq_staged *f, char *buf) {
  size_t n = strlen(f->name);
  memcpy(buf, f->name, n);
  memcpy(buf + n, STG_TAG, STG_TAG_LEN);
  stg_random(buf + n + STG_TAG_LEN);
  buf[n + STG_TAG_LEN + STG_RANDOM_LEN] = 0;
}

static int stg_is_temp_of(const sq_staged *f, const char *entry) {
  size_t n = strlen(f->name);
  if (strncmp(entry, f->name, n) != 0 ||
      strncmp(entry + n, STG_TAG, STG_TAG_LEN) != 0)
    return 0;
  const char *r = entry + n + STG_TAG_LEN;
  for (int i = 0; i < STG_RANDOM_LEN; i++)
    if (!((r[i] >= 'a' && r[i] <= 'z') || (r[i] >= 'A' && r[i] <= 'Z') ||
          (r[i] >= '0' && r[i] <= '9')))
      return 0;
  return r[STG_RANDOM_LEN] == 0;
}

/* Whether entry in f->dir is the file open as fd (a name can be removed,
** or taken by another file, between two steps). */
static int stg_names(const sq_staged *f, const char *entry, int fd) {
  struct stat a, b;
  return fstat(fd, &a) == 0 &&
         fstatat(f->dir, entry, &b, AT_SYMLINK_NOFOLLOW) == 0 &&
         a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* Removes the leftovers of dead writers of the same target: their
** temporary files whose lock can be taken.  Only regular files are opened,
** without blocking (a FIFO under such a name must not hang the writer);
** any error leaves the file where it is. */
static void stg_remove_leftovers(sq_staged *f) {
  if (!f->dir_listable) return;
  int d = fcntl(f->dir, F_DUPFD_CLOEXEC, 0);
  if (d < 0) return;
  DIR *dir = fdopendir(d);
  if (!dir) {
    close(d);
    return;
  }
  struct dirent *e;
  while ((e = readdir(dir)) != NULL) {
    if (!stg_is_temp_of(f, e->d_name)) continue;
    int fd = openat(f->dir, e->d_name,
                    O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) continue;
    struct stat sb;
    if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) &&
        flock(fd, LOCK_EX | LOCK_NB) == 0 && stg_names(f, e->d_name, fd))
      (void)unlinkat(f->dir, e->d_name, 0);
    close(fd);
  }
  closedir(dir);
}

/* A named temporary file, created exclusively and locked.  A writer that
** removes leftovers may take the lock of a file just created and not yet
** locked: the name is then checked to still be this file after locking,
** and another name tried if not. */
static int stg_create_named(sq_staged *f, sq_status *st) {
  size_t cap = strlen(f->name) + STG_TAG_LEN + STG_RANDOM_LEN + 1;
  char *tmp = sq_alloc(st, cap, 1);
  if (!tmp) return st->code;
  for (int attempt = 0; attempt < 100; attempt++) {
    stg_temp_name(f, tmp);
    int fd = openat(f->dir, tmp,
                    O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd < 0) {
      if (errno == EEXIST) continue;
      int e = errno;
      sqlite3_free(tmp);
      return stg_fail(f, "create a file beside", e, st);
    }
    int locked = flock(fd, LOCK_EX | LOCK_NB) == 0;
    if (!locked && errno == EWOULDBLOCK) {
      close(fd);  /* the remover that holds it unlinks it */
      continue;
    }
    /* A file system without flock: unlocked, but then nobody can take
    ** the lock to remove it either. */
    if (!stg_names(f, tmp, fd)) {
      close(fd);
      continue;
    }
    f->fd = fd;
    f->tmp = tmp;
    return SQ_OK;
  }
  sqlite3_free(tmp);
  return sq_fail(st, "cannot create a file beside '%.200s': every temporary "
                     "name tried exists", f->path);
}

#ifdef O_TMPFILE
/* The /proc link through which an O_TMPFILE file is given a name
** (linkat with AT_EMPTY_PATH needs a capability most processes lack). */
static void stg_proc_path(int fd, char *buf, size_t n) {
  snprintf(buf, n, "/proc/self/fd/%d", fd);
}

/* An unnamed file in the directory, or -1 (errno set) when the file system
** or the kernel has none, or when it could not be given a name later. */
static int stg_create_unnamed(sq_staged *f) {
  int fd = openat(f->dir, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0666);
  if (fd < 0) return -1;
  char proc[64];
  stg_proc_path(fd, proc, sizeof proc);
  struct stat a, b;
  if (fstat(fd, &a) != 0 || stat(proc, &b) != 0 || a.st_ino != b.st_ino ||
      a.st_dev != b.st_dev) {
    close(fd);
    errno = EOPNOTSUPP;
    return -1;
  }
  (void)flock(fd, LOCK_EX | LOCK_NB);
  return fd;
}
#endif

int sq_staged_create(sq_staged *f, sq_status *st) {
  stg_remove_leftovers(f);
#ifdef O_TMPFILE
  int fd = stg_create_unnamed(f);
  if (fd >= 0) {
    f->fd = fd;
    return SQ_OK;
  }
  /* EISDIR: a kernel older than O_TMPFILE; EOPNOTSUPP: a file system
  ** without it.  Any other error a named file would meet too. */
  if (errno != EISDIR && errno != EOPNOTSUPP && errno != EINVAL)
    return stg_fail(f, "create a file beside", errno, st);
#endif
  return stg_create_named(f, st);
}

/* ---- reading and writing ---- */

int sq_staged_pwrite(sq_staged *f, uint64_t at, const void *p, uint64_t n,
                     sq_status *st) {
  const unsigned char *b = p;
  while (n) {
    size_t k = n > ((uint64_t)1 << 30) ? ((size_t)1 << 30) : (size_t)n;
    ssize_t r = pwrite(f->fd, b, k, (off_t)at);
    if (r < 0) {
      if (errno == EINTR) continue;
      return stg_fail(f, "write", errno, st);
    }
    if (r == 0) return stg_fail(f, "write", ENOSPC, st);
    b += r;
    at += (uint64_t)r;
    n -= (uint64_t)r;
  }
  return SQ_OK;
}

static int sq_staged_pread(sq_staged *f, uint64_t at, void *p, uint64_t n,
                           sq_status *st) {
  unsigned char *b = p;
  while (n) {
    size_t k = n > ((uint64_t)1 << 30) ? ((size_t)1 << 30) : (size_t)n;
    ssize_t r = pread(f->fd, b, k, (off_t)at);
    if (r < 0) {
      if (errno == EINTR) continue;
      return stg_fail(f, "write", errno, st);
    }
    if (r == 0) return stg_fail(f, "write", EIO, st);  /* cut short */
    b += r;
    at += (uint64_t)r;
    n -= (uint64_t)r;
  }
  return SQ_OK;
}

/* Up: from the end backwards, so no byte is overwritten before it is
** read; down: from the start.  The file grows by (to - from) at most: the
** disk holds the data once, never two copies. */
int sq_staged_move(sq_staged *f, uint64_t from, uint64_t to, uint64_t n,
                   sq_status *st) {
  if (from == to || n == 0) return SQ_OK;
  uint64_t bsize = STG_MOVE_BUFFER;
  if (bsize > n) bsize = n;
  if (bsize > (uint64_t)st->max_bytes) bsize = (uint64_t)st->max_bytes;
  if (bsize == 0) bsize = 1;
  unsigned char *buf = sq_alloc(st, bsize, 1);
  if (!buf) return st->code;
  uint64_t done = 0;
  while (done < n) {
    uint64_t k = n - done > bsize ? bsize : n - done;
    uint64_t off = to > from ? n - done - k : done;
    if (sq_staged_pread(f, from + off, buf, k, st) ||
        sq_staged_pwrite(f, to + off, buf, k, st))
      break;
    done += k;
  }
  sqlite3_free(buf);
  return st->code;
}

int sq_staged_truncate(sq_staged *f, uint64_t n, sq_status *st) {
  while (ftruncate(f->fd, (off_t)n) != 0) {
    if (errno == EINTR) continue;
    return stg_fail(f, "write", errno, st);
  }
  return SQ_OK;
}

/* ---- sealing and committing ---- */

/* Gives an O_TMPFILE file its temporary name. */
static int stg_link(sq_staged *f, sq_status *st) {
#ifdef O_TMPFILE
  size_t cap = strlen(f->name) + STG_TAG_LEN + STG_RANDOM_LEN + 1;
  char *tmp = sq_alloc(st, cap, 1);
  if (!tmp) return st->code;
  char proc[64];
  stg_proc_path(f->fd, proc, sizeof proc);
  for (int attempt = 0; attempt < 100; attempt++) {
    stg_temp_name(f, tmp);
    if (linkat(f->fd, "", f->dir, tmp, AT_EMPTY_PATH) == 0 ||
        (errno != EEXIST &&
         linkat(AT_FDCWD, proc, f->dir, tmp, AT_SYMLINK_FOLLOW) == 0)) {
      f->tmp = tmp;
      return SQ_OK;
    }
    if (errno != EEXIST) {
      int e = errno;
      sqlite3_free(tmp);
      return stg_fail(f, "write", e, st);
    }
  }
  sqlite3_free(tmp);
  return sq_fail(st, "cannot write '%.200s': every temporary name tried "
                     "exists", f->path);
#else
  return stg_fail(f, "write", EINVAL, st);
#endif
}

int sq_staged_seal(sq_staged *f, sq_status *st) {
  struct stat sb, own;
  if (fstatat(f->dir, f->name, &sb, AT_SYMLINK_NOFOLLOW) == 0 &&
      S_ISDIR(sb.st_mode))
    return stg_fail(f, "replace", EISDIR, st);
  /* The target's permission bits, read through a symbolic link as the
  ** user sees them.  A new file keeps the mode it was created with. */
  if (fstatat(f->dir, f->name, &sb, 0) == 0 && S_ISREG(sb.st_mode)) {
    mode_t want = sb.st_mode & (S_IRWXU | S_IRWXG | S_IRWXO);
    if (fstat(f->fd, &own) != 0) return stg_fail(f, "write", errno, st);
    if ((own.st_mode & 07777) != want && fchmod(f->fd, want) != 0)
      return stg_fail(f, "write", errno, st);
  }
  while (fsync(f->fd) != 0) {
    if (errno == EINTR) continue;
    return stg_fail(f, "write", errno, st);
  }
  if (!f->tmp) return stg_link(f, st);
  return SQ_OK;
}

int sq_staged_commit(sq_staged *f, sq_status *st) {
  if (renameat(f->dir, f->tmp, f->dir, f->name) != 0)
    return stg_fail(f, "replace", errno, st);
  f->committed = 1;
  /* Makes the rename durable (best effort: the file itself is complete
  ** and in place; a directory opened without read access is not). */
  if (f->dir_listable) (void)fsync(f->dir);
  return SQ_OK;
}

void sq_staged_close(sq_staged *f) {
  if (f->tmp && !f->committed && f->dir >= 0) (void)unlinkat(f->dir, f->tmp, 0);
  if (f->fd >= 0) close(f->fd);
  if (f->dir >= 0) close(f->dir);
  sqlite3_free(f->path);
  sqlite3_free(f->name);
  sqlite3_free(f->tmp);
  sq_staged_init(f);
}
#endif /* SQLITE_QUANT_OMIT_FS */
