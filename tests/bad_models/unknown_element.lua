-- bad model: a misspelt element name
body "upper" { mass = 1 }
revolut "shoulder" { parent = "ground", child = "upper" }
