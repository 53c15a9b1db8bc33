/* plant.c: the chain as a double-precision plant (RK4, 5 kHz) under the computed-torque controller.
 *
 * Built by tests/ctl_computed_torque.t with plant.c generated from the same model under the name "plant".
 * Prints "key value" lines: the worst tracking error after the transient with the controller at 1 kHz and
 * 5 kHz, the same without the model's feedforward, and the single-precision model's relative error against
 * the double-precision one. With an exact model the error comes from the zero-order hold alone, so it
 * shrinks with the control period. */
#include <math.h>
#include <stdio.h>
#include "plant.h"
#include "controller.h"

enum { N = plant_NZ };
static double work[plant_NWORK > 0 ? plant_NWORK : 1];

/* zdd = M^-1 (Q + tau) by Cholesky; returns 0 when M is not positive definite. */
static int accel(double t, const double *z, const double *zd, const double *tau, double *zdd)
{
    double M[N * N], Q[N], L[N * N] = { 0 };
    mb_args a = { t, z, zd, 0, 0, 0, 0 };
    plant_mass(&a, M, work);
    plant_forces(&a, Q, work);
    for (int j = 0; j < N; ++j) {
        double d = M[j + j * N];
        for (int k = 0; k < j; ++k) d -= L[j + k * N] * L[j + k * N];
        if (!(d > 0)) return 0;
        L[j + j * N] = sqrt(d);
        for (int i = j + 1; i < N; ++i) {
            double s = M[i + j * N];
            for (int k = 0; k < j; ++k) s -= L[i + k * N] * L[j + k * N];
            L[i + j * N] = s / L[j + j * N];
        }
    }
    double y[N];
    for (int i = 0; i < N; ++i) {
        double s = Q[i] + tau[i];
        for (int k = 0; k < i; ++k) s -= L[i + k * N] * y[k];
        y[i] = s / L[i + i * N];
    }
    for (int i = N - 1; i >= 0; --i) {
        double s = y[i];
        for (int k = i + 1; k < N; ++k) s -= L[k + i * N] * zdd[k];
        zdd[i] = s / L[i + i * N];
    }
    return 1;
}

/* Worst tracking error over [t_settle, t_end]; -1 if the plant blew up. */
static double track(int feedforward, int per_control, double kp, double kd)
{
    const double h = 2e-4, t_end = 4.0, t_settle = 2.0;
    double z[N], zd[N], tau[N], worst = 0;
    for (int i = 0; i < N; ++i) {
        double qdd;
        ctl_reference(0.0, i, &z[i], &zd[i], &qdd);
    }
    int steps = (int)(t_end / h + 0.5);
    for (int s = 0; s < steps; ++s) {
        double t = s * h;
        if (s % per_control == 0) ctl_torque(t, z, zd, feedforward, kp, kd, tau);   /* zero-order hold */
        double k1[2 * N], k2[2 * N], k3[2 * N], k4[2 * N], zt[N], zdt[N];
        if (!accel(t, z, zd, tau, k1 + N)) return -1;
        for (int i = 0; i < N; ++i) k1[i] = zd[i], zt[i] = z[i] + 0.5 * h * k1[i], zdt[i] = zd[i] + 0.5 * h * k1[N + i];
        if (!accel(t + 0.5 * h, zt, zdt, tau, k2 + N)) return -1;
        for (int i = 0; i < N; ++i) k2[i] = zdt[i], zt[i] = z[i] + 0.5 * h * k2[i], zdt[i] = zd[i] + 0.5 * h * k2[N + i];
        if (!accel(t + 0.5 * h, zt, zdt, tau, k3 + N)) return -1;
        for (int i = 0; i < N; ++i) k3[i] = zdt[i], zt[i] = z[i] + h * k3[i], zdt[i] = zd[i] + h * k3[N + i];
        if (!accel(t + h, zt, zdt, tau, k4 + N)) return -1;
        for (int i = 0; i < N; ++i) {
            k4[i] = zdt[i];
            z[i] += h / 6 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
            zd[i] += h / 6 * (k1[N + i] + 2 * k2[N + i] + 2 * k3[N + i] + k4[N + i]);
        }
        if (t + h >= t_settle) {
            for (int i = 0; i < N; ++i) {
                double q, qd, qdd;
                ctl_reference(t + h, i, &q, &qd, &qdd);
                if (!(fabs(z[i] - q) <= worst)) worst = fabs(z[i] - q);
            }
        }
    }
    return worst;
}

int main(void)
{
    if (ctl_size() != N) {
        printf("size_mismatch %d %d\n", ctl_size(), N);
        return 1;
    }
    const double kp = 100.0, kd = 20.0;   /* critically damped error dynamics, natural frequency 10 rad/s */
    printf("ct_err_1khz %.6e\n", track(1, 5, kp, kd));
    printf("ct_err_5khz %.6e\n", track(1, 1, kp, kd));
    printf("pd_err_1khz %.6e\n", track(0, 5, kp, kd));
    /* The float build against the double plant model at a few states. */
    double worst = 0;
    for (int k = 0; k < 5; ++k) {
        double z[N], zd[N], zdd[N], r[N], rf[N], rmax = 0;
        for (int i = 0; i < N; ++i) {
            z[i] = sin(1.3 * k + i);
            zd[i] = cos(0.7 * k + 2 * i);
            zdd[i] = sin(0.3 * k - i);
        }
        mb_args a = { 0.0, z, zd, zdd, 0, 0, 0 };
        plant_inverse_dynamics(&a, r, work);
        ctl_inverse_dynamics(0.0, z, zd, zdd, rf);
        for (int i = 0; i < N; ++i) if (fabs(r[i]) > rmax) rmax = fabs(r[i]);
        for (int i = 0; i < N; ++i) if (fabs(rf[i] - r[i]) / rmax > worst) worst = fabs(rf[i] - r[i]) / rmax;
    }
    printf("float_rel %.6e\n", worst);
    return 0;
}
