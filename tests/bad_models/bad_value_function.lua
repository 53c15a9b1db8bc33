-- bad model: a value function reading a coordinate that does not exist
body "upper" { mass = 1 }
revolute "shoulder" { parent = "ground", child = "upper" }
torque "damper" { joint = "shoulder",
                  value = function(t, s) return -0.1 * s.zd.shouldre end }
