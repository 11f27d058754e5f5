#!/bin/bash
# ProFTPD 1.3.8 standalone on a high port: virtual users (AuthUserFile), an <Anonymous> area, per-directory
# <Limit> denials, MaxLoginAttempts, idle timeouts; python ftplib clients (good/bad logins, unknown users,
# uploads/downloads/deletes/renames/mkdir/rmdir of varied file names, missing files, denials, passive and
# active mode, aborted transfers, SITE commands, garbage commands), ftpdctl admin commands, SIGHUP reloads
# (anonymous switched off, a broken config), DebugLevel raised for part of the run. Run with -n: its log
# (the SystemLog format) on stderr is the raw log.
. "$(dirname "$0")/common.sh"
D=$W/proftpd; rm -rf $D; mkdir -p $D/home $D/anon/pub $D/anon/incoming
P=22021
USERS="alice.martin bob_ross carla.diaz deploy svc-backup olga.petrova ravi.kumar jenkins kim.nguyen marco.rossi noah ftpadmin li.wei sara.ahmed tomasz"
i=0
for u in $USERS; do
  i=$((i+1)); uid=$((3000+i)); mkdir -p $D/home/$u/upload $D/home/$u/readonly $D/home/$u/private
  echo "pw-$u" | ftpasswd --passwd --file=$D/ftpd.passwd --name=$u --uid=$uid --gid=3000 --home=$D/home/$u --shell=/bin/false --stdin >/dev/null 2>&1
  chown -R $uid:3000 $D/home/$u; chmod 700 $D/home/$u/private; chown root: $D/home/$u/readonly
done
echo x | ftpasswd --passwd --file=$D/ftpd.passwd --name=ftp --uid=$(id -u ftp) --gid=65534 --home=$D/anon --shell=/bin/false --stdin >/dev/null 2>&1
ftpasswd --group --file=$D/ftpd.group --name=ftpusers --gid=3000 --member=alice.martin >/dev/null 2>&1
chmod 600 $D/ftpd.passwd $D/ftpd.group
$PY - "$D" <<'PYEOF'
import random, sys, os
D = sys.argv[1]; rnd = random.Random(33)
names = ['report', 'invoice', 'backup', 'photo', 'notes', 'db_dump', 'release', 'config', 'Budget 2026', 'thesis', 'logo', 'readme', 'scan', 'contract', 'export']
exts = ['.pdf', '.tar.gz', '.csv', '.jpg', '.txt', '.sql', '.zip', '.docx', '.png', '.json', '.log', '']
for u in os.listdir(D + '/home'):
    for sub in ['', 'readonly', 'private']:
        for k in range(rnd.randint(2, 6)):
            fn = '%s%s%s' % (rnd.choice(names), rnd.choice(['', '_%d' % rnd.randint(1, 99), '-v%d' % rnd.randint(1, 9)]), rnd.choice(exts))
            p = os.path.join(D, 'home', u, sub, fn)
            open(p, 'wb').write(os.urandom(rnd.randint(10, 200000)))
for k in range(8):
    open('%s/anon/pub/%s%s' % (D, rnd.choice(names), rnd.choice(exts)), 'wb').write(os.urandom(rnd.randint(100, 300000)))
PYEOF
for u in $USERS; do chown -R $(awk -F: -v u=$u '$1==u{print $3}' $D/ftpd.passwd):3000 $D/home/$u; chown -R root: $D/home/$u/readonly; chmod 755 $D/home/$u/readonly; done
chown -R ftp:nogroup $D/anon; chown root: $D/anon $D/anon/pub; chmod 777 $D/anon/incoming

