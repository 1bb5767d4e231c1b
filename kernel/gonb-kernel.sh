#!/usr/bin/env bash
# gonb-kernel runs GoNB (installed beside it) as the "Go (Atlas)" kernel, with
# one spurious line of its stderr dropped.
#
# The cause, in GoNB v0.11.4's main.go: setUpExtraLog returns a nil *os.File
# when --extra_log is unset, setUpKlog receives it as a non-nil io.Writer and
# logs three sample lines ("Info message", "Warning message", "Error
# message"); with --stderrthreshold=ERROR the last one reaches stderr at every
# kernel start ("E1201 ... main.go:191] [id] Error message"), and Jupyter
# and nbconvert print it once per notebook. Passing a real --extra_log would
# still print it (it is a real ERROR record) and grow a log file forever, and
# a higher threshold would hide GoNB's real errors. So this drops exactly
# that line; every other line passes unchanged.
#
# gonb replaces this shell (exec), so Jupyter's signals reach it. The filter
# is opened on fd 3 and only dup'ed to gonb's stderr: a process substitution
# on the exec line itself would leave its pipe open on an extra fd (63) in
# gonb and in every process it starts, such as the atlas daemon of a Setup
# cell, and the filter, holding the caller's stderr, would never end.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
exec 3> >(grep --line-buffered -v -E 'main\.go:[0-9]+\] .*Error message$' >&2)
exec "$here/gonb" "$@" 2>&3 3>&-
