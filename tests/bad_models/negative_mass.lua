-- bad model: negative mass
parameter { m = -2 }
body "upper" { mass = m }
revolute "shoulder" { parent = "ground", child = "upper" }
