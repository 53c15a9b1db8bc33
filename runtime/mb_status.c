/* mb_status.c: names of the status codes and the one helper that writes error messages. */
#include <stdarg.h>
#include <stdio.h>

#include "mb_status.h"

const char *mb_status_name(int status) {
    switch (status) {
    case MB_OK: return "MB_OK";
    case MB_ERR_ARG: return "MB_ERR_ARG";
    case MB_ERR_ALLOC: return "MB_ERR_ALLOC";
    case MB_ERR_SINGULAR: return "MB_ERR_SINGULAR";
    case MB_ERR_NOT_PD: return "MB_ERR_NOT_PD";
    case MB_ERR_NEWTON: return "MB_ERR_NEWTON";
    case MB_ERR_STEP_UNDERFLOW: return "MB_ERR_STEP_UNDERFLOW";
    case MB_ERR_MAX_STEPS: return "MB_ERR_MAX_STEPS";
    case MB_ERR_NAN: return "MB_ERR_NAN";
    case MB_ERR_MODEL: return "MB_ERR_MODEL";
    case MB_ERR_LAPACK: return "MB_ERR_LAPACK";
    case MB_ERR_IO: return "MB_ERR_IO";
    default: return "MB_UNKNOWN";
    }
}

int mb_fail(char *err, size_t errlen, int code, const char *fmt, ...) {
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return code;
}
