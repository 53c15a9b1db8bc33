-- bad model: a zero joint axis
body "upper" { mass = 1 }
revolute "shoulder" { parent = "ground", child = "upper",
                      axis = { 0, 0, 0 } }
