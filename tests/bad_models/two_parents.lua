-- bad model: a closed loop written as a second parent joint
body "a" { mass = 1 }
body "b" { mass = 1 }
body "c" { mass = 1 }
revolute "ja" { parent = "ground", child = "a" }
revolute "jb" { parent = "a", child = "b" }
revolute "jc" { parent = "b", child = "c" }
revolute "close" { parent = "ground", child = "c" }
