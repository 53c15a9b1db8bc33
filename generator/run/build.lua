-- run/build.lua: builds a model's driver in build/KIND/MODEL[-settings]/, keyed by a hash of its inputs: nothing is regenerated, recompiled or relinked that has not changed.
local U = require "run.units"

local B = {}

-- What a program that links build/libmbrt.a links besides: LAPACK (linalg.c) and SuiteSparse's KLU (sparse_lu.c); the
-- Makefile's LDLIBS.
B.LIBS = "-llapack -lklu -lm"

local function shell_quote(s) return "'" .. tostring(s):gsub("'", "'\\''") .. "'" end
B.shell_quote = shell_quote

local function read(path)
  local f = io.open(path, "rb")
  if not f then return nil end
  local s = f:read("a")
  f:close()
  return s
end
B.read = read

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

-- The make of build/libmbrt.a on every core, under an exclusive lock (flock, util-linux) so that concurrent
-- runs never rebuild the library at the same time (the Makefile also writes every file under a temporary
-- name). B.runtime_library_start starts it in the background and returns a function that waits for it and
-- returns true when it succeeded: the library builds while the generator, on one core, emits the model.
local function library_make(root)
  os.execute("mkdir -p " .. shell_quote(root .. "/build"))
  local make = "make -s -j" .. B.cores() .. " -C " .. shell_quote(root) .. " build/libmbrt.a >&2"
  if os.execute("command -v flock >/dev/null 2>&1") then
    make = "flock " .. shell_quote(root .. "/build/.libmbrt.lock") .. " " .. make
  end
  return make
end

function B.runtime_library_start(root)
  local h = io.popen("(" .. library_make(root) .. ") && echo ok")
  return function()
    local out = h:read("a")
    h:close()
    return out:find("ok") ~= nil
  end
end

