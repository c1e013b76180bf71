#!/bin/sh
# Stands in for ssh: starts hydra's proxy for "host" $1 in a mount and UTS
# namespace of its own, with a private /tmp and /dev/shm and the host's own
# name. Like ssh, it runs the rest of its arguments as one shell command.
while [ "${1#-}" != "$1" ]; do shift; done
host=$1; shift
exec unshare --mount --uts --propagation private sh -c 'mount -t tmpfs fibhost /tmp && mount -t tmpfs fibhost /dev/shm && hostname "$0" && exec sh -c "$1"' "$host" "$*"
