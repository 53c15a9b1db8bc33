-- bad model: the sandbox has no io
local f = io.open("/etc/passwd")
