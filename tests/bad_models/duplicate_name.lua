-- bad model: two bodies with one name
body "upper" { mass = 1 }
body "upper" { mass = 2 }
revolute "shoulder" { parent = "ground", child = "upper" }
