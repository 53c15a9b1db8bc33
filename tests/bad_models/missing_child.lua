-- bad model: the child body does not exist
body "upper" { mass = 1 }
revolute "shoulder" { parent = "ground", child = "upper" }
revolute "elbow" { parent = "upper", child = "forearm" }
