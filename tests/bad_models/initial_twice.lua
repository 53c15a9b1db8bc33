-- bad model: one coordinate given two start values
body "upper" { mass = 1 }
revolute "shoulder" { parent = "ground", child = "upper" }
initial { shoulder = 0.5 }
initial { shoulder = 0.6 }
