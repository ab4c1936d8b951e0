#!/bin/sh
# blocked.sh SWITCHER_OUT N OUT FORMAT: how many of progs/switcher's N
# sleeps blocked, as its thread counted them (ru_nvcsw: on a loaded
# machine a sleep may end before its switch out, and then there is no
# switch out in state S to see); at least 9 in 10 of them; and OUT has the
# line FORMAT with that number in place of each %d, exactly.
b=$(sed -n "s/^pid [0-9]* sleeps $2 blocked \([0-9]*\)$/\1/p" "$1")
line=$(printf '%s\n' "$4" | sed "s/%d/$b/g")
echo "the switcher blocked ${b:-?} times in $2 sleeps; want: $line"
[ -n "$b" ] && [ "$b" -ge $(($2 * 9 / 10)) ] && grep -qxF "$line" "$3"
