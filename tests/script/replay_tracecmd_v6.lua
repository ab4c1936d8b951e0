-- ltap-args: --input ../data/tracecmd-getppid-v6.dat
-- The trace of replay_tracecmd.lua converted by trace-cmd to version 6
-- (uncompressed): the same script, the same output.
dofile("replay_tracecmd.lua")
