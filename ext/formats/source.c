/*
** source.c: memory and regular files as the readers' bytes (source.h has
** the rules; docs/FORMATS.md#how-files-are-read).
**
** The file half is the one place the readers open and read files, so it is
** also what SQLITE_QUANT_OMIT_FS leaves out (docs/ARCHITECTURE.md#registration):
** without it a source can only be memory.
*/
#define _POSIX_C_SOURCE 200809L
#include <string.h>
#ifndef SQLITE_QUANT_OMIT_FS
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#endif
#include "formats/source.h"

/* One cached range: a page (len 0, data SQ_SOURCE_PAGE bytes or the file's
** tail) or a span copied whole (len its length). */
struct sq_source_slot {
  uint64_t off, len;
  unsigned char *data;
};

/* How messages name the source. */
static const char *sq_source_name(const sq_source *s) {
  return s->label ? s->label : "the bytes";
}

void sq_source_memory(sq_source *s, const unsigned char *p, uint64_t n) {
  memset(s, 0, sizeof *s);
  s->mem = p;
  s->size = n;
}

void sq_source_end_parse(sq_source *s) {
  for (size_t i = 0; i < s->nslots; i++) sqlite3_free(s->slots[i].data);
  sqlite3_free(s->slots);
  s->slots = NULL;
  s->nslots = s->nused = 0;
  s->cache_bytes = 0;
}

void sq_source_close(sq_source *s) {
  sq_source_end_parse(s);
#ifndef SQLITE_QUANT_OMIT_FS
  if (s->is_file && s->fd >= 0) close(s->fd);
#endif
  sqlite3_free(s->path);  /* label shares its allocation */
  memset(s, 0, sizeof *s);
}

static int sq_source_range(const sq_source *s, uint64_t off, uint64_t len,
                           sq_status *st) {
  if (off > s->size || len > s->size - off)
    return sq_fail(st, "%.200s: bytes %llu..%llu are past the end of its "
                       "%llu bytes", sq_source_name(s),
                   (unsigned long long)off, (unsigned long long)(off + len),
                   (unsigned long long)s->size);
  return SQ_OK;
}

/* ---- files ---- */

#ifndef SQLITE_QUANT_OMIT_FS
const char *sq_errno_words(int e, int writing) {
  switch (e) {
    case ENOENT: return writing ? "no such directory" : "no such file";
    case EACCES: case EPERM: return "permission denied";
    case EISDIR: return "it is a directory";
    case ENOTDIR: return "a part of the path is not a directory";
    case ENAMETOOLONG: return "the path is too long";
    case ELOOP: return "too many symbolic links";
    case EMFILE: case ENFILE: return "too many open files";
    case ENOMEM: return "out of memory";
    case ENXIO: return "no such device or address (a socket?)";
    case EIO: return writing ? "input/output error" : "an input/output error";
    case ENOSPC: return "no space left on the device";
#ifdef EDQUOT
    case EDQUOT: return "disk quota exceeded";
#endif
    case EROFS: return "read-only file system";
    case EFBIG: return "file too large";
    case EBUSY: return "it is busy";
    default: return writing ? "cannot write it" : "cannot read it";
  }
}

static const char *sq_source_kind(mode_t m) {
  if (S_ISDIR(m)) return "a directory";
  if (S_ISFIFO(m)) return "a fifo";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISSOCK(m)) return "a socket";
  return "not a file";
}

int sq_source_open(sq_source *s, const char *path, const char *label,
                   int flags, sq_status *st) {
  memset(s, 0, sizeof *s);
  /* O_NONBLOCK: a fifo opens at once instead of waiting for a writer, so
  ** fstat can refuse it; O_NOCTTY: a terminal never becomes the host's. */
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY |
                          ((flags & SQ_SOURCE_NOFOLLOW) ? O_NOFOLLOW : 0));
  if (fd < 0)
    return sq_fail(st, "cannot open '%.200s': %s", label,
                   sq_errno_words(errno, 0));
  struct stat sb;
  if (fstat(fd, &sb) != 0) {
    int e = errno;
    close(fd);
    return sq_fail(st, "cannot open '%.200s': %s", label,
                   sq_errno_words(e, 0));
  }
  if (!S_ISREG(sb.st_mode)) {
    close(fd);
    return sq_fail(st, "'%.200s' is not a regular file (%s)", label,
                   sq_source_kind(sb.st_mode));
  }
  int fl = fcntl(fd, F_GETFL);
  if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
    int e = errno;
    close(fd);
    return sq_fail(st, "cannot open '%.200s': %s", label,
                   sq_errno_words(e, 0));
  }
  size_t plen = strlen(path), llen = strlen(label);
  char *names = sq_alloc_internal(st, (uint64_t)plen + llen + 2, 1);
  if (!names) {
    close(fd);
    return st->code;
  }
  memcpy(names, path, plen + 1);
  memcpy(names + plen + 1, label, llen + 1);
  s->is_file = 1;
  s->fd = fd;
  s->path = names;
  s->label = names + plen + 1;
  s->model_path = s->path;
  s->size = (uint64_t)sb.st_size;
  s->mtime_s = (int64_t)sb.st_mtim.tv_sec;
  s->mtime_ns = (int64_t)sb.st_mtim.tv_nsec;
  s->ctime_s = (int64_t)sb.st_ctim.tv_sec;
  s->ctime_ns = (int64_t)sb.st_ctim.tv_nsec;
  return SQ_OK;
}

