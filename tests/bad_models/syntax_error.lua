-- bad model: a Lua syntax error
body "upper" { mass = 1 }
revolute "shoulder" { parent = "ground" child = "upper" }
