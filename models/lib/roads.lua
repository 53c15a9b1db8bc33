-- lib/roads.lua: road surfaces z = h(x, y) (ground frame, z up) for the `road` field of tyre elements.
-- Every road is smooth, so the tyre's contact point, normal and all their derivatives exist everywhere.
local R = {}

-- A level road at height z0 (default 0).
function R.flat(z0)
  z0 = z0 or 0
  return function(x, y) return z0 + 0 * x + 0 * y end
end

-- A step of `height` (negative: a step down) at x = x0, smoothed over about `width` metres by a tanh
-- (seeds/000.md §4.2 gives a 1 cm step down 5.5 m from the start and not its shape).
function R.step(a)
  local h, x0, w = a.height, a.x, a.width or 0.02
  return function(x, y) return 0.5 * h * (1 + tanh((x - x0) / (0.5 * w))) + 0 * y end
end

-- Gaussian bumps { { x =, height =, width =, y =, lane = }, ... }: a bump across the whole road, or over
-- the lane |y - bump.y| of half-width `lane` when those are given (smoothed by a tanh as well).
function R.bumps(list)
  return function(x, y)
    local h = 0 * x
    for _, b in ipairs(list) do
      local s = (x - b.x) / b.width
      local bump = b.height * exp(-s * s)
      if b.lane then
        bump = bump * 0.5 * (tanh((b.lane - (y - (b.y or 0))) / 0.02) + tanh((b.lane + (y - (b.y or 0))) / 0.02))
      end
      h = h + bump
    end
    return h
  end
end

return R
