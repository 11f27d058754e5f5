#!/bin/bash
# PostgreSQL 15: server log (stderr) with connection/statement/duration logging, failing SQL,
# auth failures, checkpoints, autovacuum, restarts.
. "$(dirname "$0")/common.sh"
D=$W/postgresql; rm -rf $D; mkdir -p $D; chown postgres: $D
B=/usr/lib/postgresql/15/bin
su postgres -c "$B/initdb -D $D/data -A scram-sha-256 --pwfile=<(echo pgadmin) -U postgres" > $D/initdb.out 2>&1
cat >> $D/data/postgresql.conf <<CONF
port = 15432
listen_addresses = '127.0.0.1'
unix_socket_directories = '$D'
log_destination = 'stderr'
logging_collector = off
log_line_prefix = '%m [%p] %q%u@%d '
log_connections = on
log_disconnections = on
log_statement = 'ddl'
log_min_duration_statement = 20
log_checkpoints = on
log_autovacuum_min_duration = 0
autovacuum_naptime = 2
log_lock_waits = on
deadlock_timeout = 200ms
log_temp_files = 0
work_mem = 64kB
checkpoint_timeout = 30s
log_min_messages = info
log_replication_commands = on
CONF
cat > $D/data/pg_hba.conf <<CONF
local all postgres trust
local all all scram-sha-256
host all all 127.0.0.1/32 scram-sha-256
CONF
start() { su postgres -c "$B/pg_ctl -D $D/data -l $D/server.log -w start" >/dev/null; }
stop() { su postgres -c "$B/pg_ctl -D $D/data -m ${1:-fast} -w stop" >/dev/null; }
start
P="psql -X -q -h $D -p 15432 -U postgres"
$P -c "create role app login password 'apppw'" -c "create role report login password 'rpw'" -c "create database shop owner app" -c "create database analytics owner report" >/dev/null
export PGPASSWORD=apppw
A="psql -X -q -h 127.0.0.1 -p 15432 -U app -d shop"
$A <<'SQL' >/dev/null 2>&1
create table customers(id serial primary key, name text not null, email text unique, created timestamptz default now());
create table orders(id serial primary key, customer_id int references customers(id), amount numeric(10,2) check (amount >= 0), status text);
create index on orders(customer_id);
insert into customers(name,email) select 'cust'||g, 'c'||g||'@example.com' from generate_series(1,20000) g;
insert into orders(customer_id,amount,status) select 1+(g%20000), (g%997)/3.0, (array['new','paid','shipped'])[1+g%3] from generate_series(1,200000) g;
SQL
$PY - <<'PYEOF'
import random, subprocess, os
rnd = random.Random(7)
D = '/tmp/validation-work/postgresql'
good = ["select count(*) from orders where customer_id = %d",
        "select * from customers where id = %d",
        "update orders set status = 'paid' where id = %d",
        "select sum(amount) from orders o join customers c on c.id=o.customer_id where c.id < %d",
        "select * from orders order by amount desc, id limit %d",
        "select customer_id, count(*) from orders group by customer_id having count(*) > %d order by 2 desc",
        "insert into customers(name,email) values ('n%d', null)",
        "delete from orders where id = %d",
        "select pg_sleep(0.0%d)",
        "create temp table t%d as select * from orders limit 5000",
        "create index if not exists idx_status_%d on orders(status)",
        "drop index if exists idx_status_%d",
        "analyze orders",
        "select * from orders where id > %d order by status, amount limit 5000",
        "vacuum customers",
        "alter table customers add column if not exists note%d text",
        "select * from orders o1 join orders o2 on o1.amount = o2.amount where o1.id < %d order by o1.status",
]
bad = ["select * from nosuchtable%d", "select nosuchcol from orders where id=%d", "insert into orders(customer_id, amount) values (%d, -5)",
       "insert into customers(id,name) values (1, 'dup%d')", "select 1/0 + %d", "selec %d", "insert into orders(customer_id) values (99999%d)",
       "select '%d'::int + 'abc'::int", "create table customers(id int)", "drop table nosuch%d", "insert into customers(name) values (null) -- %d",
       "select * from orders where id = 'x%d'", "begin; select %d; commit; commit", "lock table orders in access exclusive mode nowait; select %d",
       "set statement_timeout = 10; select count(*) from orders o1, orders o2 where o1.id < %d", "select pg_terminate_backend(1234%d)",
       "copy orders to '/nonexistent/file%d.csv'", "select current_setting('no.such_%d')", "set work_mem = '%dkB'; set foo = 1;"]
users = [('app', 'apppw', 'shop'), ('report', 'rpw', 'analytics'), ('app', 'wrongpw', 'shop'), ('ghost', 'x', 'shop'),
         ('app', 'apppw', 'nosuchdb'), ('report', 'rpw', 'shop'), ('postgres', None, 'postgres')]
for i in range(260):
    u, pw, db = rnd.choices(users, [50, 15, 6, 4, 3, 5, 8])[0]
    stmts = []
    for _ in range(rnd.randint(1, 6)):
        src = bad if rnd.random() < 0.3 else good
        t = rnd.choice(src)
        stmts.append(t % rnd.randint(1, 3000) if '%d' in t else t)
    env = dict(os.environ)
    if pw:
        env['PGPASSWORD'] = pw; host = '127.0.0.1'
    else:
        host = D
    # each statement separately so errors don't abort the rest
    args = ['psql', '-X', '-q', '-h', host, '-p', '15432', '-U', u, '-d', db]
    for s in stmts:
        args += ['-c', s]
    subprocess.run(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60)
    if i % 50 == 49:
        subprocess.run(['psql', '-X', '-q', '-h', D, '-p', '15432', '-U', 'postgres', '-c', 'checkpoint'], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
PYEOF
# lock wait + deadlock
$A -c "begin; update orders set status='x' where id=1; select pg_sleep(1.5); update orders set status='x' where id=2; commit;" >/dev/null 2>&1 &
sleep 0.3
$A -c "begin; update orders set status='y' where id=2; select pg_sleep(0.5); update orders set status='y' where id=1; commit;" >/dev/null 2>&1
wait
# reload with a bad setting, then a good one
echo "work_mem = 'banana'" >> $D/data/postgresql.conf
su postgres -c "$B/pg_ctl -D $D/data reload" >/dev/null; sleep 1
sed -i '$d' $D/data/postgresql.conf
su postgres -c "$B/pg_ctl -D $D/data reload" >/dev/null; sleep 1
stop fast; start; sleep 3
$A -c "select count(*) from orders" >/dev/null 2>&1
stop immediate; start; sleep 2
stop smart
cp $D/server.log $RAW/PostgreSQL.log
wc -l $RAW/PostgreSQL.log
