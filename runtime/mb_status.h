/* mb_status.h: the status codes every runtime call returns, and the message-buffer convention. */
#ifndef MB_STATUS_H
#define MB_STATUS_H

#include <stddef.h>

/* Every runtime function that can fail returns one of these (MB_OK = 0, errors
 * negative, so `if (rc)` and `if (rc < 0)` both test for failure). Functions
 * that can fail also take `char *err, size_t errlen`: on failure they write one
 * human-readable line there (no trailing newline, always NUL-terminated when
 * errlen > 0; err may be NULL to discard it). Objects such as mb_sim keep their
 * own buffer and hand it out through an accessor, as sqlite3_errmsg does. */
typedef enum {
    MB_OK = 0,
    MB_ERR_ARG = -1,             /* bad argument: NULL, size, NaN/inf value, unknown name */
    MB_ERR_ALLOC = -2,           /* out of memory (only at create time) */
    MB_ERR_SINGULAR = -3,        /* a matrix is singular (or numerically rank deficient) */
    MB_ERR_NOT_PD = -4,          /* a matrix that must be symmetric positive definite is not */
    MB_ERR_NEWTON = -5,          /* Newton-Raphson did not converge */
    MB_ERR_STEP_UNDERFLOW = -6,  /* the adaptive step size fell below its limit */
    MB_ERR_MAX_STEPS = -7,       /* more steps than allowed */
    MB_ERR_NAN = -8,             /* a NaN or infinity appeared in a computed value */
    MB_ERR_MODEL = -9,           /* the model lacks a function the requested method needs */
    MB_ERR_LAPACK = -10,         /* LAPACK rejected an argument (a bug in the caller) */
    MB_ERR_IO = -11              /* writing output failed */
} mb_status;

/* Recommended size of a message buffer; messages longer than this are cut. */
#define MB_ERRLEN 512

/* The symbolic name of a status ("MB_ERR_NEWTON"), "MB_UNKNOWN" otherwise. */
const char *mb_status_name(int status);

/* Writes a printf-style message into err (if err and errlen) and returns code,
 * so a failing branch reads `return mb_fail(err, errlen, MB_ERR_ARG, "...", x);`. */
int mb_fail(char *err, size_t errlen, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

#endif
