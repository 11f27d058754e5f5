// One HTTP/1.1 connection: read a request (bounded header, body and time),
// hand it to ctx.http_handler (the routes), write the reply, repeat while
// keep-alive. All of it runs on the connection's strand.
#pragma once

#include <memory>

#include <boost/asio/ip/tcp.hpp>

#include "service/net/server_context.h"

namespace logsift {

class TlsServer;
void start_http_session(boost::asio::ip::tcp::socket socket, ServerContext& ctx, ListenerGrant grant,
        std::shared_ptr<TlsServer> tls);

}  // namespace logsift
