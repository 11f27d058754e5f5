// One newline-delimited TCP ingest connection. Lines read in one chunk form a
// batch; results go back one JSON line per input line, in input order (or not
// at all when tcp_replies is false). At most tcp_max_inflight_batches batches
// per connection are in the pipeline: above that the connection stops reading,
// so a slow pipeline pushes back through TCP flow control to the shipper.
#pragma once

#include <memory>

#include <boost/asio/ip/tcp.hpp>

#include "service/net/server_context.h"

namespace logsift {

class TlsServer;
void start_tcp_session(boost::asio::ip::tcp::socket socket, ServerContext& ctx, ListenerGrant grant,
        std::shared_ptr<TlsServer> tls);

}  // namespace logsift
