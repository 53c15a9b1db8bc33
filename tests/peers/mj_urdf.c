/* mj_urdf.c: a robot imported from URDF (mbgen import) against MuJoCo reading the same URDF: M, the inverse and
 * the forward dynamics at seeded random states (not with --mass-only), the total mass and MuJoCo's centre of mass
 * at its reference pose; prints "key value" lines (worst errors relative to each quantity's max-norm).
 *
 * Coordinates map by joint name. A free joint J (MuJoCo: position and quaternion, velocity [v world, w body]) is
 * mbgen's J.x J.y J.z J.rx J.ry J.rz (position, then Euler angles of the moving frame, R = Rx(a) Ry(b) Rz(c)), so
 * MuJoCo's velocity is v = T zd with T = diag(I, E(a, b, c)) and its acceleration T zdd + dT/dt zd: mbgen's M is
 * T' M_mj T, its residual T' r_mj. MuJoCo's constraints (joint limits, dry friction) are disabled: the model language
 * keeps those as comments; damping is in both (mbgen's joint_spring, MuJoCo's passive force). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mujoco/mujoco.h>

#include "mb_model.h"

extern const mb_model MB_MODEL;

static unsigned long long rng = 0x9e3779b97f4a7c15ULL;
static double rnd(void) {
    rng ^= rng >> 12; rng ^= rng << 25; rng ^= rng >> 27;
    return (double)((rng * 2685821657736338717ULL) >> 11) / 4503599627370496.0 - 1.0;
}

/* One free joint of MuJoCo and the six mbgen coordinates that stand for it. */
typedef struct { int qadr, dadr, c[6]; } free_map;

