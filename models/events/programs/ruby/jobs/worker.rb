# Background job worker: imports partner feeds, prices orders, sends mails.
#
#   ruby worker.rb SEED PLAN      (PLAN: one action code per line, run in order)
#
# Logs through Logger to $stderr (its default format). LOGSIFT_LOG / LOGSIFT_MARKS: before each action the
# log file's size and the action code are appended to the marks file (the data set generator's labels).
require 'logger'
require_relative 'lib/jobs'

$stderr.sync = true
$stdout.sync = true

def mark(action)
  File.open(ENV.fetch('LOGSIFT_MARKS'), 'a') { |f| f.write("#{File.size(ENV.fetch('LOGSIFT_LOG'))}\t#{action}\n") }
end

rnd = Random.new(Integer(ARGV[0]))
plan = File.readlines(ARGV[1], chomp: true).map(&:strip).reject(&:empty?)
logger = Logger.new($stderr)
runner = Jobs::Runner.new(rnd, logger, __dir__)

plan.each do |action|
  mark(action)
  runner.run(action)
end
