-- bad model: the sandbox has no require (nor load, dofile, os)
body "a" { mass = 1 }
local os = require "os"
