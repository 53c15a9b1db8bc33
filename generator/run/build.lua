-- run/build.lua: writes a generated model into build/KIND/MODEL[-settings]/ and links it with the runtime and a driver, recompiling only what changed.
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

-- 64-bit FNV-style hash of a string as 16 hex digits (a cache key, not a cryptographic digest).
function B.hash(s)
  local h1, h2 = 2166136261, 0
  local n = #s - #s % 8
  for i = 1, n, 8 do
    local a, b = string.unpack("<I4I4", s, i)
    h1 = ((h1 ~ a) * 16777619) & 0xffffffff
    h2 = ((h2 ~ b) * 2654435761 + 1) & 0xffffffff
  end
  for i = n + 1, #s do h1 = ((h1 ~ s:byte(i)) * 16777619) & 0xffffffff end
  return string.format("%08x%08x", h1, h2 ~ #s & 0xffffffff)
end

local function realpath(path)
  local p = io.popen("realpath -e -- " .. shell_quote(path) .. " 2>/dev/null")
  local out = p and p:read("l")
  if p then p:close() end
  return out ~= "" and out or nil
end

-- The folder of a model file's builds, relative to build/KIND/: its path inside the repository without
-- ".lua" (models/sedan), or ext/BASENAME-HASH for a file elsewhere (the hash of its real path), so two
-- files that declare the same `model "NAME"` never share a build.
function B.model_key(root, model_path)
  local real, rroot = realpath(model_path), realpath(root)
  if not real then return "ext/" .. (model_path:match("([^/]*)%.lua$") or "model") .. "-" .. B.hash(model_path):sub(1, 8) end
  if rroot and real:sub(1, #rroot + 1) == rroot .. "/" then
    return (real:sub(#rroot + 2):gsub("%.lua$", ""))
  end
  return "ext/" .. (real:match("([^/]*)%.lua$") or real:match("([^/]*)$")) .. "-" .. B.hash(real):sub(1, 8)
end

-- One folder per model file and generation-time --set, so runs with different sizes do not evict each other.
function B.folder(root, kind, model_path, overrides)
  local keys = {}
  for k, v in pairs(overrides or {}) do keys[#keys + 1] = k .. "=" .. tostring(v) end
  table.sort(keys)
  local suffix = #keys > 0 and ("-" .. table.concat(keys, "-"):gsub("[^%w%.=_-]", "_")) or ""
  return root .. "/build/" .. kind .. "/" .. B.model_key(root, model_path) .. suffix
end

-- Runs `make build/libmbrt.a` under an exclusive lock (flock, util-linux), so concurrent runs never
-- rebuild the library at the same time; the Makefile also writes every file under a temporary name.
function B.runtime_library(root)
  os.execute("mkdir -p " .. shell_quote(root .. "/build"))
  local make = "make -s -C " .. shell_quote(root) .. " build/libmbrt.a >&2"
  if os.execute("command -v flock >/dev/null 2>&1") then
    make = "flock " .. shell_quote(root .. "/build/.libmbrt.lock") .. " " .. make
  end
  return os.execute(make)
end

-- opts: root (the repository), kind ("run", "sens"), model (the model file's path), name (model name),
-- overrides (the --set table), files (from emit.model.generate), driver (path of the driver's .c), exe (its
-- file name), cflags (model object). The model's object is compiled only when its generated C or the flags
-- changed (its unrolled code is the slow part): its name carries a hash of both, so a process never links
-- an object compiled from other sources. The driver is linked every time against the runtime library,
-- which make keeps current, so a rebuilt runtime is always the one that runs. Returns the executable's
-- path, or nil and a message.
function B.executable(opts)
  local root, name = opts.root, opts.name
  local cflags = opts.cflags or "-O1"
  local dir = B.folder(root, opts.kind, opts.model, opts.overrides)
  os.execute("mkdir -p " .. shell_quote(dir))
  local fnames = {}
  for fname in pairs(opts.files) do fnames[#fnames + 1] = fname end
  table.sort(fnames)
  for _, fname in ipairs(fnames) do
    local path = dir .. "/" .. fname
    if read(path) ~= opts.files[fname] then write(path, opts.files[fname]) end
  end
  local key = B.hash(cflags .. "\0" .. opts.files[name .. ".h"] .. "\0" .. opts.files[name .. ".c"]):sub(1, 12)
  local obj = dir .. "/" .. name .. "-" .. key .. ".o"
  local compiled = false
  if not read(obj) then
    local cc = string.format("gcc -std=c99 %s -Wall -Wextra -Werror -I%s -I%s -c %s -o %s", cflags,
      shell_quote(root .. "/runtime"), shell_quote(dir), shell_quote(dir .. "/" .. name .. ".c"), shell_quote(obj .. B.suffix()))
    if not os.execute(cc) then
      os.remove(obj .. B.suffix())
      return nil, "compiling the generated model failed: " .. cc
    end
    os.rename(obj .. B.suffix(), obj)
    compiled = true
    -- Objects of earlier sources or flags are stale; one written in the last 10 minutes may be about to be
    -- linked by a concurrent run with other flags, so it stays until a later build.
    os.execute(string.format("find %s -maxdepth 1 -name %s ! -name %s -mmin +10 -delete 2>/dev/null", shell_quote(dir),
      shell_quote(name .. "-*.o"), shell_quote(name .. "-" .. key .. ".o")))
  end
  if not B.runtime_library(root) then
    return nil, "building the runtime library failed (make build/libmbrt.a)"
  end
  local exe = dir .. "/" .. opts.exe
  local ld = string.format("gcc -std=c99 -O1 -Wall -Wextra -Werror -DMB_MODEL=%s_model -I%s %s %s %s -llapack -lm -o %s",
    name, shell_quote(root .. "/runtime"), shell_quote(opts.driver), shell_quote(obj),
    shell_quote(root .. "/build/libmbrt.a"), shell_quote(exe .. B.suffix()))
  if not os.execute(ld) then
    os.remove(exe .. B.suffix())
    return nil, "linking the driver failed: " .. ld
  end
  os.rename(exe .. B.suffix(), exe)
  return exe, nil, { dir = dir, compiled = compiled, object = obj }
end

return B
