#!/bin/sh
# Stands in for ssh: starts hydra's proxy for "host" $1 in a mount and UTS
# namespace of its own, with the host's own name, its own /dev/shm, and
# fib's temporary directory ($FIB_TEST_HIDE, else all of /tmp) replaced by
# an empty one, so that the ranks share nothing with fib but the network
# and the paths a cluster's nodes share (the program and fib's library and
# cache). Like ssh, it runs the rest of its arguments as one shell command.
while [ "${1#-}" != "$1" ]; do shift; done
host=$1; shift
hide=${FIB_TEST_HIDE:-/tmp}
exec unshare --mount --uts --propagation private sh -c 'mount -t tmpfs fibhost "$1" && mount -t tmpfs fibhost /dev/shm && hostname "$0" && exec sh -c "$2"' "$host" "$hide" "$*"
