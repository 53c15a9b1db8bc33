/* ref_selftest.c: the reference oracle (ref_tree.h) checked against itself, finite differences and closed forms. */
#include <stdio.h>
#include <string.h>
#include "tap.h"
#include "ref_tree.h"

#define NMAX 24      /* largest random tree */
#define NSTATES 3    /* random states per tree */

static double maxdiff(int n, const double *a, const double *b) {
    double m = 0;
    for (int i = 0; i < n; ++i) m = fmax(m, fabs(a[i] - b[i]));
    return m;
}

static void random_state(struct ref_rng *g, int n, double *z, double *zd, double *zdd) {
    for (int i = 0; i < n; ++i) {
        z[i] = ref_rng_uniform(g, -3.14, 3.14);
        zd[i] = ref_rng_uniform(g, -2, 2);
        zdd[i] = ref_rng_uniform(g, -3, 3);
    }
}

/* The worst errors of one family of random trees, each relative to the size of what it compares. */
struct worst {
    int not_spd, not_symmetric, aba_failed;
    double id_linear, m_by_fd, aba_inverts_id, aba_vs_cholesky, kinetic, power_free, power_driven, gravity_grad,
        velocity_fk;
};

/* Solves (L L^T) x = b in place. */
static void cholesky_solve(int n, const double *L, double *x) {
    for (int i = 0; i < n; ++i) {
        for (int k = 0; k < i; ++k) x[i] -= L[i * n + k] * x[k];
        x[i] /= L[i * n + i];
    }
    for (int i = n - 1; i >= 0; --i) {
        for (int k = i + 1; k < n; ++k) x[i] -= L[k * n + i] * x[k];
        x[i] /= L[i * n + i];
    }
}

/* d/dt of kinetic and potential energy at t = 0 along z(t) = z + t zd + t^2/2 zdd, zd(t) = zd + t zdd
 * (exact to first order in t, which is all the derivative at 0 sees), by the 4-point central stencil;
 * h = 2e-4 balances its h^4 truncation (3e-8 at h = 1e-3) against rounding (~1e-10). */
static void energy_rate(const struct ref_tree *t, const double *z, const double *zd, const double *zdd,
                        double rate[2]) {
    const double h = 2e-4, w[4] = { 1, -8, 8, -1 }, s[4] = { -2, -1, 1, 2 };
    double zz[REF_MAX], vv[REF_MAX], E[2];
    rate[0] = rate[1] = 0;
    for (int k = 0; k < 4; ++k) {
        double tt = s[k] * h;
        for (int i = 0; i < t->n; ++i) {
            zz[i] = z[i] + tt * zd[i] + 0.5 * tt * tt * zdd[i];
            vv[i] = zd[i] + tt * zdd[i];
        }
        ref_energy(t, zz, vv, E);
        rate[0] += w[k] * E[0] / (12 * h);
        rate[1] += w[k] * E[1] / (12 * h);
    }
}

/* |d(T+V)/dt - zd.tau| relative to the largest of the three rates, for the accelerations zdd. */
static double power_error(const struct ref_tree *t, const double *z, const double *zd, const double *zdd,
                          const double *tau) {
    double rate[2], P = 0;
    energy_rate(t, z, zd, zdd, rate);
    for (int i = 0; i < t->n; ++i) P += zd[i] * tau[i];
    double scale = fmax(1, fmax(fabs(rate[0]), fmax(fabs(rate[1]), fabs(P))));
    return fabs(rate[0] + rate[1] - P) / scale;
}

