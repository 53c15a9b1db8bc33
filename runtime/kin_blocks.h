/* kin_blocks.h: the dependent block of Phi_z split by its structural pattern into blocks that are factored and solved apart. */
#ifndef MB_KIN_BLOCKS_H
#define MB_KIN_BLOCKS_H

#include <stddef.h>

#include "mb_model.h"
#include "mb_status.h"

/* A vehicle's loops are coupled to each other only through the independent coordinates (the chassis, the
 * steering input), so its dependent block Phi_z[:, dep] is block diagonal once its rows and columns are grouped:
 * the sedan's 19 x 19 is 5 x 5, 5 x 5 and 9 x 9. The groups are the connected parts of the graph joining every
 * row to the dependent columns it has a structural non-zero in (the model's generated pattern); they are found
 * once per choice of the independent coordinates. A least-squares problem with a block-diagonal matrix splits
 * into one per block, so each block is factored and solved on its own (a square one inverted by Gauss-Jordan with
 * partial pivoting, or by the model's generated code for its declared choice; one with redundant rows by pivoted
 * QR), and a column of R only reaches the blocks whose rows the independent coordinate's column touches. Rows that
 * touch no dependent column (redundant equations in the independent coordinates) belong to no block: their residual
 * is what it is whatever the dependent values. */
typedef struct kin_blocks kin_blocks;

/* The blocks of Phi_z (nc x nz, pattern P; NULL: every entry may be non-zero, one block) for the dependent
 * coordinates dep (rank of them) and the independent ind (dof), for right-hand sides of up to max(dof, 1)
 * columns; lu = 1: square blocks inverted (Gauss-Jordan with partial pivoting), 0: every block by pivoted QR. NULL
 * on failure (message in err). */
kin_blocks *kin_blocks_create(const mb_pattern *P, int nc, int nz, const int *dep, int rank, const int *ind,
                              int dof, int lu, char *err, size_t errlen);
void kin_blocks_free(kin_blocks *kb);

/* Uses the model's generated inversions g (mb_model.h) from the next factorization on when its blocks are these
 * (the same equations and coordinates, every one square and inverted); 1 then, 0 when they do not fit. */
int kin_blocks_use_generated(kin_blocks *kb, const mb_dependent_blocks *g);
/* The generated inversions when the last factorization was theirs (NULL: the runtime's, where a static pivot
 * failed its test or none fit), for their right-hand sides. */
const mb_dependent_blocks *kin_blocks_generated(const kin_blocks *kb);

/* Factors every block of J (nc x nz, column-major) (rank tolerance tol, relative to the block): a square block is
 * inverted, another factored by pivoted QR. *ratio = the smallest last diagonal |R_nn| of the blocks' pivoted QR
 * over the largest first |R_11| (0 when a block is rank deficient): the conditioning test of the choice, as
 * |R_rr / R_11| of one QR of the whole block. For an inverted block |R_11| is its largest column norm and |R_nn|
 * is bounded below from the inverse (|R_nn| >= sigma_min >= 1 / sqrt(|A^-1|_1 |A^-1|_inf)); only where that bound
 * falls below exact_below (the re-selection's threshold) are the inverted blocks factored by QR as well, so the
 * ratio is exact wherever a decision depends on it. */
int kin_blocks_factor(kin_blocks *kb, const double *J, double tol, double exact_below, double *ratio, char *err,
                      size_t errlen);
/* The block of the last factorization with the smallest ratio (a rank-deficient one first): where the
 * choice fails, for messages. */
int kin_blocks_worst(const kin_blocks *kb);

/* Least-squares solution of Phi_z[:, dep] x = b for nrhs right-hand sides: b is nc x nrhs with leading dimension
 * ldb >= max(nc, rank); on return its first rank rows hold x in the order of dep. */
int kin_blocks_solve(kin_blocks *kb, int nrhs, double *b, int ldb, char *err, size_t errlen);

/* The least-norm solution of Phi_z[:, dep]' lambda = g (g: rank values in the order of dep; lambda: nc), block by
 * block; rows in no block get 0. For the constraint forces, Phi_z' lambda = -r restricted to the dependent rows:
 * the whole system when r lies in the range of Phi_z' (Matrix R's accelerations put it there). */
int kin_blocks_solve_transposed(kin_blocks *kb, const double *g, double *lambda, char *err, size_t errlen);

/* The dependent rows of R (nz x dof, column-major): R[dep, c] = -Phi_z[:, dep]^+ Phi_z[:, ind[c]], written only
 * where a block is reached by column ind[c]; the caller has zeroed R and set its identity rows. */
int kin_blocks_R(kin_blocks *kb, const double *J, double *R, char *err, size_t errlen);

/* R's structure (fixed with the choice): column c of R may be non-zero in its identity row ind[c] and in the
 * dependent coordinates rowind[colptr[c] .. colptr[c+1]-1] (coordinate indices, those of the blocks column
 * ind[c] reaches). */
void kin_blocks_R_pattern(const kin_blocks *kb, const int **colptr, const int **rowind);

int kin_blocks_count(const kin_blocks *kb);
/* Rows and dependent columns of block b. */
void kin_blocks_shape(const kin_blocks *kb, int b, int *rows, int *cols);
/* Its constraint rows and its dependent coordinates (indices into z), as many as kin_blocks_shape says. */
void kin_blocks_members(const kin_blocks *kb, int b, const int **rows, const int **coords);

#endif