static void rot_y(double b, const double v[3], double out[3]) {   /* Ry(b)' v */
    double c = cos(b), s = sin(b);
    out[0] = c * v[0] - s * v[2]; out[1] = v[1]; out[2] = s * v[0] + c * v[2];
}
static void rot_z(double g, const double v[3], double out[3]) {   /* Rz(g)' v */
    double c = cos(g), s = sin(g);
    out[0] = c * v[0] + s * v[1]; out[1] = -s * v[0] + c * v[1]; out[2] = v[2];
}
static void cross(const double a[3], const double b[3], double out[3]) {
    out[0] = a[1] * b[2] - a[2] * b[1]; out[1] = a[2] * b[0] - a[0] * b[2]; out[2] = a[0] * b[1] - a[1] * b[0];
}

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: mj_urdf ROBOT.urdf [--mass-only]\n"); return 2; }
    char err[1000] = "";
    mjModel *m = mj_loadXML(argv[1], NULL, err, sizeof err);
    if (!m) { fprintf(stderr, "mj_urdf: %s\n", err); return 2; }
    m->opt.disableflags |= mjDSBL_CONSTRAINT;
    mjData *d = mj_makeData(m);
    const mb_model *g = &MB_MODEL;
    int n = g->nz, nv = m->nv;
    double *work = calloc((size_t)g->nwork + 1, sizeof *work);
    double mass = 0;
    if (g->total_mass) g->total_mass(&(mb_args){ 0.0, NULL, NULL, NULL, NULL, g->p_default, NULL }, &mass, work);
    mj_forward(m, d);   /* at qpos0, MuJoCo's reference pose */
    printf("total_mass %.17g\nmj_total_mass %.17g\nmj_com_x %.17g\nmj_com_y %.17g\nmj_com_z %.17g\n",
           mass, mj_getTotalmass(m), d->subtree_com[0], d->subtree_com[1], d->subtree_com[2]);
    if (argc > 2 && !strcmp(argv[2], "--mass-only")) return 0;
    if (nv != n) { fprintf(stderr, "mj_urdf: MuJoCo has %d dofs, mbgen %d\n", nv, n); return 2; }

    /* Plain joints map one to one; free joints by their six coordinates. */
    int *dof = malloc(sizeof(int) * n), *qof = malloc(sizeof(int) * n);
    free_map fm[8];
    int nfree = 0;
    for (int i = 0; i < n; ++i) {
        dof[i] = -1;
        int j = mj_name2id(m, mjOBJ_JOINT, g->z_names[i]);
        if (j >= 0 && (m->jnt_type[j] == mjJNT_HINGE || m->jnt_type[j] == mjJNT_SLIDE)) {
            dof[i] = m->jnt_dofadr[j]; qof[i] = m->jnt_qposadr[j];
            continue;
        }
        char base[256];
        const char *dot = strrchr(g->z_names[i], '.');
        static const char *const sfx[6] = { "x", "y", "z", "rx", "ry", "rz" };
        int k = -1;
        if (dot && (size_t)(dot - g->z_names[i]) < sizeof base) {
            memcpy(base, g->z_names[i], (size_t)(dot - g->z_names[i]));
            base[dot - g->z_names[i]] = 0;
            for (int s = 0; s < 6; ++s) if (!strcmp(dot + 1, sfx[s])) k = s;
            j = mj_name2id(m, mjOBJ_JOINT, base);
        }
        if (k < 0 || j < 0 || m->jnt_type[j] != mjJNT_FREE) {
            fprintf(stderr, "mj_urdf: mbgen coordinate %s has no MuJoCo joint\n", g->z_names[i]);
            return 2;
        }
        int f = 0;
        while (f < nfree && fm[f].dadr != m->jnt_dofadr[j]) ++f;
        if (f == nfree) {
            if (nfree == 8) { fprintf(stderr, "mj_urdf: too many free joints\n"); return 2; }
            fm[nfree].qadr = m->jnt_qposadr[j]; fm[nfree].dadr = m->jnt_dofadr[j];
            for (int s = 0; s < 6; ++s) fm[nfree].c[s] = -1;
            ++nfree;
        }
        fm[f].c[k] = i;
    }
    for (int f = 0; f < nfree; ++f)
        for (int s = 0; s < 6; ++s)
            if (fm[f].c[s] < 0) { fprintf(stderr, "mj_urdf: a free joint misses a coordinate\n"); return 2; }

    double *z = malloc(sizeof(double) * n), *zd = malloc(sizeof(double) * n), *zdd = malloc(sizeof(double) * n);
    double *T = malloc(sizeof(double) * nv * n), *Tdzd = malloc(sizeof(double) * nv);
    double *M = malloc(sizeof(double) * n * n), *Mj = malloc(sizeof(double) * nv * nv);
    double *r = malloc(sizeof(double) * n), *rj = malloc(sizeof(double) * nv), *a = malloc(sizeof(double) * n);
    double worst_m = 0, worst_r = 0, worst_a = 0;
    for (int k = 0; k < 10; ++k) {
        for (int i = 0; i < n; ++i) { z[i] = rnd(); zd[i] = 2 * rnd(); zdd[i] = 2 * rnd(); }
        memset(T, 0, sizeof(double) * nv * n);
        memset(Tdzd, 0, sizeof(double) * nv);
        for (int i = 0; i < n; ++i)
            if (dof[i] >= 0) { d->qpos[qof[i]] = z[i]; d->qvel[dof[i]] = zd[i]; T[dof[i] + nv * i] = 1; }
        for (int f = 0; f < nfree; ++f) {
            const int *c = fm[f].c;
            double ea = z[c[3]], eb = z[c[4]], ec = z[c[5]], ad = zd[c[3]], bd = zd[c[4]], cd = zd[c[5]];
            double qa[4], qb[4], qc[4], qab[4];
            double ex[3] = { 1, 0, 0 }, ey[3] = { 0, 1, 0 }, ez[3] = { 0, 0, 1 };
            mju_axisAngle2Quat(qa, ex, ea); mju_axisAngle2Quat(qb, ey, eb); mju_axisAngle2Quat(qc, ez, ec);
            mju_mulQuat(qab, qa, qb);
            mju_mulQuat(d->qpos + fm[f].qadr + 3, qab, qc);
            for (int s = 0; s < 3; ++s) { d->qpos[fm[f].qadr + s] = z[c[s]]; T[fm[f].dadr + s + nv * c[s]] = 1; }
            double t1[3], ca[3], cb[3];
            rot_y(eb, ex, t1); rot_z(ec, t1, ca);       /* Rz' Ry' ex */
            rot_z(ec, ey, cb);                          /* Rz' ey */
            for (int s = 0; s < 3; ++s) {
                T[fm[f].dadr + 3 + s + nv * c[3]] = ca[s];
                T[fm[f].dadr + 3 + s + nv * c[4]] = cb[s];
                T[fm[f].dadr + 3 + s + nv * c[5]] = ez[s];
            }
            /* dT/dt zd: -cd ez x (Rz' Ry' ex ad) + Rz' (-bd ey x (Ry' ex ad)) - cd ez x (Rz' ey bd) */
            double u[3], v[3], w[3], x[3];
            for (int s = 0; s < 3; ++s) u[s] = ca[s] * ad;
            cross(ez, u, v);
            for (int s = 0; s < 3; ++s) x[s] = -cd * v[s];
            for (int s = 0; s < 3; ++s) u[s] = t1[s] * ad;
            cross(ey, u, v); rot_z(ec, v, w);
            for (int s = 0; s < 3; ++s) x[s] -= bd * w[s];
            for (int s = 0; s < 3; ++s) u[s] = cb[s] * bd;
            cross(ez, u, v);
            for (int s = 0; s < 3; ++s) x[s] -= cd * v[s];
            for (int s = 0; s < 3; ++s) Tdzd[fm[f].dadr + 3 + s] = x[s];
        }
        for (int i = 0; i < nv; ++i) {
            double s = 0;
            for (int j = 0; j < n; ++j) s += T[i + nv * j] * zd[j];
            d->qvel[i] = s;
        }
        mb_args args = { 0.0, z, zd, zdd, NULL, g->p_default, NULL };
        g->mass(&args, M, work);
        g->inverse_dynamics(&args, r, work);
        g->forward_dynamics(&args, a, work);
        mj_forward(m, d);
        /* Forward dynamics: MuJoCo's qacc against T a + dT/dt zd. */
        double amax = 0;
        for (int i = 0; i < nv; ++i) amax = fmax(amax, fabs(d->qacc[i]));
        for (int i = 0; i < nv; ++i) {
            double s = Tdzd[i];
            for (int j = 0; j < n; ++j) s += T[i + nv * j] * a[j];
            worst_a = fmax(worst_a, fabs(s - d->qacc[i]) / amax);
        }
        /* Inverse dynamics at zdd: T' (M_mj qacc + bias - passive). */
        for (int i = 0; i < nv; ++i) {
            double s = Tdzd[i];
            for (int j = 0; j < n; ++j) s += T[i + nv * j] * zdd[j];
            d->qacc[i] = s;
        }
        mj_rne(m, d, 1, rj);
        for (int i = 0; i < nv; ++i) rj[i] -= d->qfrc_passive[i];
        mj_fullM(m, Mj, d->qM);
        double mmax = 0, rmax = 0;
        for (int i = 0; i < n * n; ++i) mmax = fmax(mmax, fabs(M[i]));
        for (int i = 0; i < n; ++i) rmax = fmax(rmax, fabs(r[i]));
        for (int i = 0; i < n; ++i) {
            double s = 0;
            for (int p = 0; p < nv; ++p) s += T[p + nv * i] * rj[p];
            worst_r = fmax(worst_r, fabs(r[i] - s) / rmax);
            for (int j = 0; j < n; ++j) {
                double t = 0;   /* (T' Mj T)_ij */
                for (int p = 0; p < nv; ++p) {
                    if (T[p + nv * i] == 0) continue;
                    for (int q = 0; q < nv; ++q) t += T[p + nv * i] * Mj[p * nv + q] * T[q + nv * j];
                }
                worst_m = fmax(worst_m, fabs(M[i + j * n] - t) / mmax);
            }
        }
    }
    printf("n %d\nfree_joints %d\nmass_rel %.3e\ninverse_dynamics_rel %.3e\nforward_dynamics_rel %.3e\n",
           n, nfree, worst_m, worst_r, worst_a);
    mj_deleteData(d);
    mj_deleteModel(m);
    free(dof); free(qof); free(z); free(zd); free(zdd); free(T); free(Tdzd); free(M); free(Mj);
    free(r); free(rj); free(a); free(work);
    return 0;
}