static void check_tree(const struct ref_tree *t, struct ref_rng *g, struct worst *w) {
    int n = t->n;
    double z[REF_MAX], zd[REF_MAX], zdd[REF_MAX], M[NMAX * NMAX], L[NMAX * NMAX];
    double id[REF_MAX], id0[REF_MAX], Mzdd[REF_MAX], x[REF_MAX], Q[REF_MAX], tau[REF_MAX];
    for (int st = 0; st < NSTATES; ++st) {
        random_state(g, n, z, zd, zdd);
        ref_mass_matrix(t, z, M);

        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j)
                if (M[i * n + j] != M[j * n + i]) w->not_symmetric++;
        if (ref_cholesky(n, M, L) != 0) { w->not_spd++; continue; }

        /* ID is affine in zdd with slope M: RNEA against CRBA */
        ref_inverse_dynamics(t, z, zd, zdd, id);
        {
            double zero[REF_MAX] = { 0 };
            ref_inverse_dynamics(t, z, zd, zero, id0);
        }
        for (int i = 0; i < n; ++i) {
            Mzdd[i] = 0;
            for (int j = 0; j < n; ++j) Mzdd[i] += M[i * n + j] * zdd[j];
            x[i] = id[i] - id0[i];
        }
        {
            double scale = fmax(1, fmax(max_abs(id, n), fmax(max_abs(id0, n), max_abs(Mzdd, n))));
            w->id_linear = fmax(w->id_linear, maxdiff(n, x, Mzdd) / scale);
        }

        /* M column by column from central differences of ID in zdd (exact but for rounding: ID is linear) */
        for (int j = 0; j < n; ++j) {
            double zp[REF_MAX], zm[REF_MAX], ip[REF_MAX], im[REF_MAX], col[REF_MAX], Mj[REF_MAX];
            memcpy(zp, zdd, n * sizeof *zp);
            memcpy(zm, zdd, n * sizeof *zm);
            zp[j] += 1; zm[j] -= 1;
            ref_inverse_dynamics(t, z, zd, zp, ip);
            ref_inverse_dynamics(t, z, zd, zm, im);
            for (int i = 0; i < n; ++i) { col[i] = 0.5 * (ip[i] - im[i]); Mj[i] = M[i * n + j]; }
            double scale = fmax(1, fmax(max_abs(ip, n), max_abs(im, n)));
            w->m_by_fd = fmax(w->m_by_fd, maxdiff(n, col, Mj) / scale);
        }

        /* ABA inverts RNEA */
        if (ref_forward_dynamics(t, z, zd, id, x) != 0) { w->aba_failed++; continue; }
        w->aba_inverts_id = fmax(w->aba_inverts_id, maxdiff(n, x, zdd) / fmax(1, max_abs(zdd, n)));

        /* ABA against M^-1 (Q + tau) through Cholesky, for a random tau */
        ref_forces(t, z, zd, Q);
        for (int i = 0; i < n; ++i) tau[i] = ref_rng_uniform(g, -5, 5);
        {
            double y[REF_MAX];
            for (int i = 0; i < n; ++i) y[i] = Q[i] + tau[i];
            cholesky_solve(n, L, y);
            if (ref_forward_dynamics(t, z, zd, tau, x) != 0) { w->aba_failed++; continue; }
            w->aba_vs_cholesky = fmax(w->aba_vs_cholesky, maxdiff(n, x, y) / fmax(1, max_abs(y, n)));
        }

        /* kinetic energy from body velocities against the quadratic form of M */
        {
            double E[2], T = 0;
            ref_energy(t, z, zd, E);
            for (int i = 0; i < n; ++i)
                for (int j = 0; j < n; ++j) T += 0.5 * zd[i] * M[i * n + j] * zd[j];
            w->kinetic = fmax(w->kinetic, fabs(E[0] - T) / fmax(1, fabs(T)));
        }

        /* power balance along the motion: d(T+V)/dt = zd . tau, free (tau = 0) and driven */
        for (int driven = 0; driven < 2; ++driven) {
            double zero[REF_MAX] = { 0 };
            const double *tt = driven ? tau : zero;
            if (ref_forward_dynamics(t, z, zd, tt, x) != 0) { w->aba_failed++; break; }
            double err = power_error(t, z, zd, x, tt);
            if (driven) w->power_driven = fmax(w->power_driven, err);
            else w->power_free = fmax(w->power_free, err);
        }

        /* at rest Q is gravity alone: Q(z, 0) = -dV/dz */
        {
            double zero[REF_MAX] = { 0 }, Qg[REF_MAX], grad[REF_MAX], zz[REF_MAX], Ep[2], Em[2];
            const double h = 1e-6;
            ref_forces(t, z, zero, Qg);
            memcpy(zz, z, n * sizeof *zz);
            for (int j = 0; j < n; ++j) {
                zz[j] = z[j] + h; ref_energy(t, zz, zero, Ep);
                zz[j] = z[j] - h; ref_energy(t, zz, zero, Em);
                zz[j] = z[j];
                grad[j] = -(Ep[1] - Em[1]) / (2 * h);
            }
            w->gravity_grad = fmax(w->gravity_grad, maxdiff(n, Qg, grad) / fmax(1, max_abs(Qg, n)));
        }

        /* the velocity recursion against differentiated forward kinematics (world COM velocity, omega) */
        {
            double v[REF_MAX][6], R[REF_MAX][9], p[REF_MAX][3], Rp[REF_MAX][9], pp[REF_MAX][3], Rm[REF_MAX][9],
                pm[REF_MAX][3], zz[REF_MAX];
            const double h = 1e-6;
            ref_velocities(t, z, zd, v);
            ref_fk(t, z, R, p);
            for (int i = 0; i < n; ++i) zz[i] = z[i] + h * zd[i];
            ref_fk(t, zz, Rp, pp);
            for (int i = 0; i < n; ++i) zz[i] = z[i] - h * zd[i];
            ref_fk(t, zz, Rm, pm);
            for (int b = 0; b < n; ++b) {
                double Rd[9], Rt[9], W[9], wfd[3], vfd[3], cp[3], cm[3], wb[3], vc[3], vcw[3], ww[3];
                for (int k = 0; k < 9; ++k) Rd[k] = (Rp[b][k] - Rm[b][k]) / (2 * h);
                ref_m3t(R[b], Rt);
                ref_m3m(Rd, Rt, W);  /* dR/dt R^T = skew(omega in world) */
                wfd[0] = W[7]; wfd[1] = W[2]; wfd[2] = W[3];
                ref_m3v(Rp[b], t->com[b], cp);
                ref_m3v(Rm[b], t->com[b], cm);
                for (int k = 0; k < 3; ++k) vfd[k] = (pp[b][k] + cp[k] - pm[b][k] - cm[k]) / (2 * h);
                ref_cross(v[b], t->com[b], wb);  /* COM velocity in body coordinates: v + w x c */
                for (int k = 0; k < 3; ++k) vc[k] = v[b][3 + k] + wb[k];
                ref_m3v(R[b], vc, vcw);
                ref_m3v(R[b], v[b], ww);
                double e = fmax(maxdiff(3, wfd, ww), maxdiff(3, vfd, vcw)) / fmax(1, fmax(max_abs(ww, 3), max_abs(vcw, 3)));
                w->velocity_fk = fmax(w->velocity_fk, e);
            }
        }
    }
}

