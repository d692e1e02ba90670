#!/usr/bin/env bash
# A one-node Ceph cluster with a RADOS Gateway (RGW) on 127.0.0.1, for the real-S3 test
# suite (`npm run test:s3-real`, test/s3-real/). RGW is a real S3 implementation: it checks
# SigV4 signatures, pages listings at 1,000 keys and keeps a usage log per user.
#
#   scripts/ceph-rgw.sh start DIR   start mon, mgr, one memstore OSD and radosgw; create the
#                                   user; print the endpoint. PIDs go to DIR/pids.
#   scripts/ceph-rgw.sh stop DIR    stop what DIR/pids names (all data is gone: memstore)
#   scripts/ceph-rgw.sh usage DIR   the user's usage log as JSON (radosgw-admin usage show)
#
# Needs Debian's ceph-mon, ceph-mgr, ceph-osd, radosgw and ceph-common (Ceph 16.2 on
# Debian 12); about 700 MB installed, 20 s to start. Settings that matter on one node:
# - `auth none` keeps it small; radosgw then needs `ms mon client mode = crc` (its default
#   "secure" mode is impossible without auth and fails with -13, EACCES);
# - RGW creates about nine pools: 8 placement groups each and `mon max pg per osd = 1000`
#   keep one OSD under its limit;
# - the usage log is flushed every second, so a test reads it right after a run.
# Do not start it under `timeout`: that signals the whole process group and kills radosgw
# while it starts.
set -euo pipefail

cmd=${1:-}
D=${2:-}
if [[ -z "$cmd" || -z "$D" ]]; then
  echo "usage: $0 start|stop|usage DIR" >&2
  exit 2
fi
PORT=${CEPH_RGW_PORT:-7480}
ACCESS=${CEPH_RGW_ACCESS_KEY:-TIERSCOPEKEY}
SECRET=${CEPH_RGW_SECRET_KEY:-TIERSCOPESECRET}

stop() {
  [[ -f "$D/pids" ]] || return 0
  # radosgw first, the monitor last: the others report to it while they stop.
  for pid in $(tac "$D/pids"); do kill "$pid" 2>/dev/null || true; done
  for _ in $(seq 50); do
    alive=0
    for pid in $(cat "$D/pids"); do kill -0 "$pid" 2>/dev/null && alive=1; done
    [[ $alive == 0 ]] && break
    sleep 0.2
  done
  for pid in $(cat "$D/pids"); do kill -9 "$pid" 2>/dev/null || true; done
  rm -f "$D/pids"
}

case "$cmd" in
  stop)
    stop
    exit 0
    ;;
  usage)
    exec radosgw-admin -c "$D/ceph.conf" usage show --uid=tierscope
    ;;
  start) ;;
  *)
    echo "usage: $0 start|stop|usage DIR" >&2
    exit 2
    ;;
esac

for bin in ceph-mon ceph-mgr ceph-osd radosgw radosgw-admin ceph monmaptool ceph-authtool; do
  command -v "$bin" >/dev/null || { echo "$0: $bin is not installed (Debian: apt-get install ceph-mon ceph-mgr ceph-osd radosgw ceph-common)" >&2; exit 3; }
done
stop
rm -rf "$D"
mkdir -p "$D"/{mon,mgr,osd,rgw,run,log}
FSID=$(cat /proc/sys/kernel/random/uuid)
cat > "$D/ceph.conf" <<CONF
[global]
fsid = $FSID
mon host = 127.0.0.1
mon initial members = a
public addr = 127.0.0.1
cluster addr = 127.0.0.1
ms bind ipv6 = false
auth cluster required = none
auth service required = none
auth client required = none
osd pool default size = 1
osd pool default min size = 1
mon allow pool size one = true
mon allow pool delete = true
osd pool default pg num = 8
osd pool default pgp num = 8
osd pool default pg autoscale mode = off
mon max pg per osd = 1000
osd crush chooseleaf type = 0
mon warn on pool no redundancy = false
run dir = $D/run
log file = $D/log/\$name.log
admin socket = $D/run/\$name.asok
[mon]
mon data = $D/mon/\$name
[mgr]
mgr data = $D/mgr/\$name
[osd]
osd data = $D/osd/\$name
osd objectstore = memstore
memstore device bytes = 4294967296
[client.rgw.tierscope]
rgw frontends = beast endpoint=127.0.0.1:$PORT
ms mon client mode = crc
rgw data = $D/rgw
debug rgw = 1
rgw enable usage log = true
rgw usage log tick interval = 1
rgw usage log flush threshold = 1
CONF
C=(-c "$D/ceph.conf")
say() { echo "ceph-rgw: $*" >&2; }
fail() {
  say "$1 (logs in $D/log)"
  stop
  exit 1
}
ceph-authtool --create-keyring "$D/mon.keyring" --gen-key -n mon. --cap mon 'allow *' >/dev/null
monmaptool --create --addv a "[v2:127.0.0.1:3300,v1:127.0.0.1:6789]" --fsid "$FSID" "$D/monmap" >/dev/null
ceph-mon "${C[@]}" --mkfs -i a --monmap "$D/monmap" --keyring "$D/mon.keyring"
ceph-mon "${C[@]}" -i a --pid-file "$D/run/mon.pid"
for _ in $(seq 50); do [[ -s "$D/run/mon.pid" ]] && break; sleep 0.2; done
cat "$D/run/mon.pid" >> "$D/pids"
ceph "${C[@]}" --connect-timeout 60 -s >/dev/null || fail 'the monitor did not answer'
mkdir -p "$D/mgr/mgr.x"
ceph-mgr "${C[@]}" -i x --pid-file "$D/run/mgr.pid"
for _ in $(seq 50); do [[ -s "$D/run/mgr.pid" ]] && break; sleep 0.2; done
cat "$D/run/mgr.pid" >> "$D/pids"
UUID=$(cat /proc/sys/kernel/random/uuid)
ID=$(ceph "${C[@]}" osd new "$UUID")
mkdir -p "$D/osd/osd.$ID"
ceph-osd "${C[@]}" -i "$ID" --mkfs --osd-uuid "$UUID" 2>>"$D/log/osd-mkfs.log"
ceph-osd "${C[@]}" -i "$ID" --pid-file "$D/run/osd.pid"
for _ in $(seq 50); do [[ -s "$D/run/osd.pid" ]] && break; sleep 0.2; done
cat "$D/run/osd.pid" >> "$D/pids"
up=0
for _ in $(seq 90); do
  if ceph "${C[@]}" osd stat 2>/dev/null | grep -q '1 up'; then up=1; break; fi
  sleep 1
done
[[ $up == 1 ]] || fail 'the OSD did not come up in 90 s'
radosgw "${C[@]}" -n client.rgw.tierscope --pid-file "$D/run/rgw.pid"
ok=0
for _ in $(seq 120); do
  if curl -s -o /dev/null "http://127.0.0.1:$PORT"; then ok=1; break; fi
  sleep 1
done
for _ in $(seq 50); do [[ -s "$D/run/rgw.pid" ]] && break; sleep 0.2; done
[[ -s "$D/run/rgw.pid" ]] && cat "$D/run/rgw.pid" >> "$D/pids"
[[ $ok == 1 ]] || fail "radosgw did not answer on 127.0.0.1:$PORT in 120 s"
radosgw-admin "${C[@]}" user create --uid=tierscope --display-name=tierscope --access-key="$ACCESS" --secret="$SECRET" >/dev/null
echo "http://127.0.0.1:$PORT"
