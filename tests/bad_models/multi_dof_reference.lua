-- bad model: a torque on a joint with several coordinates
body "a" { mass = 1 }
universal "hip" { parent = "ground", child = "a" }
torque "motor" { joint = "hip", value = 1 }