mkconf() {  # $1 = anonymous on|off, $2 = DebugLevel, $3 = extra directives
cat > $D/proftpd.conf <<EOF
ServerName "tuning ftp"
ServerType standalone
DefaultServer on
Port $P
DefaultAddress 127.0.0.1
UseIPv6 off
User proftpd
Group nogroup
PidFile $D/proftpd.pid
ScoreboardFile $D/proftpd.scoreboard
DelayTable $D/proftpd.delay
WtmpLog off
UseReverseDNS off
DelayEngine off
DebugLevel $2
TransferLog $D/xferlog
AuthOrder mod_auth_file.c
AuthUserFile $D/ftpd.passwd
AuthGroupFile $D/ftpd.group
RequireValidShell off
DefaultRoot ~
PassivePorts 22100 22199
MaxLoginAttempts 3
MaxInstances 40
TimeoutIdle 4
TimeoutNoTransfer 30
TimeoutLogin 10
AllowOverwrite on
AllowStoreRestart on
Umask 022
ControlsEngine on
ControlsSocket $D/proftpd.sock
ControlsACLs all allow user root
ControlsLog $D/controls.log
ModulePath /usr/lib/proftpd
LoadModule mod_ctrls_admin.c
LoadModule mod_site_misc.c
LoadModule mod_copy.c
LoadModule mod_ban.c
BanEngine on
BanTable $D/ban.tab
BanOnEvent MaxLoginAttempts 2/00:01:00 00:00:20
<Directory ~/readonly>
  <Limit WRITE>
    DenyAll
  </Limit>
</Directory>
<Directory ~/private>
  <Limit READ DIRS>
    DenyUser deploy,jenkins,svc-backup
  </Limit>
</Directory>
<Limit SITE_CHMOD>
  DenyUser noah,tomasz
</Limit>
$3
EOF
if [ "$1" = on ]; then cat >> $D/proftpd.conf <<EOF
<Anonymous $D/anon>
  User ftp
  Group nogroup
  UserAlias anonymous ftp
  MaxClients 5 "Sorry, max %m users -- try again later"
  <Limit WRITE>
    DenyAll
  </Limit>
  <Directory incoming>
    <Limit STOR>
      AllowAll
    </Limit>
    <Limit READ>
      DenyAll
    </Limit>
  </Directory>
</Anonymous>
EOF
fi
}
mkconf on 0 ""
proftpd -n -c $D/proftpd.conf >>$D/proftpd.log 2>&1 & PF=$!
waitport $P
cat > $D/drive.py <<'PYEOF'
import ftplib, io, os, random, socket, sys, time
D, P, seed, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
rnd = random.Random(seed)
users = [l.split(':')[0] for l in open(D + '/ftpd.passwd')]
ghosts = ['root', 'admin', 'oracle', 'test', 'guest', 'ubuntu', 'pi', 'support', 'j.smith', 'webmaster', 'postgres', 'user1']
words = ['summary', 'q3-results', 'holiday', 'draft', 'payroll', 'build', 'index', 'dump', 'avatar', 'minutes', 'plan', 'data', 'Meeting Notes', 'inventory']
exts = ['.txt', '.pdf', '.csv', '.tar.gz', '.jpg', '.sql', '.xlsx', '.bin', '']
def fname(): return '%s%s%s' % (rnd.choice(words), rnd.choice(['', '_%d' % rnd.randint(1, 999), '-%s' % rnd.choice(['final', 'old', 'v2', 'copy'])]), rnd.choice(exts))
class F(ftplib.FTP):
    pass
