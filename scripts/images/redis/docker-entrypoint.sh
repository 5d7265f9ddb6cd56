#!/bin/sh
# The official redis image's contract, for the stand-in: arguments starting with "-" (or a .conf
# file) go to redis-server; started as root it drops to the redis user (uid 999). The official
# image compiles protected mode off (the pod network, not Redis, decides who connects); Debian's
# build keeps it on, so it is turned off here, before the caller's options, which still win.
set -e

case "$1" in
  -* | *.conf) set -- redis-server "$@" ;;
esac
if [ "$1" = redis-server ]; then
  shift
  case "$1" in
    *.conf) config=$1; shift; set -- redis-server "$config" --protected-mode no "$@" ;;
    *) set -- redis-server --protected-mode no "$@" ;;
  esac
  if [ "$(id -u)" = 0 ]; then
    exec setpriv --reuid=redis --regid=redis --init-groups "$@"
  fi
fi
exec "$@"