/* After a read: the file must still be what was opened (rule 2); short
** says the read ended early. */
static int sq_source_same(sq_source *s, int short_read, sq_status *st) {
  struct stat sb;
  if (fstat(s->fd, &sb) != 0)
    return sq_fail(st, "cannot read '%.200s': %s", s->label,
                   sq_errno_words(errno, 0));
  uint64_t now = (uint64_t)sb.st_size;
  if (short_read || now != s->size)
    return sq_fail(st, "'%.200s' changed while it was read (it is now %llu "
                       "bytes, was %llu)", s->label, (unsigned long long)now,
                   (unsigned long long)s->size);
  /* A write changes mtime; ctime changes with it, and also when a writer
  ** sets mtime back (rsync --inplace --times).  But ctime also changes when
  ** the file is unlinked, as a rename over its path does: then nothing can
  ** reach it by its name, and that replacement is read to the end. */
  int mtime = (int64_t)sb.st_mtim.tv_sec != s->mtime_s ||
              (int64_t)sb.st_mtim.tv_nsec != s->mtime_ns;
  int ctime = (int64_t)sb.st_ctim.tv_sec != s->ctime_s ||
              (int64_t)sb.st_ctim.tv_nsec != s->ctime_ns;
  if (mtime || (ctime && sb.st_nlink != 0))
    return sq_fail(st, "'%.200s' changed while it was read (it is still "
                       "%llu bytes, but was modified)", s->label,
                   (unsigned long long)now);
  return SQ_OK;
}

static int sq_source_pread(sq_source *s, uint64_t off, uint64_t len,
                           unsigned char *out, sq_status *st) {
  uint64_t got = 0;
  if (off > (uint64_t)INT64_MAX - len)
    return sq_fail(st, "cannot read '%.200s': offset %llu is too large",
                   s->label, (unsigned long long)off);
  while (got < len) {
    size_t want = len - got > ((uint64_t)1 << 30) ? ((size_t)1 << 30)
                                                  : (size_t)(len - got);
    ssize_t k = pread(s->fd, out + got, want, (off_t)(off + got));
    if (k < 0 && errno == EINTR) continue;
    if (k < 0)
      return sq_fail(st, "cannot read '%.200s': %s", s->label,
                     sq_errno_words(errno, 0));
    if (k == 0) break;
    got += (uint64_t)k;
  }
  s->bytes_read += got;
  s->reads++;
  return sq_source_same(s, got < len, st);
}
#endif /* SQLITE_QUANT_OMIT_FS */

int sq_source_read(sq_source *s, uint64_t off, uint64_t len,
                   unsigned char *out, sq_status *st) {
  if (sq_source_range(s, off, len, st)) return st->code;
  if (len == 0) return SQ_OK;
#ifndef SQLITE_QUANT_OMIT_FS
  if (s->is_file) return sq_source_pread(s, off, len, out, st);
#endif
  memcpy(out, s->mem + off, (size_t)len);
  return SQ_OK;
}

/* ---- the parse's cache ---- */

static size_t sq_source_hash(uint64_t off, uint64_t len, size_t mask) {
  uint64_t h = (off ^ (len * 0xC2B2AE3D27D4EB4Full)) * 0x9E3779B97F4A7C15ull;
  return (size_t)(h >> 32) & mask;
}

/* The slot of (off, len), or the empty one where it would go. */
static sq_source_slot *sq_source_find(sq_source *s, uint64_t off,
                                      uint64_t len) {
  size_t mask = s->nslots - 1, i = sq_source_hash(off, len, mask);
  while (s->slots[i].data &&
         !(s->slots[i].off == off && s->slots[i].len == len))
    i = (i + 1) & mask;
  return &s->slots[i];
}

