-- bad model: an objective reading a point that does not exist
body "upper" { mass = 1 }
revolute "shoulder" { parent = "ground", child = "upper" }
point "tip" { body = "upper", at = { 1, 0, 0 } }
objective "reach" { integrand = function(t, s) return s.point.tap.pos[1] end }
