require 'json'

module Jobs
  class Importer
    class ImportError < StandardError; end

    FEEDS = %w[acme-products globex-prices initech-stock hooli-catalog umbrella-eu].freeze
    BROKEN = ['{oops', '{"sku": 12,}', "{'sku': 1}", '[1, 2', '{"price": NaN}', 'null garbage'].freeze

    def initialize(rnd, logger, home)
      @rnd = rnd
      @logger = logger
      @home = home
    end

    def import_feed
      feed = FEEDS.sample(random: @rnd)
      begin
        parse(feed, BROKEN.sample(random: @rnd))
      rescue ImportError => e
        @logger.error(e.full_message(highlight: false, order: :top))
      end
    end

    def parse(feed, body)
      JSON.parse(body)
    rescue JSON::ParserError
      raise ImportError, "feed #{feed} unreadable (#{body.bytesize} bytes, batch #{@rnd.rand(1..9999)})"
    end

    def read_manifest
      path = File.join(@home, 'feeds', FEEDS.sample(random: @rnd), "manifest-#{@rnd.rand(1..400)}.yml")
      File.read(path)
    rescue SystemCallError => e
      @logger.error(e)
    end

    # A category tree with a cycle: recursion until the VM gives up (uncaught).
    def walk_categories
      tree = { 'root' => ['books'], 'books' => ['fiction'], 'fiction' => ['root'] }
      walk(tree, 'root', @rnd.rand(1..1000))
    end

    def walk(tree, node, seen)
      tree.fetch(node, []).each { |child| walk(tree, child, seen + 1) }
    end

    def parse_batch_size
      raw = ['12a', '1.5', '', 'ten', '0x1g', '1_000_'].sample(random: @rnd)
      begin
        Integer(raw)
      rescue ArgumentError
        raise ImportError, "bad BATCH_SIZE #{raw.inspect} in #{File.join(@home, 'config', 'import.env')}"
      end
    end
  end
end