/* Room for one more slot (the table stays at most half full). */
static int sq_source_grow(sq_source *s, sq_status *st) {
  if (s->nslots && (s->nused + 1) * 2 <= s->nslots) return SQ_OK;
  size_t n = s->nslots ? s->nslots * 2 : 64;
  sq_source_slot *old = s->slots;
  size_t nold = s->nslots;
  sq_source_slot *t = sq_alloc_internal(st, n, sizeof *t);
  if (!t) return st->code;
  memset(t, 0, n * sizeof *t);
  s->slots = t;
  s->nslots = n;
  for (size_t i = 0; i < nold; i++)
    if (old[i].data) *sq_source_find(s, old[i].off, old[i].len) = old[i];
  sqlite3_free(old);
  return SQ_OK;
}

/* bytes more in the cache, within rule 4's bound. */
static int sq_source_charge(sq_source *s, uint64_t bytes, sq_status *st) {
  uint64_t most = SQ_SOURCE_CACHE_PER_BYTE * s->size + SQ_SOURCE_CACHE_FIXED;
  if (bytes > most - s->cache_bytes)
    return sq_fail(st, "'%.200s': reading its structure would hold more than "
                       "%llu bytes in memory (%u per byte of the %llu-byte "
                       "file, plus %u)", sq_source_name(s),
                   (unsigned long long)most, SQ_SOURCE_CACHE_PER_BYTE,
                   (unsigned long long)s->size, SQ_SOURCE_CACHE_FIXED);
  s->cache_bytes += bytes;
  return SQ_OK;
}

/* The cached copy of [off, off + len) (len 0: the page at off), read now
** if it is not there yet. */
static const unsigned char *sq_source_cached(sq_source *s, uint64_t off,
                                             uint64_t len, sq_status *st) {
  if (sq_source_grow(s, st)) return NULL;
  sq_source_slot *slot = sq_source_find(s, off, len);
  if (slot->data) return slot->data;
  uint64_t n = len ? len : (s->size - off < SQ_SOURCE_PAGE ? s->size - off
                                                            : SQ_SOURCE_PAGE);
  if (sq_source_charge(s, n, st)) return NULL;
  unsigned char *d = sq_alloc_internal(st, n, 1);
  if (!d) return NULL;
  if (sq_source_read(s, off, n, d, st)) {
    sqlite3_free(d);
    return NULL;
  }
  slot->off = off;
  slot->len = len;
  slot->data = d;
  s->nused++;
  return d;
}

const unsigned char *sq_source_span(sq_source *s, uint64_t off, uint64_t len,
                                    sq_status *st) {
  if (sq_source_range(s, off, len, st)) return NULL;
  if (!s->is_file) return s->mem ? s->mem + off : (const unsigned char *)"";
  if (len == 0) return (const unsigned char *)"";
  uint64_t page = off / SQ_SOURCE_PAGE * SQ_SOURCE_PAGE;
  if (off + len <= page + SQ_SOURCE_PAGE) {
    const unsigned char *p = sq_source_cached(s, page, 0, st);
    return p ? p + (off - page) : NULL;
  }
  return sq_source_cached(s, off, len, st);
}

/* ---- windows ---- */

const unsigned char *sq_window_get(sq_window *w, sq_source *s, uint64_t off,
                                   size_t len, sq_status *st) {
  if (sq_source_range(s, off, len, st)) return NULL;
  if (!s->is_file) return s->mem ? s->mem + off : (const unsigned char *)"";
  if (len > SQ_WINDOW_SIZE) {
    sq_fail(st, "%.200s: a window of %zu bytes was asked for",
            sq_source_name(s), len);
    return NULL;
  }
  if (w->buf && off >= w->start && off - w->start <= w->len &&
      len <= w->len - (off - w->start))
    return w->buf + (off - w->start);
  if (!w->buf && !(w->buf = sq_alloc_internal(st, SQ_WINDOW_SIZE, 1)))
    return NULL;
  /* Going on from the window: read more at a time; jumping: a little. */
  int on = w->len && off >= w->start && off - w->start <= w->len;
  size_t n = on ? 2 * w->len : SQ_WINDOW_FIRST;
  if (n > SQ_WINDOW_SIZE) n = SQ_WINDOW_SIZE;
  if (n < len) n = len;
  if (n > s->size - off) n = (size_t)(s->size - off);
  w->len = 0;
  if (sq_source_read(s, off, n, w->buf, st)) return NULL;
  w->start = off;
  w->len = n;
  return w->buf;
}

void sq_window_free(sq_window *w) {
  sqlite3_free(w->buf);
  memset(w, 0, sizeof *w);
}
