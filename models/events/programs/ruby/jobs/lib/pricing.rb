module Jobs
  class Pricing
    CURRENCIES = %i[eur usd gbp].freeze

    def initialize(rnd, logger)
      @rnd = rnd
      @logger = logger
    end

    # A line item without the currency key: Hash#fetch raises, the job logs the exception object.
    def price_order
      items = Array.new(@rnd.rand(1..5)) { |i| { sku: "SKU-#{@rnd.rand(1000..99_999)}", amount: i + 1, currency: :eur } }
      missing = items.sample(random: @rnd)
      missing.delete(:currency)
      missing[:curr] = CURRENCIES.sample(random: @rnd)
      items.each { |item| convert(item) }
    rescue KeyError => e
      @logger.error(e)
    end

    def convert(item)
      rate = { eur: 1.0, usd: 1.08, gbp: 0.86 }.fetch(item.fetch(:currency))
      item[:amount] * rate
    end

    # Splits an invoice over nested cost centres; an empty centre divides by zero. Logged line by line.
    def split_invoice
      depth = @rnd.rand(1..7)
      invoice = "INV-#{@rnd.rand(10_000..99_999)}"
      begin
        share(@rnd.rand(100..100_000), depth)
      rescue ZeroDivisionError => e
        @logger.error("Invoice #{invoice} split failed: #{e.message} (#{e.class})")
        e.backtrace.each { |line| @logger.error("  #{line}") }
      end
    end

    def share(amount, depth)
      return amount / 0 if depth.zero?

      share(amount / 2, depth - 1)
    end
  end
end
