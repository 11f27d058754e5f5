module Jobs
  class Mailer
    TEMPLATES = %w[welcome digest invoice password_reset shipping_update].freeze

    def initialize(rnd, logger)
      @rnd = rnd
      @logger = logger
      @subscribers = {}
    end

    # A digest for a user that has no subscription record: NoMethodError on nil, uncaught.
    def deliver_digest
      user = "u#{@rnd.rand(100..99_999)}"
      sub = @subscribers[user]
      sub.fetch(:email)
    end

    def render_template
      name = TEMPLATES.sample(random: @rnd)
      recipient = "user#{@rnd.rand(1..9999)}@example.#{%w[com org net de].sample(random: @rnd)}"
      render(name, recipient)
    rescue NameError => e
      @logger.error("Template #{name} failed for #{recipient}: #{e.message}")
    end

    def render(name, recipient)
      greeting = "Hello #{recipient}"
      "#{greeting}\n#{name}: #{recipent}"
    end
  end
end
