#!/bin/bash
# Dpkg: this machine's own /var/log/dpkg.log (real package installs/upgrades, including the ones made
# to install the servers for this validation set). Nothing is driven; the file is copied.
. "$(dirname "$0")/common.sh"
cat /var/log/dpkg.log > $RAW/Dpkg.log; wc -l $RAW/Dpkg.log
