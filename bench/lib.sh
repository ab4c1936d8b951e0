# lib.sh: helpers the benchmarks share (sourced): polling without forks,
# a process's CPU time (ticks, ns), waiting for a line, medians.

# a sleep without fork (for polling at 1 ms): read with timeout on a pipe nobody writes
exec {SLEEPFD}<> <(:)
snooze() { read -r -t "$1" -u "$SLEEPFD" _ 2>/dev/null || true; }
now_us() { local t=$EPOCHREALTIME; NOW=${t/./}; }      # microseconds, no fork

# utime+stime of a process (all its threads), in clock ticks -> TICKS
proc_ticks() {
	local s
	TICKS=
	read -r s <"/proc/$1/stat" 2>/dev/null || return 1
	s=${s##*) }
	set -- $s
	TICKS=$((${12} + ${13}))
}

# CPU time of a process (all its live threads) in ns -> CPU: the sum of
# the first field of /proc/PID/task/*/schedstat (the scheduler's
# sum_exec_runtime, in ns). utime+stime in /proc/PID/stat counts 10 ms
# ticks: at 2M events a 15 ns/event reader is 3 ticks, +-33%. Exact for a
# process that is asleep when read (measure_traced reads it after
# settle_cpu); a thread that exited is not counted (the tracers measured
# keep theirs).
proc_cpu_ns() {
	local f s sum=0
	CPU=
	for f in /proc/"$1"/task/*/schedstat; do
		read -r s _ <"$f" 2>/dev/null || continue
		sum=$((sum + s))
	done
	[[ -d /proc/$1/task ]] || return 1
	CPU=$sum
}

# wait until FILE has a line containing PAT; TIMEOUT seconds; 1 ms polling
wait_line() {
	local file=$1 pat=$2 timeout_ms=$(($3 * 1000)) pid=${4:-} line i
	for ((i = 0; i < timeout_ms; i++)); do
		if [[ -s $file ]]; then
			while IFS= read -r line; do
				[[ $line == *"$pat"* ]] && return 0
			done <"$file"
		fi
		[[ -n $pid ]] && ! kill -0 "$pid" 2>/dev/null && return 1
		snooze 0.001
	done
	return 1
}

# after the workload: wait until the tracer stops using CPU (it has read what
# the kernel buffered), at most 10 s, so its CPU time is all counted. Idle
# is less than 1 ms of CPU in 0.2 s: a tracer's periodic wake-ups (ltap's
# and the floor's 100 ms drain tick) cost microseconds, never nothing.
settle_cpu() {
	local pid=$1 prev i
	proc_cpu_ns "$pid" || return
	prev=$CPU
	for ((i = 0; i < 50; i++)); do
		snooze 0.2
		proc_cpu_ns "$pid" || return
		((CPU - prev < 1000000)) && return
		prev=$CPU
	done
}

median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {if (NR==0) print "nan"; else if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }
