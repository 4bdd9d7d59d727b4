/* pattern.h -- what mpi_pattern.c records on rank r, for mpi_check.c. */
#ifndef PATTERN_H
#define PATTERN_H
#define PATTERN_ITERS(r) (3 + (r))         /* "iter", "work", "tick" per rank */
#define PATTERN_ASYNC(r) ((r) % 3 + 1)     /* "async" start/end ranges */
/* rows of /ranges and /marks per rank */
#define PATTERN_RANGES(r) (1 + 2 * PATTERN_ITERS(r) + PATTERN_ASYNC(r))
#define PATTERN_MARKS(r) ((r) + PATTERN_ITERS(r) + 1)
#endif
