// One syslog-over-TCP connection (the syslog_port listener): RFC 6587
// framing detected per connection (octet counting or LF), RFC 5424 and RFC
// 3164 messages (service/net/syslog.h). The MSG part is what gets clustered;
// APP-NAME/TAG, severity and HOSTNAME become the service, level and host
// labels. Syslog senders never read, so nothing is written back: a bad frame
// (framing, header, text) is counted (logsift_syslog_rejected_total and
// logsift_rejected_total{reason}), logged (rate-limited) and skipped, and the
// connection goes on. Backpressure as on the TCP listener: with
// tcp_max_inflight_batches batches in the pipeline the connection stops
// reading, so a slow pipeline pushes back through TCP flow control.
// The syslog_tls_port listener is the same over TLS (RFC 5425: octet-counted
// frames, which the framing detection takes).
#pragma once

#include <memory>

#include <boost/asio/ip/tcp.hpp>

#include "service/net/server_context.h"

namespace logsift {

class TlsServer;
void start_syslog_session(boost::asio::ip::tcp::socket socket, ServerContext& ctx, ListenerGrant grant,
                          std::shared_ptr<TlsServer> tls);

}  // namespace logsift