def session():
    src = '127.0.%d.%d' % (rnd.randint(0, 3), rnd.randint(1, 254))
    f = F(timeout=3, source_address=(src, 0))
    f.connect('127.0.0.1', P)
    k = rnd.random()
    if k < 0.1:
        u, pw = 'anonymous', rnd.choice(['guest@', 'me@example.org', 'ftp@', ''])
    elif k < 0.2:
        u, pw = rnd.choice(ghosts), 'secret'
    else:
        u = rnd.choice(users); pw = 'pw-' + u if rnd.random() < 0.85 else rnd.choice(['wrong', 'password1', 'Summer2026!', u])
    tries = 1 if rnd.random() < 0.8 else 3
    for t in range(tries):
        try:
            f.login(u, pw); break
        except ftplib.error_perm:
            if t == tries - 1:
                try: f.quit()
                except Exception: f.close()
                return
        except Exception:
            f.close(); return
    f.set_pasv(rnd.random() < 0.75)
    for op in range(rnd.randint(1, 7)):
        r = rnd.random()
        try:
            if r < 0.15: f.nlst(rnd.choice(['', 'readonly', 'private', 'upload', 'pub', 'nowhere']))
            elif r < 0.25: f.retrlines('LIST ' + rnd.choice(['', '-la', 'readonly', 'private', 'incoming']), lambda l: None)
            elif r < 0.4:
                d = rnd.choice(['upload', 'readonly', '', 'private', 'incoming', 'missing-dir'])
                data = os.urandom(rnd.randint(0, 150000))
                f.storbinary('STOR %s' % os.path.join(d, fname()) if d else 'STOR %s' % fname(), io.BytesIO(data))
            elif r < 0.55:
                names = []
                try: names = f.nlst(rnd.choice(['', 'readonly', 'private', 'pub']))
                except Exception: pass
                target = rnd.choice(names) if names and rnd.random() < 0.75 else fname()
                f.retrbinary('RETR %s' % target, lambda b: None)
            elif r < 0.62: f.delete(rnd.choice(['upload/', 'readonly/', '']) + fname())
            elif r < 0.68:
                names = f.nlst('upload') if rnd.random() < 0.7 else []
                src_ = rnd.choice(names) if names else 'upload/' + fname()
                f.rename(src_, rnd.choice(['upload/', 'readonly/', '']) + fname())
            elif r < 0.73: f.mkd(rnd.choice(['upload/', 'readonly/', '']) + rnd.choice(['photos', 'tmp', 'archive-%d' % rnd.randint(1, 50), 'Projects']))
            elif r < 0.76: f.rmd(rnd.choice(['upload/', 'readonly/', '']) + rnd.choice(['photos', 'tmp', 'archive', 'nonexistent']))
            elif r < 0.8: f.cwd(rnd.choice(['readonly', 'private', 'upload', '/etc', '..', 'nope', 'incoming']))
            elif r < 0.84: f.sendcmd(rnd.choice(['SITE CHMOD 600 ', 'SITE CHMOD 777 ', 'SITE MKDIR ', 'SITE UTIME 20260101000000 ', 'SITE CPFR ']) + 'upload/' + fname())
            elif r < 0.87: f.sendcmd(rnd.choice(['FOO', 'HELP', 'STAT', 'SYST', 'FEAT', 'MDTM ' + fname(), 'SIZE ' + fname(), 'XYZZY', 'MLST', 'OPTS UTF8 ON', 'PORT 1,2,3', 'EPSV ALL', 'REST 100']))
            elif r < 0.92:   # aborted download
                names = f.nlst('') if rnd.random() < 0.9 else []
                big = [n for n in names if '.' in n] or ['missing.bin']
                conn = f.transfercmd('RETR ' + rnd.choice(big))
                conn.recv(1024); conn.close()
                try: f.abort()
                except Exception: pass
                try: f.voidresp()
                except Exception: pass
            elif r < 0.95:   # aborted upload
                conn = f.transfercmd('STOR upload/' + fname())
                conn.sendall(os.urandom(5000)); conn.close()
                f.voidresp()
            else:
                f.sendcmd('APPE upload/' + fname()) if False else f.storbinary('APPE upload/%s' % fname(), io.BytesIO(b'more\n'))
        except (ftplib.error_perm, ftplib.error_temp, ftplib.error_reply) as e:
            pass
        except Exception as e:
            break
    k = rnd.random()
    try:
        if k < 0.8: f.quit()
        elif k < 0.9: f.sock.close()
        else: time.sleep(0)   # leave it: the idle timeout closes it
    except Exception:
        pass
    return f