static void check_family(int shape, const char *label) {
    struct worst w;
    memset(&w, 0, sizeof w);
    for (int n = 1; n <= NMAX; ++n) {
        struct ref_tree t;
        struct ref_rng g;
        ref_random_tree(&t, n, 1000u * (unsigned)shape + (unsigned)n, shape);
        ref_rng_seed(&g, 77u + (unsigned)n);
        check_tree(&t, &g, &w);
    }
    int count = NMAX * NSTATES;
    is_int(w.not_symmetric, 0, "%s: M exactly symmetric (%d states, n = 1..%d)", label, count, NMAX);
    is_int(w.not_spd, 0, "%s: M positive definite (Cholesky)", label);
    is_int(w.aba_failed, 0, "%s: ABA pivots all positive", label);
    ok(w.id_linear <= 1e-12, "%s: ID(zdd) - ID(0) = M zdd, max rel err %.2e <= 1e-12", label, w.id_linear);
    ok(w.m_by_fd <= 1e-12, "%s: M = dID/dzdd by differences, max rel err %.2e <= 1e-12", label, w.m_by_fd);
    ok(w.aba_inverts_id <= 1e-10, "%s: ABA(ID(zdd)) = zdd, max rel err %.2e <= 1e-10", label, w.aba_inverts_id);
    ok(w.aba_vs_cholesky <= 1e-10, "%s: ABA = M^-1 (Q + tau), max rel err %.2e <= 1e-10", label, w.aba_vs_cholesky);
    ok(w.kinetic <= 1e-12, "%s: T = zd' M zd / 2, max rel err %.2e <= 1e-12", label, w.kinetic);
    ok(w.power_free <= 1e-8, "%s: free motion d(T+V)/dt = 0, max rel err %.2e <= 1e-8", label, w.power_free);
    ok(w.power_driven <= 1e-8, "%s: driven motion d(T+V)/dt = zd.tau, max rel err %.2e <= 1e-8", label,
       w.power_driven);
    ok(w.gravity_grad <= 1e-7, "%s: Q(z, 0) = -dV/dz, max rel err %.2e <= 1e-7", label, w.gravity_grad);
    ok(w.velocity_fk <= 1e-7, "%s: body velocities = d/dt FK, max rel err %.2e <= 1e-7", label, w.velocity_fk);
}

