'use strict';
// The gateway's logger: "<ISO time> <LEVEL> [<component>] <message>", INFO on stdout, WARN/ERROR on stderr.
// An error passed as the last argument goes through console.error as it is (util.inspect: stack, [cause], props).
const fs = require('fs');

function line(level, component, msg) {
  return `${new Date().toISOString()} ${level} [${component}] ${msg}`;
}

module.exports = {
  info: (c, msg) => console.log(line('INFO', c, msg)),
  warn: (c, msg) => console.error(line('WARN', c, msg)),
  error: (c, msg, err) => (err === undefined ? console.error(line('ERROR', c, msg)) : console.error(line('ERROR', c, msg), err)),
  // the data set generator's label channel: the log's size before each action, and the action's code
  mark: (action) => fs.appendFileSync(process.env.LOGSIFT_MARKS, `${fs.statSync(process.env.LOGSIFT_LOG).size}\t${action}\n`),
};
