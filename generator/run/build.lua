-- run/build.lua: writes a generated model into build/[KIND/]NAME[-settings]/ and links it with the runtime and a driver, recompiling only what changed.
local B = {}

local function shell_quote(s) return "'" .. tostring(s):gsub("'", "'\\''") .. "'" end
B.shell_quote = shell_quote

local function read(path)
  local f = io.open(path, "rb")
  if not f then return nil end
  local s = f:read("a")
  f:close()
  return s
end

-- A suffix no other process uses at the same time (os.tmpname reserves a name), so that two runs of one
-- model (tests under `prove -j`) never read each other's half-written files: everything is written or
-- compiled under a temporary name and renamed into place, which is atomic.
local SUFFIX
function B.suffix()
  if not SUFFIX then
    local t = os.tmpname()
    os.remove(t)
    SUFFIX = ".tmp" .. (t:match("([%w_]+)$") or tostring(os.time()))
  end
  return SUFFIX
end

local function write(path, text)
  local tmp = path .. B.suffix()
  local f = assert(io.open(tmp, "wb"))
  f:write(text)
  f:close()
  assert(os.rename(tmp, path))
end
B.write = write

-- One folder per model and generation-time --set, so runs with different sizes do not evict each other.
function B.folder(root, kind, name, overrides)
  local keys = {}
  for k, v in pairs(overrides or {}) do keys[#keys + 1] = k .. "=" .. tostring(v) end
  table.sort(keys)
  local suffix = #keys > 0 and ("-" .. table.concat(keys, "-"):gsub("[^%w%.=_-]", "_")) or ""
  return root .. "/build/" .. (kind and (kind .. "/") or "") .. name .. suffix
end

-- opts: root (the repository), kind (nil for `mbgen run`, "sens"), name (model name), overrides (the --set table), files
-- (from emit.model.generate), driver (path of the driver's .c), exe (its file name), cflags (model object).
-- The model's object is compiled only when its generated C or the flags changed (its unrolled code is the
-- slow part); the driver is linked every time against the runtime library, which make keeps current, so
-- a rebuilt runtime is always the one that runs. Returns the executable's path, or nil and a message.
function B.executable(opts)
  local root, name = opts.root, opts.name
  local cflags = opts.cflags or "-O1"
  local dir = B.folder(root, opts.kind, name, opts.overrides)
  os.execute("mkdir -p " .. shell_quote(dir))
  local changed = false
  local fnames = {}
  for fname in pairs(opts.files) do fnames[#fnames + 1] = fname end
  table.sort(fnames)
  for _, fname in ipairs(fnames) do
    local path = dir .. "/" .. fname
    if read(path) ~= opts.files[fname] then
      write(path, opts.files[fname])
      changed = true
    end
  end
  local obj, stamp = dir .. "/" .. name .. ".o", dir .. "/cflags"
  local compiled = false
  if changed or not read(obj) or read(stamp) ~= cflags then
    local cc = string.format("gcc -std=c99 %s -Wall -Wextra -Werror -I%s -I%s -c %s -o %s", cflags,
      shell_quote(root .. "/runtime"), shell_quote(dir), shell_quote(dir .. "/" .. name .. ".c"), shell_quote(obj .. B.suffix()))
    if not os.execute(cc) then return nil, "compiling the generated model failed: " .. cc end
    os.rename(obj .. B.suffix(), obj)
    write(stamp, cflags)
    compiled = true
  end
  if not os.execute("make -s -C " .. shell_quote(root) .. " build/libmbrt.a >&2") then
    return nil, "building the runtime library failed (make build/libmbrt.a)"
  end
  local exe = dir .. "/" .. opts.exe
  local ld = string.format("gcc -std=c99 -O1 -Wall -Wextra -Werror -DMB_MODEL=%s_model -I%s %s %s %s -llapack -lm -o %s",
    name, shell_quote(root .. "/runtime"), shell_quote(opts.driver), shell_quote(obj),
    shell_quote(root .. "/build/libmbrt.a"), shell_quote(exe .. B.suffix()))
  if not os.execute(ld) then return nil, "linking the driver failed: " .. ld end
  os.rename(exe .. B.suffix(), exe)
  return exe, nil, { dir = dir, compiled = compiled }
end

return B
