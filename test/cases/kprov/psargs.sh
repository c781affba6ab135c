# Commands for tst.curpsinfo.d: arguments with runs of spaces and an empty one.
/bin/echo hello "a  b" "" end >/dev/null
/bin/true x y
