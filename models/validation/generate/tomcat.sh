#!/bin/bash
# Tomcat 10.1 (JULI console log = catalina.out): several start/stop cycles, webapps deployed,
# redeployed, broken and undeployed, JSPs that log, throw, or fail to compile, bad requests.
. "$(dirname "$0")/common.sh"
D=$W/tomcat; rm -rf $D; mkdir -p $D/conf $D/logs $D/temp $D/work $D/webapps
cp /etc/tomcat10/{web.xml,context.xml,catalina.properties,tomcat-users.xml,jaspic-providers.xml} $D/conf/
cat > $D/conf/logging.properties <<'CONF'
handlers = java.util.logging.ConsoleHandler
.handlers = java.util.logging.ConsoleHandler
.level = INFO
java.util.logging.ConsoleHandler.level = FINE
java.util.logging.ConsoleHandler.formatter = org.apache.juli.OneLineFormatter
java.util.logging.ConsoleHandler.encoding = UTF-8
org.apache.catalina.startup.HostConfig.level = FINE
org.apache.catalina.core.ContainerBase.[Catalina].[localhost].level = FINE
org.apache.catalina.session.level = FINE
CONF
mkserver() { cat > $D/conf/server.xml <<CONF
<?xml version="1.0" encoding="UTF-8"?>
<Server port="18005" shutdown="SHUTDOWN">
  <Listener className="org.apache.catalina.startup.VersionLoggerListener" />
  <Listener className="org.apache.catalina.core.JreMemoryLeakPreventionListener" />
  <Listener className="org.apache.catalina.core.ThreadLocalLeakPreventionListener" />
  <Service name="Catalina">
    <Connector port="18880" protocol="HTTP/1.1" address="127.0.0.1" connectionTimeout="3000" maxThreads="${1:-20}" />
    $2
    <Engine name="Catalina" defaultHost="localhost">
      <Host name="localhost" appBase="webapps" unpackWARs="true" autoDeploy="true" deployOnStartup="true" backgroundProcessorDelay="2">
        <Valve className="org.apache.catalina.valves.AccessLogValve" directory="logs" prefix="access" suffix=".log" pattern="common" />
      </Host>
    </Engine>
  </Service>
</Server>
CONF
}
mkapp() { local a=$1; mkdir -p $D/webapps/$a/WEB-INF
  cat > $D/webapps/$a/WEB-INF/web.xml <<CONF
<?xml version="1.0" encoding="UTF-8"?>
<web-app xmlns="https://jakarta.ee/xml/ns/jakartaee" version="6.0" metadata-complete="true">
  <display-name>$a</display-name>
  <session-config><session-timeout>1</session-timeout></session-config>
</web-app>
CONF
  echo "<html><body>$a index</body></html>" > $D/webapps/$a/index.html
  cat > $D/webapps/$a/log.jsp <<'JSP'
<%@ page import="java.util.logging.*" %><%
  String u = request.getParameter("user");
  application.log("request for user " + u + " from " + request.getRemoteAddr());
  Logger.getLogger("com.example.Orders").info("Order " + request.getParameter("id") + " placed by " + u);
  if ("warn".equals(request.getParameter("mode"))) Logger.getLogger("com.example.Orders").warning("Inventory low for item " + request.getParameter("id"));
  session.setAttribute("u", u);
%>ok
JSP
  cat > $D/webapps/$a/boom.jsp <<'JSP'
<% if (true) throw new IllegalStateException("boom " + request.getParameter("id")); %>
JSP
  cat > $D/webapps/$a/npe.jsp <<'JSP'
<% String s = null; s.length(); %>
JSP
  cat > $D/webapps/$a/broken.jsp <<'JSP'
<% int x = ; %>
JSP
}
mkapp shop; mkapp blog; mkapp api
mkdir -p $D/webapps/badapp/WEB-INF; echo "<web-app><not-closed>" > $D/webapps/badapp/WEB-INF/web.xml
export CATALINA_HOME=/usr/share/tomcat10 CATALINA_BASE=$D CATALINA_TMPDIR=$D/temp JAVA_OPTS="-Xmx256m -Xss512k -XX:TieredStopAtLevel=1 -XX:ActiveProcessorCount=1"
run() { /usr/share/tomcat10/bin/catalina.sh run >> $D/logs/catalina.out 2>&1 & T=$!; waitport 18880; sleep 2; }
halt() { (exec 3<>/dev/tcp/127.0.0.1/18005; echo SHUTDOWN >&3) 2>/dev/null; wait $T; }
drive() { $PY - $1 <<'PYEOF'
import random, socket, sys, urllib.request
rnd = random.Random(int(sys.argv[1]))
apps = ['shop', 'blog', 'api', 'badapp', 'gone']
users = ['alice', 'bob', 'carol', 'dave', 'erin', 'mallory', 'trent']
for i in range(90):
    a = rnd.choice(apps)
    p = rnd.choices(['log.jsp?user=%s&id=%d' % (rnd.choice(users), rnd.randint(1, 9999)), 'log.jsp?mode=warn&user=%s&id=%d' % (rnd.choice(users), rnd.randint(1, 99)),
                     'boom.jsp?id=%d' % rnd.randint(1, 999), 'npe.jsp', 'broken.jsp', 'index.html', 'missing.jsp'], [40, 8, 6, 4, 3, 10, 5])[0]
    try:
        urllib.request.urlopen('http://127.0.0.1:18880/%s/%s' % (a, p), timeout=10).read()
    except Exception:
        pass
    if rnd.random() < 0.05:
        s = socket.create_connection(('127.0.0.1', 18880)); s.sendall(rnd.choice([b'GET /\x01bad HTTP/1.1\r\n\r\n', b'FOO BAR\r\n\r\n', b'GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n', b'\x16\x03\x01\x00']))
        try: s.recv(999)
        except Exception: pass
        s.close()
PYEOF
}
mkserver 20 ""; run
drive 1
touch $D/webapps/shop/WEB-INF/web.xml; sleep 6      # redeploy
rm -rf $D/webapps/blog; sleep 6                       # undeploy
drive 2
halt
mkapp blog; mkserver 4 '<Connector port="18880" protocol="HTTP/1.1" address="127.0.0.1" />'; run   # port clash on second connector
drive 3; halt
mkserver 10 ""; sed -i 's/<Engine /<Engine jvmRoute="w1" /' $D/conf/server.xml
echo 'org.apache.catalina.level = FINE' >> $D/conf/logging.properties
run; drive 4; sleep 70; drive 5; halt   # sessions expire (timeout 1 min)
cp $D/logs/catalina.out $RAW/Tomcat.log; wc -l $RAW/Tomcat.log