-- Lists the regular files under dirs (relative to root), sorted, so the cache key never depends on the
-- order a directory happens to list them in.
local function list_files(root, dirs, pattern)
  local cmd = "cd " .. shell_quote(root) .. " && find"
  for _, d in ipairs(dirs) do cmd = cmd .. " " .. shell_quote(d) end
  cmd = cmd .. " -type f" .. (pattern and (" -name " .. shell_quote(pattern)) or "") .. " 2>/dev/null"
  local p = io.popen(cmd)
  local files = {}
  for line in p:lines() do files[#files + 1] = line end
  p:close()
  table.sort(files)
  return files
end

-- Hash of the texts of files (paths relative to root), each with its path: the same files with the same
-- bytes give the same hash on any machine and in any copy of the repository.
local function hash_files(root, files)
  local parts = {}
  for _, f in ipairs(files) do
    parts[#parts + 1] = f .. "\0" .. (read(root .. "/" .. f) or "\1missing") .. "\0"
  end
  return B.hash(table.concat(parts))
end

-- The generator's own sources: every file under generator/ and the two runtime headers it reads or
-- writes against (mb_model.h, mb_slots.h). Read once per process: a changed generator changes every key.
local GENERATOR
function B.generator_hash(root)
  if not GENERATOR then
    -- The generator's code: its Lua files and the command (not its README, nor an editor's stray file).
    local files = list_files(root, { "generator" }, "*.lua")
    files[#files + 1] = "generator/mbgen"
    files[#files + 1] = "runtime/mb_model.h"
    files[#files + 1] = "runtime/mb_slots.h"
    GENERATOR = hash_files(root, files)
  end
  return GENERATOR
end

-- The hash of a job's key: head, the generator's sources, MBGEN_CACHE_SALT, what stands for the model
-- (model_parts), the generation-time --set values, the function list, the compressed forms and the flags.
local function job_key(head, p, model_parts)
  local parts = { head, B.generator_hash(p.root), "salt=" .. (os.getenv("MBGEN_CACHE_SALT") or "") }
  for _, x in ipairs(model_parts) do parts[#parts + 1] = x end
  local keys = {}
  for k, v in pairs(p.overrides or {}) do keys[#keys + 1] = k .. "=" .. string.format("%.17g", v) end
  table.sort(keys)
  parts[#parts + 1] = "set " .. table.concat(keys, " ")
  parts[#parts + 1] = "functions " .. (p.functions and table.concat(p.functions, ",") or "*")
  parts[#parts + 1] = "csc " .. (p.csc and table.concat(p.csc, ",") or "")
  parts[#parts + 1] = "cflags " .. (p.cflags or "")
  return B.hash(table.concat(parts, "\0"))
end

-- The cache key of a model's build, computed before anything is generated: the generator's sources, the
-- texts of the model file and of every library it loaded (sources: paths, from model.load's
-- model.sources), the generation-time --set values, the job's function list (nil: all), the functions with a
-- compressed form (csc) and the model's compiler flags. MBGEN_CACHE_SALT, when set, is mixed in too: it stands
-- for an edit of the generator in tests (which must not edit generator files) and forces a rebuild without
-- deleting anything.
function B.cache_key(p)
  local sources = {}
  for i, path in ipairs(p.sources or {}) do
    -- An unreadable file gives a key no build has, so the build runs and reports the real problem.
    sources[i] = "source " .. i .. "\0" .. (read(path) or ("\1unreadable " .. path .. " " .. os.time()))
  end
  return job_key("mbgen build cache 1", p, sources)
end

-- The key of a model's structure (p as for B.cache_key, with fingerprint = run/fingerprint.lua's of its tree in
-- place of the sources' texts): builds whose structure keys agree generate the same C but for the values of the
-- data table, so one is made from the other by emit.model's patch_data.
function B.structure_key(p)
  return job_key("mbgen structure 1", p, { "fingerprint " .. p.fingerprint })
end

-- The number of cores, once per process (nproc; 1 when it cannot tell).
local CORES
function B.cores()
  if not CORES then
    local p = io.popen("nproc 2>/dev/null")
    CORES = math.max(1, tonumber(p and p:read("l") or "") or 1)
    if p then p:close() end
  end
  return CORES
end

-- The manifest: what a finished build produced, with a content hash of each product, written last
-- (under a temporary name, then renamed), so a build that stopped half-way never looks finished, and a
-- product damaged since is noticed and rebuilt instead of linked. One per key (NAME-KEY.manifest), so
-- two kinds of build of one folder (other --cflags) keep their products side by side.
local function read_manifest(path, key)
  local text = read(path)
  if not text or not text:match("^mbgen build manifest 1\n") then return nil end
  local m = { files = {}, objects = {} }
  for line in text:gmatch("[^\n]+") do
    local w = {}
    for x in line:gmatch("%S+") do w[#w + 1] = x end
    if w[1] == "key" then m.key = w[2]
    elseif w[1] == "structure" then m.structure = w[2]
    elseif w[1] == "file" then m.files[#m.files + 1] = { name = w[2], hash = w[3] }
    elseif w[1] == "object" then m.objects[#m.objects + 1] = { name = w[2], hash = w[3] }
    elseif w[1] == "exe" then m.exe = { name = w[2], hash = w[3], link = w[4] }
    end
  end
  if (key and m.key ~= key) or #m.files == 0 or #m.objects == 0 then return nil end
  return m
end

local function write_manifest(path, m)
  local L = { "mbgen build manifest 1", "key " .. m.key }
  if m.structure then L[#L + 1] = "structure " .. m.structure end
  for _, f in ipairs(m.files) do L[#L + 1] = "file " .. f.name .. " " .. f.hash end
  for _, o in ipairs(m.objects) do L[#L + 1] = "object " .. o.name .. " " .. o.hash end
  if m.exe then L[#L + 1] = "exe " .. m.exe.name .. " " .. m.exe.hash .. " " .. m.exe.link end
  write(path, table.concat(L, "\n") .. "\n")
end

local function file_hash(path)
  local s = read(path)
  return s and B.hash(s) or nil
end

-- The manifests of every key in a build folder (the model's other versions, kept for 10 minutes after they
-- were replaced), most recent first.
local function manifests(dir, name)
  local p = io.popen("ls -t " .. shell_quote(dir) .. "/" .. shell_quote(name .. "-") .. "*.manifest 2>/dev/null")
  local list = {}
  for path in p:lines() do
    local m = read_manifest(path, nil)
    if m then list[#list + 1] = m end
  end
  p:close()
  return list
end

-- Runs the compile commands, at most `jobs` at a time (xargs -P), each writing its object under a
-- temporary name and renaming it into place. Returns true when every command succeeded.
local function run_parallel(cmds, jobs)
  if #cmds == 1 then return os.execute(cmds[1]) and true or false end
  local list = os.tmpname()
  local f = assert(io.open(list, "wb"))
  for _, c in ipairs(cmds) do f:write(c, "\0") end
  f:close()
  local ok = os.execute(string.format("xargs -0 -P %d -n 1 sh -c < %s", jobs, shell_quote(list)))
  os.remove(list)
  return ok and true or false
end

-- opts: root (the repository), kind ("run", "sens", "check"), model (the model file's path), name (model
-- name), overrides (the generation-time --set table), key (B.cache_key), generate (a function returning
-- emit.model's files, called only when the cache cannot serve them), structure and patch (optional: the key of
-- the model's structure, B.structure_key, and a function that turns the files of a build of that structure into
-- this model's, emit.model's patch_data: then no generation), driver (path of the driver's .c), exe
-- (its file name), cflags (the model's objects, default -O1), driver_cflags (default -O1), runtime (false:
-- link without build/libmbrt.a), libs (default B.LIBS), progress (a function taking one line, or
-- nil), what (the driver's name in progress lines), link_objects (objects of another build linked too: their hashes
-- are part of the link's key), no_link (compile the objects only: returns true, nil, info).
-- driver may be a list of sources, compiled together with driver_cflags.
-- When the manifest of this key lists intact products, neither the emitter nor the compiler runs; the
-- driver is relinked only when its inputs changed (its source, the runtime headers, the objects, or a
-- build/libmbrt.a newer than the executable). Returns the executable's path, or nil and a message; the
-- third value says what was done: { dir, generated, compiled (units), linked, objects }.
function B.executable(opts)
  local root, name, key = opts.root, opts.name, opts.key
  local cflags = opts.cflags or "-O1"
  local say = opts.progress or function() end
  local use_lib = opts.runtime ~= false
  local libs = opts.libs or B.LIBS
  local dir = B.folder(root, opts.kind, opts.model, opts.overrides)
  os.execute("mkdir -p " .. shell_quote(dir))
  local k12 = key:sub(1, 12)
  local mpath = dir .. "/" .. name .. "-" .. k12 .. ".manifest"
  local info = { dir = dir, generated = false, compiled = 0, linked = false, objects = {} }
  local library_ready = use_lib and B.runtime_library_start(root)

  -- What the manifest promises, checked against the bytes on disk.
  local man = read_manifest(mpath, key)
  local files_ok = man ~= nil
  local objects, good, damaged, replaced = {}, {}, {}, false
  local others
  if man then
    for _, f in ipairs(man.files) do
      local h = file_hash(dir .. "/" .. f.name)
      if h ~= f.hash then
        files_ok = false
        -- The common case: a build of another version of the model (an edit, since undone) wrote its files here.
        others = others or manifests(dir, name)
        local theirs = false
        for _, m in ipairs(others) do
          for _, g in ipairs(m.files) do theirs = theirs or (g.name == f.name and g.hash == h) end
        end
        if theirs then replaced = true else damaged[#damaged + 1] = f.name end
      end
    end
    for _, o in ipairs(man.objects) do
      objects[#objects + 1] = { name = o.name, part = tonumber(o.name:match("%.p(%d+)%-")), hash = o.hash }
      if file_hash(dir .. "/" .. o.name) == o.hash then good[o.name] = true else damaged[#damaged + 1] = o.name end
    end
    if #damaged > 0 then say(string.format("rebuilding %s: %s missing or damaged", name, table.concat(damaged, ", ")))
    elseif replaced then say(string.format("%s: the files in its folder are another version's; writing this one's again", name)) end
  end

  local fhashes = {}
  if man then for _, f in ipairs(man.files) do fhashes[f.name] = f.hash end end
  local need_compile = false
  for _, o in ipairs(objects) do if not good[o.name] then need_compile = true end end
  if not man or not files_ok then
    -- A build of the same structure (only the data table's values differ) gives the files without the emitter.
    local files, nfunctions
    others = others or manifests(dir, name)
    if opts.structure and opts.patch then
      for _, m in ipairs(others) do
        if m.structure == opts.structure then
          local old, intact = {}, true
          for _, f in ipairs(m.files) do
            old[f.name] = read(dir .. "/" .. f.name)
            if not old[f.name] or B.hash(old[f.name]) ~= f.hash then intact = false end
          end
          if intact then files = opts.patch(old) break end
        end
      end
    end
    if files then
      say(string.format("updating the data of %s (its structure is that of an earlier build: no generation)", name))
    else
      say(string.format("generating %s for %s", name, opts.what or opts.exe))
      files, nfunctions = opts.generate()
    end
    info.generated, info.nfunctions = true, nfunctions
    local fnames = {}
    for fname in pairs(files) do fnames[#fnames + 1] = fname end
    table.sort(fnames)
    local same = man ~= nil
    for _, fname in ipairs(fnames) do
      local path = dir .. "/" .. fname
      if read(path) ~= files[fname] then write(path, files[fname]) end
      local h = B.hash(files[fname])
      if fhashes[fname] ~= h then same = false end
      fhashes[fname] = h
    end
    -- Objects the manifest vouches for were compiled from these very texts only if the texts are the same; else
    -- each unit is named after the text it compiles, and an object of that name that a manifest of this folder
    -- vouches for (an earlier version of the model whose edit did not reach that unit) is used as it is.
    if not same then
      objects, good = U.list(name, files[name .. ".c"], files[name .. ".h"], B.generator_hash(root) .. "\0" .. cflags,
        B.hash, cflags:find("-DMB_LINKED_DATA", 1, true) ~= nil), {}
      local known = {}
      for _, m in ipairs(others) do
        for _, o in ipairs(m.objects) do known[o.name] = o.hash end
      end
      need_compile = false
      for _, o in ipairs(objects) do
        local h = known[o.name] and file_hash(dir .. "/" .. o.name)
        if h and h == known[o.name] then good[o.name], o.hash = true, h else need_compile = true end
      end
    end
  end

  if need_compile then
    local todo, cmds = {}, {}
    for _, o in ipairs(objects) do
      if not good[o.name] then todo[#todo + 1] = o end
    end
    -- The longest first, so that the cores finish together rather than one waiting on the last long unit.
    table.sort(todo, function(x, y)
      if (x.size or 0) ~= (y.size or 0) then return (x.size or 0) > (y.size or 0) end
      return (x.part or 0) < (y.part or 0)
    end)
    local cpath = dir .. "/" .. name .. ".c"
    local ctext = read(cpath) or ""
    for _, o in ipairs(todo) do
      -- A damaged object is not removed first: the rename replaces it at once, and a concurrent run of
      -- the same key may be linking the intact copy it just renamed into place.
      local obj = dir .. "/" .. o.name
      -- A section compiles from a file of its own text (run/units.lua), removed once compiled.
      local src, text = cpath, o.part and U.source(ctext, o.part, cpath)
      if text then
        src = obj:gsub("%.o$", "") .. B.suffix() .. ".c"
        local f = assert(io.open(src, "wb"))
        f:write(text)
        f:close()
      end
      cmds[#cmds + 1] = string.format("gcc -std=c99 %s -Wall -Wextra -Werror%s -I%s -I%s -c %s -o %s && mv -f %s %s%s",
        cflags, o.part and (" -DMB_PART=" .. o.part) or "", shell_quote(root .. "/runtime"), shell_quote(dir),
        shell_quote(src), shell_quote(obj .. B.suffix()), shell_quote(obj .. B.suffix()), shell_quote(obj),
        text and ("; s=$?; rm -f " .. shell_quote(src) .. "; exit $s") or "")
    end
    local jobs = math.min(B.cores(), #todo)
    say(string.format("compiling %s%s in %d unit%s on %d core%s%s", name,
      info.nfunctions and string.format(" (%d functions)", info.nfunctions) or "", #todo, #todo == 1 and "" or "s",
      jobs, jobs == 1 and "" or "s",
      #todo < #objects and string.format(" (%d of %d unchanged)", #objects - #todo, #objects) or ""))
    local ok = run_parallel(cmds, jobs)
    for i, o in ipairs(todo) do
      local h = file_hash(dir .. "/" .. o.name)
      if not ok or not h then
        os.remove(dir .. "/" .. o.name .. B.suffix())
        if not h then return nil, "compiling the generated model failed: " .. cmds[i] end
      end
      o.hash = h
    end
    if not ok then return nil, "compiling the generated model failed: " .. cmds[1] end
    info.compiled = #todo
    -- A concurrent build of another version of this model (another key) may have rewritten NAME.c while
    -- these objects compiled: then they do not belong to this key and are not recorded.
    for fname, h in pairs(fhashes) do
      if file_hash(dir .. "/" .. fname) ~= h then
        for _, o in ipairs(todo) do os.remove(dir .. "/" .. o.name) end
        return nil, "the generated C in " .. dir .. " changed during the build (another mbgen building another version of this model?): run again"
      end
    end
  end

  local names = {}
  for fname in pairs(fhashes) do names[#names + 1] = fname end
  table.sort(names)
  local newman = { key = key, structure = opts.structure, files = {}, objects = {}, exe = man and man.exe or nil }
  for _, fname in ipairs(names) do newman.files[#newman.files + 1] = { name = fname, hash = fhashes[fname] } end
  for _, o in ipairs(objects) do
    newman.objects[#newman.objects + 1] = { name = o.name, hash = o.hash }
    info.objects[#info.objects + 1] = dir .. "/" .. o.name
  end
  if info.generated or info.compiled > 0 then
    newman.exe = nil
    write_manifest(mpath, newman)
    -- Products of earlier keys are stale, but for the objects this build uses; one written in the last 10
    -- minutes may be about to be linked by a concurrent run with other flags, so it stays until a later build.
    local keep = { "! -name " .. shell_quote(name .. "-" .. k12 .. ".manifest") }
    for _, o in ipairs(newman.objects) do keep[#keep + 1] = "! -name " .. shell_quote(o.name) end
    -- (A section's source left by a killed compile goes the same way.)
    os.execute(string.format("find %s -maxdepth 1 \\( -name %s -o -name %s -o -name %s -o -name %s \\) %s -mmin +10 -delete 2>/dev/null",
      shell_quote(dir), shell_quote(name .. "-*.o"), shell_quote(name .. ".p*-*.o"), shell_quote(name .. "-*.manifest"),
      shell_quote(name .. ".p*-*.tmp*.c"), table.concat(keep, " ")))
  end

  -- A build of objects alone (no_link): another build links them (opts.link_objects there).
  if opts.no_link then return true, nil, info end
  local lib = root .. "/build/libmbrt.a"
  if use_lib and not library_ready() then
    return nil, "building the runtime library failed (make build/libmbrt.a)"
  end
  local exe = dir .. "/" .. opts.exe
  local dflags = opts.driver_cflags or "-O1"
  -- Everything the link reads besides the runtime library, whose date is compared instead.
  local drivers = type(opts.driver) == "table" and opts.driver or { opts.driver }
  local lparts = { key, dflags, libs, use_lib and "lib" or "nolib" }
  for _, d in ipairs(drivers) do lparts[#lparts + 1] = d .. "\0" .. (read(d) or "") end
  for _, h in ipairs(list_files(root, { "runtime" }, "*.h")) do lparts[#lparts + 1] = h .. "\0" .. (read(root .. "/" .. h) or "") end
  for _, o in ipairs(newman.objects) do lparts[#lparts + 1] = o.name .. " " .. o.hash end
  for _, p in ipairs(opts.link_objects or {}) do lparts[#lparts + 1] = p .. " " .. (file_hash(p) or "missing") end
  local lkey = B.hash(table.concat(lparts, "\0"))
  local e = newman.exe
  local linked_ok = e and e.name == opts.exe and e.link == lkey and file_hash(exe) == e.hash
    and (not use_lib or os.execute("test " .. shell_quote(exe) .. " -nt " .. shell_quote(lib)))
  if not linked_ok then
    local srcs, objs = {}, {}
    for _, d in ipairs(drivers) do srcs[#srcs + 1] = shell_quote(d) end
    for _, p in ipairs(info.objects) do objs[#objs + 1] = shell_quote(p) end
    for _, p in ipairs(opts.link_objects or {}) do objs[#objs + 1] = shell_quote(p) end
    local ld = string.format("gcc -std=c99 %s -Wall -Wextra -Werror -DMB_MODEL=%s_model -I%s -I%s %s %s %s %s -o %s",
      dflags, name, shell_quote(root .. "/runtime"), shell_quote(dir), table.concat(srcs, " "), table.concat(objs, " "),
      use_lib and shell_quote(lib) or "", libs, shell_quote(exe .. B.suffix()))
    if not os.execute(ld) then
      os.remove(exe .. B.suffix())
      return nil, "linking the driver failed: " .. ld
    end
    local h = file_hash(exe .. B.suffix())
    os.rename(exe .. B.suffix(), exe)
    info.linked = true
    newman.exe = { name = opts.exe, hash = h, link = lkey }
    write_manifest(mpath, newman)
  end
  if not info.generated and info.compiled == 0 then
    say(string.format("%s is up to date (cached)%s", name, info.linked and ", driver relinked" or ""))
  end
  return exe, nil, info
end

return B
