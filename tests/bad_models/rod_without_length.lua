model "rodless"
body "a" { mass = 1 }
revolute "j" { parent = "ground", child = "a" }
rod "r" { a = { "a", { 1, 0, 0 } }, b = { "ground", { 0, 1, 0 } } }