static void check_generator(void) {
    struct ref_rng g;
    ref_rng_seed(&g, 1);
    uint64_t a = ref_rng_next(&g), b = ref_rng_next(&g), c = ref_rng_next(&g);
    /* pinned: the stream is integer arithmetic only, so these hold on every machine */
    ok(a == 0x4b46a55df3611b9bull && b == 0xd7e1f1410e763ef4ull && c == 0x5f14ec66975f9b06ull, "xorshift64* stream of seed 1 is pinned (%016llx %016llx %016llx)",
       (unsigned long long)a, (unsigned long long)b, (unsigned long long)c);

    struct ref_tree t1, t2;
    ref_random_tree(&t1, 17, 99, REF_BRANCHED);
    ref_random_tree(&t2, 17, 99, REF_BRANCHED);
    ok(memcmp(&t1, &t2, sizeof t1) == 0, "same seed, same tree (bitwise)");
    ref_random_tree(&t2, 17, 100, REF_BRANCHED);
    ok(memcmp(&t1, &t2, sizeof t1) != 0, "another seed, another tree");

    int bad_parent = 0, bad_axis = 0, bad_rot = 0, bad_inertia = 0, prismatic = 0, revolute = 0, branched_trees = 0;
    double worst_orth = 0;
    for (int shape = 0; shape < 2; ++shape)
        for (int n = 1; n <= NMAX; ++n) {
            struct ref_tree t;
            int children[REF_MAX + 1] = { 0 };  /* index 0 is the ground */
            ref_random_tree(&t, n, 1000u * (unsigned)shape + (unsigned)n, shape);
            for (int i = 0; i < n; ++i) {
                if (t.parent[i] < -1 || t.parent[i] >= i) bad_parent++;
                if (shape == REF_CHAIN && t.parent[i] != i - 1) bad_parent++;
                children[t.parent[i] + 1]++;
                if (fabs(ref_dot3(t.axis[i], t.axis[i]) - 1) > 1e-15) bad_axis++;
                t.kind[i] == REF_PRISMATIC ? prismatic++ : revolute++;
                double RtR[9], Rt[9], *R = t.rotation[i];
                ref_m3t(R, Rt);
                ref_m3m(Rt, R, RtR);
                for (int k = 0; k < 9; ++k) worst_orth = fmax(worst_orth, fabs(RtR[k] - (k % 4 == 0)));
                double det = R[0] * (R[4] * R[8] - R[5] * R[7]) - R[1] * (R[3] * R[8] - R[5] * R[6]) +
                             R[2] * (R[3] * R[7] - R[4] * R[6]);
                if (fabs(det - 1) > 1e-14) bad_rot++;
                double *I = t.inertia[i], L[9];
                if (I[1] != I[3] || I[2] != I[6] || I[5] != I[7]) bad_inertia++;
                if (ref_cholesky(3, I, L) != 0) bad_inertia++;
                /* strict triangle inequality of the principal moments <=> the second-moment matrix
                 * (tr I / 2) 1 - I = ∫ r r^T dm is positive definite */
                double tr = I[0] + I[4] + I[8], Sg[9];
                for (int k = 0; k < 9; ++k) Sg[k] = (k % 4 == 0 ? tr / 2 : 0) - I[k];
                if (ref_cholesky(3, Sg, L) != 0) bad_inertia++;
                if (!(t.mass[i] > 0)) bad_inertia++;
            }
            int forks = 0;
            for (int k = 0; k <= n; ++k) forks += children[k] >= 2;
            if (shape == REF_BRANCHED && forks >= 2) branched_trees++;
        }
    is_int(bad_parent, 0, "random trees: parent < child, chains are chains");
    is_int(bad_axis, 0, "random trees: axes unit to 1e-15");
    ok(worst_orth <= 4e-15 && bad_rot == 0, "random trees: rotations orthonormal (%.1e) and proper", worst_orth);
    is_int(bad_inertia, 0, "random trees: inertias symmetric, positive definite, triangle inequality; masses > 0");
    ok(prismatic > 20 && revolute > prismatic, "random trees mix joints (%d revolute, %d prismatic)",
       revolute, prismatic);
    ok(branched_trees >= 15, "random trees: %d of %d 'branched' trees fork at two or more places", branched_trees,
       NMAX);
}

