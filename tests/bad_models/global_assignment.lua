-- bad model: a global assignment instead of a local
body "a" { mass = 1 }
revolute "ja" { parent = "ground", child = "a" }
length = 2
