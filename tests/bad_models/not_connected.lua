-- bad model: a body that no joint connects to ground
body "upper" { mass = 1 }
body "floating" { mass = 1 }
revolute "shoulder" { parent = "ground", child = "upper" }
