#!/bin/bash
# cron 3.0pl1 (Debian) run in a private mount namespace (its own crontabs, /etc/crontab, /etc/cron.d and
# /dev/log), logging through syslog(3) to a small receiver; -L 15 logs job start, end, failures and pids.
# Varied per-user jobs (ok / failing / noisy), a broken crontab, an insecure one, an orphan, reloads.
. "$(dirname "$0")/common.sh"
D=$W/cron; rm -rf $D; mkdir -p $D/tabs $D/crond $D/dev $D/realdev $D/out; chmod 1730 $D/tabs; chgrp crontab $D/tabs
touch $D/dev/null $D/dev/zero $D/dev/urandom $D/dev/random $D/dev/tty
cat > $D/crontab <<'CONF'
SHELL=/bin/sh
PATH=/usr/local/sbin:/usr/local/bin:/sbin:/bin:/usr/sbin:/usr/bin
* * * * * root echo system-$(date +%s) > /dev/null
*/2 * * * * nobody /bin/true
CONF
mk() { local u=$1; shift; printf '%s\n' "$@" > $D/tabs/$u; chown $u:crontab $D/tabs/$u; chmod 600 $D/tabs/$u; }
mk root 'MAILTO=""' '* * * * * /bin/date +\%s > /dev/null' '* * * * * sleep 7; echo done' '* * * * * ls /nonexistent' '*/2 * * * * /usr/bin/nosuchcmd --flag' '* * * * * exit 3' '* * * * * echo out $(hostname)'
mk www-data '* * * * * /usr/bin/find /tmp -maxdepth 1 -name "*.tmp" -mmin +60 -delete' '*/2 * * * * echo cache-warm' '* * * * * test -f /nonexistent || exit 1'
mk postgres '* * * * * /usr/lib/postgresql/15/bin/pg_ctl --version > /dev/null' '*/3 * * * * vacuumdb --all --analyze-only 2>/dev/null; true'
mk nobody 'this is not a crontab line'
mk proxy '* * * * * echo rotate' ; chmod 644 $D/tabs/proxy
mk mysql '*/2 * * * * echo backup $(date +\%H\%M)'
cp $D/tabs/mysql $D/tabs/ghostuser
$PY $GEN/syslogd.py $D/dev/log $D/syslog.log & SL=$!
sleep 0.5
cat > $D/inner.sh <<INNER
mount --bind /dev $D/realdev
for f in null zero urandom random tty; do mount --bind $D/realdev/\$f $D/dev/\$f; done
mount --bind $D/dev /dev
mount --bind $D/tabs /var/spool/cron/crontabs
mount --bind $D/crond /etc/cron.d
mount --bind $D/crontab /etc/crontab
exec cron -f -L 15
INNER
unshare -m sh $D/inner.sh & CR=$!
sleep 125
touch $D/tabs/root; mk www-data '* * * * * echo reloaded-$RANDOM' '*/2 * * * * /bin/false'; touch $D/crontab
sleep 120
mk nobody '* * * * * echo now fixed'; rm -f $D/tabs/ghostuser
sleep 125
stoppid $CR; sleep 1; stoppid $SL
cp $D/syslog.log $RAW/Cron.log; wc -l $RAW/Cron.log
