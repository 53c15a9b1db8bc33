/* output_csv.h: writes simulation rows (time, coordinates, velocities, energy, points) as CSV. */
#ifndef MB_OUTPUT_CSV_H
#define MB_OUTPUT_CSV_H

#include <stdio.h>

#include "sim.h"

/* Columns, in this order (names from the model):
 *   t, z.NAME for each coordinate, zd.NAME for each velocity,
 *   kinetic, potential, energy            (when the model has an energy function)
 *   POINT.x, POINT.y, POINT.z per point   (when the model has points)
 *   tyre.NAME.Fx .Fy .Fz .kappa .tan_alpha .deflection .x .y .z per tyre (when the model has tyres)
 * Numbers are written with 15 significant digits; one header line, then one
 * row per call. The file is the caller's (opened and closed by it). */
typedef struct mb_csv mb_csv;

/* Allocates the row buffers and writes the header line. NULL on failure. f may be NULL: the rows are
 * then computed and checked but not written, so a run without an output file meets exactly the
 * failures a run with one meets. */
mb_csv *mb_csv_create(FILE *f, const mb_model *m, char *err, size_t errlen);
/* Computes the row of the current state of s (whose model must be the one given at create), fails
 * (MB_ERR_NAN, naming the value) before writing anything when an output is not finite (the state
 * itself always is: mb_sim refuses others), then writes it and flushes the stream, so the file holds
 * every good row whatever happens later. */
int mb_csv_row(mb_csv *c, mb_sim *s, char *err, size_t errlen);
long mb_csv_rows(const mb_csv *c);
void mb_csv_free(mb_csv *c);

#endif
