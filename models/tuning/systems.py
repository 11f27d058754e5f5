# The tuning set's SYSTEMS table for ../validation/label.py (read when LOGSIFT_LABEL_SET points here):
# one file systems/<System>.py per system, each defining SYSTEM = dict(header=[...], format='...')
# with the same meaning as the validation set's entries (header: regexes with a named group 'c',
# the first that fullmatches a raw line gives its Content; format: what was stripped, in words).
import glob as _glob
import os as _os

SYSTEMS = {}
for _p in sorted(_glob.glob(_os.path.join(HERE, 'systems', '*.py'))):
    _ns = {}
    with open(_p, encoding='utf-8') as _f:
        exec(compile(_f.read(), _p, 'exec'), _ns)
    SYSTEMS[_os.path.basename(_p)[:-3]] = _ns['SYSTEM']
