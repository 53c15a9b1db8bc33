-- bad model: an objective whose name is not a C identifier
body "upper" { mass = 1 }
revolute "shoulder" { parent = "ground", child = "upper" }
objective "kinetic energy" { terminal = function(s) return s.zd.shoulder ^ 2 end }
