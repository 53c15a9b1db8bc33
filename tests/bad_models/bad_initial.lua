-- bad model: an initial value for a coordinate that does not exist
body "upper" { mass = 1 }
revolute "shoulder" { parent = "ground", child = "upper" }
initial { shouldr = 0.5 }
