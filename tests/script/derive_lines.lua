-- derive.lines over events fed by hand (probe and finish faked): bytes to
-- lines with their first byte's time, CRLF, two keys interleaved, bytes as
-- integers (low 8 bits) and strings, skipped events, a line cut at max, a
-- flush when the stream changes hands, the last lines without a newline
-- given at the end (partial, in order of their first byte), and the
-- declaration's mistakes.
local derive = require("ltap.derive")

local function show(l)
  printf("%-5s t=%d..%d %q%s%s\n", tostring(l.key), l.time, l.last, l.text,
    l.partial and " partial" or "", l.cut and " cut" or "")
end

begin(function()
local saved = {probe, finish}
local on_event, at_end = {}, {}
probe = function(ev, filter, fn) on_event[#on_event + 1] = {ev, filter, fn} end
finish = function(fn) at_end[#at_end + 1] = fn end

print("one stream, integer bytes:")
derive.lines{event = "kvm:kvm_pio", filter = "port == 0x402", byte = "val", fn = show}
printf("  probe %s filter %s\n", on_event[1][1], on_event[1][2])
local t = 100
for c in ("SeaBIOS\r\nBooting from ROM..\nno newline"):gmatch(".") do
  on_event[1][3]({time = t, val = c:byte() + 0x100}) -- the low 8 bits are the byte
  t = t + 10
end
on_event[1][3]({time = t, val = nil}) -- no byte: skipped
at_end[1]()

print("two keys, string bytes, max 8, a flush:")
on_event, at_end = {}, {}
local h = derive.lines{event = {"a:x", "a:y"}, key = "port", byte = function(e) return e.s end, max = 8, fn = show}
printf("  probes %s %s\n", on_event[1][1], on_event[2][1])
local feed = {{1, 0x3f8, "hel"}, {2, 0x402, "fw: "}, {3, 0x3f8, "lo\n"}, {4, 0x402, "0123456789"},
              {5, 0x3f8, "Booting "}, {6, 0x3f8, "from ROM.."}}
for _, f in ipairs(feed) do on_event[1][3]({time = f[1], port = f[2], s = f[3]}) end
h:flush(0x3f8) -- the firmware's console ends here: what follows is the kernel's
on_event[2][3]({time = 7, port = 0x3f8, s = "kernel\n"})
on_event[2][3]({time = 8, port = 0x3f8, s = "end"})
at_end[1]()

print("mistakes:")
for _, o in ipairs{{event = "a:x", byte = "v"}, {event = "a:x", byte = "v", fn = show, max = 0},
                   {event = "a:x", byte = 3, fn = show}, {event = "a:x", byte = "v", fn = show, gap = 1}} do
  local ok, err = pcall(derive.lines, o)
  print(ok and "accepted" or (tostring(err):gsub("^.-([^/]+%.lua:%d+: )", "%1")))
end
probe, finish = saved[1], saved[2]
exit(0)
end)