/* Two bodies with a hand-computed pose: rotation, origin, revolute about x, then a prismatic child. */
static void check_fk_by_hand(void) {
    struct ref_tree t;
    memset(&t, 0, sizeof t);
    t.n = 2;
    t.parent[0] = -1; t.parent[1] = 0;
    t.kind[0] = REF_REVOLUTE; t.kind[1] = REF_PRISMATIC;
    const double Rz90[9] = { 0, -1, 0, 1, 0, 0, 0, 0, 1 }, I3[9] = { 1, 0, 0, 0, 1, 0, 0, 0, 1 };
    memcpy(t.rotation[0], Rz90, sizeof Rz90);
    memcpy(t.rotation[1], I3, sizeof I3);
    t.origin[0][0] = 1; t.origin[0][1] = 2; t.origin[0][2] = 3;
    t.origin[1][2] = 1;
    t.axis[0][0] = 1;
    t.axis[1][1] = 1;
    double z[2] = { acos(-1) / 2, 0.5 }, at[3] = { 0, 0, 1 }, o[3] = { 0, 0, 0 }, got[3];
    /* body 0: Rz90 * Rx90 * (0,0,1) = Rz90 * (0,-1,0) = (1,0,0), plus the origin (1,2,3) */
    ref_point(&t, z, 0, at, got);
    ok(fabs(got[0] - 2) < 1e-15 && fabs(got[1] - 2) < 1e-15 && fabs(got[2] - 3) < 1e-15,
       "FK by hand: revolute in a rotated joint frame (%.17g %.17g %.17g)", got[0], got[1], got[2]);
    /* body 1 origin: (1,2,3) + Rz90 Rx90 ((0,0,1) + 0.5 (0,1,0)) = (1,2,3) + (1,0,0.5) */
    ref_point(&t, z, 1, o, got);
    ok(fabs(got[0] - 2) < 1e-15 && fabs(got[1] - 2) < 1e-15 && fabs(got[2] - 3.5) < 1e-15,
       "FK by hand: prismatic child slides along its joint axis (%.17g %.17g %.17g)", got[0], got[1], got[2]);
    ref_point(&t, z, -1, at, got);
    ok(got[0] == 0 && got[1] == 0 && got[2] == 1, "FK: body -1 is the ground");
}

