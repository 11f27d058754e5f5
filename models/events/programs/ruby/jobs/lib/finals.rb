require 'socket'

module Jobs
  # Scheduling, CSV exports, leased jobs and queue draining (the final actions K1-K4).
  class Finals
    PARTNERS = %w[acme globex initech umbrella hooli].freeze

    def initialize(rnd, logger, home)
      @rnd = rnd
      @logger = logger
      @home = home
      @scheduler = Scheduler.new(rnd)
      @leases = Leases.new
    end

    def run(action)
      case action
      when 'K1' then @scheduler.schedule_reminder    # Kernel#warn with the caller's backtrace
      when 'K2' then export_batch                    # Logger of an exception with a multi-line message
      when 'K3' then run_leased                      # an exception raised in an ensure clause
      when 'K4' then Drain.new(@rnd).drain           # uncaught, two causes deep: ends the process
      else raise ArgumentError, "unknown action #{action}"
      end
    end

    private

    # K2: every rejected row is a line of the exception's message; Logger prints it as it is.
    def export_batch
      batch = "exp-#{@rnd.rand(1000..99_999)}"
      rows = Array.new(@rnd.rand(1..4)) { [@rnd.rand(2..20_000), ROW_PROBLEMS.sample(random: @rnd)] }.sort
      raise Exports::RowsRejected, "batch #{batch} for #{PARTNERS.sample(random: @rnd)}: rejected rows (#{rows.size}):\n" +
                                   rows.map { |no, problem| "  row #{no}: #{problem}" }.join("\n")
    rescue Exports::RowsRejected => e
      @logger.error(e)
    end

    ROW_PROBLEMS = [
      'amount "12,50" is not a number',
      'currency "EURO" is not ISO 4217',
      'email "bob(at)example.org" is invalid',
      'date "2031-02-30" does not exist',
    ].freeze

    # K3: the job fails, then releasing its lease fails too; the ensure clause's error replaces the job's
    # (which becomes its cause, and Logger does not print causes).
    def run_leased
      job = "job-#{format('%08x', @rnd.rand(1 << 32))}"
      ttl = [5, 10, 30].sample(random: @rnd)
      @leases.with_lease(job, ttl, ttl + @rnd.rand(1..120)) do
        raise IOError, 'closed stream'
      end
    rescue Leases::LeaseLost => e
      @logger.error(e)
    end
  end

  class Scheduler
    def initialize(rnd)
      @rnd = rnd
    end

    def schedule_reminder
      enqueue_at(Time.at(1_790_000_000 + @rnd.rand(1_000_000)).utc, "reminder-#{@rnd.rand(1000..9999)}")
    end

    # Kept for old call sites: warns with the whole caller backtrace, one frame a line.
    def enqueue_at(time, job)
      warn("[DEPRECATION] Jobs::Scheduler#enqueue_at is deprecated, use #enqueue(job, at:) (#{job} at #{time.strftime('%FT%TZ')})",
           *caller)
      enqueue(job, at: time)
    end

    def enqueue(job, at:)
      [job, at]
    end
  end

  module Exports
    class RowsRejected < StandardError; end
  end

  class Leases
    class LeaseLost < StandardError; end

    def with_lease(job, ttl, held)
      yield
    ensure
      release(job, ttl, held)
    end

    private

    def release(job, ttl, held)
      raise LeaseLost, "lease of #{job} expired before release (held #{held} s, ttl #{ttl} s)" if held > ttl
    end
  end

  # K4: draining a queue needs its broker; the broker's port is closed. Each layer rescues and raises its
  # own error, so the uncaught report shows three blocks: the drain's, the connection's, Errno's.
  class Drain
    module Broker
      class ConnectionLost < StandardError; end

      def self.connect(port)
        TCPSocket.new('127.0.0.1', port)
      rescue SystemCallError
        raise ConnectionLost, "broker 127.0.0.1:#{port} unreachable"
      end
    end

    class Aborted < StandardError; end

    def initialize(rnd)
      @rnd = rnd
      @queue = QUEUES.sample(random: rnd)
    end

    def drain
      in_flight = @rnd.rand(1..40)
      begin
        Broker.connect(closed_port).close
      rescue Broker::ConnectionLost
        raise Aborted, "drain of queue #{@queue} aborted with #{in_flight} jobs in flight"
      end
    end

    private

    def closed_port
      server = TCPServer.new('127.0.0.1', 0)
      port = server.addr[1]
      server.close
      port
    end
  end
end
