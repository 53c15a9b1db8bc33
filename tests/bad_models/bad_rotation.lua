-- bad model: a joint rotation that is a reflection
body "upper" { mass = 1 }
revolute "shoulder" { parent = "ground", child = "upper", rotation = { { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, -1 } } }