/* Planar double pendulum about z in relative angles (z2 measured from link 1), closed form.
 * Link k's COM sits at distance ck along the link, link 1 has length l1 (the elbow); Ik about the COM (z).
 * down = 1: angles from hanging straight down, gravity -y (digest 004 §8.2);
 * down = 0: angles from +x, gravity -y (digest 001 T5). */
struct dp { double m1, m2, l1, c1, c2, I1, I2, g; int down; };

static void dp_closed_form(const struct dp *d, const double z[2], const double zd[2], double M[4], double Q[2]) {
    double c2 = cos(z[1]), s2 = sin(z[1]);
    double k = d->m2 * d->l1 * d->c2;
    M[0] = d->I1 + d->m1 * d->c1 * d->c1 + d->I2 + d->m2 * (d->l1 * d->l1 + d->c2 * d->c2) + 2 * k * c2;
    M[1] = M[2] = d->I2 + d->m2 * d->c2 * d->c2 + k * c2;
    M[3] = d->I2 + d->m2 * d->c2 * d->c2;
    /* velocity products h (M zdd + h + dV/dz = 0) */
    double h1 = -k * s2 * (2 * zd[0] * zd[1] + zd[1] * zd[1]);
    double h2 = k * s2 * zd[0] * zd[0];
    /* V = g (m1 y1 + m2 y2): down: y = -c cos(angle); from +x: y = c sin(angle) */
    double a1 = z[0], a12 = z[0] + z[1], dV1, dV2;
    if (d->down) {
        dV1 = d->g * ((d->m1 * d->c1 + d->m2 * d->l1) * sin(a1) + d->m2 * d->c2 * sin(a12));
        dV2 = d->g * d->m2 * d->c2 * sin(a12);
    } else {
        dV1 = d->g * ((d->m1 * d->c1 + d->m2 * d->l1) * cos(a1) + d->m2 * d->c2 * cos(a12));
        dV2 = d->g * d->m2 * d->c2 * cos(a12);
    }
    Q[0] = -h1 - dV1;
    Q[1] = -h2 - dV2;
}

static void dp_tree(const struct dp *d, struct ref_tree *t) {
    memset(t, 0, sizeof *t);
    t->n = 2;
    t->parent[0] = -1; t->parent[1] = 0;
    for (int i = 0; i < 2; ++i) {
        t->kind[i] = REF_REVOLUTE;
        t->axis[i][2] = 1;
        t->rotation[i][0] = t->rotation[i][4] = t->rotation[i][8] = 1;
    }
    int dir = d->down ? 1 : 0;                 /* links along -y or +x in their body frames */
    double sgn = d->down ? -1 : 1;
    t->origin[1][dir] = sgn * d->l1;
    t->com[0][dir] = sgn * d->c1;
    t->com[1][dir] = sgn * d->c2;
    t->mass[0] = d->m1; t->mass[1] = d->m2;
    /* planar motion sees only Izz; the in-plane moments keep the 3-D tensor physical */
    t->inertia[0][8] = d->I1; t->inertia[0][4] = d->I1;
    t->inertia[1][8] = d->I2; t->inertia[1][4] = d->I2;
    t->gravity[1] = -d->g;
}

