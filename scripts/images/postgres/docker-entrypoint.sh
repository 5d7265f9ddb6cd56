#!/usr/bin/env bash
# The official postgres image's contract, for the stand-in: arguments starting with "-" go to
# postgres; started as root it drops to the postgres user (uid 999); on first start (no
# $PGDATA/PG_VERSION) it runs initdb with POSTGRES_USER and POSTGRES_PASSWORD, allows password
# (scram-sha-256) logins from any host, creates POSTGRES_DB, runs /docker-entrypoint-initdb.d/*.sql
# and *.sh; then it runs postgres in the foreground. Writes only under $PGDATA, /var/run/postgresql
# and /tmp, so it works on a read-only root filesystem.
set -Eeuo pipefail

if [ "${1:0:1}" = '-' ]; then
  set -- postgres "$@"
fi
if [ "$1" != postgres ]; then
  exec "$@"
fi

if [ "$(id -u)" = 0 ]; then
  mkdir -p "$PGDATA" /var/run/postgresql
  chown postgres:postgres "$PGDATA" /var/run/postgresql
  exec setpriv --reuid=postgres --regid=postgres --init-groups "${BASH_SOURCE[0]}" "$@"
fi

if [ ! -s "$PGDATA/PG_VERSION" ]; then
  if [ -z "${POSTGRES_PASSWORD:-}" ]; then
    echo 'postgres: POSTGRES_PASSWORD is required on first start (the database would be reachable without a password)' >&2
    exit 1
  fi
  export POSTGRES_USER="${POSTGRES_USER:-postgres}"
  export POSTGRES_DB="${POSTGRES_DB:-$POSTGRES_USER}"
  mkdir -p "$PGDATA"
  chmod 700 "$PGDATA"
  # shellcheck disable=SC2086 # POSTGRES_INITDB_ARGS is a list of flags, as in the official image
  initdb --username="$POSTGRES_USER" ${POSTGRES_INITDB_ARGS:-}
  printf '\nhost all all all scram-sha-256\n' >>"$PGDATA/pg_hba.conf"

  # A private server (unix socket only) for the set-up, stopped before the real start. psql takes
  # the names and the password from the environment (\getenv): never from a command line.
  pg_ctl -D "$PGDATA" -w -o "-c listen_addresses=''" start
  psql=(psql -v ON_ERROR_STOP=1 --no-psqlrc --username "$POSTGRES_USER")
  "${psql[@]}" --dbname postgres <<'SQL'
\getenv user POSTGRES_USER
\getenv password POSTGRES_PASSWORD
\getenv db POSTGRES_DB
ALTER ROLE :"user" PASSWORD :'password';
SELECT format('CREATE DATABASE %I', :'db') WHERE :'db' <> 'postgres' \gexec
SQL
  for script in /docker-entrypoint-initdb.d/*; do
    case "$script" in
      *.sql) "${psql[@]}" --dbname "$POSTGRES_DB" -f "$script" ;;
      *.sh) bash "$script" ;;
    esac
  done
  pg_ctl -D "$PGDATA" -m fast -w stop
fi

exec "$@"
