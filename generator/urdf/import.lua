-- urdf/import.lua: the import pipeline, URDF file -> XML elements -> checked robot -> model file text.
local errors = require "model.errors"
local xml = require "urdf.xml"
local robot = require "urdf.robot"
local model_text = require "urdf.model_text"

local M = {}

-- import(path, opts) -> text of the model file, notes (lines naming what was not imported). opts:
-- floating_base, mimic ("constraint" or "free"), source (the name the model file gives its origin).
function M.import(path, opts)
  opts = opts or {}
  local f, err = io.open(path, "rb")
  if not f then errors.raise(path, nil, nil, "cannot read the URDF file (" .. tostring(err):gsub("^.-: ", "") .. ")") end
  local text = f:read("a")
  f:close()
  if not text or not text:find("%S") then errors.raise(path, nil, nil, "the URDF file is empty") end
  local r = robot.read(xml.parse(text, path), path, opts)
  return model_text.write(r, { source = opts.source or path, floating_base = opts.floating_base, mimic = opts.mimic }),
    model_text.notes(r)
end

return M
