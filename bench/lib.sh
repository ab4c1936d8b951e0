# lib.sh: helpers the benchmarks share (sourced): polling without forks,
# a process's CPU time, waiting for a line, medians.

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
# the kernel buffered), at most 10 s, so its CPU time is all counted
settle_cpu() {
	local pid=$1 prev i
	proc_ticks "$pid" || return
	prev=$TICKS
	for ((i = 0; i < 50; i++)); do
		snooze 0.2
		proc_ticks "$pid" || return
		[[ $TICKS == "$prev" ]] && return
		prev=$TICKS
	done
}

median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {if (NR==0) print "nan"; else if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }
