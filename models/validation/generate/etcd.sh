#!/bin/bash
# etcd 3.4 (zap JSON logger): 3-member local cluster; the logs of the three members are concatenated.
# Workload: put/get/txn/leases/compaction/defrag/snapshot/auth, a member killed and restarted,
# a phantom member added and removed, leader transfer.
. "$(dirname "$0")/common.sh"
D=$W/etcd; rm -rf $D; mkdir -p $D
CL="n1=http://127.0.0.1:12380,n2=http://127.0.0.1:22380,n3=http://127.0.0.1:32380"
declare -A EP
node() { local n=$1 p=$2 st=${3:-new}
  etcd --name $n --data-dir $D/$n --logger=zap --log-outputs=stderr --log-level=${LVL:-info} \
    --listen-client-urls http://127.0.0.1:${p}379 --advertise-client-urls http://127.0.0.1:${p}379 \
    --listen-peer-urls http://127.0.0.1:${p}380 --initial-advertise-peer-urls http://127.0.0.1:${p}380 \
    --initial-cluster $CL --initial-cluster-state $st --initial-cluster-token tok --snapshot-count 500 \
    --heartbeat-interval 200 --election-timeout 2000 --auto-compaction-mode revision --auto-compaction-retention 1000 \
    >> $D/$n.log 2>&1 &
  EP[$n]=$!; }
node n1 12; node n2 22; node n3 32
waitport 12379; waitport 22379; waitport 32379; sleep 3
E="etcdctl --endpoints=127.0.0.1:12379,127.0.0.1:22379,127.0.0.1:32379"
export ETCDCTL_API=3
$PY - <<'PYEOF' > $D/ops.txt
import random
rnd = random.Random(9)
for i in range(1500):
    print('put /app/%s/%d val%d' % (rnd.choice(['cfg', 'svc', 'lock', 'job']), rnd.randint(1, 400), i))
PYEOF
$E put seed 1 >/dev/null
while read -r op k v; do echo "$op $k $v"; done < $D/ops.txt | head -0
# etcdctl has no batch mode: use a loop over a few hundred puts with a txn/lease mix
i=0; while read -r op k v; do i=$((i+1)); [ $((i % 3)) = 0 ] || continue; $E put "$k" "$v" >/dev/null; done < $D/ops.txt
for j in $(seq 1 15); do
  L=$($E lease grant $((j+2)) | awk '{print $2}'); $E put --lease=$L /lease/k$j v >/dev/null
  [ $((j%3)) = 0 ] && $E lease revoke $L >/dev/null
  $E txn <<<"value(\"/app/cfg/$j\") = \"x\"

put /txn/$j ok

" >/dev/null 2>&1
done
REV=$($E put /rev x -w json | $PY -c 'import json,sys;print(json.load(sys.stdin)["header"]["revision"])')
$E compaction $((REV-50)) >/dev/null; $E compaction 1 >/dev/null 2>&1
$E defrag >/dev/null 2>&1
etcdctl --endpoints=127.0.0.1:12379 snapshot save $D/snap.db >/dev/null 2>&1
$E get /app --prefix --keys-only >/dev/null; $E del /app/job --prefix >/dev/null
stoppid ${EP[n3]}; sleep 8
for k in $(seq 1 100); do $E put /while-down/$k $k >/dev/null; done
node n3 32 existing; sleep 6
$E member add n4 --peer-urls=http://127.0.0.1:42380 > $D/n4.out 2>&1; sleep 10
ID4=$($E member list | awk -F', ' '/n4|42380/{print $1}'); [ -n "$ID4" ] && $E member remove $ID4 >/dev/null
$E member add bad --peer-urls=notaurl >/dev/null 2>&1
LEADER=$($E endpoint status -w json | $PY -c 'import json,sys; d=json.load(sys.stdin); print([x for x in d if x["Status"]["leader"]==x["Status"]["header"]["member_id"]][0]["Endpoint"])')
OTHER=$($E endpoint status -w json | $PY -c 'import json,sys; d=json.load(sys.stdin); print("%x" % [x for x in d if x["Status"]["leader"]!=x["Status"]["header"]["member_id"]][0]["Status"]["header"]["member_id"])')
etcdctl --endpoints=$LEADER move-leader $OTHER >/dev/null 2>&1; sleep 3
$E user add root:rootpw >/dev/null; $E user add alice:pw >/dev/null; $E role add r1 >/dev/null; $E role grant-permission r1 readwrite /app --prefix >/dev/null
$E user grant-role alice r1 >/dev/null; $E auth enable >/dev/null
for k in 1 2 3 4 5; do $E --user alice:pw put /app/a$k v >/dev/null 2>&1; $E --user alice:wrong get /app/a$k >/dev/null 2>&1; $E --user alice:pw put /other$k v >/dev/null 2>&1; done
$E --user root:rootpw auth disable >/dev/null
$E alarm list >/dev/null; $E check perf --load=s >/dev/null 2>&1 &
CP=$!; sleep 25; kill $CP 2>/dev/null; wait $CP 2>/dev/null
stoppid ${EP[n1]}; sleep 4; node n1 12 existing; sleep 8
for n in n2 n3 n1; do stoppid ${EP[$n]}; sleep 2; done
cat $D/n1.log $D/n2.log $D/n3.log > $RAW/Etcd.log; wc -l $RAW/Etcd.log   # the three members, concatenated