static void check_double_pendulum(void) {
    /* 004 §8.2 (point masses, angles from down) with unequal data, several states */
    const struct dp pm = { 1.1, 0.9, 1.3, 1.3, 0.7, 0, 0, 9.81, 1 };
    const struct dp bar = { 1, 1, 1, 0.5, 0.5, 1.0 / 12, 1.0 / 12, 9.81, 0 };
    const double states[4][4] = { { acos(-1) / 6, 0, 0, 0 }, { 0.3, 0.5, 1, -2 }, { -2.1, 1.7, -0.4, 3.3 },
                                  { 2.9, -3.0, 2.5, 0.7 } };
    double wM = 0, wQ = 0, wMb = 0, wQb = 0, wA = 0;
    for (int s = 0; s < 4; ++s)
        for (int which = 0; which < 2; ++which) {
            const struct dp *d = which ? &bar : &pm;
            struct ref_tree t;
            double z[2] = { states[s][0], states[s][1] }, zd[2] = { states[s][2], states[s][3] };
            double M[4], Q[2], Mc[4], Qc[2], zdd[2], tau0[2] = { 0, 0 };
            dp_tree(d, &t);
            ref_mass_matrix(&t, z, M);
            ref_forces(&t, z, zd, Q);
            dp_closed_form(d, z, zd, Mc, Qc);
            double eM = maxdiff(4, M, Mc), eQ = maxdiff(2, Q, Qc) / fmax(1, max_abs(Qc, 2));
            if (which) { wMb = fmax(wMb, eM); wQb = fmax(wQb, eQ); }
            else { wM = fmax(wM, eM); wQ = fmax(wQ, eQ); }
            /* and forward dynamics against the 2x2 solve of the closed form */
            ref_forward_dynamics(&t, z, zd, tau0, zdd);
            double det = Mc[0] * Mc[3] - Mc[1] * Mc[2];
            double x0 = (Mc[3] * Qc[0] - Mc[1] * Qc[1]) / det, x1 = (Mc[0] * Qc[1] - Mc[2] * Qc[0]) / det;
            wA = fmax(wA, fmax(fabs(zdd[0] - x0), fabs(zdd[1] - x1)) / fmax(1, fmax(fabs(x0), fabs(x1))));
        }
    ok(wM <= 1e-14, "double pendulum, point masses, angles from down: M = closed form, max abs err %.2e <= 1e-14", wM);
    ok(wQ <= 1e-14, "double pendulum, point masses: Q = closed form, max rel err %.2e <= 1e-14", wQ);
    ok(wMb <= 1e-14, "double pendulum, bars, angles from +x: M = closed form, max abs err %.2e <= 1e-14", wMb);
    ok(wQb <= 1e-14, "double pendulum, bars: Q = closed form, max rel err %.2e <= 1e-14", wQb);
    ok(wA <= 1e-13, "double pendulum: ABA = closed-form M^-1 Q, max rel err %.2e <= 1e-13", wA);

    /* 001 T5, digest's printed values: bars, angles from +x, z = [0.3, 0.5], zd = [1, -2] */
    {
        struct ref_tree t;
        double z[2] = { 0.3, 0.5 }, zd[2] = { 1, -2 }, M[4], Q[2];
        const double Mt[4] = { 2.5442492285570393, 0.7721246142785196, 0.7721246142785196, 0.3333333333333333 };
        const double Qt[2] = { -17.47512284683114, -3.657059178649948 };
        dp_tree(&bar, &t);
        ref_mass_matrix(&t, z, M);
        ref_forces(&t, z, zd, Q);
        double eM = maxdiff(4, M, Mt), eQ = maxdiff(2, Q, Qt) / max_abs(Qt, 2);
        ok(eM <= 1e-14, "digest 001 T5: M = printed values, max abs err %.2e <= 1e-14", eM);
        ok(eQ <= 1e-14, "digest 001 T5: Q = printed values, max rel err %.2e <= 1e-14", eQ);
    }
}

/* Digest 001 T6: the open quick-return tree (planar; a prismatic joint carrying a revolute one), printed to
 * 12 decimals. Mapped to mbgen's convention that a body frame sits on its joint: the crank's frame is moved
 * from its D end to its pin, so its COM (0.05, 0) becomes (0.05 - 0.1, 0). */
