-- bad model: a misspelt field
body "upper" { mass = 1, inertai = { 1, 1, 1 } }
revolute "shoulder" { parent = "ground", child = "upper" }
