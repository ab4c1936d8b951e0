-- name: vmboot
-- summary: where a QEMU/KVM guest's boot time goes: firmware, option ROM, kernel, shutdown, from the host
-- usage: ltap vmboot [-c 'qemu-system-x86_64 ...' | -p QEMU_PID] [--firmware-log] [--timeline FILE] [--qemu PATH] [--init PATTERN] [--no-emulated]
-- example:
--   vmboot: qemu-system-x86_64 pid 28399, 1 vCPU thread; exits from kvm_userspace_exit (kvm_exit never fired: ...)
--             ms  phase                                           took ms   share  in KVM_RUN  top exits
--          0.000  QEMU start (exec)                                23.377    0.4%        0.0%
--         23.377  main                                             42.793    0.8%        0.0%
--         66.705  BIOS post: SeaBIOS (version 1.16.2-debian...   5270.489   98.0%       99.5%  IO 3,558
--       5337.195  boot device: Booting from ROM...                 29.969    0.6%       98.5%  IO 122
--       5367.391  option ROM: copy initrd                           6.282    0.1%        1.7%  IO 3
--       5373.805  kernel start (serial)                             0.996    0.0%       75.8%  IO 51
--       5375.261  shutdown request                                  0.135    0.0%        0.0%
--   copy initrd: 1,234,567 bytes in 6.155 ms (191.3 MiB/s) at 5367.391 ms
--
-- Everything comes from the host, with no patched QEMU or firmware:
-- u: probes on QEMU's exported functions (main, vm_start,
-- qemu_system_shutdown_request, qemu_cleanup, fw_cfg_add_bytes for the
-- sizes of the kernel and initrd, address_space_rw for the fw_cfg DMA
-- copies), kvm:kvm_pio for the firmware's debug port (0x402, -debugcon),
-- the serial port (0x3f8) and fw_cfg DMA kicks, KVM_RUN ioctls for the time
-- the vCPUs run the guest, and the guest's exits by name: kvm:kvm_exit's
-- exit_reason, or where kvm_exit never fires (a KVM that emulates the
-- guest, as nested software KVM does) kvm:kvm_userspace_exit's reason and
-- kvm:kvm_emulate_insn's instruction modes. Times are ms since QEMU's exec
-- (-p: since the process started, from /proc, to 10 ms). The firmware's
-- phases come from its log on port 0x402 (QEMU's -debugcon; SeaBIOS
-- writes it only when the port is there) or from its serial console.
local getopt = require("ltap.getopt")
local derive = require("ltap.derive")
local fmt = require("ltap.format")

local o, rest = getopt{
  {"--firmware-log", "flag", "also print the firmware's own log lines (port 0x402) with host times"},
  {"--timeline", "string", "write the phases as a Chrome/Perfetto JSON trace to FILE", arg = "FILE"},
  {"--qemu", "string", "the QEMU binary to probe (default: the command's, the process's, or qemu-system-x86_64)",
    arg = "PATH"},
  {"--init", "string", "a serial line matching this Lua pattern marks init (default: Linux's)",
    default = "Run %S+ as init process", arg = "PATTERN"},
  {"--no-emulated", "flag", "do not count emulated instructions (kvm_emulate_insn: costly where every one is)"},
  targets = true,
}
if #rest > 0 then getopt.error("unexpected argument '" .. rest[1] .. "'") end

-- the QEMU binary: what was named, else the command's first word, the
-- process's argv[0], or the name looked up in $PATH (u: specs take names)
local function first_word(cmd)
  local w = cmd:match("^%s*'([^']*)'") or cmd:match('^%s*"([^"]*)"') or cmd:match("^%s*(%S+)")
  return w
end
local qemu = o.qemu
if not qemu and type(o.command) == "string" then qemu = first_word(o.command) end
if not qemu and o.pid then
  local f = io.open("/proc/" .. tostring(o.pid) .. "/cmdline", "rb")
  if f then qemu = (f:read("a") or ""):match("^[^%z]+") f:close() end
end
qemu = qemu or "qemu-system-x86_64"
if not ltap.functions(qemu, "vm_start") then
  getopt.error("--qemu: " .. qemu .. " has no function vm_start (not a QEMU system emulator?)")
end

local KVM_RUN = 0xae80
local FW_CFG = {[0x11] = "kernel", [0x12] = "initrd", [0x18] = "setup"}
-- ns: exit and instruction counts are kept in 100 us bins, each summed into
-- the phase its start is in (phases are known only once their line ends);
-- the time in KVM_RUN is exact (its intervals are kept)
local BIN = 100000

