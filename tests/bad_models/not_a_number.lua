-- bad model: a string where a number is required
body "upper" { mass = "heavy" }
revolute "shoulder" { parent = "ground", child = "upper" }
