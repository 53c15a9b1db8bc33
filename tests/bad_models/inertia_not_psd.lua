-- bad model: an inertia with a negative principal moment
body "upper" { mass = 1, inertia = { 1, 1, 1, 2, 0, 0 } }
revolute "shoulder" { parent = "ground", child = "upper" }
