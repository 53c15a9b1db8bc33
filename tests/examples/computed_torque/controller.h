/* controller.h: the controller's interface in plain doubles, so it links with a plant of any precision. */
#ifndef CONTROLLER_H
#define CONTROLLER_H
void ctl_reference(double t, int i, double *q, double *qd, double *qdd);
void ctl_torque(double t, const double *z, const double *zd, int feedforward, double kp, double kd, double *tau);
void ctl_inverse_dynamics(double t, const double *z, const double *zd, const double *zdd, double *r);
int ctl_size(void);
#endif
