require 'timeout'

module Jobs
  # Back-office jobs: partner webhooks, queue settings, ledger reconciliation, payout confirmations
  # (the holdout actions H1-H4).
  class Backoffice
    DEFAULTS = { queue: 'default', retries: 3, backoff: 'exponential' }.freeze
    EVENTS = %w[order.paid order.refunded invoice.sent payout.failed customer.deleted].freeze

    def initialize(rnd, logger)
      @rnd = rnd
      @logger = logger
      @notifier = Notifier.new
      @payouts = Queue.new
      @runs = 0
    end

    # H1: a call site still passes the retry count that Notifier#notify no longer takes.
    def deliver_webhook
      id = "wh_#{format('%08x', @rnd.rand(1 << 32))}"
      event = EVENTS.sample(random: @rnd)
      begin
        @notifier.notify(event, { id: id, attempt: 1 }, @rnd.rand(1..5))
      rescue ArgumentError => e
        @logger.error("Webhook #{id} failed: #{e.class}: #{e.message}\n#{e.backtrace.join("\n")}")
      end
    end

    # H2: per-queue options merged into the frozen defaults in place; logged with an old-style
    # bottom-first full_message.
    def configure_queue
      queue = QUEUES.sample(random: @rnd)
      begin
        options_for(queue, @rnd.rand(1..10))
      rescue FrozenError => e
        @logger.warn(e.full_message(highlight: false, order: :bottom))
      end
    end

    # H3: a reconciliation thread dies; Ruby reports it (report_on_exception), the job goes on.
    def reconcile_ledger
      @runs += 1
      ledger = "L-#{@rnd.rand(100..9999)}"
      diff = format('%.2f', @rnd.rand(1..99_999) / 100.0)
      worker = Thread.new do
        Thread.current.name = "reconcile-#{@runs}"
        check_balance(ledger, diff)
      end
      begin
        worker.join
      rescue RuntimeError
        @failed = (@failed || 0) + 1
      end
    end

    # H4: waits for a payout confirmation that never comes; the Timeout::Error is not rescued.
    def await_payout
      limit = [0.05, 0.1, 0.2].sample(random: @rnd)
      Timeout.timeout(limit) { @payouts.pop }
    end

    private

    def options_for(queue, retries)
      opts = DEFAULTS
      opts[:queue] = queue
      opts[:retries] = retries
      opts
    end

    def check_balance(ledger, diff)
      raise "ledger #{ledger} out of balance by #{diff} EUR" unless diff == '0.00'
    end
  end

  class Notifier
    def notify(event, payload)
      { event: event, payload: payload }
    end
  end
end
