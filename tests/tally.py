"""tally.py: the named-check counting that tests/audio_check.py and
tests/plot_check.py share.  check() counts one assertion and prints a
failure with its detail; skip() counts a check that could not run, with the
reason; line() is the closing "NAME: N passed, N failed[, N skipped]"."""

passed = failed = skipped = 0


def check(name, ok, detail=''):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print('FAIL %s%s' % (name, ': ' + detail if detail else ''))


def skip(name, reason):
    global skipped
    skipped += 1
    print('skipped %s: %s' % (name, reason))


def line(name):
    return '%s: %d passed, %d failed%s' % (
        name, passed, failed, ', %d skipped' % skipped if skipped else '')
