-- bad model: an input where a constant is required
input { "m" }
body "a" { mass = m }
revolute "ja" { parent = "ground", child = "a" }
