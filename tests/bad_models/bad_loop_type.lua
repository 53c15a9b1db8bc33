-- bad model: an unknown loop type
body "a" { mass = 1 }
revolute "ja" { parent = "ground", child = "a" }
loop "cut" { type = "spherica", a = { "a", { 1, 0, 0 } }, b = { "ground", { 1, 0, 0 } } }
