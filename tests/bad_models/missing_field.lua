-- bad model: a joint without its parent
body "upper" { mass = 1 }
revolute "shoulder" { child = "upper" }
