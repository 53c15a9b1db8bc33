-- bad model: a Lua error while the model runs
local lengths = { 1, 2 }
body "upper" { mass = lengths[3] * 2 }
revolute "shoulder" { parent = "ground", child = "upper" }