idle = []
for i in range(count):
    try:
        f = session()
        if f is not None and f.sock is not None and rnd.random() < 0.05: idle.append(f)
    except Exception:
        pass
    if i % 25 == 0:   # a raw client that sends garbage / nothing
        try:
            s = socket.create_connection(('127.0.0.1', P), timeout=3, source_address=('127.0.%d.%d' % (rnd.randint(0, 3), rnd.randint(1, 254)), 0))
            s.recv(200)
            s.sendall(rnd.choice([b'GET / HTTP/1.1\r\nHost: x\r\n\r\n', b'USER\r\n', b'PASS x\r\n', b'\x16\x03\x01\x00\x05hello\r\n', b'AUTH TLS\r\n', b'QUIT\r\n']))
            time.sleep(0.2); s.close()
        except Exception: pass
    time.sleep(0.02)
time.sleep(5)
for f in idle:
    try: f.close()
    except Exception: pass
PYEOF
Q() { $PY $D/drive.py $D $P "$@"; }
CT() { ftpdctl -s $D/proftpd.sock "$@" >/dev/null 2>&1; }
Q 1 120
CT status all; CT debug level 10
Q 2 15
CT debug level 0; CT ban info; CT ban user ghost-user; CT ban host 127.0.2.99; CT permit user ghost-user; CT kick user bob_ross; CT kick host 127.0.0.9; CT lsctrl
# debug level via config, anonymous switched off
mkconf off 5 ""
kill -HUP $PF; sleep 2
Q 3 30
# a broken config on reload, then good again
mkconf on 0 "NoSuchDirective yes"
kill -HUP $PF; sleep 2
Q 4 20
mkconf on 0 ""
if kill -0 $PF 2>/dev/null; then kill -HUP $PF; sleep 2; else proftpd -n -c $D/proftpd.conf >>$D/proftpd.log 2>&1 & PF=$!; waitport $P; fi
# bans set over the control socket, hit by clients; too many anonymous clients at once
CT ban host 127.0.2.99; CT ban user noah
$PY - $P <<'PYEOF'
import ftplib, socket, sys, time
P = int(sys.argv[1]); fs = []
def tryit(src, u, pw):
    try:
        f = ftplib.FTP(timeout=3, source_address=(src, 0)); f.connect('127.0.0.1', P); f.login(u, pw); return f
    except Exception: return None
tryit('127.0.2.99', 'olga.petrova', 'pw-olga.petrova'); tryit('127.0.1.17', 'noah', 'pw-noah'); tryit('127.0.2.99', 'anonymous', 'x@')
for i in range(7):
    f = tryit('127.0.0.%d' % (60 + i), 'anonymous', 'guest%d@' % i)
    if f: fs.append(f)
time.sleep(1)
for f in fs:
    try: f.quit()
    except Exception: pass
PYEOF
CT permit host 127.0.2.99; CT permit user noah
# a world-writable AuthUserFile
# (the daemon refuses it on reload and exits), then a restart with the file fixed
chmod 666 $D/ftpd.passwd; kill -HUP $PF; sleep 2
chmod 600 $D/ftpd.passwd
if kill -0 $PF 2>/dev/null; then kill -HUP $PF; sleep 2; else proftpd -n -c $D/proftpd.conf >>$D/proftpd.log 2>&1 & PF=$!; waitport $P; fi
# idle sessions timed out
$PY - $P <<'PYEOF'
import ftplib, sys, time
fs = []
for u in ['kim.nguyen', 'li.wei', 'deploy']:
    f = ftplib.FTP(); f.connect('127.0.0.1', int(sys.argv[1])); f.login(u, 'pw-' + u); fs.append(f)
f = ftplib.FTP(); f.connect('127.0.0.1', int(sys.argv[1])); fs.append(f)   # never logs in: login timeout
time.sleep(12)
for f in fs: f.close()
PYEOF
Q 5 60
CT shutdown graceful 2>/dev/null
sleep 2; stoppid $PF
cp $D/proftpd.log $RAW/ProFTPD.log; wc -l $RAW/ProFTPD.log
