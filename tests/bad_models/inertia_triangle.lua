-- bad model: principal moments that no mass distribution has (1 + 1 < 3)
body "upper" { mass = 1, inertia = { 1, 1, 3 } }
revolute "shoulder" { parent = "ground", child = "upper" }
