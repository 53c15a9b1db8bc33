-- bad model: the parent body is misspelt
body "upper" { mass = 1 }
body "lower" { mass = 1 }
revolute "shoulder" { parent = "ground", child = "upper" }

revolute "elbow" { parent = "uper", child = "lower" }
