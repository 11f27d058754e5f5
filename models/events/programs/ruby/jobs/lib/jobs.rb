require 'json'
require_relative 'pricing'
require_relative 'importer'
require_relative 'mailer'

module Jobs
  QUEUES = %w[default mailers imports low critical].freeze
  KINDS = %w[ImportFeedJob PriceOrderJob SendMailJob ReindexJob CleanupJob].freeze

  class Runner
    def initialize(rnd, logger, home)
      @rnd = rnd
      @logger = logger
      @home = home
      @pricing = Pricing.new(rnd, logger)
      @importer = Importer.new(rnd, logger, home)
      @mailer = Mailer.new(rnd, logger)
    end

    def run(action)
      case action
      when 'L1' then @logger.info("Job #{job_id} (#{KINDS.sample(random: @rnd)}) finished in #{format('%.3f', @rnd.rand * 30)}s")
      when 'L2' then @logger.info("Enqueued #{@rnd.rand(1..500)} jobs on queue #{QUEUES.sample(random: @rnd)}")
      when 'L3'
        max = @rnd.rand(3..25)
        @logger.warn("Job #{job_id} retry #{@rnd.rand(1..max)}/#{max} scheduled")
      when 'L4' then @logger.debug("Heartbeat: #{@rnd.rand(0..16)} workers busy, #{@rnd.rand(0..16)} idle")
      when 'F1' then @pricing.price_order
      when 'F2' then @pricing.split_invoice
      when 'F3' then @importer.import_feed
      when 'F4' then @mailer.deliver_digest      # uncaught: ends the process
      when 'F5' then @mailer.render_template
      when 'T1' then @importer.walk_categories   # uncaught: ends the process
      when 'T2' then @importer.read_manifest
      when 'T3' then @importer.parse_batch_size  # uncaught: ends the process
      when 'H1' then backoffice.deliver_webhook
      when 'H2' then backoffice.configure_queue
      when 'H3' then backoffice.reconcile_ledger  # a thread dies: report_on_exception
      when 'H4' then backoffice.await_payout      # uncaught: ends the process
      else finals.run(action)                     # K1-K4: lib/finals.rb
      end
    end

    private

    # The holdout actions' jobs (lib/backoffice.rb), loaded on first use so that nothing above moves.
    def backoffice
      require_relative 'backoffice'
      @backoffice ||= Backoffice.new(@rnd, @logger)
    end

    def job_id
      format('%024x', @rnd.rand(1 << 96))
    end

    # The final actions' jobs (lib/finals.rb), loaded on first use like the holdout ones.
    def finals
      require_relative 'finals'
      @finals ||= Finals.new(@rnd, @logger, @home)
    end
  end
end