static void check_quick_return(void) {
    struct ref_tree t;
    const int parent[5] = { -1, 0, 1, 0, 3 }, kind[5] = { 0, 1, 0, 0, 0 };
    const double origin_x[5] = { 0, 0, 0, 0.6, 0.3 }, mass[5] = { 2.0, 0.5, 1.0, 1.0, 3.0 };
    const double IG[5] = { 0.06, 0.001, 1.0 / 1200, 0.0075, 0.05 }, com_x[5] = { 0.3, 0, -0.05, 0.15, 0 };
    memset(&t, 0, sizeof t);
    t.n = 5;
    for (int i = 0; i < 5; ++i) {
        t.parent[i] = parent[i];
        t.kind[i] = kind[i];
        t.origin[i][0] = origin_x[i];
        t.rotation[i][0] = t.rotation[i][4] = t.rotation[i][8] = 1;
        if (kind[i] == REF_PRISMATIC) t.axis[i][0] = 1; else t.axis[i][2] = 1;
        t.mass[i] = mass[i];
        t.com[i][0] = com_x[i];
        t.inertia[i][0] = t.inertia[i][4] = t.inertia[i][8] = IG[i];
    }
    t.gravity[1] = -9.81;
    const double z[5] = { 1.2, 0.3, -0.7, 0.4, -0.9 }, zd[5] = { 0.5, -0.2, 1.0, -1.5, 2.0 };
    const double Mt[25] = {
        3.306924920158, -0.032210884362, -0.008139299476, 0.930268426222, 0.050000000000,
        -0.032210884362, 1.500000000000, -0.032210884362, 0, 0,
        -0.008139299476, -0.032210884362, 0.003333333333, 0, 0,
        0.930268426222, 0, 0, 0.350000000000, 0.050000000000,
        0.050000000000, 0, 0, 0.050000000000, 0.050000000000 };
    const double Qt[5] = { -11.246914819829, -13.688499896077, 0.420390008407, 0.239436290551, 0.000000000000 };
    double M[25], Q[5];
    ref_mass_matrix(&t, z, M);
    ref_forces(&t, z, zd, Q);
    double eM = maxdiff(25, M, Mt), eQ = maxdiff(5, Q, Qt);
    int zeros = M[1 * 5 + 3] == 0 && M[1 * 5 + 4] == 0 && M[2 * 5 + 3] == 0 && M[2 * 5 + 4] == 0;
    ok(eM <= 1e-11 && zeros, "digest 001 T6 quick-return tree: M = printed values, max abs err %.2e <= 1e-11", eM);
    ok(eQ <= 1e-11, "digest 001 T6 quick-return tree: Q = printed values, max abs err %.2e <= 1e-11", eQ);
}

/* The power balance has teeth: accelerations off by 1e-6 relative break it by far more than its tolerance. */
static void check_power_negative_control(void) {
    struct ref_tree t;
    struct ref_rng g;
    double z[REF_MAX], zd[REF_MAX], zdd[REF_MAX], tau[REF_MAX] = { 0 };
    ref_random_tree(&t, 10, 1010, REF_BRANCHED);
    ref_rng_seed(&g, 5);
    random_state(&g, t.n, z, zd, zdd);
    ref_forward_dynamics(&t, z, zd, tau, zdd);
    double good = power_error(&t, z, zd, zdd, tau);
    for (int i = 0; i < t.n; ++i) zdd[i] *= 1 + 1e-6;
    double bad = power_error(&t, z, zd, zdd, tau);
    ok(good <= 1e-8 && bad > 1e-8, "power balance detects a 1e-6 error in zdd (%.2e exact, %.2e perturbed)", good, bad);
}

int main(void) {
    check_generator();
    check_fk_by_hand();
    check_double_pendulum();
    check_quick_return();
    check_family(REF_CHAIN, "chains");
    check_family(REF_BRANCHED, "branched trees");
    check_power_negative_control();
    return done_testing();
}
