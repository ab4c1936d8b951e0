-- luv_count.lua: ltap inside a luv program (libuv for Lua, Debian's lua-luv):
-- the program's own timer and ltap's probes on one loop, the luv one.
--
--   lua5.4 luv_count.lua [COMMAND [ARGS...]]
--
-- counts getppid() calls of COMMAND (or of the whole system until ^C) while
-- a luv timer prints a line every 20 ms. As root.
local uv = require "luv"
local ltap = require "ltap"

local calls, ticks = 0, 0
ltap.probe("syscalls:sys_enter_getppid", function(e) calls = calls + 1 end)
if #arg > 0 then ltap.options{command = table.concat(arg, " ")} end

local timer = uv.new_timer()
timer:start(20, 20, function()
  ticks = ticks + 1
  print("tick " .. ticks)
end)

local ok, err = ltap.start()
if not ok then error(err) end

-- ltap.fd() is readable when ltap has work: one step each time
local poll = uv.new_poll(ltap.fd())
local sigint = uv.new_signal()
sigint:start("sigint", function() ltap.stop() end)
poll:start("r", function()
  if ltap.step(0) then return end
  -- the run ended (the command exited, or ^C): finish hooks ran
  poll:close()
  timer:close()
  sigint:close()
  print(string.format("getppid %d, ticks %d, status %d", calls, ticks, ltap.status()))
end)
uv.run()
