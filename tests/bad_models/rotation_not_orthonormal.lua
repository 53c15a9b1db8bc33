-- bad model: a joint rotation whose rows are not orthonormal
body "upper" { mass = 1 }
revolute "shoulder" { parent = "ground", child = "upper", rotation = { { 1, 0, 0 }, { 0, 2, 0 }, { 0.5, 0, 1 } } }
