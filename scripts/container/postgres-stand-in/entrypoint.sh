# The official image's first start, in short: a cluster owned by POSTGRES_USER with its password,
# POSTGRES_DB created, password (scram-sha-256) required from any other host; then the server.
set -eu
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  : "${POSTGRES_PASSWORD:?}"
  printf '%s\n' "$POSTGRES_PASSWORD" >/tmp/pwfile
  initdb -U "${POSTGRES_USER:=postgres}" --pwfile=/tmp/pwfile --auth-local=trust --auth-host=scram-sha-256 >/dev/null
  rm /tmp/pwfile
  echo "host all all all scram-sha-256" >>"$PGDATA/pg_hba.conf"
  pg_ctl -w -o "-c listen_addresses=''" start >/dev/null
  [ "${POSTGRES_DB:=$POSTGRES_USER}" = postgres ] || createdb -U "$POSTGRES_USER" "$POSTGRES_DB"
  pg_ctl -w stop >/dev/null
fi
exec postgres -c listen_addresses='*'