local t0               -- QEMU's exec
local attached_late    -- -p: ltap came after QEMU's start, so firsts seen are not firsts
local marks = {}       -- {time=, name=, detail=}: the phases, in the order they are seen
local seen = {}        -- phase name -> its mark
local function mark(name, t, detail)
  if seen[name] then return seen[name] end
  local m = {time = t, name = name, detail = detail}
  seen[name] = m
  marks[#marks + 1] = m
  return m
end

-- per bin: {exits = {name = n}, uexits = {...}, emu = {...}}
local bins = {}
local function bin(t)
  local b = (t - t0) // BIN
  local x = bins[b]
  if not x then
    x = {exits = {}, uexits = {}, emu = {}}
    bins[b] = x
  end
  return x
end
local function count(t, what, name)
  local x = bin(t)[what]
  x[name] = (x[name] or 0) + 1
end

local target = function(e) return ltap.target == 0 or e.pid == ltap.target end

-- QEMU's own steps
local function u(fn, name, handler)
  probe("u:" .. qemu .. ":" .. fn, handler or function(e) if target(e) then mark(name, e.time) end end)
end
probe("sched:sched_process_exec", function(e)
  if e.pid == ltap.target and not t0 then t0 = e.time mark("QEMU start (exec)", e.time) end
end)
u("main", "main")
u("vm_start", "run (vm_start)")
u("qemu_system_shutdown_request", "shutdown request")
u("qemu_cleanup", "stop (qemu_cleanup)")
probe("sched:sched_process_exit", function(e)
  if e.pid == ltap.target and e.tid == e.pid then
    mark("exit", e.time)
    exit() -- with -p too, the run ends with QEMU
  end
end)

-- the sizes QEMU gives fw_cfg for the kernel, initrd and setup (once each, at start)
local sizes, copies = {}, {}
u("fw_cfg_add_bytes", nil, function(e)
  local what = FW_CFG[e.arg2 & 0xffff]
  if what and target(e) then sizes[what] = e.arg4 end
end)
-- the fw_cfg DMA copies into the guest: an address_space_rw of that many
-- bytes; only big transfers reach the ring (the uprobe fires at every port
-- and MMIO access of the guest: its cost is in the probes' report)
local copying = {} -- vCPU tid -> the copy it is doing
probe("u:" .. qemu .. ":address_space_rw", "arg5 >= 512", function(e)
  if not target(e) then return end
  for what, n in pairs(sizes) do
    if n == e.arg5 and not copies[what] then
      local c = {what = what, bytes = n, time = e.time}
      copies[what] = c
      copying[e.tid] = c
      if what ~= "setup" then mark("option ROM: copy " .. what, e.time, c) end
    end
  end
end)

-- KVM_RUN: the vCPU threads in the guest; a copy ends when its thread goes back in
local inrun, vcpus, nvcpu = {}, {}, 0
local runs = {} -- {from, to, from, to, ...}: every KVM_RUN, in order of its end
local function add_run(from, to)
  runs[#runs + 1] = from
  runs[#runs + 1] = to
end
probe("syscalls:sys_enter_ioctl", "cmd == " .. KVM_RUN, function(e)
  if not target(e) then return end
  if not vcpus[e.tid] then vcpus[e.tid] = true nvcpu = nvcpu + 1 end
  if not attached_late then mark("first guest instruction (KVM_RUN)", e.time) end
  inrun[e.tid] = e.time
  local c = copying[e.tid]
  if c then c.stop = e.time copying[e.tid] = nil end
end)
probe("syscalls:sys_exit_ioctl", function(e)
  local since = inrun[e.tid]
  if since and t0 then
    inrun[e.tid] = nil
    add_run(since, e.time)
  end
end)

-- exits: kvm_exit's reasons, else those that reach QEMU; the emulated instructions' modes
local nexit, nuexit, nemu = 0, 0, 0
probe("kvm:kvm_exit", function(e)
  if target(e) and t0 then nexit = nexit + 1 count(e.time, "exits", e.sym.exit_reason) end
end)
probe("kvm:kvm_userspace_exit", function(e)
  if target(e) and t0 then nuexit = nuexit + 1 count(e.time, "uexits", (e.sym.reason:gsub("^KVM_EXIT_", ""))) end
end)
if not o.no_emulated then
  local modes = {} -- flags -> name, resolved at the first of each
  probe("kvm:kvm_emulate_insn", function(e)
    if not t0 then return end
    local f = e.flags
    local name = modes[f]
    if not name then name = e.sym.flags modes[f] = name end
    nemu = nemu + 1
    count(e.time, "emu", name)
  end)
end

-- the firmware's log (debug port 0x402), the serial console (0x3f8), fw_cfg DMA kicks
local fwlog, serial = {}, {}
local dma_after_boot
derive.lines{event = "kvm:kvm_pio", filter = "rw == 1 && port == 0x402", byte = "val", key = function(e)
  if target(e) and t0 then return "fw" end
end, fn = function(l)
  fwlog[#fwlog + 1] = l
  if l.text:match("^SeaBIOS") or (#fwlog == 1 and not attached_late) then mark("BIOS post", l.time, l.text) end
  if l.text:match("^Booting from") then mark("boot device", l.time, l.text) end
end}
-- the kernel's first serial byte: after the copies end (or the boot device);
-- declared before the console's lines, so the flush comes before that byte
local console
probe("kvm:kvm_pio", "rw == 1 && port == 0x3f8", function(e)
  if not target(e) or seen["kernel start (serial)"] then return end
  local booted = (copies.kernel and copies.kernel.stop and e.time > copies.kernel.stop) or
                 (not copies.kernel and dma_after_boot and e.time > dma_after_boot)
  if booted then
    console:flush("serial") -- what the firmware wrote ends here
    local m = mark("kernel start (serial)", e.time)
    serial.kernel_from = #serial + 1
    m.detail = nil
  end
end)
console = derive.lines{event = "kvm:kvm_pio", filter = "rw == 1 && port == 0x3f8", byte = "val",
  key = function(e) if target(e) and t0 then return "serial" end end, fn = function(l)
  serial[#serial + 1] = l
  if not seen["kernel start (serial)"] then
    -- the firmware's serial console (SeaBIOS's sercon) before the boot
    if l.text:match("SeaBIOS") then mark("BIOS post", l.time, l.text) end
    if l.text:match("Booting from") then mark("boot device", l.time, l.text) end
  elseif l.text:match(o.init) then
    mark("init", l.time, l.text)
  end
end}
probe("kvm:kvm_pio", "rw == 1 && (port == 0x514 || port == 0x518)", function(e)
  if target(e) and seen["boot device"] and e.time > seen["boot device"].time then
    dma_after_boot = e.time
    mark("option ROM (fw_cfg DMA)", e.time)
  end
end)

-- -p: QEMU started before ltap; its start from /proc (clock ticks since
-- boot). A -c command is ltap's own child (its exec gives the start).
local function proc_stat(pid)
  local f = io.open("/proc/" .. pid .. "/stat")
  local stat = f and f:read("a")
  if f then f:close() end
  local fields = {}
  for w in ((stat or ""):match("%) (.*)") or ""):gmatch("%S+") do fields[#fields + 1] = w end
  return fields -- fields[1] is the state: ppid is [2], starttime [20]
end
local function proc_start(pid)
  local self = io.open("/proc/self/stat")
  local me = self and tonumber(self:read("a"):match("^(%d+)"))
  if self then self:close() end
  local st, up = proc_stat(pid), io.open("/proc/uptime")
  local uptime = up and tonumber(up:read("a"):match("^(%S+)"))
  if up then up:close() end
  local ppid, start = tonumber(st[2]), tonumber(st[20])
  if not (ppid and start and uptime) or ppid == me then return nil end
  return ltap.now() - math.floor((uptime - start / 100) * 1e9)
end
begin(function()
  if not t0 and ltap.target ~= 0 then
    local t = proc_start(ltap.target)
    if t then
      t0, attached_late = t, true
      mark("QEMU start (from /proc, before ltap)", t)
      mark("ltap attached", ltap.start_time())
    end
  end
end)

-- the report ------------------------------------------------------------

local function ms(t) return (t - t0) / 1e6 end

local function top(counts, n)
  local out = {}
  for name, k in sorted(counts, "desc", n) do out[#out + 1] = string.format("%s %s", name, fmt.thousands(k)) end
  return table.concat(out, ", ")
end

-- [from, to)'s time in KVM_RUN, and the counts of the bins that start in it
local function phase_sums(from, to)
  local s = {run = 0, exits = {}, uexits = {}, emu = {}}
  for i = 1, #runs, 2 do
    local a, b = math.max(runs[i], from), math.min(runs[i + 1], to)
    if b > a then s.run = s.run + (b - a) end
  end
  for b = -((t0 - from) // BIN), -((t0 - to) // BIN) - 1 do -- bins starting in [from, to)
    local x = bins[b]
    if x then
      for _, what in ipairs{"exits", "uexits", "emu"} do
        for k, n in pairs(x[what]) do s[what][k] = (s[what][k] or 0) + n end
      end
    end
  end
  return s
end

local function write_timeline(path, phases, t_end)
  local json = require("dkjson")
  local events, pid = {}, ltap.target
  for k, m in ipairs(phases) do
    local stop = phases[k + 1] and phases[k + 1].time or t_end
    events[#events + 1] = {name = m.name, ph = "X", ts = ms(m.time) * 1e3, dur = (stop - m.time) / 1e3,
      pid = pid, tid = pid, cat = "phase", args = m.detail and {detail = type(m.detail) == "string" and m.detail or nil}}
  end
  for _, c in pairs(copies) do
    if c.stop then
      events[#events + 1] = {name = "copy " .. c.what .. " (" .. c.bytes .. " bytes)", ph = "X",
        ts = ms(c.time) * 1e3, dur = (c.stop - c.time) / 1e3, pid = pid, tid = pid + 1, cat = "copy"}
    end
  end
  for _, l in ipairs(fwlog) do
    events[#events + 1] = {name = l.text, ph = "i", s = "t", ts = ms(l.time) * 1e3, pid = pid, tid = pid + 2, cat = "firmware"}
  end
  local f, why = io.open(path, "w")
  if not f then io.stderr:write("vmboot: --timeline: cannot write ", why, "\n") return end
  f:write(json.encode({traceEvents = events, displayTimeUnit = "ms"}), "\n")
  f:close()
end

finish(function()
  if not t0 then
    io.stderr:write("vmboot: QEMU was not seen starting (give -c 'qemu-system-x86_64 ...' or -p PID)\n")
    return
  end
  local t_end = seen.exit and seen.exit.time or ltap.now()
  table.sort(marks, function(a, b) return a.time < b.time end)
  local total = t_end - t0
  local signal
  if nexit > 0 then
    signal = "exits from kvm_exit"
  else
    signal = "exits from kvm_userspace_exit (kvm_exit never fired: this KVM " ..
      (nemu > 0 and ("emulates the guest, " .. fmt.thousands(nemu) .. " instructions in kvm_emulate_insn)")
       or "reports no exits to the host)")
  end
  printf("vmboot: %s pid %d, %d vCPU thread%s; %s\n", qemu:gsub(".*/", ""), ltap.target, nvcpu,
    nvcpu == 1 and "" or "s", signal)
  printf("%12s  %-44s %10s %7s %11s  %s\n", "ms", "phase", "took ms", "share", "in KVM_RUN", "top exits")
  for k, m in ipairs(marks) do
    local stop = marks[k + 1] and marks[k + 1].time or t_end
    local took = stop - m.time
    local s = phase_sums(m.time, stop)
    local name = m.name
    if type(m.detail) == "string" then name = name .. ": " .. m.detail:gsub("%c", "") end
    if #name > 44 then name = name:sub(1, 41) .. "..." end
    printf("%12.3f  %-44s %10.3f %6.1f%% %10.1f%%  %s\n", ms(m.time), name, took / 1e6,
      total > 0 and took * 100 / total or 0, took > 0 and s.run * 100 / (took * math.max(nvcpu, 1)) or 0,
      top(nexit > 0 and s.exits or s.uexits, 3))
  end
  -- the copies over fw_cfg DMA, their sizes and rates
  for _, what in ipairs{"kernel", "initrd"} do
    local c = copies[what]
    if c and c.stop then
      local secs = (c.stop - c.time) / 1e9
      printf("copy %s: %s bytes in %.3f ms (%s/s) at %.3f ms\n", what, fmt.thousands(c.bytes), secs * 1e3,
        fmt.bytes(secs > 0 and c.bytes / secs or 0), ms(c.time))
    elseif sizes[what] then
      printf("copy %s: %s bytes given to fw_cfg, its copy not seen\n", what, fmt.thousands(sizes[what]))
    end
  end
  -- what the guest was made to do, phase by phase
  if nemu > 0 then
    print()
    print("emulated instructions per phase (kvm_emulate_insn, by CPU mode):")
    for k, m in ipairs(marks) do
      local s = phase_sums(m.time, marks[k + 1] and marks[k + 1].time or t_end)
      local n = 0
      for _, c in pairs(s.emu) do n = n + c end
      if n > 0 then printf("  %-44s %12s  %s\n", m.name, fmt.thousands(n), top(s.emu, 4)) end
    end
  end
  -- the guest's serial output after the boot
  if serial.kernel_from then
    print()
    print("serial console (after the boot):")
    for i = serial.kernel_from, #serial do
      local l = serial[i]
      printf("%12.3f  %s%s\n", ms(l.time), l.text, l.partial and "  (no newline)" or "")
    end
  end
  if o.firmware_log then
    print()
    if #fwlog == 0 then
      print("firmware log: none on port 0x402 (give QEMU -debugcon file:FILE -global isa-debugcon.iobase=0x402)")
    else
      print("firmware log (port 0x402):")
      for _, l in ipairs(fwlog) do printf("%12.3f  %s\n", ms(l.time), l.text) end
    end
  end
  -- what the probes cost QEMU
  print()
  local costs = {}
  for _, p in ipairs(ltap.probe_hits()) do
    if p.costly and p.hits > 0 then costs[#costs + 1] = string.format("%s %s", p.spec:gsub("^u:.*:", ""), fmt.thousands(p.hits)) end
  end
  printf("uprobe hits in QEMU: %s\n", #costs > 0 and table.concat(costs, ", ") or "none")
  if o.timeline then write_timeline(o.timeline, marks, t_end) end
end)
